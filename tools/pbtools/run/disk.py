"""tools/run --disk FILE: the guest's disk, and the host's check of it.

Every door hands FILE to QEMU the same way, as a virtio-blk PCI device
(modern only) with the host's page cache as its write cache: natively
and with --iso it is the kernel's own disk (drivers/virtio_blk.c); with
--domu it is dom0's /dev/vda, which dom0 passes on to the domU's blkfront.
QEMU's trace of that device (its reads, writes and completions) goes to a
file in the run's directory. After QEMU exits, tools/diskcheck reads the
guest's flushed-blocks lines from the console and checks each block they
name in FILE, and in the trace that the device completed a write to it
and a flush after the last: the bytes reach FILE through the host's page
cache with or without a flush, so only the device's own record shows the
guest flushed at all.
"""

import os
import subprocess

from pbtools.paths import HOST_BUILD, ROOT, host_program
from pbtools.run.common import fail

DISK_ID = "pbdisk"
DISK_FLUSHED = b"disk: flushed blocks "  # DISK_FLUSHED_PREFIX, kernel/disk_pattern.h
TRACE_NAME = "disk-trace.log"
TRACE_EVENTS = ("virtio_blk_handle_read", "virtio_blk_handle_write", "virtio_blk_req_complete")
DISKCHECK_TARGET, DISKCHECK = host_program("diskcheck")
SIZE_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def disk_size(text):
    """--disk-new's SIZE: bytes, or K, M or G of them; whole 4 KiB blocks."""
    unit = text[-1:].upper() if text[-1:].isalpha() else ""
    number = text[:-1] if unit else text
    if unit not in SIZE_SUFFIXES or not number.isdigit():
        raise ValueError("not a size")
    size = int(number) * SIZE_SUFFIXES[unit]
    if size <= 0 or size % 4096:
        raise ValueError("not a positive multiple of 4 KiB")
    return size


def check_disk_args(p, args):
    """--disk FILE[:ro], --disk-ro and --disk-new SIZE: args.disk_path,
    args.disk_ro and args.disk_bytes set; nothing touched yet."""
    args.disk_path, args.disk_bytes = None, None
    if args.disk is None:
        if args.disk_ro or args.disk_new:
            p.error("--disk-ro and --disk-new apply to --disk FILE only")
        return
    path = args.disk
    if path.endswith(":ro"):
        path, args.disk_ro = path[:-3], True
    args.disk_path = os.path.abspath(path)
    if args.disk_new:
        try:
            args.disk_bytes = disk_size(args.disk_new)
        except ValueError as e:
            p.error("--disk-new %s: %s" % (args.disk_new, e))


def prepare_disk(args):
    """Makes FILE afresh for --disk-new; refuses a missing one (status 2)."""
    if not args.disk_path:
        return
    if args.disk_bytes:
        os.makedirs(os.path.dirname(args.disk_path), exist_ok=True)
        with open(args.disk_path, "wb") as f:
            f.truncate(args.disk_bytes)
    if not os.path.isfile(args.disk_path):
        fail("disk file %s not found (--disk FILE hands an existing file to the guest)"
             % args.disk, 2)


def disk_qemu_args(args, workdir):
    """QEMU's words for the disk and its trace; [] without --disk."""
    if not args.disk_path:
        return []
    # QEMU's option syntax doubles a comma inside a value.
    drive = "file=%s,if=none,id=%s,format=raw,cache=writeback%s" % (
        args.disk_path.replace(",", ",,"), DISK_ID, ",readonly=on" if args.disk_ro else "")
    words = ["-drive", drive, "-device", "virtio-blk-pci,drive=%s,disable-legacy=on" % DISK_ID]
    for event in TRACE_EVENTS:
        words += ["-trace", "enable=" + event]
    return words + ["-D", os.path.join(workdir, TRACE_NAME)]


def disk_check(args, workdir, console_data):
    """(passed, the line to show) of the host's check, or (True, None)
    without --disk or when the guest named no flushed blocks."""
    if not args.disk_path or DISK_FLUSHED not in console_data:
        return True, None
    try:
        subprocess.run(["make", "-s", "-C", ROOT, "BUILD=" + HOST_BUILD, DISKCHECK_TARGET],
                       check=True, stdin=subprocess.DEVNULL, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        return False, "disk-check: cannot build tools/diskcheck: %s" % e
    console = os.path.join(workdir, "console.log")
    with open(console, "wb") as f:
        f.write(console_data)
    trace = os.path.join(workdir, TRACE_NAME)
    cmd = [DISKCHECK, args.disk_path, console] + ([trace] if os.path.exists(trace) else [])
    out = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    text = (out.stdout + out.stderr).decode(errors="replace").strip()
    return out.returncode == 0, text
