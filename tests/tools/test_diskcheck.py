"""tools/diskcheck, the host's check of the disk workload, on files made
here: blocks of the pattern (diskcheck --fill, the kernel's own
kernel/disk_pattern.c), a console with flushed-blocks lines, and QEMU
trace lines in the form its virtio-blk device writes them. Good blocks
written and then flushed pass; a flipped byte, a block of an older
generation or another's place, a claim past the end of the file, a block
the device wrote only after its last flush or never wrote in this run,
and fewer flushes than claims each fail, and the first wrong blocks are
named."""

import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DISKCHECK = os.path.join(ROOT, "build", "host", "diskcheck")
BLOCK = 4096


def trace_line(event, req, extra=""):
    return "virtio_blk_%s vdev 0x55d0c0de0000 req 0x%x%s\n" % (event, req, extra)


def write(req, first, last):
    """The trace of one write of blocks first..last, begun and completed."""
    return (trace_line("handle_write", req, " sector %d nsectors %d"
                       % (first * 8, (last - first + 1) * 8))
            + trace_line("req_complete", req, " status 0"))


def flush(req, status=0):
    return trace_line("req_complete", req, " status %d" % status)


class Case:
    """A directory with an image of 16 blocks, blocks 0-7 of generation 2
    filled, and the files diskcheck reads."""

    def __init__(self, d):
        self.d = d
        self.image = os.path.join(d, "disk.img")
        with open(self.image, "wb") as f:
            f.truncate(16 * BLOCK)
        fill(self.image, 0, 7, 2, 0x5eed)

    def run(self, console, trace=None):
        paths = [self.image, os.path.join(self.d, "console.log")]
        with open(paths[1], "w") as f:
            f.write(console)
        if trace is not None:
            paths.append(os.path.join(self.d, "trace.log"))
            with open(paths[2], "w") as f:
                f.write(trace)
        p = subprocess.run([DISKCHECK] + paths, capture_output=True, text=True, timeout=30)
        return p.returncode, p.stdout.splitlines()


def fill(image, first, last, generation, seed):
    subprocess.run([DISKCHECK, "--fill", image, str(first), str(last), str(generation),
                    "%x" % seed], check=True, timeout=30)


CLAIM = "disk: flushed blocks 0-7 generation 2 seed 0x5eed\n"
GOOD_TRACE = write(0x10, 0, 3) + write(0x10, 4, 7) + flush(0x20)


OK_LINE = ("disk-check: 8 blocks verified on the host, 0 wrong; 1 flush by the device for "
           "1 claimed")


def expect(got, status, last, first_wrong=None):
    code, lines = got
    ok = code == status and lines and lines[-1] == last
    if first_wrong is not None:
        ok = ok and lines[0] == first_wrong
    assert ok, "status %d, lines %r" % (code, lines)


@pytest.fixture(scope="module")
def diskcheck():
    subprocess.run(["make", "-s", "-C", ROOT, "BUILD=build", "build/host/diskcheck"],
                   check=True, stdin=subprocess.DEVNULL, timeout=300)


@pytest.fixture
def case(diskcheck, tmp_path):
    return Case(str(tmp_path))


# (console, trace, status, last line, first wrong block's line); ids name each.
CASES = {
    "written, then flushed: all good": ("x\n" + CLAIM, GOOD_TRACE, 0, OK_LINE, None),
    # A relay may put its prefix before the guest's line.
    "a relay's prefix before the claim": ("domU: " + CLAIM, GOOD_TRACE, 0, OK_LINE, None),
    "without a trace, the bytes alone": (
        CLAIM, None, 0, "disk-check: 8 blocks verified on the host, 0 wrong", None),
    "no claim: nothing to verify": (
        "patchbay: PASS\n", GOOD_TRACE, 0,
        "disk-check: the guest named no flushed blocks: nothing to verify", None),
    "the flush before the last write: unflushed": (
        CLAIM, write(0x10, 0, 3) + flush(0x20) + write(0x10, 4, 7), 1,
        "disk-check: 8 blocks verified on the host, 4 wrong; 1 flush by the device for 1 claimed",
        "disk-check: block 4: the device completed no flush after its last write "
        "(expected generation 2)"),
    "a block the device never wrote in this run": (
        CLAIM, write(0x10, 0, 6) + flush(0x20), 1,
        "disk-check: 8 blocks verified on the host, 1 wrong; 1 flush by the device for 1 claimed",
        "disk-check: block 7: the device completed no write to it in this run "
        "(expected generation 2)"),
    "a failed flush is no flush": (
        CLAIM, write(0x10, 0, 7) + flush(0x20, 1), 1,
        "disk-check: 8 blocks verified on the host, 8 wrong; 0 flushes by the device "
        "for 1 claimed", None),
    "a read's completion is no flush": (
        CLAIM, write(0x10, 0, 7) + trace_line("handle_read", 0x30, " sector 0 nsectors 8")
        + trace_line("req_complete", 0x30, " status 0"), 1,
        "disk-check: 8 blocks verified on the host, 8 wrong; 0 flushes by the device "
        "for 1 claimed", None),
    "two claims, one flush": (
        CLAIM + CLAIM, GOOD_TRACE, 1,
        "disk-check: 8 blocks verified on the host, 0 wrong; 1 flush by the device for "
        "2 claimed", None),
    "a claim past the end of the file": (
        "disk: flushed blocks 0-20 generation 2 seed 0x5eed\n", None, 1,
        "disk-check: 21 blocks verified on the host, 13 wrong",
        "disk-check: block 8: no pattern header (expected generation 2)"),
    "an older generation": (
        CLAIM.replace("generation 2", "generation 3"), None, 1,
        "disk-check: 8 blocks verified on the host, 8 wrong",
        "disk-check: block 0: an older or newer generation (expected generation 3)"),
    "the last claim for a block counts": (
        "disk: flushed blocks 0-7 generation 1 seed 0x5eed\n" + CLAIM, None, 0,
        "disk-check: 8 blocks verified on the host, 0 wrong", None),
}


@pytest.mark.parametrize("console,trace,status,last,first_wrong", CASES.values(),
                         ids=list(CASES))
def test_claim(case, console, trace, status, last, first_wrong):
    expect(case.run(console, trace), status, last, first_wrong)


def test_another_seeds_block(case):
    fill(case.image, 3, 3, 2, 0x5eee)
    expect(case.run(CLAIM), 1, "disk-check: 8 blocks verified on the host, 1 wrong",
           "disk-check: block 3: another seed's data (expected generation 2)")


def test_one_byte_changed(case):
    with open(case.image, "r+b") as f:
        f.seek(5 * BLOCK + 1000)
        f.write(b"\xff")
    expect(case.run(CLAIM), 1, "disk-check: 8 blocks verified on the host, 1 wrong",
           "disk-check: block 5: bad checksum (expected generation 2)")


def test_block_in_anothers_place_each_wrong_named(case):
    with open(case.image, "r+b") as f:
        f.seek(5 * BLOCK + 1000)
        f.write(b"\xff")
        f.seek(6 * BLOCK)
        f.write(open(case.image, "rb").read()[: BLOCK])
    expect(case.run(CLAIM), 1, "disk-check: 8 blocks verified on the host, 2 wrong",
           "disk-check: block 5: bad checksum (expected generation 2)")
    _, lines = case.run(CLAIM)
    assert lines[:2] == [
        "disk-check: block 5: bad checksum (expected generation 2)",
        "disk-check: block 6: another block's data (expected generation 2)"], \
        "each wrong block named: %s" % lines


def test_missing_image(case):
    os.unlink(case.image)
    code, lines = case.run(CLAIM)
    assert code == 2, "a missing image: status 2: %s" % ((code, lines),)
