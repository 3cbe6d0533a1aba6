/* mm/pte_prot.c: which protections are accepted, and that changing one
 * touches only W and NX, never the frame, Accessed, Dirty or the bits a
 * hypervisor keeps in an entry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mm/pte_prot.h"

#define FRAME 0x12345000ULL
#define SOFTWARE_BITS (0x7ffULL << 52) /* bits 52..62: ignored by the CPU */

static void test_prot_valid(void **state)
{
    (void)state;
    assert_true(vm_prot_valid(VM_READ));
    assert_true(vm_prot_valid(VM_READ | VM_WRITE));
    assert_true(vm_prot_valid(VM_READ | VM_EXEC));
    assert_false(vm_prot_valid(0));
    assert_false(vm_prot_valid(VM_WRITE));                     /* not readable */
    assert_false(vm_prot_valid(VM_READ | VM_WRITE | VM_EXEC)); /* W^X */
    assert_false(vm_prot_valid(VM_READ | (1u << 5)));          /* unknown bit */
}

static void test_make(void **state)
{
    (void)state;
    assert_int_equal(pte_make(FRAME, VM_READ), FRAME | PTE_P | PTE_NX);
    assert_int_equal(pte_make(FRAME, VM_READ | VM_WRITE), FRAME | PTE_P | PTE_W | PTE_NX);
    assert_int_equal(pte_make(FRAME, VM_READ | VM_EXEC), FRAME | PTE_P);
    /* Only the address bits of maddr are taken. */
    assert_int_equal(pte_make(FRAME | 0xfff, VM_READ), FRAME | PTE_P | PTE_NX);
}

static void test_modify_keeps_accessed_dirty(void **state)
{
    pte_t old = FRAME | PTE_P | PTE_W | PTE_A | PTE_D | PTE_NX;

    (void)state;
    assert_int_equal(pte_modify_prot(old, VM_READ), FRAME | PTE_P | PTE_A | PTE_D | PTE_NX);
    assert_int_equal(pte_modify_prot(pte_modify_prot(old, VM_READ), VM_READ | VM_WRITE), old);
}

/* What Xen adds to a 64-bit PV guest's entries (the user bit, its
 * guest-kernel marker in bit 52) and the cache bits survive. */
static void test_modify_keeps_other_bits(void **state)
{
    pte_t kept = FRAME | PTE_P | PTE_U | PTE_PWT | PTE_PCD | PTE_G | SOFTWARE_BITS;

    (void)state;
    assert_int_equal(pte_modify_prot(kept | PTE_W, VM_READ), kept | PTE_NX);
    assert_int_equal(pte_modify_prot(kept | PTE_NX, VM_READ | VM_EXEC), kept);
}

static void test_prot_of_entry(void **state)
{
    (void)state;
    for (unsigned prot = 0; prot < 8; prot++) {
        if (vm_prot_valid(prot))
            assert_int_equal(pte_prot(pte_make(FRAME, prot)), prot);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prot_valid),
        cmocka_unit_test(test_make),
        cmocka_unit_test(test_modify_keeps_accessed_dirty),
        cmocka_unit_test(test_modify_keeps_other_bits),
        cmocka_unit_test(test_prot_of_entry),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
