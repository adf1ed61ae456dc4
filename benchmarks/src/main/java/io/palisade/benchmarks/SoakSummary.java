package io.palisade.benchmarks;

import java.util.List;
import java.util.Locale;

/**
 * The end of a {@link SoakHarness} run in the ratios steady-state targets are stated in: the last window against the
 * first window counted (the first that starts at or after the warm-up; the first window when none does), and the
 * reopen after the run.
 *
 * @param first     the first window counted
 * @param last      the last window
 * @param reopen    the close, reopen and first operations after the run
 */
record SoakSummary(SoakWindow first, SoakWindow last, Reopen reopen) {

    /**
     * The graph closed after the run and opened again, each step timed: close, {@code Palisade.open}, one {@code get}
     * of {@code keys} keys (which found {@code found} rows) and one single-row upsert.
     */
    record Reopen(double closeMillis, double openMillis, int keys, int found, double getMillis, double upsertMillis) {
    }

    static SoakSummary of(List<SoakWindow> windows, int warmupSeconds, Reopen reopen) {
        if (windows.isEmpty()) {
            throw new IllegalArgumentException("a soak run has at least one window");
        }
        SoakWindow first = windows.stream().filter(w -> w.startSeconds() >= warmupSeconds).findFirst().orElse(windows.get(0));
        return new SoakSummary(first, windows.get(windows.size() - 1), reopen);
    }

    double throughputRatio() {
        return ratio(last.perSecond(), first.perSecond());
    }

    double p99Ratio() {
        return ratio(last.p99Millis(), first.p99Millis());
    }

    double heapRatio() {
        return ratio(last.heapAfterGc(), first.heapAfterGc());
    }

    /** Table bytes per byte of live data at the end of the run. */
    double bytesOverLive() {
        return last.bytesOverLive();
    }

    private static double ratio(double a, double b) {
        return b == 0 ? Double.NaN : a / b;
    }

    /** The summary lines, one figure each, naming the two windows compared. */
    String text() {
        String windows = String.format(Locale.ROOT, "(window ending %d s / first counted window, ending %d s)",
                last.endSeconds(), first.endSeconds());
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "throughput ratio %s: %.2f (%,.0f / %,.0f writes/s)%n", windows,
                throughputRatio(), last.perSecond(), first.perSecond()));
        s.append(String.format(Locale.ROOT, "p99 ratio %s: %.2f (%.2f / %.2f ms)%n", windows, p99Ratio(), last.p99Millis(),
                first.p99Millis()));
        s.append(String.format(Locale.ROOT, "table bytes / live data at the end: %.1f (%.1f MiB / %.1f MiB; at the first "
                        + "counted window %.1f)%n", bytesOverLive(), SoakWindow.mib(last.table().bytes()),
                SoakWindow.mib(last.liveBytes()), first.bytesOverLive()));
        s.append(String.format(Locale.ROOT, "Lance versions kept: %,d at the end, %,d at the first counted window; journal "
                        + "%.1f MiB allocated (%.1f MiB of file length), _palisade %.1f MiB allocated at the end%n",
                last.table().manifests(), first.table().manifests(), SoakWindow.mib(last.journalAllocated()),
                SoakWindow.mib(last.journalBytes()), SoakWindow.mib(last.palisadeAllocated())));
        s.append(String.format(Locale.ROOT, "heap after GC ratio %s: %.2f (%.0f / %.0f MiB)%n", windows, heapRatio(),
                SoakWindow.mib(last.heapAfterGc()), SoakWindow.mib(first.heapAfterGc())));
        s.append(String.format(Locale.ROOT, "reopen: close %.0f ms, open %.0f ms, get of %d keys %.1f ms (%d found), "
                        + "one upsert %.1f ms%n", reopen.closeMillis(), reopen.openMillis(), reopen.keys(), reopen.getMillis(),
                reopen.found(), reopen.upsertMillis()));
        return s.toString();
    }
}
