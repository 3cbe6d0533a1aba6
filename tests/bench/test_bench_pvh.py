"""docs/pvh.md's recorded PVH run (tools/bench --pvh --record), without a
boot:

1. docs/pvh-run.json holds a figure for every configuration tools/bench
   --pvh boots and every benchmark it can run there, under icount: a
   configuration whose id the kernel spells otherwise (its options' order)
   would leave a column empty.
2. The page's pvh-choices block is what gen-docs renders from the record.
3. Every figure cell of the table is a plain number in instructions (one
   unit a column), "—" only where the platform has no such op."""

import os
import re

import pytest
from pbtools.bench import pvh as bench_pvh
from pbtools.bench import runs as bench_runs
from pbtools.docs import gen_docs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Natively there is no hypercall to time.
NOT_NATIVE = {"xen_hypercall"}


@pytest.fixture(scope="module")
def rec():
    loaded = bench_runs.load(bench_pvh.RECORD)
    if loaded is None:
        pytest.fail("docs/pvh-run.json exists")
    return loaded


def test_record_is_an_icount_run(rec):
    assert rec["conditions"].get("timing") == "icount"


@pytest.mark.parametrize("cfg", bench_pvh.CONFIGS, ids=[c["id"] for c in bench_pvh.CONFIGS])
def test_figure_for_each_benchmark(rec, cfg):
    wanted = [n for n in bench_pvh.BENCHES
              if not (cfg["platform"] == "native" and n in NOT_NATIVE)]
    got = rec["figures"].get(cfg["id"], {})
    assert all(n in got for n in wanted), \
        f"{cfg['id']}: a figure for each of its benchmarks: missing " \
        f"{[n for n in wanted if n not in got]}"


def test_page_block_is_what_gen_docs_renders(rec):
    page = open(os.path.join(ROOT, "docs", "pvh.md")).read()
    m = re.search(r"<!-- generated: pvh-choices -->\n(.*?)<!-- end generated -->", page, re.S)
    assert m is not None, "docs/pvh.md has a pvh-choices block"
    assert gen_docs.GENERATORS["pvh-choices"]() == m.group(1), \
        "the block is what gen-docs renders from the record"


def rows():
    rec = bench_runs.load(bench_pvh.RECORD)
    return [r for r in bench_pvh.table(rec) if r.startswith("| ") and "`" in r] if rec else []


def test_one_row_a_benchmark(rec):
    assert len(rows()) == len(bench_pvh.OPS)


@pytest.mark.parametrize("row", rows(), ids=lambda r: r.split("`")[1])
def test_every_cell_a_number_of_instructions(row):
    cells = [c.strip() for c in row.strip("|").split("|")][3:]
    name = row.split("`")[1]
    assert all(re.fullmatch(r"\d+(\.\d)?", c) or (c == "—" and name in NOT_NATIVE)
               for c in cells), f"{name}: every cell a number of instructions: " + " | ".join(cells)
