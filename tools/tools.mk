# Host tools built from the kernel's own sources.
# Included by the top-level Makefile; also works alone:
#   make -f tools/tools.mk build/host/pvemit
#
# pvemit (tools/pvemit.c) prints what each platform writes at a paravirt
# site, running the kernel's patcher; tools/pvsites builds it on demand.

BUILD ?= build
XEN_ABI ?= -D__XEN_INTERFACE_VERSION__=__XEN_LATEST_INTERFACE_VERSION__

PVEMIT_CC ?= gcc
PVEMIT := $(BUILD)/host/pvemit
PVEMIT_SRCS := tools/pvemit.c pv/patch.c arch/x86/native/patch.c arch/x86/native/insns.c \
	xen/pv/patch.c kernel/printf.c
PVEMIT_HDRS := pv/patch.h pv/site.h pv/op_list.h pv/call.h arch/x86/native/patch.h xen/pv/patch.h \
	kernel/printf.h kernel/string.h
# HOST_TEST: libc provides memcpy and friends (kernel/string.h).
PVEMIT_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -I. -DHOST_TEST $(XEN_ABI)

$(PVEMIT): $(PVEMIT_SRCS) $(PVEMIT_HDRS) tools/tools.mk | $(SETUP)
	@mkdir -p $(dir $@)
	$(PVEMIT_CC) $(PVEMIT_CFLAGS) $(PVEMIT_SRCS) -o $@

# diskcheck (tools/diskcheck.c) verifies on the host the blocks the disk
# workload says it flushed, with the kernel's own pattern code; tools/run
# --disk builds it on demand.
DISKCHECK := $(BUILD)/host/diskcheck
DISKCHECK_SRCS := tools/diskcheck.c kernel/disk_pattern.c
DISKCHECK_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -I. -DHOST_TEST

$(DISKCHECK): $(DISKCHECK_SRCS) kernel/disk_pattern.h tools/tools.mk
	@mkdir -p $(dir $@)
	$(PVEMIT_CC) $(DISKCHECK_CFLAGS) $(DISKCHECK_SRCS) -o $@

# udpclient (tools/udpclient.c) is the peer of the guest's UDP echo:
# built for the host (tools/run --net runs it), and static for dom0's
# initramfs (tools/run --domu --net), where there is no libc.
UDPCLIENT := $(BUILD)/host/udpclient
UDPCLIENT_STATIC := $(BUILD)/tools/udpclient-static
UDPCLIENT_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror

$(UDPCLIENT): tools/udpclient.c tools/tools.mk
	@mkdir -p $(dir $@)
	$(PVEMIT_CC) $(UDPCLIENT_CFLAGS) $< -o $@

$(UDPCLIENT_STATIC): tools/udpclient.c tools/tools.mk
	@mkdir -p $(dir $@)
	$(PVEMIT_CC) $(UDPCLIENT_CFLAGS) -static $< -o $@

.PHONY: udpclient
udpclient: $(UDPCLIENT) $(UDPCLIENT_STATIC)

# The tools' own tests (test_doclinks also checks every page's links and
# glossary first uses; test_result_lines every result line's printf;
# test_diskcheck the host's check of the disk workload on files it makes;
# test_udpclient the UDP client against faithful and faulty echoes;
# test_prose_check feeds the prose check pages that the image
# contradicts), then the checks that the tour, the recorded site
# expectation, the generated blocks of README.md and docs/ and what the
# pages and the tour say by hand around them still match the tree.
# test_platform_sites boots each platform once (under a minute in
# all) to hold pvemit's platform -> site form table to what the kernel
# writes. test_gdb watches one site across the patcher under gdb (tools/run
# --gdb), natively and under Xen, killing QEMU once it is rewritten (about
# 20 s). test_try_it runs the cheap commands docs/README.md's five paths
# quote (two native boots) against what their pages show. tools-test is those (tools-own-test), then docs-test: gen-docs
# --check, which boots QEMU and Xen under icount and runs a subset of the
# benchmarks (about 6 minutes on 2 idle CPUs; its docstring says why a
# subset); it needs both images.
.PHONY: tools-test tools-own-test docs-test
tools-test: $(IMAGE)
	$(MAKE) tools-own-test
	$(MAKE) docs-test

tools-own-test: $(IMAGE) $(UDPCLIENT)
	BUILD=$(BUILD) python3 tests/run_suite.py test --group tools

docs-test: $(IMAGE)
	$(MAKE) PARAVIRT=n image
	tools/gen-docs --check
