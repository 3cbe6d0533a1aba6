/* kernel/cmdline.c: cmdline_parse over options of every type, with the
 * whole table, one option and none (the "known:" list differs). Checks
 * that every problem line is bounded and terminated, the count matches the
 * lines, and no stored value is outside its option's range (a list holds
 * only words it takes). Also
 * cmdline_escape, which shows the same bytes: bounded, terminated, and
 * undone by reading the escapes back. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "tests/fuzz/fuzz.h"

#define LINE_MAX 1024 /* kernel/cmdline.c's bound, terminator included */
#define GUARD 0xa5

static bool flag_a, flag_b;
static uint64_t u_any, u_pages, u_fixed, u_mem;
static int e_fault, e_one;
/* Guard bytes after each buffer catch a copy past its size. */
static struct {
    char buf[1];
    uint8_t guard[15];
} s_empty;
static struct {
    char buf[8];
    uint8_t guard[8];
} s_name;
static struct {
    char buf[64];
    uint8_t guard[8];
} s_long;
static struct {
    char buf[12];
    uint8_t guard[4];
} s_list;

static const char *const list_words[] = {"all", "irq", "irq_off", "c"};
#define NLIST_WORDS (sizeof(list_words) / sizeof(list_words[0]))

static void each_list_word(option_word_fn fn, void *ctx)
{
    for (size_t i = 0; i < NLIST_WORDS; i++)
        fn(list_words[i], ctx);
}

static const char *const fault_words[] = {"none", "pf", "ud", "gp", NULL};
static const char *const one_word[] = {"only", NULL};

static const struct option opts[] = {
    {.key = "pv.patch", .type = OPT_BOOL, .value = &flag_a, .help = "h"},
    {.key = "pv", .type = OPT_BOOL, .value = &flag_b, .help = "h"},
    {.key = "any", .type = OPT_UINT, .value = &u_any, .min = 0, .max = UINT64_MAX, .help = "h"},
    {.key = "wl.pages",
     .type = OPT_UINT,
     .value = &u_pages,
     .min = 1,
     .max = 4096,
     .size_suffix = true,
     .help = "h"},
    {.key = "fixed", .type = OPT_UINT, .value = &u_fixed, .min = 7, .max = 7, .help = "h"},
    {.key = "mem",
     .type = OPT_UINT,
     .value = &u_mem,
     .min = 1ull << 20,
     .max = 1ull << 40,
     .size_suffix = true,
     .help = "h"},
    {.key = "fault", .type = OPT_ENUM, .value = &e_fault, .choices = fault_words, .help = "h"},
    {.key = "one", .type = OPT_ENUM, .value = &e_one, .choices = one_word, .help = "h"},
    {.key = "empty",
     .type = OPT_STRING,
     .value = s_empty.buf,
     .size = sizeof(s_empty.buf),
     .help = "h"},
    {.key = "name",
     .type = OPT_STRING,
     .value = s_name.buf,
     .size = sizeof(s_name.buf),
     .help = "h"},
    {.key = "a.rather.long.option.name.that.fills.the.known.list.quickly",
     .type = OPT_STRING,
     .value = s_long.buf,
     .size = sizeof(s_long.buf),
     .help = "h"},
    {.key = "list",
     .type = OPT_LIST,
     .value = s_list.buf,
     .size = sizeof(s_list.buf),
     .words = each_list_word,
     .help = "h"},
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static void reset_values(void)
{
    flag_a = false;
    flag_b = true;
    u_any = 0;
    u_pages = 64;
    u_fixed = 7;
    u_mem = 1ull << 30;
    e_fault = 0;
    e_one = 0;
    memset(&s_empty, GUARD, sizeof(s_empty));
    memset(&s_name, GUARD, sizeof(s_name));
    memset(&s_long, GUARD, sizeof(s_long));
    memset(&s_list, GUARD, sizeof(s_list));
    s_empty.buf[0] = s_name.buf[0] = s_long.buf[0] = '\0';
    strcpy(s_list.buf, "all");
}

static int enum_count(const char *const *choices)
{
    int n = 0;

    while (choices[n])
        n++;
    return n;
}

static bool guard_intact(const uint8_t *g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (g[i] != GUARD)
            return false;
    return true;
}

static bool is_list_word(const char *w, size_t len)
{
    for (size_t i = 0; i < NLIST_WORDS; i++)
        if (strlen(list_words[i]) == len && memcmp(list_words[i], w, len) == 0)
            return true;
    return false;
}

/* Every comma-separated word of the stored list is one it takes. */
static bool list_holds_only_its_words(const char *list)
{
    for (;;) {
        size_t len = strcspn(list, ",");
        if (!is_list_word(list, len))
            return false;
        if (!list[len])
            return true;
        list += len + 1;
    }
}

static void check_values(void)
{
    uint8_t raw;

    /* A bool written through another type would show as a byte other than 0 or 1. */
    memcpy(&raw, &flag_a, 1);
    FUZZ_CHECK(raw <= 1);
    memcpy(&raw, &flag_b, 1);
    FUZZ_CHECK(raw <= 1);
    FUZZ_CHECK(u_pages >= 1 && u_pages <= 4096);
    FUZZ_CHECK(u_fixed == 7);
    FUZZ_CHECK(u_mem >= 1ull << 20 && u_mem <= 1ull << 40);
    FUZZ_CHECK(e_fault >= 0 && e_fault < enum_count(fault_words));
    FUZZ_CHECK(e_one == 0);
    FUZZ_CHECK(s_empty.buf[0] == '\0');
    FUZZ_CHECK(memchr(s_name.buf, '\0', sizeof(s_name.buf)) != NULL);
    FUZZ_CHECK(memchr(s_long.buf, '\0', sizeof(s_long.buf)) != NULL);
    FUZZ_CHECK(guard_intact(s_empty.guard, sizeof(s_empty.guard)));
    FUZZ_CHECK(guard_intact(s_name.guard, sizeof(s_name.guard)));
    FUZZ_CHECK(guard_intact(s_long.guard, sizeof(s_long.guard)));
    FUZZ_CHECK(memchr(s_list.buf, '\0', sizeof(s_list.buf)) != NULL);
    FUZZ_CHECK(list_holds_only_its_words(s_list.buf));
    FUZZ_CHECK(guard_intact(s_list.guard, sizeof(s_list.guard)));
}

static void check_line(const char *line, void *ctx)
{
    size_t len = strnlen(line, LINE_MAX);

    FUZZ_CHECK(len < LINE_MAX);
    FUZZ_CHECK(memchr(line, '\n', len) == NULL);
    FUZZ_CHECK(strncmp(line, "cmdline: ", 9) == 0);
    (*(int *)ctx)++;
}

static void parse_with(const char *cmdline, size_t nopts)
{
    int lines = 0, problems;

    reset_values();
    problems = cmdline_parse(cmdline, opts, nopts, ~0u, check_line, &lines);
    FUZZ_CHECK(problems == lines);
    check_values();
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Reads the escapes back into raw; returns the raw length. */
static size_t unescape(const char *s, uint8_t *raw)
{
    size_t n = 0;

    while (*s) {
        if (*s != '\\') {
            FUZZ_CHECK(*s >= 0x20 && *s < 0x7f && *s != '\'' && *s != '"');
            raw[n++] = (uint8_t)*s++;
        } else if (s[1] == 'x') {
            FUZZ_CHECK(hex_value(s[2]) >= 0 && hex_value(s[3]) >= 0);
            raw[n++] = (uint8_t)(hex_value(s[2]) << 4 | hex_value(s[3]));
            s += 4;
        } else {
            FUZZ_CHECK(s[1] == '\'' || s[1] == '"' || s[1] == '\\');
            raw[n++] = (uint8_t)s[1];
            s += 2;
        }
    }
    return n;
}

static void check_escape(const uint8_t *data, size_t size, size_t out_size)
{
    /* Exactly out_size bytes, so a write past them is a sanitizer report. */
    char *out = malloc(out_size ? out_size : 1);
    uint8_t *raw = malloc(size ? size : 1);
    size_t n, raw_len;

    FUZZ_CHECK(out != NULL && raw != NULL);
    n = cmdline_escape(out, out_size, (const char *)data, size);
    if (out_size == 0) {
        FUZZ_CHECK(n == 0);
    } else {
        FUZZ_CHECK(n < out_size && strnlen(out, out_size) == n);
        raw_len = unescape(out, raw);
        FUZZ_CHECK(raw_len <= size && memcmp(raw, data, raw_len) == 0);
        if (out_size > 4 * size) /* room for the worst case: nothing left out */
            FUZZ_CHECK(raw_len == size);
    }
    free(raw);
    free(out);
}

/* Every type set from a good line, with no problem reported; a suffix
 * taken by sizes only. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    int lines = 0;

    (void)argc;
    (void)argv;
    reset_values();
    FUZZ_CHECK(cmdline_parse("pv.patch wl.pages=0x10 fault=ud mem=2G name=abc list=irq,c", opts,
                             NOPTS, ~0u, check_line, &lines) == 0);
    FUZZ_CHECK(lines == 0 && flag_a && u_pages == 16 && e_fault == 2 && u_mem == 2ull << 30 &&
               strcmp(s_name.buf, "abc") == 0 && strcmp(s_list.buf, "irq,c") == 0);
    FUZZ_CHECK(cmdline_parse("any=1k wl.pages=1k", opts, NOPTS, ~0u, check_line, &lines) == 1);
    FUZZ_CHECK(lines == 1 && u_any == 0 && u_pages == 1024);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *cmdline = fuzz_strdup(data, size);

    parse_with(cmdline, NOPTS);
    /* Shorter tables change only the "known:" list: a few inputs cover them. */
    if (size % 8 == 0)
        parse_with(cmdline, size % 16 ? 1 : 0);
    check_escape(data, size, 4 * size + 1);
    check_escape(data, size, size % 17);
    free(cmdline);
    return 0;
}
