# -*- coding: utf-8 -*-
'''BlueZ with a uCube Touch: python-dbusmock's bluez5 template, extended with the uCube Touch GATT service.

Run with Debian's python3 on a private bus (see Tests/ucubeTests/BluetoothEndToEndTests.swift):

    DBUS_SYSTEM_BUS_ADDRESS=unix:path=$DIR/bus.sock /usr/bin/python3 -m dbusmock --system \
        --template Tests/Fixtures/bluez/ucube_bluez.py -p '{"simulator": "127.0.0.1:PORT", "ready_file": "..."}'

Parameters (JSON):
  simulator           HOST:PORT of `ucube simulate --listen HOST:PORT --codec ble` (required)
  name, address       the terminal's advertised name and address (default "YT-Touch 0001", "C0:FF:EE:00:00:01")
  ready_file          written once the mock serves the bus
  drop_after_messages the Nth complete message written to TxRx (counted over the mock's life) is swallowed and the
                      link dropped; a number or a list of numbers (0 = never)
  mtu                 the TxRx characteristic's MTU property (default 23: 20-byte notifications)
  password_name       the name whose CRC the terminal expects as password (default: name; another name tests a
                      refused password)
  blip_on_connect     true: on Device1.Connect the link drops during the GATT resolution and comes back at once
                      (Connected true, false, true), as the BLE test bed saw BlueZ do over btvirt

Failures `ucube diagnose` must name (each off by default):
  bluez_running       false: the mock gives up the name org.bluez once loaded, as when bluetoothd is not running
                      (calls then fail with org.freedesktop.DBus.Error.ServiceUnknown)
  adapter_powered     false: hci0 has Powered=false; StartDiscovery and Device1.Connect fail with org.bluez.Error.NotReady
  deny                a list of methods ("SetDiscoveryFilter", "StartDiscovery", "Connect") that fail with
                      org.freedesktop.DBus.Error.AccessDenied, as the bus policy answers a user not allowed to use BlueZ
  pending_connection  true: the terminal is known and Connected=true at start, a connection no client holds (left by a
                      process that died while connecting); Device1.Connect fails with org.bluez.Error.InProgress until
                      Device1.Disconnect clears it

Behaviour (spec §3.1): the adapter hci0 exists at once; the terminal appears when discovery starts. Device1.Connect
opens a TCP connection to the simulator and exports the service 11A7A236-… with TxRx, the password characteristic
and HState. HState reads 0x30 (off) until the 2-byte password (CRC-16/XMODEM of the name, low byte first) is written,
then notifies 0x34. Bytes written to TxRx go to the simulator as they are; bytes from the simulator come back as
Value PropertiesChanged notifications of at most MTU-3 bytes. org.bluez.Mock.DropLink() drops the link at any time.
'''

import json
import socket

import dbus
from gi.repository import GLib

from dbusmock import OBJECT_MANAGER_IFACE, mockobject
from dbusmock.templates import bluez5
from dbusmock.templates.bluez5 import *  # noqa: F401,F403 (the template's D-Bus methods: AddAdapter, AddDevice, …)

BUS_NAME = 'org.bluez'
MAIN_OBJ = '/'
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

GATT_SERVICE_IFACE = 'org.bluez.GattService1'
GATT_CHAR_IFACE = 'org.bluez.GattCharacteristic1'
SERVICE_UUID = '11a7a236-d841-42d1-a99c-061c6e909bf9'
TXRX_UUID = 'd1f4c2d0-f8c2-4565-9349-e0312effd1ee'
PASSWORD_UUID = '4e6efab4-7028-49d4-8458-95e69a93607d'
HSTATE_UUID = 'd329a8cb-b872-4c13-971b-72bca85ef0cd'

STATE = {}


def crc16_xmodem(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def log(text):
    print('ucube-bluez-mock: ' + text, flush=True)


def device():
    return mockobject.objects.get(STATE.get('device_path'))


def set_device(props):
    dev = device()
    if dev is not None:
        dev.UpdateProperties(bluez5.DEVICE_IFACE, props)


def notify(path, value):
    obj = mockobject.objects[path]
    obj.UpdateProperties(GATT_CHAR_IFACE, {'Value': dbus.Array([dbus.Byte(b) for b in value], signature='y')})


# ---- the link to the simulator ----

def open_simulator():
    host, port = STATE['simulator'].rsplit(':', 1)
    sock = socket.create_connection((host, int(port)), timeout=5)
    sock.setblocking(False)
    STATE['socket'] = sock
    STATE['watch'] = GLib.io_add_watch(sock.fileno(), GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, simulator_readable)


def close_simulator():
    watch = STATE.pop('watch', None)
    if watch is not None:
        GLib.source_remove(watch)
    sock = STATE.pop('socket', None)
    if sock is not None:
        sock.close()


def simulator_readable(_fd, _condition):
    sock = STATE.get('socket')
    if sock is None:
        return False
    try:
        data = sock.recv(4096)
    except BlockingIOError:
        return True
    except OSError:
        data = b''
    if not data:
        log('the simulator closed the connection')
        STATE.pop('watch', None)
        drop_link('simulator closed')
        return False
    chunk = STATE['mtu'] - 3
    if STATE.get('txrx_notifying'):
        for i in range(0, len(data), chunk):
            notify(STATE['txrx'], data[i:i + chunk])
    return True


def drop_link(why):
    '''The radio link is lost: BlueZ reports Connected=false and ServicesResolved=false.'''
    log('dropping the link: ' + why)
    close_simulator()
    dev = device()
    if dev is None:
        return
    dev.connected = False
    STATE['powered'] = False
    STATE['txrx_notifying'] = False
    STATE['pending'] = b''
    set_device({'Connected': dbus.Boolean(False), 'ServicesResolved': dbus.Boolean(False)})


# ---- Device1 ----

def deny(method):
    if method in STATE.get('deny', set()):
        raise dbus.exceptions.DBusException(
            f'Rejected send message: {method} to org.bluez is not allowed for this user',
            name='org.freedesktop.DBus.Error.AccessDenied')


def connect_device(dev):
    deny('Connect')
    if not STATE.get('adapter_powered', True):
        raise dbus.exceptions.DBusException('Resource Not Ready', name='org.bluez.Error.NotReady')
    if STATE.get('pending_connection'):
        raise dbus.exceptions.DBusException('Operation already in progress', name='org.bluez.Error.InProgress')
    if dev.connected:
        raise dbus.exceptions.DBusException('Already Connected', name='org.bluez.Error.AlreadyConnected')
    try:
        open_simulator()
    except OSError as error:
        raise dbus.exceptions.DBusException(f'le-connection-abort-by-local ({error})', name='org.bluez.Error.Failed')
    dev.connected = True
    STATE['powered'] = False
    STATE['pending'] = b''
    set_device({'Connected': dbus.Boolean(True)})
    add_gatt_objects()
    if STATE.get('blip_on_connect'):
        # The link drops during the GATT resolution and BlueZ connects again by itself, the objects kept (issue 24:
        # seen over btvirt, "Device ... is already connected" in bluetoothd's log).
        set_device({'Connected': dbus.Boolean(False)})
        set_device({'Connected': dbus.Boolean(True)})
        log('the link dropped during the GATT resolution and came back')
    set_device({'ServicesResolved': dbus.Boolean(True)})
    log('connected')


def disconnect_device(dev):
    if STATE.pop('pending_connection', False):
        log('the pending connection is cleared')
        dev.connected = False
        set_device({'Connected': dbus.Boolean(False)})
        return
    if not dev.connected:
        raise dbus.exceptions.DBusException('Not Connected', name='org.bluez.Error.NotConnected')
    drop_link('host disconnected')


def add_gatt_objects():
    dev_path = STATE['device_path']
    if STATE.get('gatt_added'):
        return
    service = dev_path + '/service0010'
    mock = mockobject.objects['/']
    service_props = {
        'UUID': dbus.String(SERVICE_UUID),
        'Device': dbus.ObjectPath(dev_path),
        'Primary': dbus.Boolean(True),
        'Includes': dbus.Array([], signature='o'),
    }
    mock.AddObject(service, GATT_SERVICE_IFACE, service_props, [])
    mock.EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesAdded', 'oa{sa{sv}}',
                    [dbus.ObjectPath(service), {GATT_SERVICE_IFACE: service_props}])
    chars = [
        ('char0011', TXRX_UUID, ['write', 'notify'], 'txrx'),
        ('char0014', PASSWORD_UUID, ['write'], 'password'),
        ('char0016', HSTATE_UUID, ['read', 'notify'], 'hstate'),
    ]
    for name, uuid, flags, key in chars:
        path = service + '/' + name
        props = {
            'UUID': dbus.String(uuid),
            'Service': dbus.ObjectPath(service),
            'Value': dbus.Array([], signature='y'),
            'Notifying': dbus.Boolean(False),
            'Flags': dbus.Array(flags, signature='s'),
            'MTU': dbus.UInt16(STATE['mtu']),
        }
        mock.AddObject(path, GATT_CHAR_IFACE, props, [
            ('ReadValue', 'a{sv}', 'ay', char_read),
            ('WriteValue', 'aya{sv}', '', char_write),
            ('StartNotify', '', '', char_start_notify),
            ('StopNotify', '', '', char_stop_notify),
        ])
        mockobject.objects[path].role = key
        STATE[key] = path
        mock.EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesAdded', 'oa{sa{sv}}',
                        [dbus.ObjectPath(path), {GATT_CHAR_IFACE: props}])
    STATE['gatt_added'] = True


def require_connected():
    dev = device()
    if dev is None or not dev.connected:
        raise dbus.exceptions.DBusException('Not connected', name='org.bluez.Error.NotConnected')


def hstate_value():
    return [0x34] if STATE.get('powered') else [0x30]


def char_read(char, _options):
    require_connected()
    if char.role == 'hstate':
        return dbus.Array([dbus.Byte(b) for b in hstate_value()], signature='y')
    raise dbus.exceptions.DBusException('Read not permitted', name='org.bluez.Error.NotPermitted')


def char_write(char, value, _options):
    require_connected()
    data = bytes(value)
    if char.role == 'password':
        expected_crc = crc16_xmodem(STATE['password_name'].encode())
        expected = bytes([expected_crc & 0xFF, expected_crc >> 8])
        if data != expected:
            log(f'wrong connection password {data.hex()} (expected {expected.hex()})')
            raise dbus.exceptions.DBusException('Not authorized', name='org.bluez.Error.NotAuthorized')
        STATE['powered'] = True
        log('password accepted: powering on')
        if STATE.get('hstate_notifying'):
            GLib.idle_add(lambda: notify(STATE['hstate'], hstate_value()) and False)
        return
    if char.role != 'txrx':
        raise dbus.exceptions.DBusException('Write not permitted', name='org.bluez.Error.NotPermitted')
    if not STATE.get('powered'):
        raise dbus.exceptions.DBusException('terminal is powered off', name='org.bluez.Error.Failed')
    if len(data) > STATE['mtu'] - 3:
        raise dbus.exceptions.DBusException(f'write of {len(data)} bytes over MTU-3', name='org.bluez.Error.InvalidValueLength')
    STATE['writes'] = STATE.get('writes', 0) + 1
    STATE['pending'] = STATE.get('pending', b'') + data
    if STATE['pending'].endswith(b'\x0e\x0f') or STATE['pending'].endswith(b'\x0e\x0e'):
        message = STATE['pending']
        STATE['pending'] = b''
        STATE['messages'] = STATE.get('messages', 0) + 1
        if STATE['messages'] in STATE['drop_at']:
            log(f'message {STATE["messages"]} swallowed: the link drops while the terminal works on it')
            GLib.timeout_add(100, lambda: drop_link('scheduled drop') and False)
            return
        STATE['socket'].sendall(message)


def char_start_notify(char):
    require_connected()
    STATE[char.role + '_notifying'] = True
    char.UpdateProperties(GATT_CHAR_IFACE, {'Notifying': dbus.Boolean(True)})


def char_stop_notify(char):
    STATE[char.role + '_notifying'] = False
    char.UpdateProperties(GATT_CHAR_IFACE, {'Notifying': dbus.Boolean(False)})


# ---- Adapter1 discovery and the mock's own controls ----

def start_discovery(adapter):
    deny('StartDiscovery')
    if not STATE.get('adapter_powered', True):
        raise dbus.exceptions.DBusException('Resource Not Ready', name='org.bluez.Error.NotReady')
    adapter.props[bluez5.ADAPTER_IFACE]['Discovering'] = True
    if STATE.get('device_path') is None:
        add_terminal()


def set_discovery_filter(_adapter, _filter):
    deny('SetDiscoveryFilter')


def stop_discovery(adapter):
    adapter.props[bluez5.ADAPTER_IFACE]['Discovering'] = False


def add_terminal():
    mock = mockobject.objects['/']
    path = mock.AddDevice('hci0', STATE['address'], STATE['name'])
    dev = mockobject.objects[path]
    dev.UpdateProperties(bluez5.DEVICE_IFACE, {
        'RSSI': dbus.Int16(-52),
        'UUIDs': dbus.Array([SERVICE_UUID], signature='s'),
    })
    dev.AddMethods(bluez5.DEVICE_IFACE, [
        ('Connect', '', '', connect_device),
        ('Disconnect', '', '', disconnect_device),
    ])
    STATE['device_path'] = path
    log('terminal discovered at ' + path)


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature='', out_signature='')
def DropLink(self):
    '''Drops the terminal's link now (out of range, switched off).'''
    drop_link('DropLink')


def load(mock, parameters):
    bluez5.load(mock, parameters)
    STATE['simulator'] = str(parameters['simulator'])
    STATE['name'] = str(parameters.get('name', 'YT-Touch 0001'))
    STATE['address'] = str(parameters.get('address', 'C0:FF:EE:00:00:01'))
    STATE['mtu'] = int(parameters.get('mtu', 23))
    STATE['password_name'] = str(parameters.get('password_name', STATE['name']))
    STATE['adapter_powered'] = bool(parameters.get('adapter_powered', True))
    STATE['deny'] = set(parameters.get('deny', []))
    STATE['blip_on_connect'] = bool(parameters.get('blip_on_connect', False))
    pending = bool(parameters.get('pending_connection', False))
    bluez_running = bool(parameters.get('bluez_running', True))
    drop = parameters.get('drop_after_messages', 0)
    STATE['drop_at'] = {int(n) for n in (drop if isinstance(drop, list) else [drop]) if int(n) > 0}
    ready = parameters.get('ready_file')

    def add_adapter():
        # The object manager at / is registered after load() returns: add the adapter from the main loop.
        adapter_path = mock.AddAdapter('hci0', 'ucube-test')
        adapter = mockobject.objects[adapter_path]
        adapter.AddMethods(bluez5.ADAPTER_IFACE, [
            ('StartDiscovery', '', '', start_discovery),
            ('StopDiscovery', '', '', stop_discovery),
            ('SetDiscoveryFilter', 'a{sv}', '', set_discovery_filter),
        ])
        if not STATE['adapter_powered']:
            adapter.UpdateProperties(bluez5.ADAPTER_IFACE, {'Powered': dbus.Boolean(False)})
            log('adapter powered off')
        if pending:
            add_terminal()
            STATE['pending_connection'] = True
            dev = device()
            dev.connected = True
            set_device({'Connected': dbus.Boolean(True)})
            log('a connection left pending')
        if not bluez_running:
            mock.connection.release_name(BUS_NAME)
            log('org.bluez released: BlueZ is not running')
        if ready:
            with open(str(ready), 'w', encoding='utf-8') as f:
                f.write(json.dumps({'adapter': adapter_path}))
        return False
    GLib.idle_add(add_adapter)
