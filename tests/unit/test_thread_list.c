/* kernel/thread_list.c: the run queue's FIFO order, removal from any
 * place, and the sleep list's order by deadline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernel/thread_list.h"

#define N 5

static struct thread t[N];

static void reset(void)
{
    for (int i = 0; i < N; i++)
        t[i] = (struct thread){.slot = i};
}

/* The list, walked both ways, is exactly want[0..n). */
static void assert_list(const struct thread_list *l, struct thread *const *want, int n)
{
    struct thread *p = l->head;

    for (int i = 0; i < n; i++, p = p->next)
        assert_ptr_equal(p, want[i]);
    assert_null(p);
    p = l->tail;
    for (int i = n - 1; i >= 0; i--, p = p->prev)
        assert_ptr_equal(p, want[i]);
    assert_null(p);
}

static void test_fifo(void **state)
{
    struct thread_list l = {0};

    (void)state;
    reset();
    assert_true(thread_list_empty(&l));
    assert_null(thread_list_pop_front(&l));
    for (int i = 0; i < 3; i++)
        thread_list_push_back(&l, &t[i]);
    assert_list(&l, (struct thread *[]){&t[0], &t[1], &t[2]}, 3);
    assert_ptr_equal(thread_list_pop_front(&l), &t[0]);
    thread_list_push_back(&l, &t[0]); /* round robin: back of the queue */
    assert_list(&l, (struct thread *[]){&t[1], &t[2], &t[0]}, 3);
    assert_ptr_equal(thread_list_pop_front(&l), &t[1]);
    assert_ptr_equal(thread_list_pop_front(&l), &t[2]);
    assert_ptr_equal(thread_list_pop_front(&l), &t[0]);
    assert_true(thread_list_empty(&l));
    assert_null(l.tail);
}

static void test_remove_anywhere(void **state)
{
    struct thread_list l = {0};

    (void)state;
    reset();
    for (int i = 0; i < 4; i++)
        thread_list_push_back(&l, &t[i]);
    thread_list_remove(&l, &t[1]); /* middle */
    assert_list(&l, (struct thread *[]){&t[0], &t[2], &t[3]}, 3);
    thread_list_remove(&l, &t[3]); /* tail */
    assert_list(&l, (struct thread *[]){&t[0], &t[2]}, 2);
    thread_list_remove(&l, &t[0]); /* head */
    assert_list(&l, (struct thread *[]){&t[2]}, 1);
    thread_list_remove(&l, &t[2]); /* the only one */
    assert_true(thread_list_empty(&l));
    assert_null(l.tail);
    assert_null(t[2].next);
    assert_null(t[2].prev);
}

static void test_insert_by_wake(void **state)
{
    struct thread_list l = {0};
    const uint64_t wake[N] = {30, 10, 20, 10, 40};

    (void)state;
    reset();
    for (int i = 0; i < N; i++) {
        t[i].wake_ns = wake[i];
        thread_list_insert_by_wake(&l, &t[i]);
    }
    /* Earliest first; t[1] and t[3] tie and keep their arrival order. */
    assert_list(&l, (struct thread *[]){&t[1], &t[3], &t[2], &t[0], &t[4]}, N);
    assert_ptr_equal(thread_list_pop_front(&l), &t[1]);
    t[1].wake_ns = 5;
    thread_list_insert_by_wake(&l, &t[1]); /* a new head */
    assert_list(&l, (struct thread *[]){&t[1], &t[3], &t[2], &t[0], &t[4]}, N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_remove_anywhere),
        cmocka_unit_test(test_insert_by_wake),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
