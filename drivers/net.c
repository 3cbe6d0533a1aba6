/* The network layer: a bounded receive queue between the transports'
 * completion paths and the stack, and the transmit path's lock and
 * batching. The layer counts rx_frames, tx_frames, rx_dropped and
 * tx_dropped; the transport counts the rest of struct net_stats. Received
 * frames are copied into the queue in interrupt context and handed to the
 * stack by one network thread, so a flood costs the stack's work where the
 * scheduler can preempt it, and at most NET_RX_QUEUE frames wait. */
#include "drivers/net.h"

#include <stddef.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/net/trace.h"
#include "kernel/net/stack.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/wait_queue.h"

#define NET_MAX_DEVICES 4
#define NET_MAX_PROBES 4
#define NET_RX_QUEUE 64

static struct net_device *devices[NET_MAX_DEVICES];
static unsigned nr_devices;
static net_probe_fn probes[NET_MAX_PROBES];
static unsigned nr_probes;
static bool probed;

uint64_t net_trace_left;
OPTION_UINT(net_trace_left, "net.trace", 0, 64,
            "trace the first N echo requests (ping, UDP echo) and their replies: the "
            "transport's ring slots, grants and notifications, and each layer of the stack");
bool net_tracing;
static bool trace_next_rx; /* the next net_receive's frame is traced */

/* Slots [head, head + count) hold frames; the thread owns the slot at
 * head while it hands it to the stack, which may rewrite it in place. */
static struct {
    struct {
        struct net_device *dev;
        unsigned len;
        bool traced;
        uint8_t data[NET_FRAME_MAX];
    } slot[NET_RX_QUEUE];
    unsigned head, count;
    struct spinlock lock;
    struct wait_queue wq;
    struct thread *thread;
} rxq;

void net_add_probe(net_probe_fn probe)
{
    if (nr_probes < NET_MAX_PROBES)
        probes[nr_probes++] = probe;
}

static void probe_all(void)
{
    if (probed)
        return;
    probed = true;
    for (unsigned i = 0; i < nr_probes; i++)
        probes[i]();
}

/* Takes the next queued frame, sleeping until there is one. */
static unsigned take_slot(void)
{
    unsigned long flags = spin_lock_irqsave(&rxq.lock);
    unsigned i;

    while (rxq.count == 0)
        wait_queue_sleep(&rxq.wq, &rxq.lock);
    i = rxq.head;
    spin_unlock_irqrestore(&rxq.lock, flags);
    return i;
}

static void release_slot(void)
{
    unsigned long flags = spin_lock_irqsave(&rxq.lock);

    rxq.head = (rxq.head + 1) % NET_RX_QUEUE;
    rxq.count--;
    spin_unlock_irqrestore(&rxq.lock, flags);
}

/* One pass hands the queued frames to the stack; what the stack sends
 * meanwhile leaves with one kick per device when the pass ends. A pass
 * takes at most a queue's worth: under a flood the queue never empties,
 * and replies held back for good would fill the transport's ring. */
void net_rx_drain(bool block)
{
    struct net_device *plugged[NET_MAX_DEVICES];
    unsigned nr_plugged = 0, taken = 0;

    if (!block && __atomic_load_n(&rxq.count, __ATOMIC_ACQUIRE) == 0)
        return;
    for (unsigned i = 0; i < nr_devices; i++) {
        net_tx_plug(devices[i]);
        plugged[nr_plugged++] = devices[i];
    }
    do {
        unsigned i = take_slot();

        net_tracing = rxq.slot[i].traced;
        net_stack_input(rxq.slot[i].dev, rxq.slot[i].data, rxq.slot[i].len);
        net_tracing = false;
        release_slot();
    } while (++taken < NET_RX_QUEUE && __atomic_load_n(&rxq.count, __ATOMIC_ACQUIRE) > 0);
    for (unsigned i = 0; i < nr_plugged; i++)
        net_tx_unplug(plugged[i]);
}

static void net_thread(void *arg)
{
    (void)arg;
    for (;;)
        net_rx_drain(true);
}

void net_register(struct net_device *d)
{
    if (nr_devices == NET_MAX_DEVICES) {
        kprintf("net: %s ignored: already %u devices\n", d->name, nr_devices);
        return;
    }
    d->tx_plugged = 0;
    d->tx_kick_owed = false;
    devices[nr_devices++] = d;
    kprintf("net: %s (%s): MAC %02x:%02x:%02x:%02x:%02x:%02x\n", d->name, d->transport->name,
            d->mac[0], d->mac[1], d->mac[2], d->mac[3], d->mac[4], d->mac[5]);
    if (!rxq.thread && !(rxq.thread = thread_create("net", net_thread, NULL)))
        panic("net: no thread slot for the network thread");
}

struct net_device *net_first(void)
{
    probe_all();
    return nr_devices ? devices[0] : NULL;
}

/* A frame into the queue eight bytes at a time: the kernel's memcpy goes
 * a byte at a time, and this copy runs with interrupts off, per frame. */
static void copy_frame(uint8_t *dst, const uint8_t *src, unsigned len)
{
    for (; len >= 8; dst += 8, src += 8, len -= 8)
        __builtin_memcpy(dst, src, 8);
    for (; len; len--)
        *dst++ = *src++;
}

bool net_trace_take(const void *frame, unsigned len)
{
    if (!net_trace_is_echo(frame, len))
        return false;
    net_trace_left--;
    trace_next_rx = true;
    return true;
}

void net_receive(struct net_device *d, const void *frame, unsigned len)
{
    unsigned long flags;
    bool traced = trace_next_rx;

    trace_next_rx = false;
    d->stats.rx_frames++;
    if (len > NET_FRAME_MAX) {
        d->stats.rx_dropped++;
        return;
    }
    flags = spin_lock_irqsave(&rxq.lock);
    if (rxq.count == NET_RX_QUEUE) {
        d->stats.rx_dropped++;
    } else {
        unsigned i = (rxq.head + rxq.count) % NET_RX_QUEUE;

        rxq.slot[i].dev = d;
        rxq.slot[i].len = len;
        rxq.slot[i].traced = traced;
        copy_frame(rxq.slot[i].data, frame, len);
        __atomic_store_n(&rxq.count, rxq.count + 1, __ATOMIC_RELEASE);
        wait_queue_wake_one(&rxq.wq);
    }
    spin_unlock_irqrestore(&rxq.lock, flags);
}

bool net_transmit(struct net_device *d, const void *frame, unsigned len)
{
    unsigned long flags;
    bool ok = false;

    if (len > NET_FRAME_MAX) {
        d->stats.tx_dropped++;
        return false;
    }
    flags = spin_lock_irqsave(&d->tx_lock);
    if (d->transport->transmit(d, frame, len)) {
        ok = true;
        d->stats.tx_frames++;
        if (d->tx_plugged)
            d->tx_kick_owed = true;
        else if (d->transport->kick)
            d->transport->kick(d);
    } else {
        d->stats.tx_dropped++;
    }
    spin_unlock_irqrestore(&d->tx_lock, flags);
    return ok;
}

void net_tx_plug(struct net_device *d)
{
    unsigned long flags = spin_lock_irqsave(&d->tx_lock);

    d->tx_plugged++;
    spin_unlock_irqrestore(&d->tx_lock, flags);
}

void net_tx_unplug(struct net_device *d)
{
    unsigned long flags = spin_lock_irqsave(&d->tx_lock);

    if (d->tx_plugged && --d->tx_plugged == 0 && d->tx_kick_owed) {
        d->tx_kick_owed = false;
        if (d->transport->kick)
            d->transport->kick(d);
    }
    spin_unlock_irqrestore(&d->tx_lock, flags);
}
