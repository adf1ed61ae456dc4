package io.palisade.benchmarks;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.journal.Durability;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalOptions;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What an open graph costs while nobody writes (docs/benchmarks.md "An idle graph"): the process's CPU time, and the
 * committer thread's CPU time and wake-ups (voluntary context switches, from {@code /proc/self/task/TID/status}), per
 * second of an idle window. The peer, in the same JVM and run: the same resources held without a coordinator, a
 * journal opened and written, and a Lance table written and held open.
 *
 * <p>Usage: {@code IdleCostProbe [--seconds 20] [--writes 200]}: each phase makes {@code --writes} single-row upserts
 * (to both of the graph's tables: one journal-ack, one table-ack), waits 3 s for its background work (a fold), then
 * measures {@code --seconds} of idleness.
 */
public final class IdleCostProbe {
    private static final String USAGE = "--seconds N, --writes N";
    private static final String COMMITTER = "palisade-commit"; // the thread's name as the kernel keeps it (15 chars)

    private IdleCostProbe() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = 20;
        int writes = 200;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value (" + USAGE + ")");
            }
            switch (args[i]) {
                case "--seconds" -> seconds = GraphWorkload.positive("--seconds", args[i + 1]);
                case "--writes" -> writes = GraphWorkload.positive("--writes", args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (" + USAGE + ")");
            }
        }
        Path root = Files.createTempDirectory("palisade-idle-cost");
        System.out.printf(Locale.ROOT, "idle window %d s after %d writes and 3 s of settling; java %s, %d cores, load "
                + "average %.1f%n", seconds, writes, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), GraphWorkload.loadAverage());
        System.out.println("| held open | process CPU (ms/s) | committer CPU (ms/s) | committer wake-ups/s |");
        System.out.println("|---|---:|---:|---:|");
        try (BufferAllocator allocator = new RootAllocator()) {
            try (Journal journal = Journal.open(root.resolve("peer").resolve("_palisade"), JournalOptions.defaults());
                 TableStore store = new LanceTableStore(root.resolve("raw").toString(), Map.of(), true)) {
                TableRef ref;
                try (KeyedTable t = store.createKeyed("ix", TableKind.NODE, JournalAckHarness.CoordinatorSchema.SCHEMA);
                     VectorSchemaRoot first = UpsertCostHarness.rows(allocator, 0, writes, 0)) {
                    ref = t.insert(first, MergePath.V2_FENCED).ref();
                }
                try (KeyedTable t = store.openKeyed("ix", ref)) {
                    t.createIdIndex();
                }
                for (int i = 0; i < writes; i++) {
                    journal.append(new JournalEvent.GraphBranchDeleted("b" + i), Durability.POWER_LOSS);
                }
                try (KeyedTable held = store.openKeyed("ix", store.latest("ix", TableRef.MAIN))) {
                    Thread.sleep(3_000);
                    row("journal and Lance table, no coordinator (peer)", measure(seconds), false);
                }
            }
            Options options = Options.defaults();
            try (Graph g = Palisade.create(root.resolve("graph"), Catalog.fromJson(JournalAckHarness.CATALOG), options)) {
                for (int i = 0; i < writes; i++) {
                    for (String table : new String[] {JournalAckHarness.J, JournalAckHarness.T}) {
                        try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, i, 1, i)) {
                            g.upsert("main", table, row);
                        }
                    }
                }
                Thread.sleep(3_000);
                row("graph (coordinator, one journal-ack and one table-ack table)", measure(seconds), true);
            }
        } finally {
            JournalBench.delete(root);
        }
    }

    /** CPU and wake-ups over one idle window. */
    private record Window(double seconds, long processCpuNanos, long committerCpuTicks, long committerSwitches) {
    }

    private static Window measure(int seconds) throws Exception {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long[] c0 = committer();
        long p0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1_000L);
        long p1 = os.getProcessCpuTime();
        double s = (System.nanoTime() - t0) / 1e9;
        long[] c1 = committer();
        return new Window(s, p1 - p0, c1[0] - c0[0], c1[1] - c0[1]);
    }

    private static void row(String what, Window w, boolean committer) {
        System.out.printf(Locale.ROOT, "| %s | %.2f | %s | %s |%n", what, w.processCpuNanos() / 1e6 / w.seconds(),
                committer ? String.format(Locale.ROOT, "%.2f", w.committerCpuTicks() * 10.0 / w.seconds()) : "–",
                committer ? String.format(Locale.ROOT, "%,.0f", w.committerSwitches() / w.seconds()) : "–");
    }

    /** The committer thread's CPU ticks (user + system, 10 ms each) and voluntary context switches; zeros without it. */
    private static long[] committer() throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                String comm;
                try {
                    comm = Files.readString(task.resolve("comm")).strip();
                } catch (IOException gone) {
                    continue; // the thread ended
                }
                if (!comm.equals(COMMITTER)) {
                    continue;
                }
                String[] stat = Files.readString(task.resolve("stat")).split("\\) ", 2)[1].split(" ");
                long ticks = Long.parseLong(stat[11]) + Long.parseLong(stat[12]); // utime, stime
                long switches = 0;
                for (String l : Files.readAllLines(task.resolve("status"))) {
                    if (l.startsWith("voluntary_ctxt_switches:")) {
                        switches = Long.parseLong(l.substring(l.indexOf(':') + 1).strip());
                    }
                }
                return new long[] {ticks, switches};
            }
        }
        return new long[] {0, 0};
    }
}
