/* The domU's disk as Linux's own blkfront sees it: when the door packed
 * xen-blkfront.ko into the initramfs (tools/run --linux --domu --disk),
 * load it, wait for xvda, and read its first 4 KiB with O_DIRECT, so the
 * read goes through blkfront, blkback and dom0's virtio disk to the
 * host's file rather than a page cache. A reference frontend for the
 * backend patchbay's blkfront talks to. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "linux-user/bench/linux_bench.h"

#define BLKFRONT_KO "/xen-blkfront.ko"
#define DISK_WAIT_MS 10000
#define BLOCK 4096

static int probe_errno; /* errno at the step that failed */

/* why, with errno kept for the line that says it. */
static const char *failed_at(const char *why)
{
    probe_errno = errno;
    return why;
}

/* Sectors of 512 bytes in /sys/block/xvda/size, or 0 while there is none. */
static unsigned long long xvda_sectors(void)
{
    unsigned long long n = 0;
    FILE *f = fopen("/sys/block/xvda/size", "r");

    if (f) {
        if (fscanf(f, "%llu", &n) != 1)
            n = 0;
        fclose(f);
    }
    return n;
}

static const char *probe(unsigned long long *sectors)
{
    struct timespec tick = {0, 10 * 1000 * 1000};
    void *buf;
    int fd = open(BLKFRONT_KO, O_RDONLY | O_CLOEXEC);
    ssize_t got;

    if (fd < 0 || syscall(SYS_finit_module, fd, "", 0) != 0)
        return failed_at("cannot load xen-blkfront.ko");
    close(fd);
    for (int ms = 0; !(*sectors = xvda_sectors()); ms += 10) {
        if (ms >= DISK_WAIT_MS)
            return failed_at("no xvda within 10 s of loading xen-blkfront");
        nanosleep(&tick, 0);
    }
    mkdir("/dev", 0755);
    mount("devtmpfs", "/dev", "devtmpfs", 0, 0);
    fd = open("/dev/xvda", O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0)
        return failed_at("cannot open /dev/xvda");
    if (posix_memalign(&buf, BLOCK, BLOCK) != 0) {
        close(fd);
        return failed_at("no memory for the read");
    }
    got = pread(fd, buf, BLOCK, 0);
    probe_errno = errno;
    free(buf);
    close(fd);
    return got == BLOCK ? 0 : "an O_DIRECT read of xvda's first 4 KiB failed";
}

int disk_probe(void)
{
    unsigned long long sectors = 0;
    const char *why;

    if (access(BLKFRONT_KO, R_OK) != 0)
        return 0;
    why = probe(&sectors);
    if (why) {
        printf("linux-bench: disk: %s (%s)\n", why, strerror(probe_errno));
        return 1;
    }
    printf("linux-bench: disk xvda (xen-blkfront): %llu sectors of 512 bytes, first 4 KiB read "
           "with O_DIRECT\n",
           sectors);
    return 0;
}
