// libdbus-1, loaded when Bluetooth LE first calls it (ucube_lazy.h): scan, connect, a ble:// device, diagnose's bus
// checks. Every function ucube calls is declared in shim.h and defined here.
//
// The library's own header comes first, with its exports made hidden (its DBUS_EXPORT is a visibility attribute):
// shim.h's declarations must then match it, or this file does not compile.
#define DBUS_EXPORT __attribute__((visibility("hidden")))
#define UCUBE_CDBUS_SYSTEM_HEADERS
#include "shim.h"

#include <stddef.h>

#include "ucube_lazy.h"

// shim.h's view of the types (Swift's), against the library's.
struct ucube_check_message_iter {
    UCUBE_DBUS_MESSAGE_ITER_FIELDS
};
_Static_assert(sizeof(struct ucube_check_message_iter) == sizeof(DBusMessageIter), "DBusMessageIter's size");
_Static_assert(_Alignof(struct ucube_check_message_iter) == _Alignof(DBusMessageIter), "DBusMessageIter's alignment");
struct ucube_check_error {
    UCUBE_DBUS_ERROR_FIELDS
};
_Static_assert(sizeof(struct ucube_check_error) == sizeof(DBusError), "DBusError's size");
_Static_assert(offsetof(struct ucube_check_error, name) == offsetof(DBusError, name), "DBusError.name");
_Static_assert(offsetof(struct ucube_check_error, message) == offsetof(DBusError, message), "DBusError.message");
_Static_assert(offsetof(struct ucube_check_error, padding1) == offsetof(DBusError, padding1), "DBusError.padding1");
_Static_assert(DBUS_BUS_SYSTEM == UCUBE_DBUS_BUS_SYSTEM, "DBUS_BUS_SYSTEM");
_Static_assert(DBUS_HANDLER_RESULT_HANDLED == UCUBE_DBUS_HANDLER_RESULT_HANDLED, "DBUS_HANDLER_RESULT_HANDLED");
_Static_assert(DBUS_HANDLER_RESULT_NOT_YET_HANDLED == UCUBE_DBUS_HANDLER_RESULT_NOT_YET_HANDLED,
               "DBUS_HANDLER_RESULT_NOT_YET_HANDLED");
_Static_assert(DBUS_HANDLER_RESULT_NEED_MEMORY == UCUBE_DBUS_HANDLER_RESULT_NEED_MEMORY,
               "DBUS_HANDLER_RESULT_NEED_MEMORY");
_Static_assert(sizeof(dbus_bool_t) == sizeof(uint32_t), "dbus_bool_t");

static struct ucube_lazy_library libdbus =
    UCUBE_LAZY_LIBRARY("libdbus-1.so.3", "Bluetooth (BlueZ over D-Bus)", "libdbus-1-3");

#define LAZY(result, name, parameters, arguments) UCUBE_LAZY(libdbus, result, name, parameters, arguments)
#define LAZY_VOID(name, parameters, arguments) UCUBE_LAZY_VOID(libdbus, name, parameters, arguments)

LAZY(dbus_bool_t, dbus_threads_init_default, (void), ())
LAZY_VOID(dbus_error_init, (DBusError *error), (error))
LAZY_VOID(dbus_error_free, (DBusError *error), (error))
LAZY_VOID(dbus_free, (void *memory), (memory))
LAZY(DBusConnection *, dbus_bus_get_private, (DBusBusType type, DBusError *error), (type, error))
LAZY_VOID(dbus_bus_add_match, (DBusConnection *connection, const char *rule, DBusError *error),
          (connection, rule, error))
LAZY(dbus_bool_t, dbus_connection_add_filter,
     (DBusConnection *connection, DBusHandleMessageFunction function, void *user_data,
      DBusFreeFunction free_data_function),
     (connection, function, user_data, free_data_function))
LAZY_VOID(dbus_connection_close, (DBusConnection *connection), (connection))
LAZY(dbus_bool_t, dbus_connection_read_write_dispatch, (DBusConnection *connection, int timeout_milliseconds),
     (connection, timeout_milliseconds))
LAZY(dbus_bool_t, dbus_connection_send_with_reply,
     (DBusConnection *connection, DBusMessage *message, DBusPendingCall **pending_return, int timeout_milliseconds),
     (connection, message, pending_return, timeout_milliseconds))
LAZY_VOID(dbus_connection_set_exit_on_disconnect, (DBusConnection *connection, dbus_bool_t exit_on_disconnect),
          (connection, exit_on_disconnect))
LAZY_VOID(dbus_connection_unref, (DBusConnection *connection), (connection))
LAZY(DBusMessage *, dbus_message_new_method_call,
     (const char *bus_name, const char *path, const char *iface, const char *method), (bus_name, path, iface, method))
LAZY(DBusMessage *, dbus_message_new_signal, (const char *path, const char *iface, const char *name),
     (path, iface, name))
LAZY_VOID(dbus_message_unref, (DBusMessage *message), (message))
LAZY(int, dbus_message_get_type, (DBusMessage *message), (message))
LAZY(const char *, dbus_message_get_error_name, (DBusMessage *message), (message))
LAZY(const char *, dbus_message_get_interface, (DBusMessage *message), (message))
LAZY(const char *, dbus_message_get_member, (DBusMessage *message), (message))
LAZY(const char *, dbus_message_get_path, (DBusMessage *message), (message))
LAZY_VOID(dbus_message_set_serial, (DBusMessage *message, dbus_uint32_t serial), (message, serial))
LAZY(dbus_bool_t, dbus_message_marshal, (DBusMessage *msg, char **marshalled_data_p, int *len_p),
     (msg, marshalled_data_p, len_p))
LAZY(DBusMessage *, dbus_message_demarshal, (const char *str, int len, DBusError *error), (str, len, error))
LAZY(dbus_bool_t, dbus_message_iter_init, (DBusMessage *message, DBusMessageIter *iter), (message, iter))
LAZY_VOID(dbus_message_iter_init_append, (DBusMessage *message, DBusMessageIter *iter), (message, iter))
LAZY(int, dbus_message_iter_get_arg_type, (DBusMessageIter *iter), (iter))
LAZY_VOID(dbus_message_iter_get_basic, (DBusMessageIter *iter, void *value), (iter, value))
LAZY(char *, dbus_message_iter_get_signature, (DBusMessageIter *iter), (iter))
LAZY(dbus_bool_t, dbus_message_iter_next, (DBusMessageIter *iter), (iter))
LAZY_VOID(dbus_message_iter_recurse, (DBusMessageIter *iter, DBusMessageIter *sub), (iter, sub))
LAZY(dbus_bool_t, dbus_message_iter_append_basic, (DBusMessageIter *iter, int type, const void *value),
     (iter, type, value))
LAZY(dbus_bool_t, dbus_message_iter_open_container,
     (DBusMessageIter *iter, int type, const char *contained_signature, DBusMessageIter *sub),
     (iter, type, contained_signature, sub))
LAZY(dbus_bool_t, dbus_message_iter_close_container, (DBusMessageIter *iter, DBusMessageIter *sub), (iter, sub))
LAZY(dbus_bool_t, dbus_pending_call_get_completed, (DBusPendingCall *pending), (pending))
LAZY(dbus_bool_t, dbus_pending_call_set_notify,
     (DBusPendingCall *pending, DBusPendingCallNotifyFunction function, void *user_data,
      DBusFreeFunction free_user_data),
     (pending, function, user_data, free_user_data))
LAZY(DBusMessage *, dbus_pending_call_steal_reply, (DBusPendingCall *pending), (pending))
LAZY_VOID(dbus_pending_call_unref, (DBusPendingCall *pending), (pending))
