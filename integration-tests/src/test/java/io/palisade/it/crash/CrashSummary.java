package io.palisade.it.crash;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One crash suite's counts, taken from {@link CrashHarness}'s counters as deltas over the suite (the
 * counters are static, shared by every suite of the test JVM): trials verified, child JVMs, kills at
 * named points (each asserted to have exited with the halt status), random-moment kills, and per
 * invariant the checks performed and passed. Nothing here is a constant: every number is counted where
 * it happened.
 *
 * <p>{@link #report} prints the line to standard output, which the integration-tests build sends to the
 * console (not to surefire's per-class files), so that the counts appear in the CI log.
 */
final class CrashSummary {
    /** The counters at one moment. */
    record Snapshot(long trials, long children, long namedPointKills, long randomKills, long killsMidRun,
                    long childNanos, long verifyNanos, Map<String, Long> performed, Map<String, Long> failed,
                    Map<String, Long> acked, Map<String, Long> inFlight) {
    }

    private CrashSummary() {
    }

    static Snapshot take() {
        return new Snapshot(CrashHarness.TRIALS.get(), CrashHarness.CHILDREN.get(), CrashHarness.NAMED_POINT_KILLS.get(),
                CrashHarness.RANDOM_KILLS.get(), CrashHarness.KILLS_MID_RUN.get(), CrashHarness.CHILD_NANOS.get(),
                CrashHarness.VERIFY_NANOS.get(), values(CrashHarness.BY_INVARIANT), values(CrashHarness.FAILED_BY_INVARIANT),
                values(CrashHarness.ACKED_BY_KIND), values(CrashHarness.IN_FLIGHT_BY_KIND));
    }

    private static Map<String, Long> values(Map<String, AtomicLong> m) {
        Map<String, Long> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    /**
     * The suite's line: counts since {@code since}. Invariants are grouped by their number (1–5 of docs/recovery.md;
     * a check's name starts with its number) with {@code passed/performed}; the digest comparison and the
     * recovery report's JSON are listed by name.
     */
    static String line(String suite, Snapshot since, String extra) {
        Snapshot now = take();
        Map<String, long[]> byGroup = new TreeMap<>();
        Map<String, long[]> byCheck = new TreeMap<>();
        now.performed().forEach((check, n) -> {
            long performed = n - since.performed().getOrDefault(check, 0L);
            long failed = now.failed().getOrDefault(check, 0L) - since.failed().getOrDefault(check, 0L);
            if (performed == 0) {
                return;
            }
            String group = Character.isDigit(check.charAt(0)) ? "invariant-" + check.charAt(0) : check;
            long[] g = byGroup.computeIfAbsent(group, k -> new long[2]);
            g[0] += performed - failed;
            g[1] += performed;
            byCheck.put(check, new long[] {performed - failed, performed});
        });
        StringBuilder b = new StringBuilder("[crash-summary] ").append(suite).append(':');
        if (!extra.isEmpty()) {
            b.append(' ').append(extra);
        }
        b.append(" trials=").append(now.trials() - since.trials())
                .append(" child-jvms=").append(now.children() - since.children())
                .append(" named-point-kills=").append(now.namedPointKills() - since.namedPointKills())
                .append(" random-kills=").append(now.randomKills() - since.randomKills())
                .append(" (landed while the child ran: ").append(now.killsMidRun() - since.killsMidRun()).append(')')
                .append(" child-seconds=").append((now.childNanos() - since.childNanos()) / 1_000_000_000L)
                .append(" verify-seconds=").append((now.verifyNanos() - since.verifyNanos()) / 1_000_000_000L)
                .append(" | checks passed/performed:");
        byGroup.forEach((g, v) -> b.append(' ').append(g).append('=').append(v[0]).append('/').append(v[1]));
        b.append(" | by check:");
        byCheck.forEach((c, v) -> b.append(' ').append(c).append('=').append(v[0]).append('/').append(v[1]));
        b.append(" | ops acknowledged: ").append(delta(now.acked(), since.acked()))
                .append(" | ops in flight at the child's death: ").append(delta(now.inFlight(), since.inFlight()));
        return b.toString();
    }

    private static Map<String, Long> delta(Map<String, Long> now, Map<String, Long> since) {
        Map<String, Long> out = new TreeMap<>();
        now.forEach((k, v) -> {
            long d = v - since.getOrDefault(k, 0L);
            if (d > 0) {
                out.put(k, d);
            }
        });
        return out;
    }

    /** Prints the suite's line (integration-tests' surefire sends test output to the build's console). */
    static void report(String suite, Snapshot since, String extra) {
        System.out.println(line(suite, since, extra));
    }
}
