/* Static calls: a direct call to a trampoline whose only instruction,
 * `jmp target`, is rewritten when the target changes (the 2018 "jump
 * functions" idea). A hook set at run time then costs a direct call and a
 * direct jump, and no indirect branch that a retpoline would slow down.
 *
 *   DEFINE_STATIC_CALL(name, initial_function);   in one .c file
 *   DECLARE_STATIC_CALL(name, a_function_of_its_type); where it is called
 *   static_call(name)(args...);
 *   static_call_update(name, new_function);
 */
#ifndef KERNEL_STATIC_CALL_H
#define KERNEL_STATIC_CALL_H

#define STATIC_CALL_TRAMP(name) __static_call_tramp_##name
#define STATIC_CALL_TRAMP_STR(name) "__static_call_tramp_" #name

/* The trampoline: E9 rel32 always (never the short EB form, which a far
 * target could not use), padded to 8 bytes so one aligned slot holds it. */
#define DEFINE_STATIC_CALL(name, initial)                                                          \
    __asm__(".pushsection .text, \"ax\"\n\t"                                                       \
            ".balign 8\n\t"                                                                        \
            ".globl " STATIC_CALL_TRAMP_STR(                                                       \
                name) "\n\t"                                                                       \
                      ".type " STATIC_CALL_TRAMP_STR(name) ", @function\n" STATIC_CALL_TRAMP_STR(  \
                          name) ":\n\t"                                                            \
                                ".byte 0xe9\n\t"                                                   \
                                ".long " #initial " - (. + 4)\n\t"                                 \
                                "int3\n\tint3\n\tint3\n\t"                                         \
                                ".size " STATIC_CALL_TRAMP_STR(name) ", 8\n\t"                     \
                                                                     ".popsection")

#define DECLARE_STATIC_CALL(name, func) extern __typeof__(func) STATIC_CALL_TRAMP(name)

#define static_call(name) (STATIC_CALL_TRAMP(name))

#define static_call_update(name, func)                                                             \
    do {                                                                                           \
        __typeof__(&STATIC_CALL_TRAMP(name)) checked_ = (func);                                    \
        static_call_retarget((void *)&STATIC_CALL_TRAMP(name), (void *)checked_);                  \
    } while (0)

/* Rewrites the trampoline's jump to target, safely with every CPU running
 * (kernel/live_patch.c). */
void static_call_retarget(void *trampoline, void *target);

#endif
