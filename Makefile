# patchbay: `make` builds build/patchbay.elf and build/patchbay.iso.
# `make run`, `make run-xen`, `make run-kvm`, `make run-gdb`, `make test`; see README.md.

# PARAVIRT=n builds the baseline without paravirt: each wrapper is the bare
# native instructions, with no ops table and no call sites (build/nopv/).
PARAVIRT ?= y
ifeq ($(PARAVIRT),n)
BUILD    := build/nopv
PV_FLAGS := -DCONFIG_PARAVIRT=0
else
BUILD    := build
PV_FLAGS := -DCONFIG_PARAVIRT=1
endif
# DEBUG=1 adds the kernel's debug checks (CONFIG_DEBUG: a per-CPU slot
# read by a thread that could move to another CPU panics), in $(BUILD)/debug/.
DEBUG ?= 0
ifeq ($(DEBUG),1)
BUILD    := $(BUILD)/debug
PV_FLAGS += -DCONFIG_DEBUG=1
endif
IMAGE    := $(BUILD)/patchbay.elf
ISO      := $(BUILD)/patchbay.iso
SETUP    := $(BUILD)/.setup-done

CC       := gcc
LD       := ld
NASM     := nasm

# Xen's headers default to an old ABI in which some hypercall numbers map to
# compat calls; ask for the one this kernel is written against.
XEN_ABI  := -D__XEN_INTERFACE_VERSION__=__XEN_LATEST_INTERFACE_VERSION__

KERNEL_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	-ffreestanding -fno-pic -fno-pie -mcmodel=small -mno-red-zone \
	-mgeneral-regs-only -fno-stack-protector -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fcf-protection=none \
	-fdebug-prefix-map=$(CURDIR)=. -I. $(XEN_ABI) $(PV_FLAGS) -MMD -MP
NASMFLAGS := -f elf64 -g -F dwarf -w+all
LDFLAGS  := -nostdlib -static -z max-page-size=4096 -z noexecstack --no-warn-rwx-segments

KERNEL_C   := $(sort $(wildcard kernel/*.c kernel/net/*.c arch/x86/*.c arch/x86/native/*.c mm/*.c pv/*.c kvm/*.c xen/*.c xen/pv/*.c xen/pvh/*.c drivers/*.c \
                bench/*.c))
KERNEL_ASM := $(sort $(wildcard boot/*.asm arch/x86/*.asm xen/*.asm xen/pv/*.asm xen/pvh/*.asm))
KERNEL_OBJ := $(patsubst %.c,$(BUILD)/kernel/%.o,$(KERNEL_C)) \
              $(patsubst %.asm,$(BUILD)/kernel/%.asm.o,$(KERNEL_ASM))

.PHONY: all image iso run run-xen run-domu run-pvh run-kvm run-gdb tour check test test-ready ready-nopv ready-debug ready-xen ready-domu test-group help quick unit-test bench-lifecycle boot-test pv-test xen-test tools-test \
	bench bench-test explore explore-test setup clean format
# The image and the GRUB ISO (make with no target).
all: image iso
# build/patchbay.elf, the one image every door boots.
image: $(IMAGE)
# build/patchbay.iso, the image behind GRUB, for --iso.
iso: $(ISO)

$(SETUP): tools/setup
	@mkdir -p $(BUILD)
	tools/setup
	@touch $@

# Installs the build tools and packages tools/setup lists (once).
setup: $(SETUP)

$(BUILD)/kernel/%.o: %.c | $(SETUP)
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

# The one object built with retpolines: its indirect call goes through
# __x86_indirect_thunk_<reg> (arch/x86/retpoline.asm), for the call benchmarks.
$(BUILD)/kernel/bench/call_retpoline.o: KERNEL_CFLAGS += -mindirect-branch=thunk-extern \
	-mindirect-branch-register

$(BUILD)/kernel/%.asm.o: %.asm | $(SETUP)
	@mkdir -p $(dir $@)
	$(NASM) $(NASMFLAGS) -MD $(@:.o=.d) -MP $< -o $@

# Two links: the first with an empty symbol table, the second with the
# table of the first's functions (tools/ksyms), which names backtraces.
$(BUILD)/ksyms_empty.c $(BUILD)/ksyms.c: tools/ksyms tools/pbtools/elf/ksyms.py
# tools/ksyms reads ELF with pyelftools, which tools/setup installs.
$(BUILD)/ksyms_empty.c: | $(SETUP)
	@mkdir -p $(dir $@)
	tools/ksyms --empty > $@
$(BUILD)/ksyms.c: $(BUILD)/patchbay.pass1.elf
	tools/ksyms $< > $@
$(BUILD)/ksyms_empty.o $(BUILD)/ksyms.o: $(BUILD)/%.o: $(BUILD)/%.c
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/patchbay.pass1.elf: $(KERNEL_OBJ) $(BUILD)/ksyms_empty.o linker.ld
	$(LD) $(LDFLAGS) -T linker.ld -o $@ $(KERNEL_OBJ) $(BUILD)/ksyms_empty.o

$(IMAGE): $(BUILD)/patchbay.pass1.elf $(BUILD)/ksyms.o
	$(LD) $(LDFLAGS) -T linker.ld -o $@ $(KERNEL_OBJ) $(BUILD)/ksyms.o
	tools/ksyms --check $(BUILD)/patchbay.pass1.elf $@

$(ISO): $(IMAGE) tools/mkiso
	tools/mkiso $(IMAGE) $@

# Boots the image natively under QEMU and streams its console.
run: $(IMAGE)
	tools/run

# Boots it as Xen's dom0, PV.
run-xen: $(IMAGE)
	tools/run --xen

# Boots it as a PV domU that Debian's dom0 starts with xl.
run-domu: $(IMAGE)
	tools/run --domu

# Boots it as Xen's dom0, PVH.
run-pvh: $(IMAGE)
	tools/run --xen --pvh

# The initramfs of the L1 Linux host that --kvm boots: Debian's QEMU and
# KVM's modules (tools/fetch-kvm; its own stamp says when to build again).
KVM_INITRD := build/kvm/initrd.cpio
$(KVM_INITRD): tools/fetch-kvm tools/fetch-debs.sh tools/fetch-domu tools/kvm/mkinitramfs \
		tools/kvm/init tools/initramfs-libs.sh tools/domu/mkinitramfs tools/domu/init \
		tools/domu/net.sh tools/domu/lifecycle.sh
	tools/fetch-kvm
	@touch $@

run-kvm: $(IMAGE) $(KVM_INITRD)
	tools/run --kvm

# QEMU stopped before its first instruction, waiting for gdb on a port
# tools/run prints with the command that connects (docs/one-site.md).
run-gdb: $(IMAGE)
	tools/run --gdb

include tests/unit/unit.mk
include tools/tools.mk
include tools/explore.mk
include tests/fuzz/fuzz.mk
include linux-user/bench/bench.mk
include linux-user/bench-host/bench-host.mk

# Every boot case of tests/boot/cases.py, both lanes' (make test splits them).
boot-test: $(IMAGE) $(ISO) $(UDPCLIENT)
	python3 tests/boot/run_boot_tests.py

# Natively patched sites against the PARAVIRT=n build's instructions, and
# the worked example of adding an op, applied to a copy of the tree.
pv-test: $(IMAGE)
	$(MAKE) PARAVIRT=n image
	pytest-3 tests/pv/test_native_equivalence.py
	tests/pv/test_add_op.sh

# The guided tour, extracted from the source's numbered passages.
tour:
	tools/tour

# Xen's readnotes on the image; the domU door's package cache (a damaged
# or missing .deb is caught and fetched again) and a domU that crashes
# before it can leave a verdict; a PVH dom0 and domU that triple-fault at
# their entry.
xen-test: $(IMAGE)
	tests/xen/test_readnotes.sh $(IMAGE)
	tests/domu/test_fetch_domu.sh
	tests/domu/test_domu_crash.sh $(IMAGE)
	tests/xen/test_pvh_crash.sh $(IMAGE)

# Every benchmark the image registers, in every configuration
# (tools/pbtools/bench/configs.py), both builds: build/bench/results.json and
# report.md. ICOUNT=1 counts
# instructions instead of TSC time, identically run to run.
bench: $(IMAGE)
	$(MAKE) PARAVIRT=n image
	tools/bench $(if $(filter 1,$(ICOUNT)),--icount)

# The guest's lifecycle under Xen's toolstack: saves, restores, moves and
# live migrations of a running domU, timed (build/bench/lifecycle.json and
# report.md's Lifecycle section; wall-clock figures, some minutes).
bench-lifecycle: $(IMAGE)
	tools/bench --lifecycle

# Every benchmark in every configuration with few iterations (their checks,
# never their timings), and icount runs twice, on one CPU and on two, that
# must count the same; and bench-host's checks, with their negative
# controls (seconds).
bench-test: $(IMAGE) $(LINUX_BENCH)
	$(MAKE) PARAVIRT=n image
	pytest-3 tests/bench/test_bench_host.py tests/bench/test_bench_pvh.py
	tests/bench/test_bench.sh

# The inner loop, a few minutes: the unit tests, the tools' host checks,
# what the docs say by hand against the image (not gen-docs' QEMU runs),
# and one boot of each door but the domU's (which fetches Debian's Linux).
# The suites' groups are tests/manifest.py's; tests/run_suite.py runs them.
quick: $(IMAGE) $(ISO)
	BUILD=$(BUILD) python3 tests/run_suite.py quick

# Everything, from a clean clone: first what every group uses, built and
# fetched once (so no two groups build or fetch the same file at once), then the suite's two
# lanes side by side, every group even after one fails; it ends with a
# table of the groups and one line `N passed, N failed`. Each QEMU waits
# for a free CPU (tools/pbtools/run/cpu_slots.py), whichever lane starts it.
test: $(SETUP)
	$(MAKE) $(READY_JOBS) test-ready
	BUILD=$(BUILD) python3 tests/run_suite.py test

# What the suite's groups share, built and fetched before they start, side
# by side: as many jobs as CPUs unless make was given -j (CI runs a plain
# `make test`, which would otherwise build and download one thing at a time).
READY_JOBS := $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))
test-ready: $(IMAGE) $(ISO) $(PVEMIT) $(LINUX_BENCH) $(UDPCLIENT) ready-nopv ready-debug \
		ready-xen ready-domu $(KVM_INITRD)
ready-nopv:
	$(MAKE) PARAVIRT=n image
ready-debug:
	$(MAKE) DEBUG=1 image
ready-xen:
	tools/fetch-xen
# tools/fetch-kvm runs it too (Debian's Linux is L1's as well as dom0's); its lock
# makes one of the two fetch and the other wait.
ready-domu:
	tools/fetch-domu

# This list: every documented target, and the suites' groups.
help:
	@python3 tools/make_help.py

# One group of the suite, by name: make test-group G=boot (tests/manifest.py).
test-group: $(SETUP)
	$(MAKE) $(READY_JOBS) test-ready
	BUILD=$(BUILD) python3 tests/run_suite.py test --group $(G)

# User programs for Linux (linux-user/): hosted C, not the kernel's.
LINUX_USER_C = $(wildcard linux-user/*/*.c)
C_SOURCES = $(KERNEL_C) $(wildcard */*.h */*/*.h */*/*/*.h tests/unit/*.c tests/fuzz/*.c tools/*.c \
	$(LINUX_USER_C))

# Rewrites every C file with clang-format.
format:
	clang-format -i $(C_SOURCES)

# Style and static analysis: clang-format and cppcheck for C, shellcheck
# and pyflakes3 for the scripts (tools/scripts.py finds them), when installed.
# cppcheck sees the kernel with the kernel's configuration and the user
# programs for Linux (linux-user/) as the hosted programs they are.
check:
	@if command -v clang-format >/dev/null; then clang-format --dry-run -Werror $(C_SOURCES); fi
	@if command -v cppcheck >/dev/null; then cppcheck --quiet --error-exitcode=1 \
		--enable=warning,portability --std=c11 -I. $(XEN_ABI) -DCONFIG_PARAVIRT=1 \
		--suppressions-list=.cppcheck-suppressions arch kernel mm pv kvm xen drivers bench tools && \
		cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 -I. \
		--suppressions-list=.cppcheck-suppressions linux-user; fi
	@if command -v shellcheck >/dev/null; then shellcheck -x -S warning \
		$$(python3 tools/scripts.py shell); fi
	@if command -v pyflakes3 >/dev/null; then pyflakes3 $$(python3 tools/scripts.py python); fi

# Deletes build/ (downloads included).
clean:
	rm -rf $(BUILD)

-include $(KERNEL_OBJ:.o=.d)
