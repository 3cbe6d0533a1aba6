#include "bench/call_target.h"

uint64_t bench_call_count;
struct bench_call_ops bench_call_ops;

void bench_call_target(void)
{
    bench_call_count++;
}
