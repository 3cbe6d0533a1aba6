#!/usr/bin/env python3
"""docs/pvh.md's recorded PVH run (tools/bench --pvh --record), without a
boot:

1. docs/pvh-run.json holds a figure for every configuration tools/bench
   --pvh boots and every benchmark it can run there, under icount: a
   configuration whose id the kernel spells otherwise (its options' order)
   would leave a column empty.
2. The page's pvh-choices block is what gen-docs renders from the record.
3. Every figure cell of the table is a plain number in instructions (one
   unit a column), "—" only where the platform has no such op.
Ends with "N passed, N failed"."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from report import check, summary  # noqa: E402
from pbtools.bench import pvh as bench_pvh  # noqa: E402
from pbtools.bench import runs as bench_runs  # noqa: E402
from pbtools.docs import gen_docs  # noqa: E402

# Natively there is no hypercall to time.
NOT_NATIVE = {"xen_hypercall"}


def main():
    rec = bench_runs.load(bench_pvh.RECORD)
    check("docs/pvh-run.json exists", rec is not None)
    if rec is None:
        return summary()
    check("the record is an icount run", rec["conditions"].get("timing") == "icount")
    for cfg in bench_pvh.CONFIGS:
        wanted = [n for n in bench_pvh.BENCHES
                  if not (cfg["platform"] == "native" and n in NOT_NATIVE)]
        got = rec["figures"].get(cfg["id"], {})
        check(f"{cfg['id']}: a figure for each of its benchmarks",
              all(n in got for n in wanted), f"missing {[n for n in wanted if n not in got]}")

    page = open(os.path.join(ROOT, "docs", "pvh.md")).read()
    m = re.search(r"<!-- generated: pvh-choices -->\n(.*?)<!-- end generated -->", page, re.S)
    check("docs/pvh.md has a pvh-choices block", m is not None)
    check("the block is what gen-docs renders from the record",
          m is not None and gen_docs.GENERATORS["pvh-choices"]() == m.group(1))

    rows = [r for r in bench_pvh.table(rec) if r.startswith("| ") and "`" in r]
    check("one row a benchmark", len(rows) == len(bench_pvh.OPS))
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")][3:]
        name = row.split("`")[1]
        plain = all(re.fullmatch(r"\d+(\.\d)?", c) or (c == "—" and name in NOT_NATIVE)
                    for c in cells)
        check(f"{name}: every cell a number of instructions", plain, " | ".join(cells))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
