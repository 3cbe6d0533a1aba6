/* xen/xenbus_state.c: the frontend's moves against a table of every pair
 * of states, and what each backend state asks of a connecting frontend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "xen/xenbus_state.h"

#define I XenbusStateInitialising
#define W XenbusStateInitWait
#define D XenbusStateInitialised
#define C XenbusStateConnected
#define G XenbusStateClosing
#define X XenbusStateClosed

struct move {
    enum xenbus_state from, to;
};

/* Every move a frontend may make; every other pair is refused. */
static const struct move allowed[] = {
    {I, D}, {I, G}, {I, X}, {D, C}, {D, G}, {D, X}, {C, G}, {C, X}, {G, X}, {X, I},
};

static bool in_table(enum xenbus_state from, enum xenbus_state to)
{
    for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
        if (allowed[i].from == from && allowed[i].to == to)
            return true;
    return false;
}

static void moves_follow_the_table(void **state)
{
    (void)state;
    for (int from = 0; from <= XenbusStateReconfigured + 1; from++)
        for (int to = 0; to <= XenbusStateReconfigured + 1; to++)
            assert_int_equal(xenbus_front_move_allowed(from, to), in_table(from, to));
}

static void the_handshake_is_a_path_through_the_table(void **state)
{
    (void)state;
    assert_true(xenbus_front_move_allowed(I, D));
    assert_true(xenbus_front_move_allowed(D, C));
    assert_true(xenbus_front_move_allowed(C, G));
    assert_true(xenbus_front_move_allowed(G, X));
    assert_false(xenbus_front_move_allowed(I, C)); /* no Connected before the ring is out */
    assert_false(xenbus_front_move_allowed(C, D)); /* never back a step */
    assert_false(xenbus_front_move_allowed(C, C));
}

static void backend_states_ask_the_right_thing(void **state)
{
    (void)state;
    assert_int_equal(xenbus_front_action(I, XenbusStateUnknown), XENBUS_WAIT);
    assert_int_equal(xenbus_front_action(I, I), XENBUS_WAIT);
    assert_int_equal(xenbus_front_action(I, W), XENBUS_PUBLISH);
    assert_int_equal(xenbus_front_action(D, W), XENBUS_WAIT); /* it has not seen our keys yet */
    assert_int_equal(xenbus_front_action(D, C), XENBUS_CONNECT);
    assert_int_equal(xenbus_front_action(I, C), XENBUS_GIVE_UP); /* connected to what? */
    assert_int_equal(xenbus_front_action(D, G), XENBUS_GIVE_UP);
    assert_int_equal(xenbus_front_action(C, X), XENBUS_GIVE_UP);
    assert_int_equal(xenbus_front_action(I, 200), XENBUS_GIVE_UP);
}

static void names(void **state)
{
    (void)state;
    assert_string_equal(xenbus_state_name(W), "InitWait");
    assert_string_equal(xenbus_state_name(X), "Closed");
    assert_string_equal(xenbus_state_name(-1), "(not a xenbus state)");
    assert_string_equal(xenbus_state_name(9), "(not a xenbus state)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(moves_follow_the_table),
        cmocka_unit_test(the_handshake_is_a_path_through_the_table),
        cmocka_unit_test(backend_states_ask_the_right_thing),
        cmocka_unit_test(names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
