#!/usr/bin/env python3
"""A natively patched site must hold exactly what the PARAVIRT=n build has
for the same wrapper, plus NOP padding.

Boots build/patchbay.elf natively with pv.trace=1, which prints every site's
bytes after patching, strips the recommended NOPs from the end of each, and
compares them with the instructions the no-paravirt image recorded for the
same op in .pv_native_sites (build/nopv/patchbay.elf)."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True  # no __pycache__ in tests/
sys.path.insert(0, os.path.join(ROOT, "tools"))

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


def main():
    from pbtools.elf import pvsites  # it reads the descriptors and names the ops
    expected = native_instructions(pvsites)
    sites = patched_sites()
    passed = failed = 0
    for addr, op, _, _, after, result in sites:
        code = strip_nops(bytes.fromhex(after.replace(" ", "")))
        if result == "inline" and code in expected.get(op, ()):
            passed += 1
            continue
        failed += 1
        want = ", ".join(c.hex(" ") for c in sorted(expected.get(op, ()))) or "no such op"
        print(f"FAIL site {addr} {op}: patched to {code.hex(' ')} ({result}); "
              f"PARAVIRT=n has {want}")
    if not sites:
        failed += 1
        print("FAIL no sites traced: was pv.trace=1 honoured?")
    ops = sorted({s[1] for s in sites})
    print(f"pv native equivalence: {len(sites)} sites over {len(ops)} ops ({', '.join(ops)})")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
