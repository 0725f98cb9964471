// libdbus-1 (Debian: libdbus-1-dev, pkg-config dbus-1) for BlueZ's D-Bus API, and the Bluetooth socket address of
// an RFCOMM link (no BlueZ headers needed: the layout is fixed by the kernel ABI).
//
// Swift does not import libdbus's cast macros (DBUS_TYPE_STRING…) nor its C-variadic functions: the Swift side uses
// the type character codes and the iterator API (PLATFORM.md "Bluetooth").
#include <dbus/dbus.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/// AF_BLUETOOTH and BTPROTO_RFCOMM (linux/bluetooth.h, net/bluetooth/rfcomm.h).
#define UCUBE_AF_BLUETOOTH 31
#define UCUBE_BTPROTO_RFCOMM 3

/// struct sockaddr_rc (bluetooth/rfcomm.h): family, bdaddr (6 bytes, little-endian: last octet first), channel.
struct ucube_sockaddr_rc {
    sa_family_t rc_family;
    uint8_t rc_bdaddr[6];
    uint8_t rc_channel;
} __attribute__((packed));

static inline int ucube_rfcomm_connect(int fd, const uint8_t address[6], uint8_t channel) {
    struct ucube_sockaddr_rc addr;
    memset(&addr, 0, sizeof addr);
    addr.rc_family = UCUBE_AF_BLUETOOTH;
    memcpy(addr.rc_bdaddr, address, 6);
    addr.rc_channel = channel;
    return connect(fd, (const struct sockaddr *)&addr, sizeof addr);
}

/// A heap DBusError, so Swift never copies the struct (it has bitfields).
static inline DBusError *ucube_dbus_error_new(void) {
    DBusError *error = (DBusError *)malloc(sizeof(DBusError));
    if (error) dbus_error_init(error);
    return error;
}

static inline void ucube_dbus_error_free(DBusError *error) {
    if (!error) return;
    dbus_error_free(error);
    free(error);
}
