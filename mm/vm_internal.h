/* What mm/vm*.c (the pte benchmarks in mm/vm_bench.c among them) share,
 * and the dirty-bit self-test with them: the lock
 * and the window's page tables. Nothing else includes this. */
#ifndef MM_VM_INTERNAL_H
#define MM_VM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/spinlock.h"
#include "mm/pgtable.h"

/* Held around every change to the window's page tables and areas, so
 * changes and their TLB shootdowns happen one at a time. */
extern struct spinlock vm_lock;

/* vm_lock, taken and released with interrupts left as they are (mm/vm.c
 * says why); code that wants them off takes the lock first. */
void vm_lock_take(void);
void vm_lock_release(void);

/* True when the running thread holds vm_lock (another CPU may hold it). */
bool vm_lock_held_by_me(void);

/* The leaf entry for va in the window, as the kernel reads it. With
 * create, missing tables are made; without, NULL when one is missing. */
pte_t *vm_pt_entry(uint64_t va, bool create);

/* Runs the handler of the area holding addr for a write to a read-only
 * page of it; false when there is no such area or it has no handler. */
bool vm_write_fault(uint64_t addr);

#endif
