"""tools/run's doors: the arguments, QEMU's start and watch, each door's
pieces (ISO, Xen, domU, KVM, Linux, gdb, disk, network) and the CPU
slots every QEMU takes."""
