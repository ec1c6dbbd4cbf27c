/* What the files of CDesktopBus share, not Swift. */
#ifndef VOICENOTE_BUS_INTERNAL_H
#define VOICENOTE_BUS_INTERNAL_H

#include <systemd/sd-bus.h>

struct vnbus_connection {
    sd_bus *bus;
};

#endif
