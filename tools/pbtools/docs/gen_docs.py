"""tools/gen-docs [--check] [FILE...]

Regenerates the blocks in README.md and docs/*.md that show this project's
own bytes and numbers, so the pages cannot drift from the image. A block is

    <!-- generated: NAME ARGS... -->
    ...replaced...
    <!-- end generated -->

where NAME is one of the generators below. --check only reports blocks that
would change, and first checks what the pages and the tour's passages say
by hand around the blocks against the image (tools/prose_check.py: bytes,
site lengths, counts, option values, figures); it exits 1 if either finds
anything. `make tools-test` runs it, so `make test` fails when a page no
longer says what the tree does. Regenerating prints the prose check's
findings too. Needs a built image (make), the PARAVIRT=n image for
README's tables (make PARAVIRT=n image), QEMU and Xen (tools/run).

A check is only useful if the same tree always generates the same text, so:

- Every boot block boots under --icount (QEMU -icount shift=0: the TSC
  counts guest instructions, so every figure and every timer-driven
  interleaving repeats exactly). A boot block's platform is native, xen
  (a PV dom0), xen-pvh (a PVH dom0, tools/run --xen --pvh) or domu
  (tools/run --domu); `+icount` after it is accepted and
  changes nothing, `+fail` expects a kernel failure, `+full` (domu) reads
  Xen's, dom0's and the domain builder's lines too (from the same boot as
  the domU's own), `+disk` gives it a disk (tools/run --disk on a new
  4 MiB file beside the boot's log, made afresh each run), `+net` a network
  card with one datagram from the client (tools/run --net --net-count 1;
  under domu dom0's pings come first), `+frames` tools/netpeer.py as the
  native peer instead of the host's client, whose source port the host
  picks afresh each run (netpeer's frames are the same bytes every time:
  the native ping walk). Identical boots
  are made once and shared: blocks that need not differ are written with
  the same words (a plain Xen boot's lines are taken from the `wl=on
  xen.mmu=batch` one that docs/mm.md needs, and are the same), since an
  icount Xen boot costs about 20 s, 13 of them Xen's own boot busy-waiting
  on virtual time.
- The benchmark blocks (bench-conditions, bench-table, bench-pte, figure)
  come from `tools/bench --icount` runs, one boot per configuration, each
  of only the benchmarks some page's blocks show from that configuration,
  written under build/gen-docs/bench/. The full icount run (`make bench
  ICOUNT=1`, every benchmark in every configuration) takes about 3 minutes
  on 2 CPUs by itself; the subset's eight boots run beside the doc boots,
  two QEMUs at a time. That is how --check stays cheap enough for `make
  test`, and it is never skipped: a table that is not rechecked can drift.
  The figures are the subset run's, not the full run's: under Xen a few
  counts move by a fraction of a percent with the benchmarks that ran
  before them in the same boot, so the selection is made from every page's
  blocks, whichever pages are asked for, and never read from
  build/bench/results.json.
- docs/pvh.md's table (boot-bench) sets native, Xen PV and Xen PVH side by
  side from boot blocks: one boot per platform, two CPUs, each benchmark
  and the empty loop at the same few bench.iters, so its bench lines come
  with the page's other lines from the same boots (the native and PV ones
  are docs/tlb.md's). A PVH dom0 boot is the dearest kind here: every
  hypercall, event and (Xen intercepts rdtsc) clock read is a VM exit,
  which QEMU emulates slowly; that is why README's tables have no PVH
  column, whose benchmarks (xen_hypercall's 320,000 hypercalls above all)
  would cost about a CPU-minute more.
- A gdb block (`gdb PLATFORM OP FUNCTION`, docs/one-site.md) is a gdb
  session against `tools/run --gdb` watching one site across the patcher
  (tools/pbtools/run/gdb_watch.py): addresses and bytes, no figure, so no
  icount; gdb kills QEMU once the patcher is done, and it shares the boots'
  pool.
- Nothing that changes from run to run is generated: no dates, revisions
  or elapsed times. Wall-clock and TSC figures do change from run to run,
  so their pages quote one recorded run, committed beside them
  (docs/lifecycle-run.json from `tools/bench --lifecycle --record`,
  docs/host-run.json from `tools/bench --host --record`): their blocks are
  generated from the record, never from a new run. So is docs/pvh.md's
  per-op choices table (docs/pvh-run.json, `tools/bench --pvh --record`):
  icount figures, but eight boots, four of them PVH dom0s, too dear for
  every check.
- docs/io.md's ping through netfront (ping-walk) is a recorded run too,
  docs/ping-run.json, made by `tools/gen-docs --record-ping`: dom0's ping
  is not the same bytes twice (its IP id and the time stamp in its data,
  and how many of dom0's own frames reached the ring first), even under
  icount. The native ping walk needs no record: tools/netpeer.py's ping is
  the same frame every run (`native+net+frames`).
"""

import argparse
import difflib
import os
import re

from pbtools import result_lines
from pbtools.bench import runs as bench_runs
from pbtools.docs import gen_bench as bench
from pbtools.docs import gen_boots as boots
from pbtools.docs import gen_image as image
from pbtools.docs import gen_records as records
from pbtools.docs import prose_check

ROOT, IMAGE = image.ROOT, image.IMAGE
BLOCK = re.compile(r"(<!-- generated: (\S+)((?: \S+)*) -->\n)(.*?)(<!-- end generated -->)", re.S)


# Each generator's module: image (no boot), boots, bench, records (a
# recorded run); the order is the one an unknown generator's error lists.
GENERATORS = {"cmd": image.gen_cmd, "figure": bench.gen_figure, "source": image.gen_source,
              "site": image.gen_site, "boot": boots.gen_boot,
              "sites-count": image.gen_sites_count, "ops-table": image.gen_ops_table,
              "symbol": image.gen_symbol, "pte-modes": boots.gen_pte_modes,
              "bench-conditions": bench.gen_bench_conditions,
              "bench-table": bench.gen_bench_table, "bench-pte": bench.gen_bench_pte,
              "boot-bench": bench.gen_boot_bench, "lifecycle-table": records.gen_lifecycle_table,
              "lifecycle-lines": records.gen_lifecycle_lines, "host-run": records.gen_host_run,
              "host-figure": records.gen_host_figure, "gdb": boots.gen_gdb,
              "pvh-choices": records.gen_pvh_choices, "ping-walk": records.gen_ping_walk,
              "linux-guest": records.gen_linux_guest}
# What a generator needs started before any block is written, so that the
# boots and the benchmark run overlap.
PLANS = {"boot": boots.plan_boot, "pte-modes": boots.plan_pte_modes,
         "boot-bench": bench.plan_boot_bench, "gdb": boots.plan_gdb}


def all_pages():
    return [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(ROOT, "docs", d) for d in os.listdir(os.path.join(ROOT, "docs"))
        if d.endswith(".md"))


def blocks(path):
    with open(path) as f:
        text = f.read()
    for m in BLOCK.finditer(text):
        name = m.group(2)
        if name not in GENERATORS:
            raise SystemExit(f"gen-docs: {os.path.relpath(path, ROOT)}: unknown generator "
                             f"'{name}' (known: {', '.join(GENERATORS)})")
        yield name, m.group(3).split()


def regenerate(path, check):
    with open(path) as f:
        text = f.read()

    def replace(m):
        return m.group(1) + GENERATORS[m.group(2)](*m.group(3).split()) + m.group(5)

    new = BLOCK.sub(replace, text)
    rel = os.path.relpath(path, ROOT)
    if new != text:
        print(f"gen-docs: {rel}: {'out of date' if check else 'updated'}")
        if check:
            diff = list(difflib.unified_diff(text.splitlines(), new.splitlines(), rel,
                                             rel + " (generated)", lineterm="", n=1))
            print("\n".join(diff[:60] + ([f"... {len(diff) - 60} more diff lines"]
                                         if len(diff) > 60 else [])))
        else:
            with open(path, "w") as f:
                f.write(new)
    return new != text


def command():
    ap = argparse.ArgumentParser(prog="tools/gen-docs", description=__doc__.strip(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only report blocks that would change")
    ap.add_argument("--record-ping", action="store_true",
                    help="boot a domU with dom0's ping traced into docs/ping-run.json, then "
                         "regenerate the FILEs given (none: only record)")
    ap.add_argument("files", nargs="*", metavar="FILE",
                    help="default: README.md and docs/*.md")
    args = ap.parse_args()
    if not os.path.exists(IMAGE):
        raise SystemExit("gen-docs: build/patchbay.elf not found; run make")
    if args.record_ping:
        records.record_ping()
        if not args.files:
            return 0
    files = [os.path.abspath(f) for f in args.files] or all_pages()
    prose = check_prose(files, with_tour=not args.files) if args.check else []
    wanted = [(name, block_args) for f in files for name, block_args in blocks(f)]
    for name, block_args in wanted:
        if name in PLANS:
            PLANS[name](*block_args)
    bench.plan_bench_runs(wanted, lambda: (b for f in all_pages() for b in blocks(f)))
    try:
        changed = [f for f in files if regenerate(f, args.check)]
    except result_lines.ResultLineError as e:
        raise SystemExit(f"gen-docs: a result line does not parse: {e}")
    finally:
        boots.JOBS.pool.shutdown(cancel_futures=True)
    if not args.check:
        check_prose(files, with_tour=not args.files)  # says what to fix; regenerating goes on
        return 0
    print(f"gen-docs: {len(files)} pages, {len(wanted)} blocks, "
          f"{len(changed)} page{'s' if len(changed) != 1 else ''} out of date")
    failed = set(changed) | set(prose)
    print(f"{len(files) + (0 if args.files else 1) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def check_prose(files, with_tour):
    """The pages' hand-written claims against the image
    (tools/prose_check.py): the files, and "tour", that have a problem."""
    problems = prose_check.run(files, image.image_facts(), with_tour)
    for p in sorted(problems, key=lambda p: (p.path, p.line)):
        print(f"gen-docs: prose: {p}")
    print(f"gen-docs: prose: {prose_check.STATS['claims']} claims, "
          f"{prose_check.STATS['exempt']} exempt, {len(problems)} "
          f"problem{'s' if len(problems) != 1 else ''}")
    return {p.path if p.path.endswith(".md") else "tour" for p in problems}


def main():
    """command(), a results file it cannot read ending it with one line."""
    try:
        return command()
    except bench_runs.ResultsError as e:
        return "gen-docs: %s" % e
