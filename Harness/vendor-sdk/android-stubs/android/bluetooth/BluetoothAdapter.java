package android.bluetooth;

import java.util.Collections;
import java.util.Set;

/** Desktop stand-in: no adapter on the desktop. */
public class BluetoothAdapter {
    public static BluetoothAdapter getDefaultAdapter() { return null; }

    public BluetoothDevice getRemoteDevice(String address) { return null; }

    public boolean isEnabled() { return false; }

    public Set<BluetoothDevice> getBondedDevices() { return Collections.emptySet(); }
}
