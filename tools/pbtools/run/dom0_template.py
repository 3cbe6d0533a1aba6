"""dom0 templates for tools/run --domu: the Xen and Linux dom0 a domU run
boots, saved once just before it reads the run's own files and restored
by later runs, so that each domU run does not boot them again (about 6 s
of the 8 s a short run takes). Xen's and dom0's boot are tested by every
run that makes a template; what follows (the toolstack creating, running,
saving and moving the domU) runs afresh in every run.

dom0's /init (tools/domu/init) sets itself up from its initramfs, which
holds nothing of the run but the setup (disk? network?), then says
READY_LINE and polls QEMU's run disk for the run's files (tools/run_domu.py
writes them there: the image, its xl config, the parameters). A run:

- "create": no template for this machine yet. It boots; at READY_LINE it
  stops QEMU, saves it through QEMU's migration to a file (QMP), keeps the
  console so far beside it, writes the run's files, and lets QEMU go on.
- "restore": starts QEMU from the saved state (-incoming), shows the saved
  console first, writes the run's files before QEMU goes on.
- "fresh": another run is making the template: it boots with its files
  already in place, as a run does when templates do not apply (applies()).

A template is made for one machine: its key hashes QEMU's arguments (the
run's own paths taken out), Xen, dom0's kernel and initramfs (the stamp
tools/fetch-domu keeps of them), and the size and access of the run's
disk, whose contents blkback reads past dom0's page cache. Under --icount
there are no templates: where QEMU stops is up to the host, so a restored
run's instruction counts would not repeat. PATCHBAY_DOM0_TEMPLATES=off
boots every run afresh; PATCHBAY_DOM0_TEMPLATE_DIR=DIR keeps them in DIR
instead of $BUILD/dom0-templates (a test's own)."""

import fcntl
import hashlib
import json
import os
import re
import socket
import sys
import tempfile
import threading
import time

from pbtools.paths import build_dir
from pbtools.run.common import fail
from pbtools.run.domu import domu_files

# The run disk, the virtio disk after the guest's (tools/domu/init's run_disk).
RUN_FILES_SIZE = 64 << 20  # a dom0 template's run disk has this size, so every one does
RUN_FILES_AT = 1 << 20
READY_LINE = re.compile(rb"dom0: waiting for the run's files[^\n]*\n")
TEMPLATES = "dom0-templates"  # under the build directory
QMP_WAIT_S = 30               # for QEMU's monitor, a save or a load


def run_disk_args(args, image, workdir):
    """QEMU's words for the run disk, after the guest's own disk (so that
    one stays dom0's /dev/vda): a virtio disk of RUN_FILES_SIZE holding a
    header sector "patchbay-run SIZE", then at RUN_FILES_AT the run's files
    (domu_files), SIZE bytes. Sets args.run_files, which writes them there:
    at once, or once the run's dom0 is saved as a template."""
    path = os.path.join(workdir, "run-files.img")
    with open(path, "wb") as f:
        f.truncate(RUN_FILES_SIZE)
    archive = domu_files(args, image, workdir)
    if len(archive) > RUN_FILES_SIZE - RUN_FILES_AT:
        fail("--domu: the run's files take %d bytes, more than the run disk's %d"
             % (len(archive), RUN_FILES_SIZE - RUN_FILES_AT), 2)

    def write():
        with open(path, "r+b") as f:
            f.seek(RUN_FILES_AT)
            f.write(archive)
            f.seek(0)
            f.write(b"patchbay-run %d\n" % len(archive))
    args.run_files = write
    drive = "file=%s,if=none,id=pbrun,format=raw,readonly=on" % path.replace(",", ",,")
    return ["-drive", drive, "-device", "virtio-blk-pci,drive=pbrun,disable-legacy=on"]


def applies(args):
    """Whether the run's dom0 comes through a template (Template says
    whether it saves or restores one): a --domu run not under --icount or
    --gdb, with templates on."""
    return bool(args.domu and not args.icount and not args.gdb
                and os.environ.get("PATCHBAY_DOM0_TEMPLATES", "on") != "off")


def template_key(cmd, args, workdir, stamp):
    """The hash naming the template of QEMU command cmd (workdir's paths as
    named there, the run disk as its size and access). dom0's kernel counts
    through stamp, tools/fetch-domu's record of its SHA256 (and of the
    initramfs archives'), checked before every run: hashing the 66 MB
    vmlinux again would cost each run a tenth of a second."""
    h = hashlib.sha256()
    for word in cmd:
        word = word.replace(workdir, "@WORKDIR@")
        if args.disk_path:
            word = word.replace(args.disk_path.replace(",", ",,"), "@DISK@")
        h.update(word.encode() + b"\0")
    if args.disk_path:
        h.update(b"disk %d %s\0" % (os.path.getsize(args.disk_path), b"ro" if args.disk_ro else b"rw"))
    for path in (os.path.join(workdir, "xen"), os.path.join(workdir, "initrd.cpio"), stamp):
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()[:24]


class Template:
    """One run's side of its template: which way it goes (create, restore or
    fresh), QEMU's extra words, and the console and QMP work of that way."""

    def __init__(self, cmd, args, workdir, write_files):
        self.write_files = write_files  # writes the run's files to the run disk
        self.dir = os.environ.get("PATCHBAY_DOM0_TEMPLATE_DIR") or os.path.join(build_dir(),
                                                                              TEMPLATES)
        os.makedirs(self.dir, exist_ok=True)
        self.key = template_key(cmd, args, workdir,
                                os.path.join(build_dir(), "domu", "initrd.stamp"))
        self.state = os.path.join(self.dir, self.key + ".state")
        self.console_path = os.path.join(self.dir, self.key + ".console")
        self.lock = None
        self.sock_dir = tempfile.mkdtemp(prefix="pb-qmp-")
        self.sock = os.path.join(self.sock_dir, "qmp")
        self.seen = b""
        self.done = False
        if os.path.exists(self.state) and os.path.exists(self.console_path):
            self.way = "restore"
        elif self.take_lock():
            self.way = "create"
        else:
            self.way = "fresh"
        if self.way != "create":
            self.write_files()
        self.resumed = False
        if self.way != "fresh":
            shown = os.path.relpath(self.state)
            print("run: dom0 %s template %s" % ("from" if self.way == "restore" else "saved as",
                                               self.state if shown.startswith("..") else shown),
                  file=sys.stderr)

    def take_lock(self):
        fd = os.open(os.path.join(self.dir, self.key + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self.lock = fd
        return True

    def qemu_words(self):
        """What QEMU needs beyond the run's own command line."""
        if self.way == "fresh":
            return []
        words = ["-qmp", "unix:%s,server=on,wait=off" % self.sock]
        if self.way == "restore":
            # exec: runs a shell command; the path is quoted for it.
            words += ["-incoming", "exec:cat '%s'" % self.state.replace("'", "'\\''")]
        return words

    def started(self, console):
        """QEMU has started: a restored run shows the saved console, then
        lets the loaded machine go on."""
        if self.way == "restore":
            with open(self.console_path, "rb") as f:
                console.write(f.read())
            threading.Thread(target=self.guard, args=(self.resume,), daemon=True).start()

    def wrote(self, data):
        """Console bytes from QEMU: a creating run saves at READY_LINE."""
        if self.way != "create" or self.done:
            return
        self.seen += data
        if READY_LINE.search(self.seen):
            self.done = True
            threading.Thread(target=self.guard, args=(self.save,), daemon=True).start()

    def guard(self, work):
        """Runs work. A template that failed to load is deleted, so that the
        next run makes it again, and this run's QEMU ends at once (its
        outcome: no kernel exit) rather than at the time-out."""
        try:
            work()
        except (OSError, ValueError, RuntimeError) as e:
            print("run: dom0 template %s: %s" % (self.way, e), file=sys.stderr)
            if self.way == "restore":
                self.forget()
                try:
                    Qmp(self.sock).command("quit")
                except (OSError, ValueError, RuntimeError):
                    pass

    def resume(self):
        qmp = Qmp(self.sock)
        status = qmp.wait_status(lambda s: s != "inmigrate")
        if status != "paused":
            raise RuntimeError("QEMU did not load %s (status %s)" % (self.state, status))
        qmp.command("cont")
        self.resumed = True

    def forget(self):
        """Deletes a template that did not load, so that the next run makes
        it again."""
        for path in (self.state, self.console_path):
            if os.path.exists(path):
                os.unlink(path)

    def save(self):
        """Saves the stopped machine and its console; then, saved or not,
        the run's files and on."""
        qmp = Qmp(self.sock)
        qmp.command("stop")
        try:
            self.save_stopped(qmp)
        finally:
            self.write_files()
            qmp.command("cont")

    def save_stopped(self, qmp):
        """The migration to the state file; a failed one (the disk full,
        say) leaves no partial file behind."""
        tmp = self.state + ".tmp"
        qmp.command("migrate", uri="exec:cat > '%s'" % tmp.replace("'", "'\\''"))
        deadline = time.monotonic() + QMP_WAIT_S
        while True:
            status = qmp.command("query-migrate").get("status")
            if status == "completed":
                break
            if status == "failed" or time.monotonic() > deadline:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise RuntimeError("saving QEMU failed (migration %s)" % status)
            time.sleep(0.05)
        console = self.seen[:READY_LINE.search(self.seen).end()]
        with open(self.console_path + ".tmp", "wb") as f:
            f.write(console)
        os.replace(self.console_path + ".tmp", self.console_path)
        os.replace(tmp, self.state)

    def close(self):
        """The run is over. A restore that never went on (QEMU could not
        load the state, say) deletes its template."""
        if self.way == "restore" and not self.resumed:
            self.forget()
            print("run: the dom0 template did not load; deleted: the next run saves a new one",
                  file=sys.stderr)
        if self.lock is not None:
            os.close(self.lock)
        for name in os.listdir(self.sock_dir):
            os.unlink(os.path.join(self.sock_dir, name))
        os.rmdir(self.sock_dir)


class Qmp:
    """A QEMU monitor connection (QMP's JSON lines), capabilities negotiated."""

    def __init__(self, path):
        deadline = time.monotonic() + QMP_WAIT_S
        while True:
            self.sock = socket.socket(socket.AF_UNIX)
            try:
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        self.sock.settimeout(QMP_WAIT_S)
        self.file = self.sock.makefile("rw")
        json.loads(self.file.readline())  # the greeting
        self.command("qmp_capabilities")

    def command(self, name, **arguments):
        message = {"execute": name}
        if arguments:
            message["arguments"] = arguments
        self.file.write(json.dumps(message) + "\n")
        self.file.flush()
        while True:
            line = self.file.readline()
            if not line:
                raise RuntimeError("QEMU closed its monitor during %s" % name)
            reply = json.loads(line)
            if "error" in reply:
                raise RuntimeError("%s: %s" % (name, reply["error"].get("desc")))
            if "return" in reply:
                return reply["return"]

    def wait_status(self, done):
        deadline = time.monotonic() + QMP_WAIT_S
        while True:
            status = self.command("query-status")["status"]
            if done(status) or time.monotonic() > deadline:
                return status
            time.sleep(0.02)
