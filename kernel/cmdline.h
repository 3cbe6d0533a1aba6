/* Typed kernel command line options. A subsystem declares its options next
 * to its code with the OPTION_* macros; they land in the "options" section,
 * which __start_options and __stop_options bound, and cmdline_parse() sets
 * them from `key=value` and bare `key` tokens. Checks between options
 * (OPTION_CHECK) land in "option_checks", which cmdline_check() runs once
 * every option is set. */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest line a report hands its reporter, its NUL included: the
 * list of every option key fits, after a key cut to its shown length. */
#define CMDLINE_LINE_MAX 1536

enum option_type { OPT_BOOL, OPT_UINT, OPT_ENUM, OPT_STRING, OPT_LIST };

/* OPT_LIST: the owner hands each word the list may hold to fn, in the
 * order the problem lines show them. */
typedef void (*option_word_fn)(const char *word, void *ctx);
typedef void (*option_words_fn)(option_word_fn fn, void *ctx);

struct option {
    const char *key; /* e.g. "pv.patch", "wl.pages", "fault" */
    enum option_type type;
    void *value;                /* bool*, uint64_t*, int* (index into choices), char* buffer */
    uint64_t min, max;          /* OPT_UINT: accepted range, inclusive */
    bool size_suffix;           /* OPT_UINT: a size, so K, M or G (x1024) may follow */
    const char *const *choices; /* OPT_ENUM: NULL-terminated list of accepted words */
    size_t size;                /* OPT_STRING, OPT_LIST: buffer size incl. NUL */
    option_words_fn words;      /* OPT_LIST: the words its comma-separated value may hold */
    const char *help;           /* one short phrase */
    unsigned needs; /* what the platform must offer (PV_CAP_*) for it to apply; 0: everywhere */
};

/* A check of options against each other or the platform: NULL, or one
 * line (without "cmdline: ") saying what the run cannot honour. */
struct option_check {
    const char *(*check)(void);
};

/* Gets one complete line per problem, without a trailing newline. */
typedef void (*cmdline_report_fn)(const char *line, void *ctx);

/* Sets each known option named on the command line. A problem (an unknown
 * key, a bad value, an unknown word in a list, an option whose needs the
 * platform's caps lack) is reported and leaves its option at its previous
 * value; returns the problem count. */
int cmdline_parse(const char *cmdline, const struct option *opts, size_t nopts, unsigned caps,
                  cmdline_report_fn report, void *ctx);

/* Runs every check, reporting each problem as cmdline_parse() does;
 * returns the problem count. */
int cmdline_check(const struct option_check *checks, size_t nchecks, cmdline_report_fn report,
                  void *ctx);

/* s[0..len) for a terminal: printable ASCII as it is, but ', " and \
 * behind a backslash, any other byte as \xHH. Writes whole escapes only,
 * always terminates out (size > 0); returns the length written. */
size_t cmdline_escape(char *out, size_t size, const char *s, size_t len);

extern const struct option __start_options[], __stop_options[];
extern const struct option_check __start_option_checks[], __stop_option_checks[];

/* Each macro defines option_<var>. The static assert makes a variable of the
 * wrong type a build error rather than memory corruption at boot. Parameter
 * names end in '_' so they cannot replace the field designators. A file
 * using them cannot also have a symbol named `options`: the assembler would
 * take it for the section. */
#define OPTION_DEFINE_(var_, var_type_, key_, type_, help_, ...)                                   \
    _Static_assert(__builtin_types_compatible_p(__typeof__(var_), var_type_),                      \
                   "option " key_ ": " #var_ " must be " #var_type_);                              \
    static const struct option option_##var_                                                       \
        __attribute__((section("options"), aligned(8), used)) = {                                  \
            .key = key_, .type = type_, .value = &(var_), .help = help_, __VA_ARGS__}

#define OPTION_BOOL(var_, key_, help_) OPTION_DEFINE_(var_, bool, key_, OPT_BOOL, help_, )
#define OPTION_UINT(var_, key_, lo_, hi_, help_)                                                   \
    OPTION_DEFINE_(var_, uint64_t, key_, OPT_UINT, help_, .min = (lo_), .max = (hi_))
/* A number that is an amount of memory: it alone may end in K, M or G. */
#define OPTION_SIZE(var_, key_, lo_, hi_, help_)                                                   \
    OPTION_DEFINE_(var_, uint64_t, key_, OPT_UINT, help_, .min = (lo_), .max = (hi_),              \
                   .size_suffix = true)
#define OPTION_ENUM(var_, key_, choices_, help_)                                                   \
    OPTION_DEFINE_(var_, int, key_, OPT_ENUM, help_, .choices = (choices_))
#define OPTION_STRING(var_, key_, help_)                                                           \
    OPTION_DEFINE_(var_, char[sizeof(var_)], key_, OPT_STRING, help_, .size = sizeof(var_))
/* A comma-separated list, each word one that words_ (option_words_fn) gives. */
#define OPTION_LIST(var_, key_, words_, help_)                                                     \
    OPTION_DEFINE_(var_, char[sizeof(var_)], key_, OPT_LIST, help_, .size = sizeof(var_),          \
                   .words = (words_))
/* The same for an option that applies only where the platform offers
 * needs_ (PV_CAP_*, pv/ops.h): elsewhere naming it is a problem. */
#define OPTION_BOOL_WHERE(needs_, var_, key_, help_)                                               \
    OPTION_DEFINE_(var_, bool, key_, OPT_BOOL, help_, .needs = (needs_))
#define OPTION_ENUM_WHERE(needs_, var_, key_, choices_, help_)                                     \
    OPTION_DEFINE_(var_, int, key_, OPT_ENUM, help_, .choices = (choices_), .needs = (needs_))

/* Registers fn_ (const char *fn_(void)) as a struct option_check. */
#define OPTION_CHECK(fn_)                                                                          \
    static const struct option_check option_check_##fn_                                            \
        __attribute__((section("option_checks"), aligned(8), used)) = {fn_}

#endif
