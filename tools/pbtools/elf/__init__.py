"""Readers of patchbay's image: the ELF file, its paravirt sites
(pvsites), one site's table, and the symbol table ksyms writes."""
