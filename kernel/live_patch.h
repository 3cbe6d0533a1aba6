/* Rewriting kernel text while other CPUs may be running it: a paravirt
 * op's sites switched to another form, and static calls retargeted
 * (kernel/live_patch.c). */
#ifndef KERNEL_LIVE_PATCH_H
#define KERNEL_LIVE_PATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "pv/site.h"

struct pv_backend;

/* A place in kernel text to rewrite, and what a CPU that meets the int3
 * written over its first byte does instead of running it. */
struct live_place {
    uint64_t addr;
    uint8_t len;
    uint8_t bytes[PV_SITE_MAX_LEN]; /* the new bytes */
    int op;                         /* the site's enum pv_op, or LIVE_JUMP */
    uint64_t jump_to;               /* LIVE_JUMP: where the place sends execution */
};

#define LIVE_JUMP (-1)           /* a place that is one jmp: a static call's trampoline */
#define LIVE_PATCH_MAX_PLACES 64 /* one write's places */

/* Writes every place, each inside kernel text, safely with every CPU
 * running; one writer at a time (others wait their turn). */
void live_patch_write(const struct live_place *places, unsigned n);

/* Waits for a write under way and holds off the next until unhold: a
 * suspend must not find text half-written (kernel/lifecycle.c). */
void live_patch_hold(void);
void live_patch_unhold(void);

/* Rewrites every site of op with what be writes there, or with the
 * indirect call through op's slot when be is NULL, and returns how many
 * changed. Only restore_fl can be so rewritten (see live_patch.c). */
unsigned pv_repatch_op(enum pv_op op, const struct pv_backend *be);

/* Test only (pv.repatch_unsafe=on): later writes skip the int3 and the
 * syncs and leave each place torn for a millisecond. */
void live_patch_set_unsafe(bool on);

/* The next write with other CPUs running prints its first place's bytes
 * before and after each step (the repatch test's first rewrite). */
void live_patch_trace_next(void);

/* How many times a CPU met one of these int3s and was stood in for. */
uint64_t live_patch_traps(void);

#endif
