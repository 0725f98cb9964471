#!/usr/bin/env python3
"""Small BlueZ chores for the BLE test bed's cases, over D-Bus.
  bt.py wait-adapters hci0 hci1   waits (up to 300 s) until bluetoothd lists the adapters, powered
  bt.py disconnect-all hci0 hci1  disconnects every device connected through those adapters, and waits (up to 120 s)
                                  until neither side lists a connection, so that a case starts from an idle link
Both waits end as soon as their condition holds: their bounds are safety nets for a VM emulated (TCG, one CPU) on a
loaded host, where bluetoothd has been seen to take over 20 s to power its adapters, never a verdict on speed."""
import sys
import time

import dbus

bus = dbus.SystemBus()


def objects():
    try:
        return dbus.Interface(bus.get_object('org.bluez', '/'), 'org.freedesktop.DBus.ObjectManager').GetManagedObjects()
    except dbus.exceptions.DBusException:
        return {}


def wait_adapters(names):
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        tree = objects()
        ready = [n for n in names if tree.get(dbus.ObjectPath('/org/bluez/' + n), {}).get('org.bluez.Adapter1', {}).get('Powered')]
        if len(ready) == len(names):
            return 0
        for n in names:
            adapter = tree.get(dbus.ObjectPath('/org/bluez/' + n), {}).get('org.bluez.Adapter1')
            if adapter is not None and not adapter.get('Powered'):
                try:
                    dbus.Interface(bus.get_object('org.bluez', '/org/bluez/' + n), 'org.freedesktop.DBus.Properties').Set(
                        'org.bluez.Adapter1', 'Powered', dbus.Boolean(True))
                except dbus.exceptions.DBusException:
                    pass
        time.sleep(0.2)
    return 1


def disconnect_all(adapters):
    prefixes = tuple('/org/bluez/%s/' % a for a in adapters)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        connected = [p for p, i in objects().items()
                     if p.startswith(prefixes) and i.get('org.bluez.Device1', {}).get('Connected')]
        if not connected:
            return 0
        for path in connected:
            try:
                dbus.Interface(bus.get_object('org.bluez', path), 'org.bluez.Device1').Disconnect()
            except dbus.exceptions.DBusException:
                pass
        time.sleep(0.2)
    return 1


if __name__ == '__main__':
    command, rest = sys.argv[1], sys.argv[2:]
    sys.exit(wait_adapters(rest) if command == 'wait-adapters' else disconnect_all(rest))
