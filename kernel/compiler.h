/* What the compiler needs told, written once for every file. */
#ifndef KERNEL_COMPILER_H
#define KERNEL_COMPILER_H

/* Keeps the compiler from moving memory accesses across this point; the
 * CPU may still reorder them (that needs a fence or a locked op). */
#define compiler_barrier() __asm__ volatile("" ::: "memory")

/* A macro's value as a string literal: "42", not "ANSWER". */
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

#endif
