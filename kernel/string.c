#include "kernel/string.h"

#include <stdint.h>

#ifndef HOST_TEST

/* Outside -ffreestanding, gcc turns these loops into calls to the very
 * function being defined; keep them loops whatever the flags. */
#define NO_LIBCALL_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))

/* rep movsb, which CPUs since Ivy Bridge (ERMSB) run as wide moves; its
 * byte-by-byte semantics also make it a correct forward memmove. DF is
 * clear, as the C ABI requires at every call. */
static void copy_forward(void *dest, const void *src, size_t n)
{
    __asm__ volatile("rep movsb" : "+D"(dest), "+S"(src), "+c"(n) : : "memory");
}

void *memcpy(void *restrict dest, const void *restrict src, size_t n)
{
    copy_forward(dest, src, n);
    return dest;
}

NO_LIBCALL_LOOPS void *memmove(void *dest, const void *src, size_t n)
{
    unsigned char *d = dest;
    const unsigned char *s = src;

    if ((uintptr_t)d - (uintptr_t)s >= n) { /* dest not inside src: forward is safe */
        copy_forward(dest, src, n);
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dest;
}

/* rep stosb: the same fast-string path as memcpy. */
void *memset(void *dest, int c, size_t n)
{
    void *d = dest;

    __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
    return dest;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;

    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}

NO_LIBCALL_LOOPS size_t strlen(const char *s)
{
    size_t n = 0;

    while (s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    return strncmp(a, b, (size_t)-1);
}

/* Compared as unsigned char, as the C standard asks. */
int strncmp(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

        if (x != y)
            return x < y ? -1 : 1;
        if (x == '\0')
            return 0;
    }
    return 0;
}

/* Finding the terminator itself is allowed: strchr(s, 0) points at it. */
char *strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (*s == '\0')
            return NULL;
    }
}

#endif /* HOST_TEST */

bool str_starts_with(const char *s, const char *prefix)
{
    while (*prefix) {
        if (*s++ != *prefix++)
            return false;
    }
    return true;
}
