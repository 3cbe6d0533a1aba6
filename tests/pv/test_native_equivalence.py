"""A natively patched site must hold exactly what the PARAVIRT=n build has
for the same wrapper, plus NOP padding.

Boots build/patchbay.elf natively with pv.trace=1, which prints every site's
bytes after patching, strips the recommended NOPs from the end of each, and
compares them with the instructions the no-paravirt image recorded for the
same op in .pv_native_sites (build/nopv/patchbay.elf)."""

import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHOWN = 10  # sites a failure lists; the rest are counted

PV_IMAGE = os.path.join(ROOT, "build", "patchbay.elf")
NOPV_IMAGE = os.path.join(ROOT, "build", "nopv", "patchbay.elf")
LOG = os.path.join(ROOT, "build", "test-logs", "pv-native-equivalence.log")

# Intel SDM vol. 2B, "NOP": the recommended multi-byte forms.
NOPS = [bytes.fromhex(h) for h in (
    "90", "6690", "0f1f00", "0f1f4000", "0f1f440000", "660f1f440000",
    "0f1f8000000000", "0f1f840000000000", "660f1f840000000000")]
TRACE = re.compile(r"^pv: site ([0-9a-f]+) (\w+) len (\d+):((?: [0-9a-f]{2})+) ->"
                   r"((?: [0-9a-f]{2})+) \((.*)\)$", re.M)


def strip_nops(code):
    """code without the padding in front of it (the patcher pads first): a
    recommended NOP, or a short jmp over int3s past the longest NOP."""
    if len(code) > 2 and code[0] == 0xEB and code[2:2 + code[1]] == b"\xcc" * code[1]:
        return code[2 + code[1]:]
    longest_first = sorted(NOPS, key=len, reverse=True)
    while code:
        nop = next((n for n in longest_first if code.startswith(n)), None)
        if nop is None:
            break
        code = code[len(nop):]
    return code


def native_instructions(pvsites):
    """op name -> set of instruction byte strings in the PARAVIRT=n image."""
    try:
        image = pvsites.open_image(NOPV_IMAGE)
        if image.section(".pv_native_sites") is None:
            raise SystemExit(f"{NOPV_IMAGE}: no .pv_native_sites "
                             "(build it with make PARAVIRT=n)")
        records = pvsites.descriptors(image, ".pv_native_sites")
        names = pvsites.op_names()
    except pvsites.ToolError as e:
        raise SystemExit(f"test_native_equivalence: {e}") from e
    found = {}
    for addr, op, length, _, _ in records:
        found.setdefault(names[op], set()).add(image.bytes_at(addr, length))
    return found


def patched_sites():
    os.makedirs(os.path.dirname(LOG), exist_ok=True)
    rc = subprocess.call([os.path.join(ROOT, "tools", "run"), "--quiet", "--log", LOG,
                          "--timeout", "120", "--", "pv.trace=1"])
    if rc != 0:
        raise SystemExit(f"boot with pv.trace=1 failed (status {rc}); see {LOG}")
    with open(LOG, errors="replace") as f:
        return TRACE.findall(f.read().replace("\r", ""))


@pytest.fixture(scope="module")
def sites():
    """The trace of one native boot: (addr, op, len, before, after, result) a site."""
    return patched_sites()


@pytest.fixture(scope="module")
def expected():
    from pbtools.elf import pvsites  # it reads the descriptors and names the ops
    return native_instructions(pvsites)


@pytest.mark.timeout(900)
def test_sites_traced(sites):
    assert sites, "no sites traced: was pv.trace=1 honoured?"


@pytest.mark.timeout(900)
def test_every_site_holds_the_paravirt_n_instructions(sites, expected):
    wrong = []
    for addr, op, _, _, after, result in sites:
        code = strip_nops(bytes.fromhex(after.replace(" ", "")))
        if result == "inline" and code in expected.get(op, ()):
            continue
        want = ", ".join(c.hex(" ") for c in sorted(expected.get(op, ()))) or "no such op"
        wrong.append(f"site {addr} {op}: patched to {code.hex(' ')} ({result}); "
                     f"PARAVIRT=n has {want}")
    ops = sorted({s[1] for s in sites})
    more = [f"... and {len(wrong) - SHOWN} more"] if len(wrong) > SHOWN else []
    assert not wrong, (f"{len(wrong)} of {len(sites)} sites over {len(ops)} ops "
                       f"({', '.join(ops)}):\n" + "\n".join(wrong[:SHOWN] + more))
