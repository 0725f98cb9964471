package android.os;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Desktop stand-in for android.os.Handler: posts run on the main looper's thread (the SDK's connect timeout and the
 * 100 ms pause after a payment's CancelAll need that). Written for ucube's harness; not Android's code.
 */
public class Handler {
    private final Looper looper;
    private final List<ScheduledFuture<?>> posted = new ArrayList<>();

    public Handler() { this(Looper.getMainLooper()); }

    public Handler(Looper looper) { this.looper = looper == null ? Looper.getMainLooper() : looper; }

    public final boolean post(Runnable runnable) { return postDelayed(runnable, 0); }

    public final synchronized boolean postDelayed(Runnable runnable, long delayMillis) {
        posted.removeIf(ScheduledFuture::isDone);
        posted.add(looper.executor.schedule(runnable, Math.max(0, delayMillis), TimeUnit.MILLISECONDS));
        return true;
    }

    public final synchronized void removeCallbacksAndMessages(Object token) {
        for (ScheduledFuture<?> future : posted) future.cancel(false);
        posted.clear();
    }

    public final void removeCallbacks(Runnable runnable) { removeCallbacksAndMessages(null); }

    public final Looper getLooper() { return looper; }
}
