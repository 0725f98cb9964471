package android.content;

import android.content.pm.PackageManager;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;

/**
 * Desktop stand-in for android.content.Context: the files and cache directories are two folders of the harness's
 * work directory. Written for ucube's harness; not Android's code.
 */
public class Context {
    public static final int MODE_PRIVATE = 0;

    private final File filesDir;
    private final File cacheDir;

    public Context(File root) {
        filesDir = new File(root, "files");
        cacheDir = new File(root, "cache");
        filesDir.mkdirs();
        cacheDir.mkdirs();
    }

    public Context getApplicationContext() { return this; }

    public File getFilesDir() { return filesDir; }

    public File getCacheDir() { return cacheDir; }

    public File getFileStreamPath(String name) { return new File(filesDir, name); }

    public FileOutputStream openFileOutput(String name, int mode) throws FileNotFoundException {
        return new FileOutputStream(new File(filesDir, name));
    }

    public boolean deleteFile(String name) { return new File(filesDir, name).delete(); }

    public Object getSystemService(String name) { return null; }

    public String getPackageName() { return "ucube.harness"; }

    public PackageManager getPackageManager() { return null; }
}
