# The benchmark program for Linux (linux-user/bench/): a user program, not
# part of the kernel, a static binary that tools/run --linux packs as /init
# of an initramfs and boots on Debian's kernel. It shares the kernel's
# clock, loop and summary (bench/loop.h, bench/stats.c), which build hosted
# as they are. Included by the top-level Makefile.
#
#   make linux-bench    the program, $(BUILD)/linux/linux-bench
#   make bench-linux    run it natively, as Xen's dom0 and as KVM's L2
#                       guest, under icount, and its disk benchmarks and its network service
#                       (bench.net) natively and in a PV and a PVH domU:
#                       build/bench/linux.json and the report's Linux section

LINUX_BENCH := $(BUILD)/linux/linux-bench
LINUX_BENCH_SRCS := $(wildcard linux-user/bench/*.c) bench/stats.c
LINUX_BENCH_HDRS := $(wildcard linux-user/bench/*.h) bench/stats.h bench/loop.h
# Hosted, static (the initramfs has no libraries), and built the same way
# each time, so icount figures repeat.
LINUX_BENCH_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -I. -static

$(LINUX_BENCH): $(LINUX_BENCH_SRCS) $(LINUX_BENCH_HDRS) linux-user/bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(LINUX_BENCH_CFLAGS) $(LINUX_BENCH_SRCS) -o $@

.PHONY: linux-bench bench-linux
linux-bench: $(LINUX_BENCH)

bench-linux: $(IMAGE) $(LINUX_BENCH)
	tools/bench --linux --icount
