"""The benchmarks an image registers, read out of it (BENCH_DEFINE and
BENCH_GROUP in bench/bench.h): names, groups, what each needs and which
platform offers it. tools/bench boots them, the report and the explorer
lay out by them: there is no second list to forget."""

import struct

from pbtools.elf import image as elfimage

# The layouts of bench/bench.h, which _Static_asserts the offsets used here.
BENCH_SIZE = 64
BENCH_CAP_SIZE = 24


class CatalogError(Exception):
    """The image has no benchmark table the tools can read."""


def catalog(path):
    """The benchmarks registered in the image at path, in the order the
    kernel runs them (group rank, group name, name), as a dict:
      benches: [{name, group, needs: [cap names], needs_mask, every_cpu, description}]
      groups:  [{name, title, rank}] of the groups those use, in order
      caps:    [{name, bit, platform}]: which platform offers each capability
    """
    image = elfimage.Image(path)
    start, stop = (image.symbol_address(s) for s in ("__start_benches", "__stop_benches"))
    caps_at = image.symbol_address("bench_caps")
    if start is None or stop is None or caps_at is None:
        raise CatalogError("%s: no benchmark table (__start_benches, bench_caps)" % path)

    def number(fmt, addr):
        raw = image.bytes_at(addr, struct.calcsize(fmt))
        if raw is None or len(raw) != struct.calcsize(fmt):
            raise CatalogError("%s: the benchmark table runs outside the image at 0x%x"
                               % (path, addr))
        return struct.unpack(fmt, raw)[0]

    def pointer(addr):
        return number("<Q", addr)

    def string(addr):
        text = image.cstring_at(pointer(addr))
        if text is None:
            raise CatalogError("%s: a benchmark string at 0x%x points outside the image"
                               % (path, addr))
        return text

    caps = []
    for at in range(caps_at, caps_at + 64 * BENCH_CAP_SIZE, BENCH_CAP_SIZE):
        if not pointer(at + 8):
            break
        caps.append(dict(name=string(at + 8), bit=number("<I", at), platform=string(at + 16)))
    groups, benches = {}, []
    for at in range(start, stop, BENCH_SIZE):
        group_at = pointer(at + 8)
        if group_at not in groups:
            groups[group_at] = dict(name=string(group_at), title=string(group_at + 8),
                                    rank=number("<I", group_at + 16))
        mask = number("<I", at + 32)
        needs = [c["name"] for c in caps if mask & c["bit"]]
        named = 0
        for c in caps:
            named |= c["bit"]
        unnamed = mask & ~named
        if unnamed:
            needs.append("0x%x" % unnamed)
        benches.append(dict(name=string(at), group=groups[group_at]["name"], needs=needs,
                            needs_mask=mask, every_cpu=bool(number("<B", at + 37)),
                            description=string(at + 16)))
    return ordered(dict(benches=benches, groups=list(groups.values()), caps=caps))


def ordered(cat):
    """cat sorted as bench/order.c sorts: by group rank, then group name,
    then name. Groups with the same name are one group."""
    groups = {}
    for g in cat["groups"]:
        groups.setdefault(g["name"], g)
    key = {name: (g["rank"], name) for name, g in groups.items()}
    benches = {}
    for b in cat["benches"]:
        benches.setdefault(b["name"], b)
    return dict(benches=sorted(benches.values(), key=lambda b: (key[b["group"]], b["name"])),
                groups=sorted(groups.values(), key=lambda g: key[g["name"]]),
                caps=cat["caps"])


def merged(catalogs):
    """One catalog holding every benchmark of any of catalogs (the two
    images may register different benchmarks)."""
    out = dict(benches=[], groups=[], caps=[])
    for cat in catalogs:
        out["benches"] += cat["benches"]
        out["groups"] += cat["groups"]
        out["caps"] += [c for c in cat["caps"] if c not in out["caps"]]
    return ordered(out)


def offers(cap, platform):
    """Whether the platform (a pv_info.name) offers the capability, whose
    platform is a name or a family ("xen" for "xen-pv" and "xen-pvh")."""
    return platform == cap["platform"] or platform.startswith(cap["platform"] + "-")


def platform_caps(cat, platform):
    """The capability bits a platform's backend offers."""
    bits = 0
    for c in cat["caps"]:
        if offers(c, platform):
            bits |= c["bit"]
    return bits


def runs_on(bench, cat, platform, disk=False):
    """Whether the benchmark runs on the platform, given a disk or not."""
    caps = platform_caps(cat, platform)
    if disk:
        caps |= sum(c["bit"] for c in cat["caps"] if c["name"] == "disk")
    return not bench["needs_mask"] & ~caps


def selected(cat, words):
    """The benchmarks bench=WORDS picks, in run order (bench/select.c)."""
    return [b for b in cat["benches"]
            if "all" in words or b["name"] in words or b["group"] in words]


def print_benches(cat):
    """The image's benchmarks, one a line under its group: name, one op
    (without the report's markdown quotes), needs."""
    width = max(len(b["name"]) for b in cat["benches"])
    for g in cat["groups"]:
        print("%s: %s" % (g["name"], g["title"]))
        for b in cat["benches"]:
            if b["group"] == g["name"]:
                needs = " [needs %s]" % ",".join(b["needs"]) if b["needs"] else ""
                print("  %-*s  %s%s" % (width, b["name"], b["description"].replace("`", ""), needs))
