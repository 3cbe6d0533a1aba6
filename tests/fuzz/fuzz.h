/* Shared by the fuzz targets: a failed property aborts, which libFuzzer
 * records as a crash with the input that caused it. */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond);            \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Runs once before fuzzing: the targets check a known-good input there, so
 * a parser that rejects everything cannot pass. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Reads little-endian fields off the front of the input; past its end they read as 0, so
 * every input is usable. */
struct fuzz_input {
    const uint8_t *p;
    size_t left;
};

static inline uint64_t fuzz_take(struct fuzz_input *in, size_t n)
{
    uint64_t v = 0;

    for (size_t i = 0; i < n && in->left > 0; i++, in->p++, in->left--)
        v |= (uint64_t)in->p[0] << (8 * i);
    return v;
}

/* Stores v little-endian at p, n bytes; returns the end, for building known-good inputs. */
static inline uint8_t *fuzz_put(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + n;
}

/* A copy with a NUL after it: the parsers under test take C strings. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    FUZZ_CHECK(s != NULL);
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
