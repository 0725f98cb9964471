package android.util;

/**
 * Desktop stand-in for android.util.Log: the vendor SDK's log calls go to standard error when the harness runs with
 * UCUBE_HARNESS_VERBOSE=1, and nowhere otherwise. Written for ucube's harness; not Android's code.
 */
public final class Log {
    private static final boolean VERBOSE = "1".equals(System.getenv("UCUBE_HARNESS_VERBOSE"));

    private Log() {}

    private static int print(String level, String tag, String message, Throwable error) {
        if (!VERBOSE) return 0;
        System.err.println("[sdk " + level + "] " + tag + ": " + message);
        if (error != null) error.printStackTrace(System.err);
        return 0;
    }

    public static int v(String tag, String message) { return print("V", tag, message, null); }
    public static int v(String tag, String message, Throwable error) { return print("V", tag, message, error); }
    public static int d(String tag, String message) { return print("D", tag, message, null); }
    public static int d(String tag, String message, Throwable error) { return print("D", tag, message, error); }
    public static int i(String tag, String message) { return print("I", tag, message, null); }
    public static int i(String tag, String message, Throwable error) { return print("I", tag, message, error); }
    public static int w(String tag, String message) { return print("W", tag, message, null); }
    public static int w(String tag, String message, Throwable error) { return print("W", tag, message, error); }
    public static int w(String tag, Throwable error) { return print("W", tag, "", error); }
    public static int e(String tag, String message) { return print("E", tag, message, null); }
    public static int e(String tag, String message, Throwable error) { return print("E", tag, message, error); }
}
