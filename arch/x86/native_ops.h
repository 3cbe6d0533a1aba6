/* The native backend of the pv ops tables (arch/x86/native_ops.c). */
#ifndef ARCH_X86_NATIVE_OPS_H
#define ARCH_X86_NATIVE_OPS_H

/* Installs the native irq and time ops, calibrating time first: called
 * once by the native entry path, with the console and the IDT up. */
void native_ops_install(void);

/* The patch backend, with the template pv.restore_fl chose. */
const struct pv_backend *native_ops_patch_backend(void);

#endif
