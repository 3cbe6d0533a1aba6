"""tools/bench --host: the call-site forms timed on the host's own CPU.

Runs build/host/bench-host (linux-user/bench-host/, `make bench-host`), the
one place that knows how: the forms the patcher writes that ring 3 can run,
timed in TSC ticks, pinned to one CPU, several runs of repetitions. Before
its figures are used, every site's bytes are held to what tools/pvemit
(the emitter tools/pvsites reports from) writes for that op, form and
address, and the image must have sites of that op and length; a site left
as linked must have the image's bytes but for its rel32. So the figures
are never of code the kernel does not run.

Then the same forms' instructions under icount, from tools/bench --icount
run on the configurations and benchmarks the program names (after it,
so no QEMU shares the CPU while it times), into host.json, and the
report's "Cycles on the host CPU" (section(), which tools/bench appends
to report.md whenever host.json is there). --quick runs the program's own
checks (`bench-host --check`) and the byte checks only: what make test
runs, never a timing. --record copies host.json to docs/host-run.json,
the run the docs quote (tools/gen-docs): TSC figures change from run to
run, so the pages quote one run, committed beside them."""

import datetime
import os
import shlex
import subprocess

from pbtools import paths
from pbtools import result_lines
from pbtools.bench import configs as bench_configs
from pbtools.bench import host_report as bench_host_report
from pbtools.bench import runs as bench_runs
from pbtools.paths import HOST_BUILD, ROOT, host_program

PROGRAM, PROGRAM_PATH = host_program("bench-host")
IMAGE = paths.build("patchbay.elf")
RECORD = os.path.join(ROOT, "docs", "host-run.json")
REL32 = slice(2, 6)  # of a site as linked: ff 15 rel32, then padding


class HostError(Exception):
    """Something that stops the run, as one line."""


def build():
    """The program, built by make; its path."""
    p = subprocess.run(["make", "-s", "-C", ROOT, "BUILD=" + HOST_BUILD, PROGRAM],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise HostError("could not build %s: %s" % (PROGRAM, (p.stderr or p.stdout).strip()))
    return PROGRAM_PATH


def run_program(args):
    """bench-host with args: (exit status, stdout, stderr)."""
    p = subprocess.run([build()] + args, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def read(text):
    """The program's result lines, by kind; ResultLineError for one that
    does not parse."""
    return dict(cpu=result_lines.records(text, "host", "cpu")[0],
                forms=result_lines.records(text, "host", "form"),
                sites=result_lines.records(text, "host", "site"),
                results=result_lines.records(text, "host", "result"),
                summaries=result_lines.records(text, "host", "summary"))


def pvemit_bytes(sites):
    """{(addr, pvemit form): bytes hex} of what tools/pvemit writes at each
    site, given the same entries."""
    from pbtools.elf import pvsites
    pvemit = pvsites.build_pvemit()
    out = {}
    for args in sorted({s["pvemit"] for s in sites if s["pvemit_form"] != "linked"}):
        stdin = "".join("%s %s %d\n" % (s["addr"], s["op"], s["len"]) for s in sites
                        if s["pvemit"] == args and s["pvemit_form"] != "linked")
        p = subprocess.run([pvemit] + shlex.split(args), input=stdin, capture_output=True,
                           text=True)
        if p.returncode != 0:
            raise HostError("pvemit %s failed: %s" % (args, p.stderr.strip()))
        for line in p.stdout.splitlines():
            addr, _, form, _, hexbytes = line.split()
            out[(int(addr, 16), form)] = hexbytes
    return out


def bytes_problems(sites, image_path=IMAGE):
    """Where a site's bytes differ from pvemit's, or its op and length from
    every site of the image (a linked site: from the image's bytes there,
    rel32 aside)."""
    from pbtools.elf import pvsites
    image = pvsites.open_image(image_path)
    in_image = {}
    for s in pvsites.read_sites(image):
        in_image.setdefault((s["op"], s["len"]), s["addr"])
    written = pvemit_bytes(sites)
    problems = []
    for s in sites:
        where = "%s site %d (%s)" % (s["site"], s["index"], s["op"])
        at = in_image.get((s["op"], s["len"]))
        if at is None:
            problems.append("%s: the image has no %s site of %d bytes" % (where, s["op"], s["len"]))
        elif s["pvemit_form"] == "linked":
            ours, theirs = bytearray.fromhex(s["bytes"]), bytearray(image.bytes_at(at, s["len"]))
            ours[REL32] = theirs[REL32] = b"\0" * 4
            if ours != theirs:
                problems.append("%s: as linked %s, the image's at 0x%x is %s (rel32 aside)"
                                % (where, ours.hex(), at, theirs.hex()))
        else:
            wanted = written.get((int(s["addr"], 16), s["pvemit_form"]))
            if wanted != s["bytes"]:
                problems.append("%s: runs %s, pvemit writes %s for the %s form"
                                % (where, s["bytes"], wanted, s["pvemit_form"]))
    return problems


def config_problems(forms):
    """Kernel configurations a form names that tools/bench does not boot."""
    known = {c["id"] for c in bench_configs.CONFIGS}
    return ["%s names configuration %s, which tools/pbtools/bench/configs.py does not have"
            % (f["form"], f["kernel_config"]) for f in forms
            if "kernel_config" in f and f["kernel_config"] not in known]


def icount_figures(forms, out):
    """{config: {benchmark: instructions}} of the kernel benchmarks the forms
    name, from tools/bench --icount on just those; raises HostError."""
    where = os.path.join(out, "host-icount")
    configs = sorted({f["kernel_config"] for f in forms if "kernel_config" in f})
    names = sorted({f["kernel_bench"] for f in forms if "kernel_bench" in f})
    data, why = bench_runs.run(["--icount", "--configs", ",".join(configs),
                                "--only", ",".join(names)], where)
    if why:
        raise HostError("the same forms' instruction counts: " + why)
    return {r["id"]: {res["name"]: res["min"] for res in r["results"] if "min" in res}
            for r in data["configs"]}, data["conditions"]


def checked_run(args):
    """The program's output, read and checked; raises HostError."""
    status, stdout, stderr = run_program(args)
    if status != 0:
        raise HostError((stderr.strip().splitlines() or ["bench-host exited %d" % status])[-1])
    try:
        lines = read(stdout)
    except (result_lines.ResultLineError, IndexError) as e:
        raise HostError("a result line does not parse: %s" % e) from None
    problems = config_problems(lines["forms"]) + bytes_problems(lines["sites"])
    if problems:
        raise HostError("; ".join(problems))
    return lines, stdout


def assemble(lines, icount, icount_conditions, load, revision):
    """host.json's data: each form with its runs, summary, sites and the
    icount figure of the kernel benchmark timing the same form."""
    forms = []
    for f in lines["forms"]:
        name = f["form"]
        forms.append(dict(
            name=name, what=f["what"], sites=[s for s in lines["sites"] if s["site"] == name],
            kernel_bench=f.get("kernel_bench"), kernel_config=f.get("kernel_config"),
            icount=icount.get(f.get("kernel_config"), {}).get(f.get("kernel_bench")),
            runs=[r for r in lines["results"] if r["result"] == name],
            summary=next(s for s in lines["summaries"] if s["summary"] == name)))
    empties = {r["result"]: [x for x in lines["results"] if x["result"] == r["result"]]
               for r in lines["results"] if r["result"].startswith("empty/")}
    return dict(conditions=dict(
        lines["cpu"], date=datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        git_revision=revision, host_cpus=os.cpu_count(), load_before=load,
        qemu=icount_conditions.get("qemu"), xen=icount_conditions.get("xen")),
        forms=forms, empties=empties)


def run(args, out, revision):
    """tools/bench --host: the program (--check with --quick), its checks,
    then, unless quick, the icount figures and host.json, of the tree at
    revision. Returns the problems, none when all went well; prints the
    program's table."""
    load = [round(x, 2) for x in os.getloadavg()]
    try:
        lines, stdout = checked_run(["--check"] if args.quick else
                                    ["--runs", str(args.runs)] if args.runs else [])
        print("\n".join(line for line in stdout.splitlines() if not line.startswith("host: ")))
        if args.quick:
            return []
        icount, conditions = icount_figures(lines["forms"], out)
    except HostError as e:
        return [str(e)]
    bench_runs.save(os.path.join(out, "host.json"),
                    assemble(lines, icount, conditions, load, revision))
    return []


def section_of(out):
    """The report's "Cycles on the host CPU" when out holds host.json, else
    no lines (tools/pbtools/bench/host_report.py writes it)."""
    data = bench_runs.load(os.path.join(out, "host.json"))
    return bench_host_report.section(data) if data else []
