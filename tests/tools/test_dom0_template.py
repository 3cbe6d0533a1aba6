#!/usr/bin/env python3
"""tools/pbtools/run/dom0_template.py's key, which says when two domU runs
may share a saved dom0: not when their QEMU arguments, Xen, dom0's kernel or
initramfs, or their disk's size or access differ; yes when only their
working directories or their disks' paths do. And the runs that take no
template: not --domu, --icount, --gdb. Ends with "N passed, N failed"."""

import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests"))
from report import check, summary  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))
from pbtools.run import dom0_template  # noqa: E402


def workdir(root, name, xen=b"XEN", vmlinux=b"LINUX", initrd=b"INITRD"):
    """A QEMU working directory as tools/run_domu.py leaves one, with
    tools/fetch-domu's stamp beside it, which records vmlinux's SHA256."""
    path = os.path.join(root, name)
    os.makedirs(path)
    for file, data in (("xen", xen), ("initrd.stamp", b"STAMP " + vmlinux),
                       ("initrd.cpio", initrd)):
        with open(os.path.join(path, file), "wb") as f:
            f.write(data)
    return path


def disk(root, name, size):
    path = os.path.join(root, name)
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def command(work, disk_path=None, append="dom0_mem=384M"):
    cmd = ["qemu-system-x86_64", "-kernel", "xen", "-append", append, "-drive",
           "file=%s/run-files.img,if=none,id=pbrun" % work]
    if disk_path:
        cmd += ["-drive", "file=%s,if=none,id=pbdisk" % disk_path]
    return cmd


def key(work, disk_path=None, ro=False, **kw):
    args = argparse.Namespace(disk_path=disk_path, disk_ro=ro)
    return dom0_template.template_key(command(work, disk_path, **kw), args, work,
                                      os.path.join(work, "initrd.stamp"))


def main():
    with tempfile.TemporaryDirectory() as d:
        a, b = workdir(d, "run-a"), workdir(d, "run-b")
        check("two runs' working directories: one key", key(a) == key(b))
        check("another Xen command line: another key", key(a) != key(a, append="dom0_mem=512M"))
        for what in ("xen", "vmlinux", "initrd"):
            other = workdir(d, "run-" + what, **{what: b"OTHER"})
            check("another %s: another key" % what, key(other) != key(a))
        small, small2, big = disk(d, "x.img", 4 << 20), disk(d, "y.img", 4 << 20), disk(
            d, "z.img", 8 << 20)
        check("two disks of one size at other paths: one key", key(a, small) == key(b, small2))
        check("a disk of another size: another key", key(a, small) != key(a, big))
        check("a read-only disk: another key", key(a, small) != key(a, small, ro=True))
        check("a disk or none: another key", key(a, small) != key(a))
    for argv, want in ((dict(domu=False, icount=False, gdb=False), None),
                       (dict(domu=True, icount=True, gdb=False), None),
                       (dict(domu=True, icount=False, gdb=True), None),
                       (dict(domu=True, icount=False, gdb=False), "template")):
        got = dom0_template.mode_for(argparse.Namespace(**argv))
        check("%s: %s" % (", ".join(k for k, v in argv.items() if v) or "native",
                          want or "no template"), got == want, got)
    os.environ["PATCHBAY_DOM0_TEMPLATES"] = "off"
    got = dom0_template.mode_for(argparse.Namespace(domu=True, icount=False, gdb=False))
    check("PATCHBAY_DOM0_TEMPLATES=off: a fresh boot", got == "fresh", got)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
