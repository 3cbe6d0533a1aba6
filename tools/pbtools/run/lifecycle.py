"""tools/run --domu --lifecycle PLAN: Xen's toolstack saves, restores,
moves and migrates the domU while it runs. This module parses the plan
and sizes the run's time-out for it; dom0's /init carries it out
(LIFECYCLE in the run's params) and prints a line behind LIFECYCLE_PREFIX
for each step, and the kernel, told lifecycle=K, waits for K resumes
before it checks itself and ends its run. A failed step ends the run
with STATUS_LIFECYCLE_FAILED (tools/pbtools/run/domu.py reads it)."""

import argparse
import re

# --lifecycle PLAN: comma-separated steps, each one of LIFECYCLE_STEPS with
# an optional *N (1..LIFECYCLE_REPEAT_MAX). /init shows each step done in a
# line behind LIFECYCLE_PREFIX.
LIFECYCLE_STEPS = ("save-restore", "move", "migrate")
LIFECYCLE_REPEAT_MAX = 100
LIFECYCLE_STEP = re.compile(r"(%s)(?:\*(\d+))?" % "|".join(LIFECYCLE_STEPS))
LIFECYCLE_PREFIX = b"lifecycle-door: "
# Why a PV domU cannot migrate live under this Xen (xl: "xc: error: Failed
# to enable logdirty: 95,22,0", in 0.8 s, the guest never suspended).
MIGRATE_NEEDS_PVH = (
    "--lifecycle migrate needs --pvh: live migration of a PV guest needs log-dirty "
    "tracking, which for a PV domain needs Xen's shadow paging, and Debian's Xen is "
    "built without it (# CONFIG_SHADOW_PAGING is not set; xl fails with 'Failed to "
    "enable logdirty: 95'); use --pvh, or the steps save-restore and move")
# Xen's FPU switching in a --lifecycle run. With Xen's default on AMD, lazy
# (CR0.TS set, the state restored at a vCPU's first FPU use after a switch),
# dom0's programs died at random under TCG while the toolstack saved, moved
# and migrated a domain (malloc's "corrupted top size", segfaults, a libxl
# assertion, ld.so's): in 7 of 11 runs with a Linux domU, most within a few
# steps. Switched eagerly: none in 12 runs and 45 steps.
LIFECYCLE_XEN = "spec-ctrl=eager-fpu"
# Time-out defaults for --lifecycle, in seconds: the boot and the guest's
# own run, then each step by its kind. With two runs at once on 2 host
# CPUs, a 128 MiB Linux domU took 9-16 s a save-restore, 10-22 s a move,
# 15-24 s a live migration; patchbay's 64 MiB PVH domU with wl=on took up
# to 118 s a migration while the host ran other work (the write barrier
# dirties pages faster than the copy rounds send them). These are the
# plan's allowance on average; /init's own watchdog gives a suspend request
# 10 s, one step 120 s, a migration 300 s.
LIFECYCLE_BOOT_TIME = 90
LIFECYCLE_STEP_TIME = {"save-restore": 30, "move": 30, "migrate": 180}
# With --disk, xl runs the disk's hotplug script (bash, forking a few dozen
# commands under TCG) as it removes the old domain's disk and adds the new
# one's: a save-restore took 27 s instead of 18, a move 32 instead of 17.
LIFECYCLE_DISK_STEP_TIME = 20
# With --net, dom0's client keeps sending through every step (NET_PLAN_
# INTERVAL_MS apart) and dom0 shares its one CPU with it: a save-restore
# took 41 s instead of 18, a move 48 instead of 17.
LIFECYCLE_NET_STEP_TIME = 30


def lifecycle_plan(text):
    """--lifecycle's value: the plan expanded into its steps, one a word,
    or an argparse error naming the step that is not one."""
    steps = []
    for word in text.split(","):
        m = LIFECYCLE_STEP.fullmatch(word)
        n = int(m.group(2) or 1) if m else 0
        if not 1 <= n <= LIFECYCLE_REPEAT_MAX:
            raise argparse.ArgumentTypeError(
                "bad step %r in %r: each step is %s, optionally *N to repeat it "
                "(N from 1 to %d), and steps are separated by commas"
                % (word, text, ", ".join(LIFECYCLE_STEPS[:-1]) + " or " + LIFECYCLE_STEPS[-1],
                   LIFECYCLE_REPEAT_MAX))
        steps += [m.group(1)] * n
    return steps


def lifecycle_timeout(steps, disk=False, net=False):
    """--lifecycle's default time-out for a plan of these steps (with --disk
    if disk, --net if net)."""
    extra = (LIFECYCLE_DISK_STEP_TIME if disk else 0) + (LIFECYCLE_NET_STEP_TIME if net else 0)
    return LIFECYCLE_BOOT_TIME + sum(LIFECYCLE_STEP_TIME[step] + extra for step in steps)
