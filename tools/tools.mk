# Host tools built from the kernel's own sources.
# Included by the top-level Makefile; also works alone:
#   make -f tools/tools.mk build/host/pvemit
#
# pvemit (tools/pvemit.c) prints what each paravirt backend writes at a
# site, running the kernel's patcher; tools/pvsites builds it on demand.

BUILD ?= build
XEN_ABI ?= -D__XEN_INTERFACE_VERSION__=__XEN_LATEST_INTERFACE_VERSION__

PVEMIT_CC ?= gcc
PVEMIT := $(BUILD)/host/pvemit
PVEMIT_SRCS := tools/pvemit.c pv/patch.c arch/x86/native_patch.c xen/xen_patch.c kernel/printf.c
PVEMIT_HDRS := pv/patch.h pv/site.h arch/x86/native_patch.h xen/xen_patch.h kernel/printf.h \
	kernel/string.h
# HOST_TEST: libc provides memcpy and friends (kernel/string.h).
PVEMIT_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -I. -DHOST_TEST $(XEN_ABI)

$(PVEMIT): $(PVEMIT_SRCS) $(PVEMIT_HDRS) tools/tools.mk
	@mkdir -p $(dir $@)
	$(PVEMIT_CC) $(PVEMIT_CFLAGS) $(PVEMIT_SRCS) -o $@

.PHONY: tools-test
tools-test:
	tests/tools/test_pvsites.sh
	tests/tools/test_tour.sh
