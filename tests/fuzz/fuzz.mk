# libFuzzer targets: one per parser of input from outside the kernel.
# Included by the top-level Makefile, which defines BUILD, SETUP and XEN_ABI.
#
#   make fuzz            every target for FUZZ_TIME seconds (default 120), one
#                        at a time, keeping what each finds in build/fuzz/corpus/
#   make fuzz FUZZ_TIME=600
#   make fuzz-test       every target for FUZZ_TEST_TIME seconds (default 4)
#                        from its seeds alone; fails on any crash, sanitizer
#                        report or failed property
#
# Goal: each target runs at least FUZZ_MIN_INPUTS (1,000,000) inputs in a
# `make fuzz` run with nothing reported; `make fuzz` says which fall short.
# The slowest are pvemit (about 11,000 inputs/s on a shared 2-core machine)
# and cmdline (about 18,000/s), hence the default of 120 s; the boot-info
# parsers run 100,000-400,000/s.
#
# To add a target: write tests/fuzz/fuzz_NAME.c (LLVMFuzzerTestOneInput),
# put a few seeds in tests/fuzz/corpus/NAME/, then add two lines here:
#   FUZZ_TARGETS += NAME
#   FUZZ_SRCS_NAME := kernel/foo.c ...   (the kernel sources it links)
# A crash leaves its input in build/fuzz/artifacts/; rerun it with
#   build/fuzz/fuzz_NAME build/fuzz/artifacts/NAME-crash-...

FUZZ_TARGETS += cmdline
FUZZ_SRCS_cmdline := kernel/cmdline.c kernel/printf.c kernel/string.c

FUZZ_TARGETS += boot_info
FUZZ_SRCS_boot_info := kernel/boot_info.c

FUZZ_TARGETS += mb2
FUZZ_SRCS_mb2 := kernel/mb2_parse.c kernel/boot_info.c

FUZZ_TARGETS += pvh
FUZZ_SRCS_pvh := kernel/pvh_parse.c kernel/boot_info.c

FUZZ_TARGETS += acpi
FUZZ_SRCS_acpi := kernel/acpi_parse.c kernel/printf.c

FUZZ_TARGETS += xen_start_info
FUZZ_SRCS_xen_start_info := xen/pv/start_info.c kernel/boot_info.c

FUZZ_TARGETS += pv_site
FUZZ_SRCS_pv_site := pv/patch.c arch/x86/native/patch.c arch/x86/native/insns.c xen/pv/patch.c \
	kernel/printf.c

FUZZ_TARGETS += bench_select
FUZZ_SRCS_bench_select := bench/select.c

# The target includes tools/pvemit.c itself, to reach its static parser.
FUZZ_TARGETS += pvemit
FUZZ_SRCS_pvemit := pv/patch.c arch/x86/native/patch.c arch/x86/native/insns.c xen/pv/patch.c \
	kernel/printf.c

# blkfront's check of a backend's responses against the ids in flight.
FUZZ_TARGETS += blkif_response
FUZZ_SRCS_blkif_response := xen/blkif_response.c

# Every parser of a received frame, through the stack's one entry, with a
# fake device checking each frame it sends.
FUZZ_TARGETS += net_input
FUZZ_SRCS_net_input := kernel/net/stack.c kernel/net/ethernet.c kernel/net/arp.c kernel/net/ipv4.c \
	kernel/net/icmp.c kernel/net/udp.c kernel/net/checksum.c kernel/net/trace.c kernel/printf.c

FUZZ_TIME ?= 120
FUZZ_TEST_TIME ?= 4
FUZZ_MIN_INPUTS ?= 1000000
# Passed to every run, e.g. FUZZ_ARGS=-only_ascii=1; FUZZ_ARGS_<target> to one.
FUZZ_ARGS ?=
# A boot command line, bench= included, is at most BOOT_CMDLINE_MAX (1024)
# bytes: longer inputs only slow the search down.
FUZZ_ARGS_cmdline := -max_len=1024
FUZZ_ARGS_bench_select := -max_len=1024
# A fix-up byte and an Ethernet frame without its FCS.
FUZZ_ARGS_net_input := -max_len=1515

# Debian's clang carries libFuzzer (libclang-rt-14-dev, from tools/setup).
FUZZ_CC ?= clang
FUZZ_SANITIZE := address,undefined
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -I. -DHOST_TEST -MMD -MP $(XEN_ABI) \
	-fsanitize=$(FUZZ_SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_COVER_FLAGS := -fsanitize=fuzzer-no-link
FUZZ_COVER = $(FUZZ_COVER_FLAGS)

FUZZ_DIR := $(BUILD)/fuzz
# Still sanitized, but without coverage feedback: the harnesses' own checks
# and printf's character loop only slow the search (by half for cmdline)
# and guide it nowhere. pvemit's harness is the tool itself, so it keeps it.
$(FUZZ_DIR)/obj/kernel/printf.o $(patsubst %,$(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.o,\
	$(filter-out pvemit,$(FUZZ_TARGETS))): FUZZ_COVER :=
FUZZ_BINS := $(foreach t,$(FUZZ_TARGETS),$(FUZZ_DIR)/fuzz_$(t))
FUZZ_OBJS := $(sort $(foreach t,$(FUZZ_TARGETS),\
	$(patsubst %.c,$(FUZZ_DIR)/obj/%.o,tests/fuzz/fuzz_$(t).c $(FUZZ_SRCS_$(t)))))

# Rewritten only when the compiler or flags change, so that rebuilds everything.
FUZZ_FLAGS_FILE := $(FUZZ_DIR)/flags
.PHONY: fuzz-check-flags
fuzz-check-flags:
$(FUZZ_FLAGS_FILE): fuzz-check-flags
	@mkdir -p $(dir $@)
	@echo '$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_COVER_FLAGS)' | cmp -s - $@ || \
		echo '$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_COVER_FLAGS)' > $@

$(FUZZ_DIR)/obj/%.o: %.c $(FUZZ_FLAGS_FILE) | $(SETUP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_COVER) -c $< -o $@

define FUZZ_TARGET_RULE
$(FUZZ_DIR)/fuzz_$(1): $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,tests/fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)))
	$$(FUZZ_CC) -fsanitize=fuzzer,$$(FUZZ_SANITIZE) $$^ -o $$@
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET_RULE,$(t))))

.PHONY: fuzz-build fuzz fuzz-test
fuzz-build: $(FUZZ_BINS)

# One target's run, as a piece of the shell loop below: the checked-in
# seeds are read-only, after a writable corpus directory (libFuzzer adds
# what it finds to the first one); prints "PASS|FAIL NAME: N inputs in S s
# (R/s)". $(1): target; $(2): seconds; $(3): corpus root; $(4): "fresh" to
# empty the corpus first; $(5): minimum inputs to call out, or empty.
define FUZZ_ONE
	corpus=$(3)/$(1); log=$(FUZZ_DIR)/logs/$(1).log; \
	if [ "$(4)" = fresh ]; then rm -rf $$corpus; fi; \
	mkdir -p $$corpus; \
	$(FUZZ_DIR)/fuzz_$(1) -max_total_time=$(2) -timeout=10 -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/artifacts/$(1)- \
		$(if $(wildcard tests/fuzz/$(1).dict),-dict=tests/fuzz/$(1).dict) \
		$(FUZZ_ARGS_$(1)) $(FUZZ_ARGS) $$corpus tests/fuzz/corpus/$(1) >$$log 2>&1; \
	rc=$$?; \
	runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log | tail -n 1); \
	rate=$$(sed -n 's/^stat::average_exec_per_sec: *//p' $$log | tail -n 1); \
	if [ $$rc -eq 0 ] && [ -n "$$runs" ] && ! grep -qE \
		'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|property failed' $$log; then \
		passed=$$((passed + 1)); note=""; \
		if [ -n "$(5)" ] && [ $$runs -lt 0$(5) ]; then note=" (short of the $(5) goal)"; fi; \
		echo "PASS $(1): $$runs inputs in $(2) s ($$rate/s)$$note"; \
	else \
		failed=$$((failed + 1)); \
		echo "FAIL $(1) (exit $$rc): the end of $$log:"; \
		tail -n 40 $$log; \
	fi;
endef

# Every target in turn, then "N passed, N failed"; fails if any failed.
define FUZZ_RUN
	@passed=0; failed=0; \
	mkdir -p $(FUZZ_DIR)/artifacts $(FUZZ_DIR)/logs; \
	$(foreach t,$(FUZZ_TARGETS),$(call FUZZ_ONE,$(t),$(1),$(2),$(3),$(4))) \
	echo "$$passed passed, $$failed failed"; \
	[ $$failed -eq 0 ]
endef

fuzz: $(FUZZ_BINS)
	$(call FUZZ_RUN,$(FUZZ_TIME),$(FUZZ_DIR)/corpus,keep,$(FUZZ_MIN_INPUTS))

fuzz-test: $(FUZZ_BINS)
	$(call FUZZ_RUN,$(FUZZ_TEST_TIME),$(FUZZ_DIR)/test-corpus,fresh,)

-include $(FUZZ_OBJS:.o=.d)
