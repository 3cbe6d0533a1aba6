/* A new thread's first stack frame, and the C half of its trampoline. */
#include "arch/x86/thread_arch.h"

#include "kernel/sched.h"
#include "kernel/sched_core.h"
#include "pv/irq.h"

extern char thread_trampoline[];

/* The trampoline is entered by context_switch()'s ret, which leaves rsp
 * just above the context: at top - 16, 16-byte aligned as the call inside
 * the trampoline needs. rbp = 0 ends backtraces there. */
struct context *thread_arch_prepare_stack(void *stack_top, void (*entry)(void *), void *arg)
{
    uint64_t top = (uint64_t)stack_top & ~15ULL;
    struct context *c = (struct context *)(top - 16 - sizeof(struct context));

    *c = (struct context){
        .r12 = (uint64_t)entry,
        .r13 = (uint64_t)arg,
        .rbp = 0,
        .rip = (uint64_t)thread_trampoline,
    };
    return c;
}

/* Called by thread_trampoline with the scheduler lock held and interrupts
 * disabled, exactly as the switching thread left them. */
__attribute__((noreturn, used)) void thread_arch_start(void (*entry)(void *), void *arg)
{
    sched_finish_first_switch(); /* releases the scheduler lock */
    irq_enable();
    entry(arg);
    thread_exit();
}
