#include "kernel/thread_list.h"

void thread_list_push_back(struct thread_list *l, struct thread *t)
{
    t->next = 0;
    t->prev = l->tail;
    if (l->tail)
        l->tail->next = t;
    else
        l->head = t;
    l->tail = t;
}

struct thread *thread_list_pop_front(struct thread_list *l)
{
    struct thread *t = l->head;

    if (t)
        thread_list_remove(l, t);
    return t;
}

void thread_list_remove(struct thread_list *l, struct thread *t)
{
    if (t->prev)
        t->prev->next = t->next;
    else
        l->head = t->next;
    if (t->next)
        t->next->prev = t->prev;
    else
        l->tail = t->prev;
    t->next = t->prev = 0;
}

void thread_list_insert_by_wake(struct thread_list *l, struct thread *t)
{
    struct thread *after = l->tail;

    /* Walk back from the tail: a new sleeper usually sleeps longest. */
    while (after && after->wake_ns > t->wake_ns)
        after = after->prev;
    t->prev = after;
    t->next = after ? after->next : l->head;
    if (t->next)
        t->next->prev = t;
    else
        l->tail = t;
    if (after)
        after->next = t;
    else
        l->head = t;
}
