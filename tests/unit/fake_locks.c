/* Fakes for unit tests of code that takes spinlocks on one host thread:
 * a lock taken twice or released unheld fails the test, as it would
 * deadlock or corrupt on the kernel; flags come back as they went in.
 * panic() fails the test. Linked by tests that list it in unit.mk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "kernel/exit.h"
#include "kernel/spinlock.h"

#define FAKE_FLAGS 0x200 /* RFLAGS.IF, as a real save would return it */

unsigned long spin_lock_irqsave(struct spinlock *l)
{
    assert_false(spin_is_locked(l));
    l->next_ticket++;
    return FAKE_FLAGS;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
    assert_int_equal(flags, FAKE_FLAGS);
    assert_true(spin_is_locked(l));
    l->owner++;
}

void panic(const char *fmt, ...)
{
    (void)fmt;
    fail_msg("panic");
    abort();
}
