#ifndef MM_DIRTY_TEST_H
#define MM_DIRTY_TEST_H

/* mm.dirtytest=1: checks that changing a page's protection never loses
 * the Dirty bit the CPU set; panics if it does. Call from thread context. */
void mm_dirty_test(void);

#endif
