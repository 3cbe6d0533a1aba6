/* tools/pvemit.c's input: lines "ADDR OP LEN" on stdin, each patched by
 * every backend. The tool runs unchanged: its main is renamed and called
 * once per input, stdin read from the input and stdout captured.
 *
 * Input: u8 picking one of the tool's option sets, then the lines. Checks
 * each output line's form: "0xADDR BACKEND RESULT HEX", HEX being 2 * LEN
 * digits when the site is rewritten and "-" otherwise. */
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

static void check_output(const char *out, size_t len)
{
    const char *line = out, *end = out + len;

    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        char label[32], result[32], hex[128]; /* room for 2 * PV_SITE_MAX_LEN digits and more */
        unsigned long long addr;
        FUZZ_CHECK(nl != NULL);
        FUZZ_CHECK(sscanf(line, "0x%llx %31s %31s %127s", &addr, label, result, hex) == 4);
        if (strcmp(result, "inline") == 0 || strcmp(result, "call") == 0) {
            size_t n = strlen(hex);
            FUZZ_CHECK(n % 2 == 0 && n >= 2 * PV_INDIRECT_CALL_LEN && n <= 2 * PV_SITE_MAX_LEN);
            FUZZ_CHECK(strspn(hex, "0123456789abcdef") == n);
        } else {
            FUZZ_CHECK(strcmp(hex, "-") == 0);
        }
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
