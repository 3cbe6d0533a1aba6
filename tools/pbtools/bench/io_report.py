"""The report's "Paravirtual I/O" section: the disk benchmarks (group io,
drivers/block_bench.c) on each door's transport and its variants, beside
Linux's frontends on the same doors (linux.json's disk rows, from
linux-user/bench/disk.c), a chart, and the issue's two goals checked
with the figures.

Each disk benchmark prints a detail line before its result (requests,
notifications, interrupts and grant operations per request, mean latency,
the frontend's own ticks per request as `cpu`, requests per second);
attach() files it with the result, as tools/bench reads a boot."""

from pbtools import result_lines
from pbtools.bench import configs as bench_configs
from pbtools.bench.chart import histogram
from pbtools.bench.table import markdown

NAMES_4K = ["disk_read_qd1", "disk_write_qd1", "disk_read_qd32", "disk_write_qd32"]
# Larger requests: 64 KiB, under Xen more pages than a ring slot's 11
# segments, so blkfront sends them as indirect requests.
NAMES_LARGE = ["disk_read64k_qd1", "disk_read64k_qd32"]
NAMES = NAMES_4K + NAMES_LARGE
CHART = "io-chart.svg"
# The doors, each a configuration prefix with its usual variant first:
# (door heading, id before the variant tag, id after it, Linux's config).
DOORS = [("native (virtio-blk)", "native-patched", bench_configs.DISK, "linux-native+disk"),
         ("PV domU (blkfront)", "xen-pv-patched" + bench_configs.XEN,
          bench_configs.DOMU + bench_configs.DISK, "linux-domu+disk"),
         ("PVH domU (blkfront)", bench_configs.PVH_PATCHED,
          bench_configs.DOMU + bench_configs.DISK, "linux-domu-pvh+disk")]
NOTIFY_GOAL = 1 / 8  # at depth 32, at most one notification per 8 requests
AVOIDANCE_OFF = {"native": "+virtio.event_idx=off", "domu": "+blkfront.avoid_notify=off"}


def attach(results, text):
    """Files each disk benchmark's detail line with its result (as "io");
    returns why it cannot (None if it could)."""
    for r in results:
        if r.get("name") in NAMES and "min" in r:
            try:
                found = result_lines.details(text, r["name"])
            except result_lines.ResultLineError as e:
                return "%s's detail line does not parse: %s" % (r["name"], e)
            if len(found) != 1:
                return "%s printed %d detail lines, not one" % (r["name"], len(found))
            r["io"] = found[0]
    return None


def variants(door_key):
    return bench_configs.DISK_VARIANTS["native" if door_key == "native" else "domu"]


def rows_of(idx):
    """(door heading, variant tag, config id) for every disk configuration
    with a result, in DOORS' order."""
    out = []
    for heading, before, after, _ in DOORS:
        key = "native" if before.startswith("native") else "domu"
        for tag, _ in variants(key):
            cid = before + tag + after
            if cid in idx:
                out.append((heading, tag.lstrip("+") or "usual", cid))
    return out


def per_req(r, key):
    v = r.get("io", {}).get(key) if r else None
    return "—" if v is None else ("%.2f" % v if isinstance(v, float) else str(v))


def per_kib(r):
    """The frontend's cost of one KiB moved: cpu over the request's size."""
    io = r.get("io", {}) if r else {}
    if io.get("cpu") is None or not io.get("bytes"):
        return "—"
    return "%.1f" % (io["cpu"] * 1024 / io["bytes"])


def linux_rows(linux):
    """Linux's disk results: {config: {name: result}}."""
    out = {}
    for boot in (linux or {}).get("linux", []):
        for r in boot.get("results", []):
            if r.get("name") in NAMES and "min" in r:
                out.setdefault(boot["id"], {})[r["name"]] = r
    return out


def table(idx, lx, fmt):
    rows = []
    for heading, variant, cid in rows_of(idx):
        for name in NAMES:
            r = idx[cid].get(name)
            rows.append([heading, variant, "`%s`" % name, fmt(r["min"]) if r else "—",
                         per_req(r, "cpu"), per_kib(r), per_req(r, "latency"),
                         per_req(r, "notifications_per_req"), per_req(r, "interrupts_per_req"),
                         per_req(r, "grant_ops_per_req"), per_req(r, "rps")])
    for heading, _, _, lid in DOORS:
        for name in NAMES:
            r = lx.get(lid, {}).get(name) if lid else None
            if r:
                rows.append([heading, "Linux", "`%s`" % name, fmt(r["min"]),
                             per_req(r, "cpu"), per_kib(r), "—", "—", "—", "—",
                             per_req(r, "rps")])
    return rows


def goals(idx, lx, unit):
    """The two goals, each met or not, with the figures."""
    out = []
    for heading, before, after, lid in DOORS:
        ours = idx.get(before + after, {})
        theirs = lx.get(lid, {}) if lid else {}
        for name in NAMES_4K[:2]:
            a = ours.get(name, {}).get("io", {}).get("cpu")
            b = theirs.get(name, {}).get("io", {}).get("cpu")
            if a is None:
                continue
            if b is None:
                out.append("- %s, `%s`: patchbay's frontend %s %s a request; no Linux figure "
                           "on this door." % (heading, name, a, unit))
            else:
                out.append("- %s, `%s`: patchbay's frontend %s %s a request, Linux's %s "
                           "(its system call path included): %s." % (
                               heading, name, a, unit, b,
                               "met" if a <= b else "not met, %.1fx" % (a / b)))
    for heading, before, after, _ in DOORS:
        key = "native" if before.startswith("native") else "domu"
        on = idx.get(before + after, {})
        off = idx.get(before + AVOIDANCE_OFF[key] + after, {})
        for name in NAMES_4K[2:]:
            n_on = on.get(name, {}).get("io", {}).get("notifications_per_req")
            n_off = off.get(name, {}).get("io", {}).get("notifications_per_req")
            if n_on is None:
                continue
            out.append("- %s, `%s`: %s notifications a request with notification avoidance "
                       "(goal at most %.3f): %s; without it (`%s`) %s." % (
                           heading, name, n_on, NOTIFY_GOAL,
                           "met" if n_on <= NOTIFY_GOAL else "not met",
                           AVOIDANCE_OFF[key].lstrip("+"), "—" if n_off is None else n_off))
    return out


def chart(idx, lx, out, unit):
    """io-chart.svg: the frontend's ticks a request per door, patchbay's
    usual variant beside Linux's; False if nothing to draw or no gnuplot."""
    rows = []
    for name in NAMES_4K:
        vals = []
        for _, before, after, lid in DOORS:
            vals.append(idx.get(before + after, {}).get(name, {}).get("io", {}).get("cpu"))
            vals.append(lx.get(lid, {}).get(name, {}).get("io", {}).get("cpu") if lid else None)
        if any(v is not None for v in vals):
            rows.append((name, vals))
    titles = [t for h, _, _, _ in DOORS for t in ("patchbay " + h, "Linux " + h)]
    return histogram(out, CHART[:-len(".svg")], rows, titles,
                     "Paravirtual I/O: the frontend's cost of one 4 KiB request",
                     "%s per request (cpu)" % unit, height=480)


def section(idx, linux, out, fmt, unit):
    """The section's markdown lines; empty without a disk result."""
    if not rows_of(idx):
        return []
    lx = linux_rows(linux)
    lines = ["", "## Paravirtual I/O", "",
             "One op is one request through the block layer on the door's disk (a "
             "scratch file, `tools/run --disk ... --disk-new %s`), cycling over its first "
             "MiB, with 1 or 32 requests in flight: 4 KiB, or 64 KiB for the `disk_read64k` "
             "rows (under Xen 16 pages, more than a ring slot's 11 segments: blkfront sends "
             "them as indirect requests, Linux's blkfront too). `min` is the time from the "
             "first submit "
             "to the last completion a request (at depth 1 its latency, at depth 32 the "
             "inverse of the throughput), idle time included; `cpu` is what the frontend "
             "itself spent a request (the block layer's and the transport's submit and "
             "completion paths; Xen's instructions included under Xen), and `cpu/KiB` the "
             "same over the request's size. Linux's `cpu` "
             "includes its system call path. Unit: %s. Requests per second come from the "
             "guest's clock and mean something only without --icount."
             % (bench_configs.DISK_SIZE, unit), ""]
    lines += markdown(["door", "variant", "benchmark", "min", "cpu", "cpu/KiB", "latency",
                       "notifications/req", "interrupts/req", "grant ops/req", "req/s"],
                      table(idx, lx, fmt), drop_empty=False)
    if chart(idx, lx, out, unit):
        lines += ["", "![paravirtual I/O](%s)" % CHART]
    lines += ["", "The goals:", ""] + goals(idx, lx, unit)
    lines += ["", "Without notification avoidance the depth-32 figure can stay low: the "
              "requests a completion batch frees go out again with one kick (the block "
              "layer's plug), so what the switch takes away is only the test of the other "
              "side's event index (`req_event`, `avail_event`) or flags, which at most saves "
              "the kick of a batch the other side is still working through. Under Xen how "
              "far dom0's backend has got when a batch goes out is not fixed by icount, so "
              "there the two rows also differ by that from boot to boot."]
    return lines
