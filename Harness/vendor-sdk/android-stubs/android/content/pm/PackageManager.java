package android.content.pm;

/** Desktop stand-in for android.content.pm.PackageManager (never handed out: Context returns null). */
public class PackageManager {
    public static class NameNotFoundException extends Exception {
        public NameNotFoundException() {}
    }

    public PackageInfo getPackageInfo(String packageName, int flags) throws NameNotFoundException {
        throw new NameNotFoundException();
    }

    public boolean hasSystemFeature(String name) { return false; }
}
