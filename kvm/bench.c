/* KVM's per-op choices change what the benchmarks of those ops measure:
 * each result under KVM names a choice that is not KVM's way. */
#include "bench/bench.h"

BENCH_CONFIG_OPTION_UNLESS(kvm_clock, PV_CAP_KVM, "kvm.clock", "kvmclock");
BENCH_CONFIG_OPTION_UNLESS(kvm_eoi, PV_CAP_KVM, "kvm.eoi", "on");
BENCH_CONFIG_OPTION_UNLESS(kvm_ipi, PV_CAP_KVM, "kvm.ipi", "pv");
BENCH_CONFIG_OPTION_UNLESS(kvm_tlb, PV_CAP_KVM, "kvm.tlb", "on");
BENCH_CONFIG_OPTION_UNLESS(kvm_lock, PV_CAP_KVM, "kvm.lock", "on");
BENCH_CONFIG_OPTION_UNLESS(kvm_yield, PV_CAP_KVM, "kvm.yield", "on");
BENCH_CONFIG_OPTION_UNLESS(kvm_steal, PV_CAP_KVM, "kvm.steal", "on");
