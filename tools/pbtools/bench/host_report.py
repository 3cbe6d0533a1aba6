"""report.md's "Cycles on the host CPU", from host.json (tools/pbtools/bench/host.py),
and the lines the docs quote from the recorded run (tools/gen-docs): each
form's TSC ticks on the host's CPU beside the instructions the same form
counts under icount, then what the two say together, every figure from
the run. Beside them, the published figures of the three arguments the
project reproduces (SEEDS), quoted as published."""

from pbtools.bench.table import fmt, markdown

SEEDS = {
    "retpoline": "In 2018, with every trace event on, hackbench ran 8.9% slower with retpolines "
                 "(31.2 s to 34.0 s) while executing under 1% more instructions, and branch "
                 "misses went from 0.28% to 1.28% of branches; static-call-style jump functions "
                 "brought the slowdown back to 3%.",
    "popf": "In 2016, replacing `push; popf` by `test; jz; sti` in the unlock path cut `perf "
            "bench sched pipe` from 8.72 to 8.16 billion cycles (-6.5%) while the instruction "
            "count fell 0.25%.",
    "spinlock": "In 2008 pv spinlocks cost native kernels +2% cycles per instruction for +0.05% "
                "instructions, blamed on the call, call, locked op, ret, ret chain.",
}


class Figures:
    """A run's figures by form name: ticks (the minimum over the runs) and
    the kernel benchmark's instructions under icount."""

    def __init__(self, data):
        self.forms = {f["name"]: f for f in data["forms"]}

    def ticks(self, name):
        f = self.forms.get(name)
        return f["summary"]["min"] if f else None

    def instructions(self, name):
        f = self.forms.get(name)
        return f["icount"] if f else None

    def have(self, *names, counted=True):
        """Whether every form named has ticks, and (counted) instructions."""
        return all(self.ticks(n) is not None
                   and (not counted or self.instructions(n) is not None) for n in names)


def ratio(a, b):
    return "%.1fx" % (a / b) if b else "—"


def change(a, b):
    return "%+.0f%%" % ((a - b) * 100 / b) if b else "—"


def empty(data, name):
    """The lowest of an empty loop's per-run minimums."""
    runs = data.get("empties", {}).get(name)
    return fmt(min(r["min"] for r in runs)) if runs else "—"


def than(a, b):
    """a against b in ticks, in words: "1.2 more than", "0.3 less than"."""
    if fmt(a) == fmt(b):
        return "the same as"
    return "%s %s than" % (fmt(abs(a - b)), "more" if a > b else "less")


def conditions_lines(data):
    c = data["conditions"]
    hv = c["hypervisor"]
    return [
        "- CPU: %s%s; TSC %.1f MHz, %s; hardware counters: %s"
        % (c["cpu"], ", under a hypervisor (%s)" % hv if hv != "none" else "", c["tsc_mhz"],
           "invariant" if c["invariant_tsc"] == "yes" else "not invariant", c["counters"]),
        "- Clock: `%s` before and after each repetition (bench/loop.h, the kernel benchmarks' "
        "own), pinned to CPU %d; %d runs of %d repetitions, each form warmed up first"
        % (c["clock"], c["cpu_index"], c["runs"], c["reps"]),
        "- Taken off each figure: the empty loop's minimum per op in its run, %s ticks around "
        "the sites (the loop they are emitted into) and %s around the calls and locks (the "
        "kernel's, bench/empty_loop.c); a form that adds less than the loop's own jitter "
        "shows 0" % (empty(data, "empty/frame"), empty(data, "empty/loop")),
        "- Unit: TSC ticks per op, at the TSC's fixed rate: a core cycle only while the core "
        "runs at that rate",
        "- Host: %d CPUs, load average %s when the run started; %s, revision %s"
        % (c["host_cpus"], c["load_before"][0], c["date"], c["git_revision"]),
        "- Instructions: the kernel benchmark named, under `tools/bench --icount` (%s, %s): "
        "the minimum per op, the empty loop taken off" % (c.get("qemu") or "QEMU",
                                                           c.get("xen") or "Xen"),
    ]


def table_lines(data):
    rows = []
    for f in data["forms"]:
        s = f["summary"]
        kernel = "`%s` in `%s`" % (f["kernel_bench"], f["kernel_config"]) \
            if f["kernel_bench"] else "none times this form"
        rows.append(["`%s`" % f["name"], f["what"], fmt(s["min"]), fmt(s["median"]),
                     fmt(s["within_runs"]), "%s-%s" % (fmt(s["runs_lo"]), fmt(s["runs_hi"])),
                     fmt(f["icount"]), kernel])
    return markdown(["form", "what one op is", "ticks (min)", "median", "within a run",
                     "each run's min", "instructions (icount)", "kernel benchmark"], rows)


def calls_text(g):
    calls = ("call/retpoline", "call/static", "call/direct", "call/indirect")
    if not g.have(*calls):
        return []
    r, s, d, i = (g.ticks(n) for n in calls)
    ir, is_, id_, ii = (g.instructions(n) for n in calls)
    return ["**Calls, the 2018 comparison.** A call through a retpoline took %s ticks, a "
            "static call %s and a direct call %s: the retpoline cost %s the direct call and %s "
            "ticks more than the static call, which cost %s the direct one. Under "
            "icount the three are %s, %s and %s instructions (%s): the count sees the thunk's "
            "few instructions, not that its `ret` is predicted, by design, to return into the "
            "thunk's capture loop, so that every call through it pays for a mispredicted "
            "return. A predicted indirect call took %s ticks, %s the direct one, for %s "
            "instructions against %s: %s. %s"
            % (fmt(r), fmt(s), fmt(d), ratio(r, d), fmt(r - s), than(s, d), fmt(ir), fmt(is_),
               fmt(id_), ratio(ir, id_), fmt(i), than(i, d), fmt(ii), fmt(id_),
               "there the two measures agree" if abs(i - d) <= max(0.5, d / 5) and ii == id_
               else "there the two measures part", SEEDS["retpoline"])]


def popf_text(g):
    if not g.have("restore_fl/native", "restore_fl/native-condsti", "save_fl/native"):
        return []
    p, b, f = (g.ticks(n) for n in ("restore_fl/native", "restore_fl/native-condsti",
                                    "save_fl/native"))
    ip, ib = g.instructions("restore_fl/native"), g.instructions("restore_fl/native-condsti")
    counted = ("the count cannot tell the two apart" if ip == ib else
               "%s apart" % fmt(abs(ip - ib)))
    return ["**popf, the 2016 comparison.** `push %%rdi; popf` took %s ticks, %s the "
            "conditional branch `test $0x200, %%edi; jz` (%s); `pushf; pop` took %s. "
            "Under icount restore_fl is %s instructions in the first form and %s in the "
            "second: %s. %s What ring 3 leaves out: with IOPL 0 this popf may not change IF "
            "and leaves it as it is, where the kernel's may; and the branch form is timed with "
            "IF clear in its argument, its `sti` jumped over, as `sti` traps here, while the "
            "kernel's figure restores IF set and runs it."
            % (fmt(p), than(p, b), fmt(b), fmt(f), fmt(ip), fmt(ib), counted, SEEDS["popf"])]


def lock_text(g):
    chain, inline = "spin_lock_unlock/pv-chain", "spin_lock_unlock/inline"
    if not g.have(chain, inline):
        return []
    c, n, ic, in_ = g.ticks(chain), g.ticks(inline), g.instructions(chain), g.instructions(inline)
    return ["**Call chains, the 2008 comparison.** `spin_lock(); spin_unlock()` through Xen's "
            "lock ops (a call, a call through the ops, the locked `xchg` of a sequentially "
            "consistent store, two returns) took %s ticks against %s with the ticket lock "
            "inline (%s); under icount %s against %s instructions (%s), so %.2f ticks per "
            "instruction against %.2f (%s). %s"
            % (fmt(c), fmt(n), change(c, n), fmt(ic), fmt(in_), change(ic, in_), c / ic,
               n / in_, change(c / ic, n / in_), SEEDS["spinlock"])]


def patching_text(g):
    if not g.have("save_fl/unpatched", "save_fl/native") or \
            not g.have("restore_fl/unpatched", "restore_fl/direct-call", "restore_fl/native",
                       counted=False):
        return []
    u, n, iu, in_ = (g.ticks("save_fl/unpatched"), g.ticks("save_fl/native"),
                     g.instructions("save_fl/unpatched"), g.instructions("save_fl/native"))
    ru, rd, rn = (g.ticks(x) for x in ("restore_fl/unpatched", "restore_fl/direct-call",
                                       "restore_fl/native"))
    agree = 0.5 <= (u / n) / (iu / in_) <= 2 if n and in_ else False
    return ["**Patching.** `save_fl` through its ops table (an indirect call, the native "
            "thunk's saves and restores, the body and two returns) took %s ticks against %s "
            "patched inline (%s); under icount %s against %s instructions (%s): %s. "
            "`restore_fl` took %s ticks through its table, %s as a direct call to the same "
            "thunk, and %s inline: the direct call cost %s the indirect one, inlining %s it."
            % (fmt(u), fmt(n), ratio(u, n), fmt(iu), fmt(in_), ratio(iu, in_),
               "here the two measures agree within a factor of two" if agree else
               "here the two measures differ by more than a factor of two",
               fmt(ru), fmt(rd), fmt(rn), than(rd, ru), than(rn, ru))]


def xen_text(g):
    if not g.have("save_fl/xen", "irq_disable_enable/xen", "restore_fl/xen"):
        return []
    s, e, r = (g.ticks(x) for x in ("save_fl/xen", "irq_disable_enable/xen", "restore_fl/xen"))
    is_, ie, ir = (g.instructions(x) for x in ("save_fl/xen", "irq_disable_enable/xen",
                                               "restore_fl/xen"))
    text = ("**Xen's irq forms**, on the vCPU's mask byte through `%%gs` as a PV kernel runs "
            "them: `save_fl` took %s ticks for %s instructions, `irq_disable` and `irq_enable` "
            "together %s for %s, `restore_fl` %s for %s."
            % (fmt(s), fmt(is_), fmt(e), fmt(ie), fmt(r), fmt(ir)))
    text += (" Its entry (`xen_pv_restore_fl_cf`) reads the pending byte alone after "
             "storing the mask byte: a wider load over a byte just stored waits for the "
             "store (a store-forwarding stall, a cost no instruction count shows; "
             "`xen/pv/irq.c` says what it cost).")
    return [text]


def cannot_text(data):
    c = data["conditions"]
    machine = ("a virtual machine's CPU (%s), whose host may run other work on it at any time"
               % c["hypervisor"] if c["hypervisor"] != "none" else "a CPU shared with other work")
    return ["**What these figures cannot say.** They are ring 3's: `cli`, `sti` and what popf "
            "does to IF there are out of reach, and with them the native `irq_disable` and "
            "`irq_enable`. They come from %s (load average %s at the start), with no hardware "
            "counters to read (%s), so they are TSC ticks, not core cycles or branch misses; "
            "the spread within a run and across runs shows how far to trust a difference. "
            "The instruction counts are the kernel's, in its own loop, in ring 0 or under Xen; "
            "the ticks are of the same bytes (or, for the calls and locks, the kernel's own "
            "benchmark code) in ring 3, without the kernel around them."
            % (machine, c["load_before"][0], c["counters"])]


def paragraphs(data):
    g = Figures(data)
    out = []
    for text in (calls_text(g) + popf_text(g) + lock_text(g) + patching_text(g) + xen_text(g)
                 + cannot_text(data)):
        out += ["", text]
    return out


def body(data):
    """What the run measured and says: its conditions, the table, the
    paragraphs; the docs quote it from the recorded run."""
    return conditions_lines(data) + [""] + table_lines(data) + paragraphs(data)


def section(data):
    """The report's section, as markdown lines."""
    return ["", "## Cycles on the host CPU", "",
            "`make bench-host` (`tools/bench --host`): each form below run on this machine's "
            "CPU in ring 3 and timed with the TSC, beside the instructions the same form "
            "counts under icount. The site forms are the bytes the patcher writes, checked "
            "against what `tools/pvsites` reports; the calls and locks are the kernel's own "
            "benchmarks (docs/bench-host.md).", ""] + body(data)


def patching_figure(data):
    """docs/one-site.md's figure: save_fl through its table and patched, in
    ticks of the recorded run."""
    g = Figures(data)
    return ("Why patch at all, in cycles: on the CPU of the run recorded in "
            "`docs/host-run.json` (%s, in ring 3, where `cli` itself would trap), `save_fl` "
            "through its ops table took %s TSC ticks and patched inline %s "
            "([bench-host.md](bench-host.md#cycles-on-the-host-cpu))."
            % (data["conditions"]["cpu"], fmt(g.ticks("save_fl/unpatched")),
               fmt(g.ticks("save_fl/native"))))
