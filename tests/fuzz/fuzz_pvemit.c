/* tools/pvemit.c's input: lines "ADDR OP LEN" on stdin, each patched by
 * every site form. The tool runs unchanged: its main is renamed and called
 * once per input, stdin read from the input and stdout captured.
 *
 * Input: u8 picking one of the tool's option sets, then the lines. Checks
 * each output line's form: "0xADDR PLATFORM FORM RESULT HEX", PLATFORM
 * one of the tool's platforms writing FORM, HEX being 2 * LEN digits when
 * the site is rewritten and "-" otherwise; and that the platforms sharing
 * a form print the same outcome for a site. */
#define main pvemit_main
#include "tools/pvemit.c"
#undef main

#include "tests/fuzz/fuzz.h"

static char *const option_sets[][8] = {
    {"pvemit", NULL},
    {"pvemit", "--xen", NULL},
    {"pvemit", "--xen", "--xen-direct", "irq_enable=ffffffff80002000", "--xen-direct",
     "save_fl=7fff0000", NULL},
    {"pvemit", "--xen-direct", "restore_fl=ffffffff80002000", NULL},
};
#define NR_OPTION_SETS (sizeof(option_sets) / sizeof(option_sets[0]))

_Static_assert(2 * PV_SITE_MAX_LEN < 127, "check_output's hex buffer must hold a whole site");

/* The form's index, if the platform writes it; FORM_COUNT otherwise. */
static unsigned platform_form(const char *platform, const char *form)
{
    for (size_t p = 0; p < NR_PLATFORMS; p++) {
        if (strcmp(PLATFORMS[p].name, platform) != 0)
            continue;
        for (unsigned i = 0; i < PLATFORMS[p].n_forms; i++)
            if (strcmp(form_labels[PLATFORMS[p].forms[i]], form) == 0)
                return PLATFORMS[p].forms[i];
    }
    return FORM_COUNT;
}

static void check_output(const char *out, size_t len)
{
    const char *line = out, *end = out + len;
    /* Each site's first line is the first platform's first form: what each
     * form printed for the site so far, to compare the next platform of
     * the same form with. */
    char seen[FORM_COUNT][32 + 128];
    bool have[FORM_COUNT] = {false};

    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        char platform[32], form[32], result[32], hex[128]; /* hex: 2 * PV_SITE_MAX_LEN and more */
        char outcome[sizeof(seen[0])];
        unsigned long long addr;
        unsigned f;
        FUZZ_CHECK(nl != NULL);
        FUZZ_CHECK(
            sscanf(line, "0x%llx %31s %31s %31s %127s", &addr, platform, form, result, hex) == 5);
        f = platform_form(platform, form);
        FUZZ_CHECK(f < FORM_COUNT);
        if (strcmp(result, "inline") == 0 || strcmp(result, "call") == 0) {
            size_t n = strlen(hex);
            FUZZ_CHECK(n % 2 == 0 && n >= 2 * PV_INDIRECT_CALL_LEN && n <= 2 * PV_SITE_MAX_LEN);
            FUZZ_CHECK(strspn(hex, "0123456789abcdef") == n);
        } else {
            FUZZ_CHECK(strcmp(hex, "-") == 0);
        }
        if (strcmp(platform, PLATFORMS[0].name) == 0 && f == PLATFORMS[0].forms[0])
            memset(have, 0, sizeof(have)); /* the next site */
        snprintf(outcome, sizeof(outcome), "%s %s", result, hex);
        if (have[f])
            FUZZ_CHECK(strcmp(seen[f], outcome) == 0);
        memcpy(seen[f], outcome, sizeof(outcome));
        have[f] = true;
        line = nl + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t out_len = 0;
    char *const *argv;
    int argc = 0;
    FILE *saved_in = stdin, *saved_out = stdout, *saved_err = stderr;
    static FILE *devnull;
    char *out = NULL;

    if (size < 2) /* fmemopen cannot open 0 bytes */
        return 0;
    argv = option_sets[data[0] % NR_OPTION_SETS];
    while (argv[argc])
        argc++;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    stdin = fmemopen((void *)(data + 1), size - 1, "r");
    stdout = open_memstream(&out, &out_len);
    /* The tool's complaints about bad lines are expected; sanitizers report on fd 2 itself. */
    stderr = devnull;
    FUZZ_CHECK(stdin != NULL && stdout != NULL && stderr != NULL);

    (void)pvemit_main(argc, (char **)argv); /* 2 at a bad line: expected */

    fclose(stdin);
    fclose(stdout);
    stdin = saved_in;
    stdout = saved_out;
    stderr = saved_err;
    check_output(out, out_len);
    free(out);
    return 0;
}
