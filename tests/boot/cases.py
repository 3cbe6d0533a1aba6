"""Boot test cases, run by tests/boot/run_boot_tests.py.

Each case is a dict:
  name       unique name; the console log goes to build/test-logs/NAME.log
  args       tools/run options, e.g. ['--iso'] or ['--mem', '32']   (default [])
  cmdline    kernel command line                                    (default '')
  expect     regexes that must each match somewhere in the console  (default [])
  reject     regexes that must not match anywhere in the console    (default [])
  last_line  regex the last non-empty console line must match       (optional)
  status     tools/run's exit status: an int (0 = clean kernel exit), or
             'fail' = a kernel-reported failure (1..100, never a time-out
             or a crash without a kernel exit)                      (default 0)
  timeout    seconds before tools/run kills QEMU                    (default 60)

Regexes are searched with re.MULTILINE in the console text after carriage
returns and terminal escape sequences are removed.
"""

PASS = r"^patchbay: PASS$"
FAIL = r"^patchbay: FAIL "
# A clean run shows no fault and no failure anywhere.
CLEAN = [r"trap: #", r"patchbay: FAIL", r"panic: "]
MEM = r"^mem: \d+ MiB usable in \d+ ranges, \d+ frames free"

NATIVE_TIMEOUT = 60
ISO_TIMEOUT = 120


def clean_boot(name, args=(), method="native/pvh", expect=(), timeout=NATIVE_TIMEOUT):
    """A boot that must reach a clean end."""
    return dict(name=name, args=list(args), cmdline="",
                expect=[r"^patchbay: booting via " + method + "$", MEM] + list(expect),
                reject=CLEAN, last_line=PASS, status=0, timeout=timeout)


def fault(kind, trap, extra=()):
    """fault=KIND must give a register dump for TRAP and a failure status."""
    return dict(name="fault-" + kind, cmdline="fault=" + kind,
                expect=[r"^trap: " + trap, r"\brip\b", r"\brsp\b", r"^backtrace:"] + list(extra),
                reject=[PASS, r"did not trap"],
                last_line=r"^patchbay: FAIL trap " + trap + "$",
                status="fail", timeout=NATIVE_TIMEOUT)


CASES = [
    clean_boot("pvh-boot"),
    clean_boot("iso-boot", ["--iso"], method="native/multiboot2", timeout=ISO_TIMEOUT),
    # The memory map is read: the usable total follows QEMU's -m.
    clean_boot("mem-32", ["--mem", "32"], expect=[r"^mem: (1\d|2\d|3[0-2]) MiB usable"]),
    clean_boot("mem-512", ["--mem", "512"], expect=[r"^mem: (49\d|50\d|51[0-2]) MiB usable"]),
    clean_boot("mem-4096", ["--mem", "4096"], expect=[r"^mem: (39\d\d|40\d\d) MiB usable"]),
    clean_boot("cpu-qemu64", ["--cpu", "qemu64"]),
    clean_boot("cpu-max", ["--cpu", "max"]),

    fault("pf", "#PF", extra=[r"\bcr2\b"]),
    fault("ud", "#UD"),
    fault("gp", "#GP"),
    fault("de", "#DE"),
    # Overflowing the stack runs into its guard page: a #PF, or a #DF when the
    # fault cannot be delivered on the overflowed stack.
    fault("stack", "#(DF|PF)"),

    dict(name="bad-cmdline", cmdline="bogus=1 fault=banana",
         expect=[r"^cmdline: unknown option 'bogus' \(known: ",
                 r"^cmdline: bad value 'banana' for fault \(accepted: .*\), keeping default"],
         reject=CLEAN + [r"^fault: committing"],
         last_line=PASS, status=0),
    # The multiboot2 command line (GRUB) is read too.
    dict(name="iso-cmdline", args=["--iso"], cmdline="bogus=2",
         expect=[r"^patchbay: booting via native/multiboot2$",
                 r"^cmdline: unknown option 'bogus' \(known: "],
         reject=CLEAN, last_line=PASS, status=0, timeout=ISO_TIMEOUT),
]
