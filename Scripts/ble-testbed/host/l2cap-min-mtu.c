// LD_PRELOAD shim for bluetoothd in the BLE test bed (issue 24): lets `[GATT] ExchangeMTU = 23` reach the LE link.
//
// bluetoothd applies ExchangeMTU to its BR/EDR ATT listening socket too, and the kernel refuses an L2CAP_OPTIONS
// imtu under 48 (the BR/EDR minimum), so bluetoothd gives up on the adapter and 23, the LE default, cannot be
// configured (a known BlueZ limitation, reported upstream). The test bed's controllers are LE-only btvirt ones:
// this raises an L2CAP_OPTIONS imtu/omtu under 48 to 48 on that one BR/EDR socket. The LE ATT bearer never uses
// L2CAP_OPTIONS: its MTU is negotiated by ATT Exchange MTU, with the configured 23.
//
// Built on the host by Scripts/ble-testbed/run.sh (cc -shared -fPIC) into the share; used by guest/cases.sh only
// for the mtu-23 case.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#define SOL_L2CAP 6
#define L2CAP_OPTIONS 0x01
#define L2CAP_BREDR_MIN_MTU 48

// The kernel's struct l2cap_options (include/net/bluetooth/l2cap.h).
struct l2cap_options {
    uint16_t omtu;
    uint16_t imtu;
    uint16_t flush_to;
    uint8_t mode;
    uint8_t fcs;
    uint8_t max_tx;
    uint16_t txwin_size;
};

int setsockopt(int fd, int level, int name, const void *value, socklen_t length) {
    static int (*real)(int, int, int, const void *, socklen_t);
    if (!real) real = (int (*)(int, int, int, const void *, socklen_t))dlsym(RTLD_NEXT, "setsockopt");
    if (level == SOL_L2CAP && name == L2CAP_OPTIONS && value && length >= sizeof(struct l2cap_options)) {
        struct l2cap_options options;
        memcpy(&options, value, sizeof options);
        if (options.imtu < L2CAP_BREDR_MIN_MTU) options.imtu = L2CAP_BREDR_MIN_MTU;
        if (options.omtu && options.omtu < L2CAP_BREDR_MIN_MTU) options.omtu = L2CAP_BREDR_MIN_MTU;
        return real(fd, level, name, &options, sizeof options);
    }
    return real(fd, level, name, value, length);
}
