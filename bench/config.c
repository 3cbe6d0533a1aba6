/* The config= field of a result line: which platform, which build, and
 * what in this run changes the code the benchmarks measure. */
#include "bench/config.h"

#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "kernel/printf.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "pv/call.h"
#include "pv/patch.h"
#include "pv/ops.h"

struct text {
    char *buf;
    size_t size, len;
};

static void add(struct text *t, const char *fmt, const char *a, const char *b)
{
    int n = ksnprintf(t->buf + t->len, t->size - t->len, fmt, a, b);

    t->len = n < 0 || (size_t)n >= t->size - t->len ? t->size - 1 : t->len + (size_t)n;
}

static const char *build_kind(void)
{
    if (!CONFIG_PARAVIRT)
        return "nopv";
    return pv_patched_with() ? "patched" : "unpatched";
}

static const struct option *find_option(const char *key)
{
    for (const struct option *o = __start_options; o < __stop_options; o++)
        if (strcmp(o->key, key) == 0)
            return o;
    return 0;
}

/* An option's value as the command line spells it, into buf. */
static const char *option_value(const struct option *o, char *buf, size_t size)
{
    switch (o->type) {
    case OPT_BOOL:
        return *(const bool *)o->value ? "on" : "off";
    case OPT_UINT:
        ksnprintf(buf, size, "%lu", *(const uint64_t *)o->value);
        return buf;
    case OPT_ENUM:
        return o->choices[*(const int *)o->value];
    case OPT_STRING:
    case OPT_LIST:
        return (const char *)o->value;
    }
    return "";
}

/* "+key=value" for an option registered with BENCH_CONFIG_OPTION, unless
 * it has the value the registration names as not worth a tag. */
static void add_option(struct text *t, const struct bench_config_option *c)
{
    const struct option *o = find_option(c->key);
    char number[24];
    const char *value;

    if (!o)
        return;
    value = option_value(o, number, sizeof(number));
    if (c->unless && strcmp(value, c->unless) == 0)
        return;
    add(t, "+%s=%s", c->key, value);
}

void bench_config(char *buf, size_t size)
{
    const struct pv_backend *be = pv_patched_with();
    struct text t = {buf, size, 0};

    add(&t, "%s-%s", pv_info.name, build_kind());
    /* Options always shown, then variants (shown when not usual): so a
     * variant's id extends its usual configuration's. */
    for (int variants = 0; variants <= 1; variants++)
        for (const struct bench_config_option *c = __start_bench_options; c < __stop_bench_options;
             c++)
            if (!(c->needs & ~pv_info.caps) && (c->unless != 0) == variants)
                add_option(&t, c);
    /* A PARAVIRT=n image has no sites, so no backend variant shows in it. */
    if (CONFIG_PARAVIRT && be && be->variant)
        add(&t, "+%s%s", be->variant, "");
    if (!spin_lock_uses_pv_ops())
        add(&t, "+%s%s", "spinlock=off", "");
    if (pv_info.variant)
        add(&t, "+%s%s", pv_info.variant, "");
    /* The disk benchmarks' boots give the guest a disk the others have not. */
    if (pv_info.caps & PV_CAP_DISK)
        add(&t, "+%s%s", "disk", "");
    /* With several CPUs, threads and locks cross between them. */
    if (smp_cpus_online() > 1) {
        char cpus[16];
        ksnprintf(cpus, sizeof(cpus), "%u", smp_cpus_online());
        add(&t, "+smp%s%s", cpus, "");
    }
}
