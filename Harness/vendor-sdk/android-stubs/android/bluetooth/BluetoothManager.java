package android.bluetooth;

/** Desktop stand-in: the SOCKET connection never uses Bluetooth; the class only has to link. */
public class BluetoothManager {
    public BluetoothAdapter getAdapter() { return null; }
}
