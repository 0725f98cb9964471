package android.os;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Desktop stand-in for android.os.Looper: one "main" looper, a daemon thread that runs what handlers post, in order
 * of due time. Every looper the SDK asks for is that one. Written for ucube's harness; not Android's code.
 */
public final class Looper {
    private static final Looper MAIN = new Looper();

    final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "main-looper");
        thread.setDaemon(true);
        return thread;
    });

    private Looper() {}

    public static Looper getMainLooper() { return MAIN; }

    public static Looper myLooper() { return MAIN; }

    public static void prepare() {}

    public static void loop() {}

    public Thread getThread() { return null; }
}
