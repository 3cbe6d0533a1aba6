#ifndef KERNEL_DISK_WORKLOAD_H
#define KERNEL_DISK_WORKLOAD_H

/* disk=on: writes disk.blocks blocks of the pattern (kernel/disk_pattern.h)
 * at queue depth disk.depth through the block layer, reads them back and
 * checks them, flushes, and prints the flushed-blocks lines the host's
 * verifier reads (tools/diskcheck) and a summary. Ends the run with a
 * FAIL verdict when there is no disk, it is read-only or too small, or a
 * request or a check fails. Returns at once without disk=on. Thread
 * context. */
void disk_workload_run(void);

#endif
