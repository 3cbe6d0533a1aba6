# Host unit tests: cmocka programs built from the kernel's own sources.
# Included by the top-level Makefile, which defines BUILD.
#
# To add a test: write tests/unit/test_NAME.c, then add two lines here:
#   UNIT_TESTS += NAME
#   UNIT_SRCS_NAME := kernel/foo.c ...   (the kernel sources it links)

UNIT_TESTS += printf
UNIT_SRCS_printf := kernel/printf.c

UNIT_TESTS += string
# test_string.c compiles kernel/string.c itself, to reach the standard names.
UNIT_SRCS_string :=

UNIT_TESTS += cmdline
UNIT_SRCS_cmdline := kernel/cmdline.c kernel/printf.c kernel/string.c

UNIT_TESTS += frame_alloc
UNIT_SRCS_frame_alloc := mm/frame_alloc.c

UNIT_TESTS += clock_scale
UNIT_SRCS_clock_scale := kernel/clock_scale.c

UNIT_TESTS += patch
UNIT_SRCS_patch := pv/patch.c arch/x86/native/patch.c arch/x86/native/insns.c xen/pv/patch.c \
	kernel/printf.c

UNIT_TESTS += xen_time
UNIT_SRCS_xen_time := xen/system_time.c arch/x86/pvclock.c

# A faked CPUID holds Xen's signature where Xen, Viridian or nobody would put it.
UNIT_TESTS += xen_cpuid_base
UNIT_SRCS_xen_cpuid_base := xen/cpuid_base.c arch/x86/cpuid_base.c

# KVM's signature through the same scan, beside Xen's and Hyper-V's.
UNIT_TESTS += kvm_cpuid
UNIT_SRCS_kvm_cpuid := kvm/cpuid.c xen/cpuid_base.c arch/x86/cpuid_base.c

UNIT_TESTS += xen_console_ring
UNIT_SRCS_xen_console_ring := xen/console_ring.c

# A fake xenstore daemon in the test fills and drains the other ends of the rings.
UNIT_TESTS += xen_xenstore
UNIT_SRCS_xen_xenstore := xen/xenstore_ring.c xen/xenstore_txn.c

# The grant reference free list, over a small table.
UNIT_TESTS += xen_grant_refs
UNIT_SRCS_xen_grant_refs := xen/grant_refs.c

# The frontend's xenbus moves against a table of every pair of states.
UNIT_TESTS += xen_xenbus_state
UNIT_SRCS_xen_xenbus_state := xen/xenbus_state.c

# Xen's ring macros with a backend played by the test, across the 2^32 wrap;
# the frontend's check of each response.
UNIT_TESTS += xen_blkif
UNIT_SRCS_xen_blkif := xen/blkif_response.c

# netfront's check of each receive response.
UNIT_TESTS += xen_netif
UNIT_SRCS_xen_netif := xen/netif_response.c

UNIT_TESTS += thread_list
UNIT_SRCS_thread_list := kernel/thread_list.c

UNIT_TESTS += ring_buffer
UNIT_SRCS_ring_buffer := kernel/ring_buffer.c

# The scheduler and the locks are faked in the test: only the queueing logic is real.
UNIT_TESTS += wait_queue
UNIT_SRCS_wait_queue := kernel/wait_queue.c kernel/thread_list.c

# Locks and wait queues are faked in the test: the ring and the blocking rules are real.
UNIT_TESTS += channel
UNIT_SRCS_channel := kernel/channel.c kernel/ring_buffer.c

UNIT_TESTS += pte_prot
UNIT_SRCS_pte_prot := mm/pte_prot.c

UNIT_TESTS += vma
UNIT_SRCS_vma := mm/vma.c

# The mmstats: line, byte for byte, as the boot tests and tools/bench parse it.
UNIT_TESTS += mm_stats
UNIT_SRCS_mm_stats := mm/mm_stats.c kernel/printf.c

# Xen is faked in the test: it runs the queued calls and can refuse one.
UNIT_TESTS += multicall
UNIT_SRCS_multicall := xen/pv/multicall.c

# Per-op figures, bench= words and selection, run order, needs: all real.
UNIT_TESTS += bench
UNIT_SRCS_bench := bench/stats.c bench/select.c bench/order.c bench/needs.c

UNIT_TESTS += ksyms
UNIT_SRCS_ksyms := kernel/ksyms.c

# Builds ACPI tables in a memory image; also the multiboot2 door's RSDP tags.
UNIT_TESTS += acpi_parse
UNIT_SRCS_acpi_parse := kernel/acpi_parse.c kernel/printf.c kernel/mb2_parse.c kernel/boot_info.c

# What the start info leaves for the PVH door to pick dom0's console or a domU's by.
UNIT_TESTS += pvh_parse
UNIT_SRCS_pvh_parse := kernel/pvh_parse.c kernel/boot_info.c

# A fake transport holds and completes requests; locks and sleeping are faked.
UNIT_TESTS += block
UNIT_SRCS_block := drivers/block.c tests/unit/fake_locks.c

# The test plays the device: it takes available entries and fills the used ring.
UNIT_TESTS += virtqueue
UNIT_SRCS_virtqueue := drivers/virtqueue.c

UNIT_TESTS += disk_pattern
UNIT_SRCS_disk_pattern := kernel/disk_pattern.c

# A fake transport and a fake stack around the layer's queue and batching.
UNIT_TESTS += net_layer
UNIT_SRCS_net_layer := drivers/net.c tests/unit/fake_locks.c

UNIT_TESTS += net_checksum
UNIT_SRCS_net_checksum := kernel/net/checksum.c

# Every layer of the IPv4 stack, fed real and malformed frames; the test
# plays the transport and keeps what the stack sends.
UNIT_TESTS += net_stack
UNIT_SRCS_net_stack := kernel/net/stack.c kernel/net/ethernet.c kernel/net/arp.c \
	kernel/net/ipv4.c kernel/net/icmp.c kernel/net/udp.c kernel/net/checksum.c kernel/net/trace.c \
	kernel/printf.c

UNIT_CC ?= gcc
# Sanitizers turn a silent overflow in kernel code into a failed test;
# `make UNIT_SANITIZE=` builds without them.
UNIT_SANITIZE ?= -fsanitize=address,undefined -fno-sanitize-recover=all
# The Xen code under test is written against the newest Xen interface, as in the kernel.
UNIT_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -g -I. -DHOST_TEST -MMD -MP $(UNIT_SANITIZE) \
	-D__XEN_INTERFACE_VERSION__=__XEN_LATEST_INTERFACE_VERSION__
UNIT_LDLIBS := -lcmocka

UNIT_DIR := $(BUILD)/host
UNIT_BINS := $(foreach t,$(UNIT_TESTS),$(UNIT_DIR)/test_$(t))
UNIT_OBJS := $(sort $(foreach t,$(UNIT_TESTS),\
	$(patsubst %.c,$(UNIT_DIR)/obj/%.o,tests/unit/test_$(t).c $(UNIT_SRCS_$(t)))))

# Rewritten only when the compiler or flags change (say `make UNIT_SANITIZE=`),
# so that and nothing else rebuilds every object.
UNIT_FLAGS_FILE := $(UNIT_DIR)/flags
.PHONY: unit-check-flags
unit-check-flags:
$(UNIT_FLAGS_FILE): unit-check-flags
	@mkdir -p $(dir $@)
	@echo '$(UNIT_CC) $(UNIT_CFLAGS)' | cmp -s - $@ || echo '$(UNIT_CC) $(UNIT_CFLAGS)' > $@

$(UNIT_DIR)/obj/%.o: %.c $(UNIT_FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(UNIT_CC) $(UNIT_CFLAGS) -c $< -o $@

define UNIT_TEST_RULE
$(UNIT_DIR)/test_$(1): $(patsubst %.c,$(UNIT_DIR)/obj/%.o,tests/unit/test_$(1).c $(UNIT_SRCS_$(1)))
	$$(UNIT_CC) $$(UNIT_SANITIZE) $$^ -o $$@ $$(UNIT_LDLIBS)
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call UNIT_TEST_RULE,$(t))))

# The cmocka unit tests, every one even after a failure; fails if any did.
.PHONY: unit-test
unit-test: $(UNIT_BINS)
	@failed=""; passed=0; \
	for t in $(UNIT_BINS); do \
		echo "== $$t"; \
		if $$t; then passed=$$((passed + 1)); else failed="$$failed $$t"; fi; \
	done; \
	if [ -n "$$failed" ]; then echo "unit tests FAILED:$$failed"; fi; \
	echo "$$passed passed, $$(echo $$failed | wc -w) failed"; \
	[ -z "$$failed" ]

-include $(UNIT_OBJS:.o=.d)
