package android.bluetooth;

/** Desktop stand-in: never bonded. */
public class BluetoothDevice {
    public static final int BOND_NONE = 10;

    public int getBondState() { return BOND_NONE; }

    public String getAddress() { return ""; }

    public String getName() { return ""; }
}
