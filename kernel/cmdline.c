#include "kernel/cmdline.h"

#include <stdarg.h>

#include "kernel/printf.h"
#include "kernel/string.h"

#define SHOWN_TOKEN_MAX 64 /* longer keys and values are shown cut short */

/* A piece of the command line; tokens are never copied, so any length works. */
struct slice {
    const char *p;
    size_t len;
};

struct line {
    char buf[CMDLINE_LINE_MAX];
    size_t len;
    bool truncated;
};

struct reporter {
    cmdline_report_fn report;
    void *ctx;
    int problems;
    unsigned caps; /* what the platform offers, against each option's needs */
};

static void line_add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line_add(struct line *l, const char *fmt, ...)
{
    size_t room = sizeof(l->buf) - l->len;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = kvsnprintf(l->buf + l->len, room, fmt, ap);
    va_end(ap);
    if ((size_t)n >= room) {
        l->len = sizeof(l->buf) - 1;
        l->truncated = true;
    } else {
        l->len += (size_t)n;
    }
}

size_t cmdline_escape(char *out, size_t size, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;

    if (size == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char e[4] = {'\\', (char)c, 0, 0};
        size_t elen = 2;
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '"' && c != '\\') {
            e[0] = (char)c;
            elen = 1;
        } else if (c < 0x20 || c >= 0x7f) {
            e[1] = 'x', e[2] = hex[c >> 4], e[3] = hex[c & 15];
            elen = 4;
        }
        if (n + elen >= size)
            break;
        memcpy(out + n, e, elen);
        n += elen;
    }
    out[n] = '\0';
    return n;
}

/* Keys and values are shown escaped, and cut short past SHOWN_TOKEN_MAX. */
static void line_add_slice(struct line *l, struct slice s)
{
    char shown[4 * SHOWN_TOKEN_MAX + 1];

    cmdline_escape(shown, sizeof(shown), s.p,
                   s.len > SHOWN_TOKEN_MAX ? SHOWN_TOKEN_MAX - 3 : s.len);
    line_add(l, "%s%s", shown, s.len > SHOWN_TOKEN_MAX ? "..." : "");
}

static void line_send(struct line *l, struct reporter *r)
{
    if (l->truncated) /* make the cut visible */
        memcpy(l->buf + l->len - 3, "...", 3);
    r->report(l->buf, r->ctx);
    r->problems++;
}

struct word_lister {
    struct line *l;
    bool first;
};

static void line_add_word(const char *word, void *ctx)
{
    struct word_lister *w = ctx;

    line_add(w->l, "%s%s", w->first ? "" : ", ", word);
    w->first = false;
}

/* The words an OPT_LIST takes, comma-separated, as its owner orders them. */
static void line_add_words(struct line *l, const struct option *opt)
{
    struct word_lister w = {.l = l, .first = true};

    opt->words(line_add_word, &w);
}

static void line_add_accepted(struct line *l, const struct option *opt)
{
    switch (opt->type) {
    case OPT_BOOL:
        line_add(l, "on|off");
        break;
    case OPT_UINT:
        line_add(l, "%llu..%llu", (unsigned long long)opt->min, (unsigned long long)opt->max);
        break;
    case OPT_ENUM:
        for (size_t i = 0; opt->choices[i]; i++)
            line_add(l, "%s%s", i ? "|" : "", opt->choices[i]);
        break;
    case OPT_STRING:
        line_add(l, "text up to %zu chars", opt->size ? opt->size - 1 : 0);
        break;
    case OPT_LIST:
        line_add(l, "up to %zu chars of NAME,NAME... from ", opt->size ? opt->size - 1 : 0);
        line_add_words(l, opt);
        break;
    }
}

static void report_unknown(struct reporter *r, struct slice key, const struct option *opts,
                           size_t nopts)
{
    struct line l = {.len = 0, .truncated = false};

    line_add(&l, "cmdline: unknown option '");
    line_add_slice(&l, key);
    line_add(&l, "' (known: ");
    for (size_t i = 0; i < nopts; i++)
        line_add(&l, "%s%s", i ? ", " : "", opts[i].key);
    line_add(&l, "%s)", nopts ? "" : "none");
    line_send(&l, r);
}

static void report_unknown_word(struct reporter *r, const struct option *opt, struct slice word)
{
    struct line l = {.len = 0, .truncated = false};

    line_add(&l, "cmdline: unknown name '");
    line_add_slice(&l, word);
    line_add(&l, "' in %s (known: ", opt->key);
    line_add_words(&l, opt);
    line_add(&l, ")");
    line_send(&l, r);
}

static void report_bad_value(struct reporter *r, const struct option *opt, struct slice value)
{
    struct line l = {.len = 0, .truncated = false};

    line_add(&l, "cmdline: bad value '");
    line_add_slice(&l, value);
    line_add(&l, "' for %s (accepted: ", opt->key);
    line_add_accepted(&l, opt);
    line_add(&l, ")");
    line_send(&l, r);
}

static void report_needs_value(struct reporter *r, const struct option *opt)
{
    struct line l = {.len = 0, .truncated = false};

    line_add(&l, "cmdline: option %s needs a value (accepted: ", opt->key);
    line_add_accepted(&l, opt);
    line_add(&l, ")");
    line_send(&l, r);
}

static void report_not_here(struct reporter *r, const struct option *opt)
{
    struct line l = {.len = 0, .truncated = false};

    line_add(&l, "cmdline: option %s does not apply to this platform", opt->key);
    line_send(&l, r);
}

static void report_check(struct reporter *r, const char *problem)
{
    struct line l = {.len = 0, .truncated = false};

    line_add(&l, "cmdline: %s", problem);
    line_send(&l, r);
}

static bool slice_equals(struct slice s, const char *word)
{
    return strncmp(word, s.p, s.len) == 0 && word[s.len] == '\0';
}

static bool parse_bool(struct slice s, bool *out)
{
    static const char *const yes[] = {"on", "1", "yes", "true"};
    static const char *const no[] = {"off", "0", "no", "false"};

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (slice_equals(s, yes[i]) || slice_equals(s, no[i])) {
            *out = slice_equals(s, yes[i]);
            return true;
        }
    }
    return false;
}

static int digit_value(char c, unsigned base)
{
    int d = -1;

    if (c >= '0' && c <= '9')
        d = c - '0';
    else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
    return d >= 0 && (unsigned)d < base ? d : -1;
}

/* Consumes digits from the front of s; false if none or on overflow. */
static bool parse_digits(struct slice *s, unsigned base, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    int d;

    for (; i < s->len && (d = digit_value(s->p[i], base)) >= 0; i++) {
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return false;
        v = v * base + (uint64_t)d;
    }
    s->p += i;
    s->len -= i;
    *out = v;
    return i > 0;
}

static unsigned suffix_shift(char c)
{
    switch (c) {
    case 'K':
    case 'k':
        return 10;
    case 'M':
    case 'm':
        return 20;
    case 'G':
    case 'g':
        return 30;
    default:
        return 0;
    }
}

/* Decimal or 0x hex, then, for a size only, an optional K, M or G (powers
 * of 1024): a count or a time given as 1k is a mistake, not 1024. */
static bool parse_uint(struct slice s, bool size_suffix, uint64_t *out)
{
    unsigned base = 10, shift;
    uint64_t v;

    if (s.len > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X')) {
        base = 16;
        s.p += 2;
        s.len -= 2;
    }
    if (!parse_digits(&s, base, &v))
        return false;
    if (s.len == 0) {
        *out = v;
        return true;
    }
    shift = size_suffix ? suffix_shift(s.p[0]) : 0;
    if (s.len != 1 || shift == 0 || v > UINT64_MAX >> shift)
        return false;
    *out = v << shift;
    return true;
}

static bool parse_enum(struct slice s, const char *const *choices, int *out)
{
    for (int i = 0; choices[i]; i++) {
        if (slice_equals(s, choices[i])) {
            *out = i;
            return true;
        }
    }
    return false;
}

struct word_match {
    struct slice word;
    bool found;
};

static void match_word(const char *word, void *ctx)
{
    struct word_match *m = ctx;

    m->found = m->found || slice_equals(m->word, word);
}

/* Reports each word of value that opt does not take; returns how many. An
 * empty word (bench=, bench=a,,b) takes nothing either. */
static int check_list(struct reporter *r, const struct option *opt, struct slice value)
{
    int unknown = 0;
    size_t start = 0;

    for (size_t i = 0; i <= value.len; i++) {
        if (i < value.len && value.p[i] != ',')
            continue;
        struct word_match m = {.word = {value.p + start, i - start}, .found = false};
        opt->words(match_word, &m);
        if (!m.found) {
            report_unknown_word(r, opt, m.word);
            unknown++;
        }
        start = i + 1;
    }
    return unknown;
}

static void store_text(const struct option *opt, struct slice value)
{
    memcpy(opt->value, value.p, value.len);
    ((char *)opt->value)[value.len] = '\0';
}

/* A list is stored only when every word in it is one it takes. */
static void set_list(struct reporter *r, const struct option *opt, struct slice value)
{
    if (value.len >= opt->size)
        report_bad_value(r, opt, value);
    else if (check_list(r, opt, value) == 0)
        store_text(opt, value);
}

/* Stores nothing unless the whole value is good. */
static bool set_option(const struct option *opt, struct slice value)
{
    bool b;
    uint64_t u;
    int index;

    switch (opt->type) {
    case OPT_BOOL:
        if (!parse_bool(value, &b))
            return false;
        *(bool *)opt->value = b;
        return true;
    case OPT_UINT:
        if (!parse_uint(value, opt->size_suffix, &u) || u < opt->min || u > opt->max)
            return false;
        *(uint64_t *)opt->value = u;
        return true;
    case OPT_ENUM:
        if (!parse_enum(value, opt->choices, &index))
            return false;
        *(int *)opt->value = index;
        return true;
    case OPT_STRING:
        if (value.len >= opt->size)
            return false;
        store_text(opt, value);
        return true;
    case OPT_LIST:
        break;
    }
    return false;
}

static const struct option *find_option(struct slice key, const struct option *opts, size_t nopts)
{
    for (size_t i = 0; i < nopts; i++) {
        if (slice_equals(key, opts[i].key))
            return &opts[i];
    }
    return NULL;
}

/* Splits `key=value` at the first '='; false for a bare key. */
static bool split_token(struct slice token, struct slice *key, struct slice *value)
{
    size_t i = 0;

    while (i < token.len && token.p[i] != '=')
        i++;
    *key = (struct slice){token.p, i};
    if (i == token.len) {
        *value = (struct slice){token.p + i, 0};
        return false;
    }
    *value = (struct slice){token.p + i + 1, token.len - i - 1};
    return true;
}

static void handle_token(struct reporter *r, struct slice token, const struct option *opts,
                         size_t nopts)
{
    struct slice key, value;
    bool has_value = split_token(token, &key, &value);
    const struct option *opt = find_option(key, opts, nopts);

    if (!opt)
        report_unknown(r, key, opts, nopts);
    else if (opt->needs & ~r->caps)
        report_not_here(r, opt);
    else if (!has_value && opt->type == OPT_BOOL)
        *(bool *)opt->value = true;
    else if (!has_value)
        report_needs_value(r, opt);
    else if (opt->type == OPT_LIST)
        set_list(r, opt, value);
    else if (!set_option(opt, value))
        report_bad_value(r, opt, value);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool next_token(const char **cursor, struct slice *token)
{
    const char *p = *cursor;

    while (is_space(*p))
        p++;
    token->p = p;
    while (*p && !is_space(*p))
        p++;
    token->len = (size_t)(p - token->p);
    *cursor = p;
    return token->len > 0;
}

int cmdline_parse(const char *cmdline, const struct option *opts, size_t nopts, unsigned caps,
                  cmdline_report_fn report, void *ctx)
{
    struct reporter r = {.report = report, .ctx = ctx, .problems = 0, .caps = caps};
    const char *cursor = cmdline ? cmdline : "";
    struct slice token;

    while (next_token(&cursor, &token))
        handle_token(&r, token, opts, nopts);
    return r.problems;
}

int cmdline_check(const struct option_check *checks, size_t nchecks, cmdline_report_fn report,
                  void *ctx)
{
    struct reporter r = {.report = report, .ctx = ctx, .problems = 0, .caps = 0};

    for (size_t i = 0; i < nchecks; i++) {
        const char *problem = checks[i].check();
        if (problem)
            report_check(&r, problem);
    }
    return r.problems;
}
