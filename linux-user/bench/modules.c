/* Drivers from the initramfs, for the disk and the network card: a module
 * file loaded with finit_module, and an order file's modules (one name a
 * line, each /NAME.ko, listed after what it depends on), so both devices'
 * virtio stacks load the same way, and either may come second. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-user/bench/linux_bench.h"

int module_load(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int ok = fd >= 0 && (syscall(SYS_finit_module, fd, "", 0) == 0 || errno == EEXIST);
    int saved = errno;

    if (fd >= 0)
        close(fd);
    errno = saved; /* the failure's, for the caller's line */
    return ok;
}

int modules_load_order(const char *order)
{
    char name[64], path[80];
    FILE *f = fopen(order, "r");

    if (!f)
        return -1;
    while (fgets(name, sizeof(name), f)) {
        name[strcspn(name, "\n")] = 0;
        snprintf(path, sizeof(path), "/%s.ko", name);
        if (!module_load(path)) {
            int saved = errno;
            fclose(f);
            errno = saved;
            return 1;
        }
    }
    fclose(f);
    return 0;
}
