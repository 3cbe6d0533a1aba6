/* Xen's public headers, included one way for the whole kernel.
 *
 * The two XEN_HAVE_* macros are the guest's opt-in to parts of the ABI that
 * only PV guests see: the per-vCPU event mask in vcpu_info and the
 * start_info page of the PV entry. A PVH guest shares the same vcpu_info
 * layout and ignores the mask. The Makefile selects the newest
 * interface version, which picks the current (not compat) hypercall numbers. */
#ifndef XEN_XEN_PUBLIC_H
#define XEN_XEN_PUBLIC_H

#include <stdint.h>

#define XEN_HAVE_PV_UPCALL_MASK 1
#define XEN_HAVE_PV_GUEST_ENTRY 1

#include <xen/xen.h>
#include <xen/callback.h>
#include <xen/errno.h>
#include <xen/event_channel.h>
#include <xen/features.h>
#include <xen/memory.h>
#include <xen/physdev.h>
#include <xen/sched.h>
#include <xen/vcpu.h>
#include <xen/version.h>
#include <xen/io/xs_wire.h>
#include <xen/arch-x86/cpuid.h>
#include <xen/arch-x86/hvm/start_info.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/hvm_vcpu.h>
#include <xen/hvm/params.h>

#endif
