#ifndef KERNEL_NET_WORKLOAD_H
#define KERNEL_NET_WORKLOAD_H

/* net=on: brings the first network device up at net.ip=, announces it
 * with a gratuitous ARP and serves UDP echo (port 7), the counters
 * service (port 9) and ping until the client's `end`, then prints the
 * client's counts and the guest's counters. Ends the run with a FAIL
 * verdict when there is no device, the client saw a datagram come back
 * wrong or none at all, or no `end` came within net.timeout= seconds.
 * Returns at once without net=on. Thread context. */
void net_workload_run(void);

#endif
