#!/usr/bin/env python3
"""A uCube Touch as a BLE GATT peripheral on a real BlueZ (the BLE test bed's, issue 24), relaying to the simulator.

Runs in the test bed's VM on the second btvirt controller (hci1, --adapter), through bluetoothd's D-Bus API
(GattManager1, LEAdvertisingManager1). What it exposes is what docs/protocol.md section 3.1 says a uCube Touch
exposes:
  - the primary service 11A7A236-..., advertised by UUID; the name (default "YT-Touch 0001") in the scan response;
  - TxRx D1F4C2D0-... (write, write without response, notify): the bytes the host writes go to `ucube simulate
    --codec ble` over TCP unchanged; the simulator's bytes are cut at each end-of-message pair (0E 0F or 0E 0E) and
    notified in chunks of MTU - 5 bytes (the MTU BlueZ gives with each write; MTU - 3 less the 2 bytes BlueZ's
    0x23 notification adds);
  - the connection password 4E6EFAB4-... (write): CRC-16/XMODEM of the name, low byte first; the right one turns the
    terminal on;
  - HState D329A8CB-... (read, notify): 0x34 on, 0x30 off (--start-off: off until the password is written).
While no central is connected it advertises again every second (btvirt reports an advertisement only once). All
D-Bus registrations are asynchronous (a synchronous RegisterAdvertisement from the main loop deadlocks).

Faults, each applied once per run (the next connection is served normally):
  --drop-on CMD[:K]    when the host's K-th message (default 1st) of command CMD (hex, e.g. 5512) is complete, relay
                       it, notify nothing more, and disconnect the link from the peripheral's side after --drop-delay
                       seconds (BlueZ takes 1-3 s more to end it under TCG)
  --silent-on CMD[:K]  relay that message and answer nothing more on this connection (the link stays up)
If the simulator closes its connection (its own drop faults), the peripheral disconnects the link. When the link drops,
the simulator's connection stays: the terminal outlives the link, and the next central finds it as it was left.
Progress lines go to stderr; "advertising" tells the test bed that it is ready.
"""
import argparse
import socket
import sys
import time

import dbus
import dbus.exceptions
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BLUEZ = 'org.bluez'
OM = 'org.freedesktop.DBus.ObjectManager'
PROPS = 'org.freedesktop.DBus.Properties'
GATT_MANAGER = 'org.bluez.GattManager1'
ADV_MANAGER = 'org.bluez.LEAdvertisingManager1'
SERVICE_IFACE = 'org.bluez.GattService1'
CHRC_IFACE = 'org.bluez.GattCharacteristic1'
ADV_IFACE = 'org.bluez.LEAdvertisement1'
DEVICE_IFACE = 'org.bluez.Device1'

# docs/protocol.md section 3.1.
SERVICE_UUID = '11a7a236-d841-42d1-a99c-061c6e909bf9'
TXRX_UUID = 'd1f4c2d0-f8c2-4565-9349-e0312effd1ee'
PASSWORD_UUID = '4e6efab4-7028-49d4-8458-95e69a93607d'
HSTATE_UUID = 'd329a8cb-b872-4c13-971b-72bca85ef0cd'
ON, OFF = 0x34, 0x30

started = time.monotonic()


def log(text):
    sys.stderr.write('[%7.3f] peripheral: %s\n' % (time.monotonic() - started, text))
    sys.stderr.flush()


def crc16_xmodem(data):
    """CRC-16/XMODEM (docs/protocol.md section 2.5): polynomial 0x1021, initial value 0, no reflection."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def messages(buffer):
    """Cuts a BLE-coded stream (section 3.1) after each end-of-message pair. Returns (messages, rest). A raw 0x0E is
    always escaped, so a 0x0E is followed by its escaped byte or by 0x0E/0x0F (the end of a message)."""
    found, start, i = [], 0, 0
    while i + 1 < len(buffer):
        if buffer[i] == 0x0E:
            if buffer[i + 1] in (0x0E, 0x0F):
                found.append(bytes(buffer[start:i + 2]))
                start = i + 2
            i += 2
        else:
            i += 1
    return found, bytes(buffer[start:])


def command_of(message):
    """The command id of a BLE-coded command frame (STX, LEN 2, SEQ, CMD 2), or None."""
    raw, i = [], 0
    while i < len(message) and len(raw) < 6:
        b = message[i]
        if b == 0x0C:
            raw.append(0)
            i += 1
        elif b == 0x0E and i + 1 < len(message):
            raw.append(message[i + 1] & 0x0F)
            i += 2
        else:
            raw.append(b)
            i += 1
    if len(raw) < 6 or raw[0] != 0x02:
        return None
    return raw[4] << 8 | raw[5]


class Fault:
    """CMD[:K] of --drop-on / --silent-on."""

    def __init__(self, text):
        command, _, count = text.partition(':')
        self.command = int(command, 16)
        self.count = int(count or '1')
        self.seen = 0
        self.done = False

    def hit(self, command):
        if self.done or command != self.command:
            return False
        self.seen += 1
        if self.seen == self.count:
            self.done = True
            return True
        return False


class Application(dbus.service.Object):
    def __init__(self, bus, path):
        self.path = path
        self.services = []
        dbus.service.Object.__init__(self, bus, path)

    @dbus.service.method(OM, out_signature='a{oa{sa{sv}}}')
    def GetManagedObjects(self):
        objects = {}
        for service in self.services:
            objects[dbus.ObjectPath(service.path)] = service.properties()
            for chrc in service.characteristics:
                objects[dbus.ObjectPath(chrc.path)] = chrc.properties()
        return objects


class Service(dbus.service.Object):
    def __init__(self, bus, path, uuid):
        self.path = path
        self.uuid = uuid
        self.characteristics = []
        dbus.service.Object.__init__(self, bus, path)

    def properties(self):
        return {SERVICE_IFACE: {
            'UUID': self.uuid, 'Primary': True,
            'Characteristics': dbus.Array([dbus.ObjectPath(c.path) for c in self.characteristics], signature='o')}}

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        return self.properties()[SERVICE_IFACE]


class Characteristic(dbus.service.Object):
    def __init__(self, bus, path, uuid, flags, service, on_write=None, on_read=None):
        self.path = path
        self.uuid = uuid
        self.flags = flags
        self.service = service
        self.on_write = on_write
        self.on_read = on_read
        self.notifying = False
        dbus.service.Object.__init__(self, bus, path)

    def properties(self):
        return {CHRC_IFACE: {
            'Service': dbus.ObjectPath(self.service.path), 'UUID': self.uuid,
            'Flags': dbus.Array(self.flags, signature='s')}}

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        return self.properties()[CHRC_IFACE]

    @dbus.service.method(CHRC_IFACE, in_signature='a{sv}', out_signature='ay')
    def ReadValue(self, options):
        return dbus.Array(self.on_read() if self.on_read else [], signature='y')

    @dbus.service.method(CHRC_IFACE, in_signature='aya{sv}')
    def WriteValue(self, value, options):
        if self.on_write:
            self.on_write(bytes(value), options)

    @dbus.service.method(CHRC_IFACE)
    def StartNotify(self):
        self.notifying = True
        log('notifications on for ' + self.uuid[:8])

    @dbus.service.method(CHRC_IFACE)
    def StopNotify(self):
        self.notifying = False

    @dbus.service.signal(PROPS, signature='sa{sv}as')
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def notify(self, value):
        if self.notifying:
            self.PropertiesChanged(CHRC_IFACE, {'Value': dbus.Array(value, signature='y')}, [])


class Advertisement(dbus.service.Object):
    def __init__(self, bus, path, name):
        self.path = path
        self.name = name
        dbus.service.Object.__init__(self, bus, path)

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        # The 128-bit service UUID fills the advertisement (3 + 18 bytes); BlueZ puts the local name in the scan
        # response, as a uCube Touch does.
        return {'Type': 'peripheral', 'ServiceUUIDs': dbus.Array([SERVICE_UUID], signature='s'),
                'LocalName': dbus.String(self.name)}

    @dbus.service.method(ADV_IFACE)
    def Release(self):
        pass


class Terminal:
    def __init__(self, args):
        self.args = args
        self.bus = dbus.SystemBus()
        self.adapter_path = '/org/bluez/' + args.adapter
        self.powered = not args.start_off
        self.mtu = 23
        self.inbox = b''
        self.outbox = b''
        self.sim = None
        self.sim_watch = None
        self.silent = False
        self.connected = False
        self.advertising = False
        self.registered_once = False
        self.drop = Fault(args.drop_on) if args.drop_on else None
        self.quiet = Fault(args.silent_on) if args.silent_on else None

        adapter = self.bus.get_object(BLUEZ, self.adapter_path)
        props = dbus.Interface(adapter, PROPS)
        props.Set('org.bluez.Adapter1', 'Powered', dbus.Boolean(True))
        props.Set('org.bluez.Adapter1', 'Alias', dbus.String(args.name))
        self.gatt = dbus.Interface(adapter, GATT_MANAGER)
        self.ads = dbus.Interface(adapter, ADV_MANAGER)

        self.app = Application(self.bus, '/ucube')
        service = Service(self.bus, '/ucube/service0', SERVICE_UUID)
        self.txrx = Characteristic(self.bus, '/ucube/service0/char0', TXRX_UUID,
                                   ['write', 'write-without-response', 'notify'], service, on_write=self.txrx_written)
        self.password = Characteristic(self.bus, '/ucube/service0/char1', PASSWORD_UUID, ['write'], service,
                                       on_write=self.password_written)
        self.hstate = Characteristic(self.bus, '/ucube/service0/char2', HSTATE_UUID, ['read', 'notify'], service,
                                     on_read=lambda: [ON if self.powered else OFF])
        service.characteristics = [self.txrx, self.password, self.hstate]
        self.app.services = [service]
        self.advertisement = Advertisement(self.bus, '/ucube/adv0', args.name)

        self.bus.add_signal_receiver(self.properties_changed, dbus_interface=PROPS, signal_name='PropertiesChanged',
                                     path_keyword='path')
        self.gatt.RegisterApplication(dbus.ObjectPath(self.app.path), {}, reply_handler=self.app_registered,
                                      error_handler=lambda e: self.fatal('RegisterApplication: %s' % e))

    def fatal(self, text):
        log(text)
        loop.quit()

    def app_registered(self):
        log('GATT application registered on ' + self.args.adapter)
        self.advertise()
        GLib.timeout_add(1000, self.readvertise)

    def advertise(self):
        self.ads.RegisterAdvertisement(dbus.ObjectPath(self.advertisement.path), {},
                                       reply_handler=self.advertised, error_handler=self.advertise_failed)

    def advertised(self):
        self.advertising = True
        if not self.registered_once:
            self.registered_once = True
            log('advertising as %s' % self.args.name)

    def advertise_failed(self, error):
        self.advertising = False
        log('RegisterAdvertisement: %s' % error)

    def readvertise(self):
        # Again and again while nobody is connected: btvirt reports each advertisement once.
        if not self.connected and self.advertising:
            self.advertising = False
            self.ads.UnregisterAdvertisement(dbus.ObjectPath(self.advertisement.path),
                                             reply_handler=self.advertise, error_handler=lambda e: self.advertise())
        elif not self.connected and not self.advertising:
            self.advertise()
        return True

    # The link

    def properties_changed(self, interface, changed, invalidated, path=None):
        if interface != DEVICE_IFACE or not path or not path.startswith(self.adapter_path + '/'):
            return
        if 'Connected' in changed:
            if changed['Connected']:
                self.connected = True
                log('central connected: ' + path)
            else:
                self.connected = False
                log('central disconnected: ' + path)
                self.link_lost()

    def link_lost(self):
        # The terminal outlives the link: the simulator's connection (and so a pending card wait, a transaction, a
        # secure session, a half-loaded image) stays, for the next central to find. What the simulator answers
        # meanwhile is lost, as a terminal's notification with no central is.
        self.inbox = b''
        self.silent = False
        self.txrx.notifying = False
        self.hstate.notifying = False

    def disconnect(self, why):
        log('disconnecting the central: ' + why)
        objects = dbus.Interface(self.bus.get_object(BLUEZ, '/'), OM).GetManagedObjects()
        for path, interfaces in objects.items():
            device = interfaces.get(DEVICE_IFACE)
            if device and path.startswith(self.adapter_path + '/') and device.get('Connected'):
                dbus.Interface(self.bus.get_object(BLUEZ, path), DEVICE_IFACE).Disconnect(
                    reply_handler=lambda: None, error_handler=lambda e: log('Disconnect: %s' % e))

    # The simulator

    def open_simulator(self):
        if self.sim:
            return True
        try:
            self.sim = socket.create_connection(('127.0.0.1', self.args.simulator), timeout=5)
        except OSError as error:
            log('cannot reach the simulator: %s' % error)
            return False
        self.sim.setblocking(False)
        self.sim_watch = GLib.io_add_watch(self.sim.fileno(), GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR,
                                           self.simulator_readable)
        return True

    def close_simulator(self):
        if self.sim_watch:
            GLib.source_remove(self.sim_watch)
            self.sim_watch = None
        if self.sim:
            self.sim.close()
            self.sim = None

    def simulator_readable(self, fd, condition):
        try:
            data = self.sim.recv(65536)
        except BlockingIOError:
            return True
        except OSError:
            data = b''
        if not data:
            self.sim_watch = None
            self.close_simulator()
            self.disconnect('the simulator closed its connection')
            return False
        found, self.outbox = messages(self.outbox + data)
        for message in found:
            if not self.txrx.notifying:
                log('no central subscribed: an answer of %d bytes lost' % len(message))
                continue
            if self.silent:
                log('silent: an answer of %d bytes not notified' % len(message))
                continue
            # MTU - 3 is what a terminal notifies in an ATT Handle Value Notification (0x1B). BlueZ, as the server,
            # sends them as Multiple Handle Value Notifications (0x23), which take 2 bytes more (the length): a
            # chunk of MTU - 3 loses its last 2 bytes there (seen at MTU 48). So MTU - 5, at most 512.
            size = min(self.mtu - 5, 512)
            for i in range(0, len(message), size):
                self.txrx.notify(message[i:i + size])
        return True

    # Characteristics

    def txrx_written(self, value, options):
        if 'mtu' in options:
            self.mtu = int(options['mtu'])
        if not self.open_simulator():
            raise dbus.exceptions.DBusException('simulator unreachable', name='org.bluez.Error.Failed')
        self.sim.sendall(value)
        found, self.inbox = messages(self.inbox + value)
        for message in found:
            command = command_of(message)
            if command is None:
                continue
            if self.drop and self.drop.hit(command):
                # Nothing more is notified: the answer is lost with the link, whichever comes first.
                self.silent = True
                GLib.timeout_add(int(self.args.drop_delay * 1000),
                                 lambda: self.disconnect('fault: command %04X' % command) and False)
            if self.quiet and self.quiet.hit(command):
                log('fault: silent from command %04X on (MTU %d)' % (command, self.mtu))
                self.silent = True

    def password_written(self, value, options):
        expected = crc16_xmodem(self.args.name.encode())
        if bytes(value) != bytes([expected & 0xFF, expected >> 8]):
            log('wrong connection password %s' % bytes(value).hex())
            raise dbus.exceptions.DBusException('wrong password', name='org.bluez.Error.NotAuthorized')
        log('password accepted: powering on')
        self.powered = True
        GLib.idle_add(lambda: self.hstate.notify([ON]) and False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--adapter', default='hci1')
    parser.add_argument('--name', default='YT-Touch 0001')
    parser.add_argument('--simulator', type=int, default=5000, help='the port of `ucube simulate --codec ble`')
    parser.add_argument('--start-off', action='store_true')
    parser.add_argument('--drop-on')
    parser.add_argument('--drop-delay', type=float, default=0.3)
    parser.add_argument('--silent-on')
    args = parser.parse_args()
    assert crc16_xmodem(b'YT-Touch 0001') == 0x4CC4  # docs/protocol.md section 3.1
    global loop
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    loop = GLib.MainLoop()
    Terminal(args)
    loop.run()


if __name__ == '__main__':
    main()
