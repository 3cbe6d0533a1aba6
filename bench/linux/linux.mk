# The benchmark program for Linux (bench/linux/): a static binary that
# tools/run --linux packs as /init of an initramfs and boots on Debian's
# kernel. Included by the top-level Makefile.
#
#   make linux-bench    the program, $(BUILD)/linux/linux-bench
#   make bench-linux    run it natively and as Xen's dom0, under icount:
#                       build/bench/linux.json and the report's Linux section

LINUX_BENCH := $(BUILD)/linux/linux-bench
LINUX_BENCH_SRCS := $(wildcard bench/linux/*.c) bench/stats.c
LINUX_BENCH_HDRS := $(wildcard bench/linux/*.h) bench/stats.h bench/loop.h
# A user program, not the kernel: hosted, static (the initramfs has no
# libraries), and built the same way each time, so icount figures repeat.
LINUX_BENCH_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -I. -static

$(LINUX_BENCH): $(LINUX_BENCH_SRCS) $(LINUX_BENCH_HDRS) bench/linux/linux.mk
	@mkdir -p $(dir $@)
	$(CC) $(LINUX_BENCH_CFLAGS) $(LINUX_BENCH_SRCS) -o $@

.PHONY: linux-bench bench-linux
linux-bench: $(LINUX_BENCH)

bench-linux: $(IMAGE) $(LINUX_BENCH)
	tools/bench --linux --icount
