/* Ending a run: one verdict line, always the last the kernel prints, then the
 * platform powers off with the status (0 = clean). */
#ifndef KERNEL_EXIT_H
#define KERNEL_EXIT_H

#define EXIT_CLEAN 0
#define EXIT_FAILURE 1
/* The command line asks for what this kernel cannot do: an unknown option
 * or value, options at odds with each other or with the platform. Its
 * verdict starts "cmdline: ". tools/pbtools/run/common.py reads the number here. */
#define EXIT_CMDLINE 3

__attribute__((noreturn)) void kernel_exit(int status, const char *reason);
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);

#endif
