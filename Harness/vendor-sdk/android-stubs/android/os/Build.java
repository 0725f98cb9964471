package android.os;

/**
 * Desktop stand-in for android.os.Build: the SecureServiceAPI's ProductManager reads MODEL and VERSION.RELEASE when
 * its class loads (they must not be null, and must not name a Blade or Stick product). Written for ucube's harness.
 */
public class Build {
    public static final String MODEL = "ucube-vendor-sdk-harness";
    public static final String MANUFACTURER = "ucube";
    public static final String DEVICE = "harness";
    public static final String BRAND = "ucube";
    public static final String PRODUCT = "harness";

    public static class VERSION {
        public static final int SDK_INT = 30;
        public static final String RELEASE = "11";
    }

    public static class VERSION_CODES {
        public static final int N = 24;
        public static final int O = 26;
        public static final int S = 31;
    }
}
