# bench-host (linux-user/bench-host/): the call-site forms the patcher
# writes, timed in TSC ticks on the host's own CPU, in ring 3. A Linux
# program built from the kernel's own sources: the patcher and the
# backends' emitters write the forms it times, and the call and lock
# forms are the kernel's registered benchmarks. Included by the top-level
# Makefile, after KERNEL_CFLAGS.
#
#   make build/host/bench-host   the program
#   make bench-host              tools/bench --host: run it, then the same
#                                forms' icount figures, into build/bench/host.json
#                                and report.md's "Cycles on the host CPU"

BENCH_HOST := $(BUILD)/host/bench-host
BENCH_HOST_OBJ := $(BUILD)/host/bench-host.obj

# The kernel's files, compiled as the kernel compiles them (as the paravirt
# build, whatever PARAVIRT says), so what runs here is the kernel's code;
# HOST_TEST takes memcpy and friends from libc (kernel/string.h).
BENCH_HOST_KERNEL_C := pv/ops.c pv/patch.c arch/x86/native/patch.c arch/x86/native/insns.c \
	arch/x86/native/lock.c xen/pv/patch.c xen/pv/irq.c xen/lock.c xen/qspinlock.c kernel/spinlock.c kernel/pv_ticket_lock.c \
	kernel/static_call.c kernel/printf.c bench/call_bench.c bench/call_target.c \
	bench/call_retpoline.c bench/lock_bench.c bench/groups.c bench/empty_loop.c bench/stats.c
BENCH_HOST_KERNEL_CFLAGS := $(filter-out -DCONFIG_PARAVIRT=%,$(KERNEL_CFLAGS)) \
	-DCONFIG_PARAVIRT=1 -DHOST_TEST
BENCH_HOST_C := $(wildcard linux-user/bench-host/*.c)
BENCH_HOST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-pie -I. $(XEN_ABI) -MMD -MP

BENCH_HOST_OBJS := $(patsubst %.c,$(BENCH_HOST_OBJ)/%.o,$(BENCH_HOST_KERNEL_C) $(BENCH_HOST_C)) \
	$(BENCH_HOST_OBJ)/arch/x86/retpoline.asm.o

$(patsubst %.c,$(BENCH_HOST_OBJ)/%.o,$(BENCH_HOST_KERNEL_C)): $(BENCH_HOST_OBJ)/%.o: %.c | $(SETUP)
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_HOST_KERNEL_CFLAGS) -c $< -o $@

# As in the kernel: the call benchmark's retpoline object (Makefile).
$(BENCH_HOST_OBJ)/bench/call_retpoline.o: BENCH_HOST_KERNEL_CFLAGS += \
	-mindirect-branch=thunk-extern -mindirect-branch-register

$(patsubst %.c,$(BENCH_HOST_OBJ)/%.o,$(BENCH_HOST_C)): $(BENCH_HOST_OBJ)/%.o: %.c | $(SETUP)
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_HOST_CFLAGS) -c $< -o $@

$(BENCH_HOST_OBJ)/arch/x86/retpoline.asm.o: arch/x86/retpoline.asm | $(SETUP)
	@mkdir -p $(dir $@)
	$(NASM) $(NASMFLAGS) -MD $(@:.o=.d) -MP $< -o $@

# Not position-independent: the kernel's objects are not, and a fixed
# layout puts the code buffer within rel32 reach of their text.
$(BENCH_HOST): $(BENCH_HOST_OBJS) linux-user/bench-host/bench-host.mk
	$(CC) -no-pie -z noexecstack $(BENCH_HOST_OBJS) -o $@

.PHONY: bench-host
bench-host: $(IMAGE) $(BENCH_HOST)
	tools/bench --host

-include $(BENCH_HOST_OBJS:.o=.d)
