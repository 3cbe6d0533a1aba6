/* Doubly linked lists of threads through thread->next/prev: the run queue,
 * the sleep list and the wait queues. A thread is on at most one list at a
 * time. The caller provides the locking (the scheduler lock). */
#ifndef KERNEL_THREAD_LIST_H
#define KERNEL_THREAD_LIST_H

#include <stdbool.h>

#include "kernel/thread.h"

/* All zeroes is an empty list. */
struct thread_list {
    struct thread *head; /* the next to leave */
    struct thread *tail;
};

static inline bool thread_list_empty(const struct thread_list *l)
{
    return l->head == 0;
}

/* Appends t, which must be on no list. */
void thread_list_push_back(struct thread_list *l, struct thread *t);

/* Removes and returns the first thread, or NULL if the list is empty. */
struct thread *thread_list_pop_front(struct thread_list *l);

/* Removes t, which must be on l. */
void thread_list_remove(struct thread_list *l, struct thread *t);

/* Inserts t before the first thread with a later wake_ns: earliest first,
 * and threads with equal deadlines keep their arrival order. */
void thread_list_insert_by_wake(struct thread_list *l, struct thread *t);

#endif
