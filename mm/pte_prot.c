#include "mm/pte_prot.h"

#define VM_ALL (VM_READ | VM_WRITE | VM_EXEC)

bool vm_prot_valid(unsigned prot)
{
    if (prot & ~VM_ALL)
        return false;
    if (!(prot & VM_READ))
        return false; /* x86 has no write-only or execute-only page */
    return (prot & (VM_WRITE | VM_EXEC)) != (VM_WRITE | VM_EXEC);
}

static pte_t rights_bits(unsigned prot)
{
    return ((prot & VM_WRITE) ? PTE_W : 0) | ((prot & VM_EXEC) ? 0 : PTE_NX);
}

pte_t pte_make(uint64_t maddr, unsigned prot)
{
    return (maddr & PTE_ADDR_MASK) | PTE_P | rights_bits(prot);
}

pte_t pte_modify_prot(pte_t old, unsigned prot)
{
    return (old & ~(PTE_W | PTE_NX)) | rights_bits(prot);
}

unsigned pte_prot(pte_t e)
{
    return VM_READ | (pte_writable(e) ? VM_WRITE : 0) | (pte_executable(e) ? VM_EXEC : 0);
}
