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
   lines, with no instruction column where no icount run was made."""

import os
import subprocess
import sys

import pytest
from pbtools.bench import host as bench_host
from pbtools.bench import host_report as bench_host_report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHOWN = 10  # problems a failure lists; the rest are counted


def flipped(hexbytes, at):
    raw = bytearray.fromhex(hexbytes)
    raw[at] ^= 1
    return raw.hex()


def listed(problems):
    """problems one a line, the first SHOWN of them and how many more."""
    more = ["... and %d more" % (len(problems) - SHOWN)] if len(problems) > SHOWN else []
    return "\n".join(problems[:SHOWN] + more)


def test_door_quick_passes():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "bench"), "--host", "--quick"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, "tools/bench --host --quick passes: %s" % (
        (p.stderr.strip().splitlines() or ["status %d" % p.returncode])[-1])


@pytest.mark.parametrize("form", ["restore_fl/xen", "save_fl/native"])
def test_corrupt_fails_naming_the_form(form):
    status, _, stderr = bench_host.run_program(["--check", "--corrupt", form])
    lines = stderr.strip().splitlines()
    assert (status == 1 and len(lines) == 1 and lines[0].startswith("bench-host: %s: " % form)
            and "emitter" in lines[0]), \
        "--corrupt %s: status 1 and one line naming it: status %d, %r" % (form, status, lines)


@pytest.fixture(scope="module")
def checked():
    """The program's --check run: (status, stdout, stderr)."""
    return bench_host.run_program(["--check"])


@pytest.fixture(scope="module")
def lines(checked):
    status, stdout, stderr = checked
    if status != 0:
        pytest.fail("bench-host --check passes: %s" % stderr.strip())
    return bench_host.read(stdout)


def test_check_passes(checked):
    status, _, stderr = checked
    assert status == 0, "bench-host --check passes: %s" % stderr.strip()


def test_sites_bytes_are_pvemits_and_images(lines):
    problems = bench_host.bytes_problems(lines["sites"])
    assert not problems, "every site's bytes are pvemit's and the image's:\n" + listed(problems)


@pytest.mark.parametrize("way", ["xen", "linked"])
def test_altered_site_is_found(lines, way):
    sites = lines["sites"]
    site = next(s for s in sites if s["pvemit_form"] == way)
    at = -1 if way == "xen" else site["len"] - 1  # an instruction's byte; the padding's
    altered = [dict(s, bytes=flipped(s["bytes"], at)) if s is site else s for s in sites]
    found = bench_host.bytes_problems(altered)
    assert len(found) == 1 and found[0].startswith(site["site"]), \
        "a %s site altered is found (%s): %s" % (way, site["site"], found)


def test_config_not_booted_is_refused(lines):
    stranger = [dict(lines["forms"][0], kernel_config="native-nowhere")]
    assert len(bench_host.config_problems(stranger)) == 1, \
        "a configuration tools/bench does not boot is refused"


@pytest.fixture(scope="module")
def section(lines):
    data = bench_host.assemble(lines, {}, {}, [0.0, 0.0, 0.0], "test")
    return "\n".join(bench_host_report.section(data))


def test_section_names_every_form(lines, section):
    missing = [f["form"] for f in lines["forms"] if "`%s`" % f["form"] not in section]
    assert not missing, "the section names every form: %s missing" % missing


def test_section_no_instructions_without_icount(section):
    assert "instructions (icount)" not in section, \
        "the section has no instruction count where none was run"
