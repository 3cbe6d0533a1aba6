/* The frontend's half of xenbus's state machine (enum xenbus_state from
 * <xen/io/xenbus.h>): which moves of its own it may make, and what the
 * backend's state asks of it. Pure code, so a host test can hold it to
 * the table. xen/xenbus.c does the moves in xenstore. */
#ifndef XEN_XENBUS_STATE_H
#define XEN_XENBUS_STATE_H

#include <stdbool.h>

#include "xen/xen_public.h"

#include <xen/io/xenbus.h>

/* Whether the frontend may go from one state to the other. */
bool xenbus_front_move_allowed(enum xenbus_state from, enum xenbus_state to);

/* What a connecting frontend does about the backend's state. */
enum xenbus_front_action {
    XENBUS_WAIT,    /* the backend is not ready for us yet */
    XENBUS_PUBLISH, /* InitWait: write our ring and port, go Initialised */
    XENBUS_CONNECT, /* Connected: read its features, go Connected */
    XENBUS_GIVE_UP, /* Closing, Closed or nonsense: this connection is over */
};
enum xenbus_front_action xenbus_front_action(enum xenbus_state front, enum xenbus_state back);

/* "InitWait", for messages. */
const char *xenbus_state_name(int state);

#endif
