#include "xen/xenbus_state.h"

/* Forward through the handshake, to Closing or Closed from anywhere, and
 * from Closed back to the start for a new connection (a new backend after
 * a resume); never back a step, never in place. */
bool xenbus_front_move_allowed(enum xenbus_state from, enum xenbus_state to)
{
    switch (from) {
    case XenbusStateInitialising:
        return to == XenbusStateInitialised || to == XenbusStateClosing || to == XenbusStateClosed;
    case XenbusStateInitialised:
        return to == XenbusStateConnected || to == XenbusStateClosing || to == XenbusStateClosed;
    case XenbusStateConnected:
        return to == XenbusStateClosing || to == XenbusStateClosed;
    case XenbusStateClosing:
        return to == XenbusStateClosed;
    case XenbusStateClosed:
        return to == XenbusStateInitialising;
    default:
        return false;
    }
}

/* Xen's io/xenbus.h: the backend waits in InitWait for the frontend's
 * details and goes Connected once it has mapped them; anything past
 * Connected, or a number outside the enum, ends the attempt. */
enum xenbus_front_action xenbus_front_action(enum xenbus_state front, enum xenbus_state back)
{
    switch (back) {
    case XenbusStateUnknown:
    case XenbusStateInitialising:
    case XenbusStateInitialised:
        return XENBUS_WAIT;
    case XenbusStateInitWait:
        return front == XenbusStateInitialising ? XENBUS_PUBLISH : XENBUS_WAIT;
    case XenbusStateConnected:
        /* A backend cannot be Connected before it saw our ring. */
        return front == XenbusStateInitialised ? XENBUS_CONNECT : XENBUS_GIVE_UP;
    default:
        return XENBUS_GIVE_UP;
    }
}

const char *xenbus_state_name(int state)
{
    static const char *const names[] = {"Unknown",     "Initialising",  "InitWait",
                                        "Initialised", "Connected",     "Closing",
                                        "Closed",      "Reconfiguring", "Reconfigured"};

    if (state >= 0 && state < (int)(sizeof(names) / sizeof(names[0])))
        return names[state];
    return "(not a xenbus state)";
}
