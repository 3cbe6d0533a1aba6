/* Protection as the kernel asks for it (VM_*) and as a 4 KiB page's entry
 * holds it (Intel SDM vol. 3, 4.5). Pure: the host unit tests compile it. */
#ifndef MM_PTE_PROT_H
#define MM_PTE_PROT_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/pgtable.h"

#define VM_READ (1u << 0)
#define VM_WRITE (1u << 1)
#define VM_EXEC (1u << 2)

/* Readable, nothing unknown, and never both writable and executable. */
bool vm_prot_valid(unsigned prot);

/* A present leaf entry for the frame at maddr. Accessed and Dirty start
 * clear: the CPU sets them on the first access and the first write. */
pte_t pte_make(uint64_t maddr, unsigned prot);

/* old with prot's rights: W and NX change, nothing else does. The frame,
 * A, D, the cache bits and the software bits a hypervisor may keep in an
 * entry all stay as they were. */
pte_t pte_modify_prot(pte_t old, unsigned prot);

/* The rights a present leaf entry grants, as VM_* bits. */
unsigned pte_prot(pte_t e);

#endif
