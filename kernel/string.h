/* Freestanding string and memory functions. The standard names are the
 * kernel's own; the host unit tests build with -DHOST_TEST and get libc's. */
#ifndef KERNEL_STRING_H
#define KERNEL_STRING_H

#include <stdbool.h>
#include <stddef.h>

void *memcpy(void *restrict dest, const void *restrict src, size_t n);
void *memmove(void *dest, const void *src, size_t n);
void *memset(void *dest, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);

/* True if s begins with prefix; every string begins with "". */
bool str_starts_with(const char *s, const char *prefix);

#endif
