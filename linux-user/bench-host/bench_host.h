/* bench-host: the call-site forms the patcher writes, timed on the host's
 * own CPU in ring 3 with the TSC (make bench-host, tools/bench --host).
 *
 * The program links the kernel's own sources (linux-user/bench-host/
 * bench-host.mk lists them): the patcher and the backends' emitters write
 * each site form into a code buffer, so the bytes timed are the bytes the
 * kernel writes; the Xen irq forms run against a vcpu_info reached through
 * a GS base of the program's own, as a PV kernel runs them in ring 3; and
 * the call and lock forms are the kernel's registered benchmarks
 * (BENCH_DEFINE), run as its runner runs them. */
#ifndef LINUX_USER_BENCH_HOST_H
#define LINUX_USER_BENCH_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/site.h"

/* How a site is written: as linked, or what one backend writes over it. */
enum site_way {
    WAY_LINKED,         /* call *slot(%rip): the site unpatched, through the native table */
    WAY_NATIVE,         /* the native backend: the op's instructions inline */
    WAY_NATIVE_CONDSTI, /* the same, restore_fl as the conditional sti */
    WAY_XEN,            /* the Xen PV backend, its entries force_upcall and restore_fl_cf given */
    WAY_XEN_DIRECT, /* the Xen PV backend with direct entries only: a call to the table's thunk */
};

struct site_spec {
    enum pv_op op;
    enum site_way way;
};

#define FORM_MAX_SITES 2
#define MAX_FORMS 32

/* One form timed: sites run back to back in an emitted loop, or a
 * registered kernel benchmark run as it is. */
struct form {
    const char *name;
    const char *what; /* one line; a benchmark's own description when NULL */
    /* The kernel benchmark and configuration timing the same form under
     * icount (tools/pbtools/bench/configs.py's ids); NULL when none does. */
    const char *kernel_bench, *kernel_config;
    unsigned n_sites; /* 0 for a registered benchmark */
    struct site_spec sites[FORM_MAX_SITES];
    bool arg_if_clear;   /* rdi is the caller's flags with IF clear, else with IF set */
    const char *bench;   /* the registered benchmark, when n_sites is 0 */
    void (*setup)(void); /* before bench runs: what it runs through */
};

extern const struct form forms[];
extern const size_t n_forms;
const struct form *form_by_name(const char *name);

/* The flags word each form's sites take in rdi (forms.c). */
uint64_t form_arg(const struct form *f);

/* sites.c: the code buffer. code_build() writes every form's loop and
 * each of its sites alone (site, ret), corrupting a byte of the named
 * form's first site when corrupt is not NULL (the byte check's negative
 * control); code_seal() makes the buffer executable and no longer
 * writable; code_check_bytes() compares every site in it with what the
 * emitter writes there, saying what differs. */
void code_build(const char *corrupt);
void code_seal(void);
bool code_check_bytes(void);
void code_print_sites(void);

/* The loop of form f (or of no site at all, f NULL): n times its sites,
 * each with rdi = arg. */
void code_run_loop(const struct form *f, uint64_t n, uint64_t arg);
/* Site i of form f alone: what it leaves in rax. */
uint64_t code_run_site(const struct form *f, unsigned i, uint64_t arg);

/* check.c: every site of every form against its backend's own function
 * for the op; false after saying what differs. */
bool check_results(void);

/* vcpu.c: a per-CPU area of the kernel's layout holding a vcpu_info, with
 * this thread's GS base at it; and its mask and pending bytes. */
void vcpu_init(void);
void vcpu_set(uint8_t mask, uint8_t pending);
uint8_t vcpu_mask(void);

/* clock.c: what the figures were measured on, as one result line; and
 * the same in words, above the table. */
void clock_describe(unsigned cpu, unsigned runs, unsigned reps, uint64_t iters);
void clock_print_heading(void);

/* One line on stderr, "bench-host: ...", and exit status 1. */
__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);

#endif
