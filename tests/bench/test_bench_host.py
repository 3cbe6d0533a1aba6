#!/usr/bin/env python3
"""bench-host's checks, never its timings (tools/pbtools/bench/host.py runs it):

1. `tools/bench --host --quick`: the program's own checks (every site's
   result its backend's function's, every site's bytes the emitter's),
   then every site's bytes against tools/pvemit and the image's sites.
2. Negative controls: with one byte of a form's site altered
   (`--corrupt`), the program fails with one line naming the form; a
   site's bytes altered after the run, or a linked site's padding, fail
   the pvemit and image checks; a form naming a configuration tools/bench
   does not boot is refused.
3. The report's section is written for every form from a quick run's
   lines, with no instruction column where no icount run was made.
Ends with "N passed, N failed"."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from report import check, check_problems, summary  # noqa: E402
from pbtools.bench import host as bench_host  # noqa: E402
from pbtools.bench import host_report as bench_host_report  # noqa: E402


def flipped(hexbytes, at):
    raw = bytearray.fromhex(hexbytes)
    raw[at] ^= 1
    return raw.hex()


def door():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "bench"), "--host", "--quick"],
                       capture_output=True, text=True)
    check("tools/bench --host --quick passes", p.returncode == 0,
          (p.stderr.strip().splitlines() or ["status %d" % p.returncode])[-1])


def corrupt_fails(form):
    status, _, stderr = bench_host.run_program(["--check", "--corrupt", form])
    lines = stderr.strip().splitlines()
    check("--corrupt %s: status 1 and one line naming it" % form,
          status == 1 and len(lines) == 1 and lines[0].startswith("bench-host: %s: " % form)
          and "emitter" in lines[0], "status %d, %r" % (status, lines))


def quick_lines():
    status, stdout, stderr = bench_host.run_program(["--check"])
    if not check("bench-host --check passes", status == 0, stderr.strip()):
        return None
    return bench_host.read(stdout)


def cross_checks_bite(lines):
    sites = lines["sites"]
    check_problems("every site's bytes are pvemit's and the image's",
                   bench_host.bytes_problems(sites))
    for way in ("xen", "linked"):
        site = next(s for s in sites if s["pvemit_form"] == way)
        at = -1 if way == "xen" else site["len"] - 1  # an instruction's byte; the padding's
        altered = [dict(s, bytes=flipped(s["bytes"], at)) if s is site else s for s in sites]
        found = bench_host.bytes_problems(altered)
        check("a %s site altered is found (%s)" % (way, site["site"]),
              len(found) == 1 and found[0].startswith(site["site"]), found)
    stranger = [dict(lines["forms"][0], kernel_config="native-nowhere")]
    check("a configuration tools/bench does not boot is refused",
          len(bench_host.config_problems(stranger)) == 1)


def section_written(lines):
    data = bench_host.assemble(lines, {}, {}, [0.0, 0.0, 0.0], "test")
    text = "\n".join(bench_host_report.section(data))
    missing = [f["form"] for f in lines["forms"] if "`%s`" % f["form"] not in text]
    check("the section names every form", not missing, missing)
    check("the section has no instruction count where none was run",
          "instructions (icount)" not in text)


def main():
    door()
    corrupt_fails("restore_fl/xen")
    corrupt_fails("save_fl/native")
    lines = quick_lines()
    if lines:
        cross_checks_bite(lines)
        section_written(lines)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
