/* The configuration a result was measured in, derived at run time. */
#ifndef BENCH_CONFIG_H
#define BENCH_CONFIG_H

#include <stddef.h>

#define BENCH_CONFIG_LEN 96

/* PLATFORM-BUILD[+OPTION=VALUE...][+TAG...] into buf, e.g.
 * "native-patched", "xen-unpatched+xen.mmu=batch+spinlock=off",
 * "native-patched+restore_fl=condsti". BUILD is nopv (a PARAVIRT=n
 * image), unpatched (pv.patch=off) or patched. The options are those
 * registered with BENCH_CONFIG_OPTION whose capabilities the backend
 * offers, always shown; the tags name what differs from the defaults:
 * the patch backend's variant, then spinlock=off. */
void bench_config(char *buf, size_t size);

#endif
