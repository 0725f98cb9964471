// libdbus-1 for BlueZ's D-Bus API, and the Bluetooth socket address of an RFCOMM link (no BlueZ headers needed: the
// layout is fixed by the kernel ABI).
//
// libdbus-1 is not linked: lazy.c defines each function below as a stub that loads the library (libdbus-1.so.3 and
// its chain: libsystemd, libgcrypt, liblzma, libzstd, liblz4, libcap…) on the first call, so a command that does not
// use Bluetooth never loads it. Its headers live outside the compiler's search path (pkg-config dbus-1 --cflags),
// and a system-library target that names the pkg-config package would link the library, so Swift sees the part of
// the API ucube uses declared here. lazy.c includes <dbus/dbus.h> too: the compiler then checks every prototype
// below against the library's own, and static assertions check the types' layout and the constants.
//
// Swift does not import libdbus's cast macros (DBUS_TYPE_STRING…) nor its C-variadic functions: the Swift side uses
// the type character codes and the iterator API (PLATFORM.md "Bluetooth").
#ifndef UCUBE_CDBUS_SHIM_H
#define UCUBE_CDBUS_SHIM_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

// The types, as <dbus/dbus.h> (libdbus 1.x, a stable ABI) defines them on a 64-bit or 32-bit Linux.
#define UCUBE_DBUS_MESSAGE_ITER_FIELDS                                                                               \
    void *dummy1;                                                                                                    \
    void *dummy2;                                                                                                    \
    dbus_uint32_t dummy3;                                                                                            \
    int dummy4;                                                                                                      \
    int dummy5;                                                                                                      \
    int dummy6;                                                                                                      \
    int dummy7;                                                                                                      \
    int dummy8;                                                                                                      \
    int dummy9;                                                                                                      \
    int dummy10;                                                                                                     \
    int dummy11;                                                                                                     \
    int pad1;                                                                                                        \
    void *pad2;                                                                                                      \
    void *pad3;
#define UCUBE_DBUS_ERROR_FIELDS                                                                                      \
    const char *name;                                                                                                \
    const char *message;                                                                                             \
    unsigned int dummy1 : 1;                                                                                         \
    unsigned int dummy2 : 1;                                                                                         \
    unsigned int dummy3 : 1;                                                                                         \
    unsigned int dummy4 : 1;                                                                                         \
    unsigned int dummy5 : 1;                                                                                         \
    void *padding1;
#define UCUBE_DBUS_BUS_SYSTEM 1
#define UCUBE_DBUS_HANDLER_RESULT_HANDLED 0
#define UCUBE_DBUS_HANDLER_RESULT_NOT_YET_HANDLED 1
#define UCUBE_DBUS_HANDLER_RESULT_NEED_MEMORY 2

#ifdef UCUBE_CDBUS_SYSTEM_HEADERS
#include <dbus/dbus.h>
#else
typedef uint32_t dbus_uint32_t;
typedef dbus_uint32_t dbus_bool_t;
typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;
typedef struct DBusPendingCall DBusPendingCall;
typedef struct DBusMessageIter DBusMessageIter;
struct DBusMessageIter {
    UCUBE_DBUS_MESSAGE_ITER_FIELDS
};
typedef struct DBusError DBusError;
struct DBusError {
    UCUBE_DBUS_ERROR_FIELDS
};
typedef enum {
    DBUS_BUS_SESSION = 0,
    DBUS_BUS_SYSTEM = UCUBE_DBUS_BUS_SYSTEM,
    DBUS_BUS_STARTER = 2,
} DBusBusType;
typedef enum {
    DBUS_HANDLER_RESULT_HANDLED = UCUBE_DBUS_HANDLER_RESULT_HANDLED,
    DBUS_HANDLER_RESULT_NOT_YET_HANDLED = UCUBE_DBUS_HANDLER_RESULT_NOT_YET_HANDLED,
    DBUS_HANDLER_RESULT_NEED_MEMORY = UCUBE_DBUS_HANDLER_RESULT_NEED_MEMORY,
} DBusHandlerResult;
typedef void (*DBusFreeFunction)(void *memory);
typedef void (*DBusPendingCallNotifyFunction)(DBusPendingCall *pending, void *user_data);
typedef DBusHandlerResult (*DBusHandleMessageFunction)(DBusConnection *connection, DBusMessage *message,
                                                       void *user_data);
#endif

// The functions ucube calls (lazy.c defines them). A new one goes here and in lazy.c.
dbus_bool_t dbus_threads_init_default(void);
void dbus_error_init(DBusError *error);
void dbus_error_free(DBusError *error);
void dbus_free(void *memory);
DBusConnection *dbus_bus_get_private(DBusBusType type, DBusError *error);
void dbus_bus_add_match(DBusConnection *connection, const char *rule, DBusError *error);
dbus_bool_t dbus_connection_add_filter(DBusConnection *connection, DBusHandleMessageFunction function,
                                       void *user_data, DBusFreeFunction free_data_function);
void dbus_connection_close(DBusConnection *connection);
dbus_bool_t dbus_connection_read_write_dispatch(DBusConnection *connection, int timeout_milliseconds);
dbus_bool_t dbus_connection_send_with_reply(DBusConnection *connection, DBusMessage *message,
                                            DBusPendingCall **pending_return, int timeout_milliseconds);
void dbus_connection_set_exit_on_disconnect(DBusConnection *connection, dbus_bool_t exit_on_disconnect);
void dbus_connection_unref(DBusConnection *connection);
DBusMessage *dbus_message_new_method_call(const char *bus_name, const char *path, const char *iface,
                                          const char *method);
DBusMessage *dbus_message_new_signal(const char *path, const char *iface, const char *name);
void dbus_message_unref(DBusMessage *message);
int dbus_message_get_type(DBusMessage *message);
const char *dbus_message_get_error_name(DBusMessage *message);
const char *dbus_message_get_interface(DBusMessage *message);
const char *dbus_message_get_member(DBusMessage *message);
const char *dbus_message_get_path(DBusMessage *message);
void dbus_message_set_serial(DBusMessage *message, dbus_uint32_t serial);
dbus_bool_t dbus_message_marshal(DBusMessage *msg, char **marshalled_data_p, int *len_p);
DBusMessage *dbus_message_demarshal(const char *str, int len, DBusError *error);
dbus_bool_t dbus_message_iter_init(DBusMessage *message, DBusMessageIter *iter);
void dbus_message_iter_init_append(DBusMessage *message, DBusMessageIter *iter);
int dbus_message_iter_get_arg_type(DBusMessageIter *iter);
void dbus_message_iter_get_basic(DBusMessageIter *iter, void *value);
char *dbus_message_iter_get_signature(DBusMessageIter *iter);
dbus_bool_t dbus_message_iter_next(DBusMessageIter *iter);
void dbus_message_iter_recurse(DBusMessageIter *iter, DBusMessageIter *sub);
dbus_bool_t dbus_message_iter_append_basic(DBusMessageIter *iter, int type, const void *value);
dbus_bool_t dbus_message_iter_open_container(DBusMessageIter *iter, int type, const char *contained_signature,
                                             DBusMessageIter *sub);
dbus_bool_t dbus_message_iter_close_container(DBusMessageIter *iter, DBusMessageIter *sub);
dbus_bool_t dbus_pending_call_get_completed(DBusPendingCall *pending);
dbus_bool_t dbus_pending_call_set_notify(DBusPendingCall *pending, DBusPendingCallNotifyFunction function,
                                         void *user_data, DBusFreeFunction free_user_data);
DBusMessage *dbus_pending_call_steal_reply(DBusPendingCall *pending);
void dbus_pending_call_unref(DBusPendingCall *pending);

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
#endif
