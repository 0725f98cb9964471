package android.content.pm;

/** Desktop stand-in for android.content.pm.PackageInfo. */
public class PackageInfo {
    public String versionName;
}
