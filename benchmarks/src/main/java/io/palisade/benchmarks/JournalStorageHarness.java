package io.palisade.benchmarks;

import io.palisade.journal.Durability;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.KafkaJournalConfig;
import io.palisade.journal.KafkaTestCluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Chronicle vs Kafka journal append, side by side in one run (docs/benchmarks.md "Journal storages").
 * Each Kafka journal runs on its own in-process KRaft cluster from Kafka's test kit ({@link KafkaTestCluster}, the
 * journal test-jar's): one per entry of {@code --brokers} (default {@code 1,3}: one combined node with replication 1,
 * and 3 brokers + 1 controller with replication 3 and {@code min.insync.replicas} 2, the deployment of
 * docs/scale-out.md). All clusters and journals are up for the whole run, on the same machine.
 *
 * <ul>
 *   <li>single: {@code --records} appends of one 200-byte-payload event, {@code POWER_LOSS}, one at a time
 *       (Chronicle: one msync each; Kafka: one transaction each), interleaved across the journals so all share the
 *       machine's noise; p50/p99/max latency.</li>
 *   <li>group: {@code --writers} threads each submit one event and wait for its acknowledgement, for
 *       {@code --seconds}; one committer thread drains what is queued (up to 256) into one {@code appendBatch}
 *       (the coordinator's group commit); acknowledged events per second and the mean group size, summed over
 *       {@code --rounds} rounds that alternate between the journals.</li>
 * </ul>
 * Usage: {@code JournalStorageHarness [--records 300] [--writers 16] [--seconds 10] [--rounds 2] [--brokers 1,3]}.
 */
public final class JournalStorageHarness {
    private static final String USAGE = "--records N, --writers N, --seconds N, --rounds N, --brokers N[,N...]";

    private JournalStorageHarness() {
    }

    public static void main(String[] args) throws Exception {
        int records = 300;
        int writers = 16;
        int seconds = 10;
        int rounds = 2;
        List<Integer> brokers = List.of(1, 3);
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value (" + USAGE + ")");
            }
            switch (args[i]) {
                case "--records" -> records = GraphWorkload.positive("--records", args[i + 1]);
                case "--writers" -> writers = GraphWorkload.positive("--writers", args[i + 1]);
                case "--seconds" -> seconds = GraphWorkload.positive("--seconds", args[i + 1]);
                case "--rounds" -> rounds = GraphWorkload.positive("--rounds", args[i + 1]);
                case "--brokers" -> brokers = GraphWorkload.positives("--brokers", args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (" + USAGE + ")");
            }
        }
        System.out.printf(Locale.ROOT, "records=%d writers=%d seconds=%d rounds=%d brokers=%s java=%s cores=%d load average %.1f%n",
                records, writers, seconds, rounds, brokers, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), GraphWorkload.loadAverage());
        Path root = Files.createTempDirectory("journal-storage-bench");
        List<KafkaTestCluster> clusters = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<Journal> journals = new ArrayList<>();
        try {
            names.add("Chronicle (msync)");
            journals.add(Journal.open(root.resolve("chronicle/_palisade"), JournalOptions.defaults()));
            for (int n : brokers) {
                long t0 = System.nanoTime();
                KafkaTestCluster c = KafkaTestCluster.start(n);
                clusters.add(c);
                KafkaJournalConfig config = c.newJournal("bench-" + n);
                Path dir = root.resolve("kafka-" + n + "/_palisade");
                config.write(dir);
                journals.add(Journal.open(dir, JournalOptions.defaults()));
                names.add(n == 1 ? "Kafka, 1 combined node, replication 1 (transaction)"
                        : String.format(Locale.ROOT, "Kafka, %d brokers + 1 controller, replication %d, min.insync %d "
                        + "(transaction)", n, config.replicationFactor(), config.minInsyncReplicas()));
                System.out.printf(Locale.ROOT, "cluster of %d broker(s) up and topic created in %.1f s%n", n,
                        (System.nanoTime() - t0) / 1e9);
            }
            int k = journals.size();
            long[][] lat = new long[k][records];
            int warm = Math.max(20, records / 10);
            for (int i = 0; i < warm + records; i++) {
                for (int j = 0; j < k; j++) {
                    long t = single(journals.get(j), i);
                    if (i >= warm) {
                        lat[j][i - warm] = t;
                    }
                }
            }
            double loadAfterSingle = GraphWorkload.loadAverage();
            long[] acked = new long[k];
            long[] groups = new long[k];
            double[] secs = new double[k];
            for (int r = 0; r < rounds; r++) {
                for (int j = 0; j < k; j++) {
                    long[] g = group(journals.get(j), writers, seconds);
                    acked[j] += g[0];
                    groups[j] += g[1];
                    secs[j] += g[2] / 1e9;
                }
            }
            System.out.printf(Locale.ROOT, "load average after single appends %.1f, after group commit %.1f%n",
                    loadAfterSingle, GraphWorkload.loadAverage());
            System.out.printf(Locale.ROOT, "| journal | single append p50 ms | p99 ms | max ms | group commit, %d writers, events/s "
                    + "| mean group |%n", writers);
            System.out.println("|---|---:|---:|---:|---:|---:|");
            for (int j = 0; j < k; j++) {
                Arrays.sort(lat[j]);
                System.out.printf(Locale.ROOT, "| %s | %.2f | %.1f | %.1f | %,.0f | %.1f |%n", names.get(j), ms(lat[j], 0.50),
                        ms(lat[j], 0.99), ms(lat[j], 1.0), acked[j] / secs[j], groups[j] == 0 ? 0 : (double) acked[j] / groups[j]);
            }
        } finally {
            for (Journal j : journals) {
                j.close();
            }
            for (KafkaTestCluster c : clusters) {
                c.close();
            }
            JournalBench.delete(root);
        }
    }

    private static double ms(long[] sorted, double q) {
        int i = Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1);
        return sorted[Math.max(0, i)] / 1e6;
    }

    /** One POWER_LOSS append of event {@code i}, in nanoseconds. */
    private static long single(Journal j, int i) {
        JournalEvent e = JournalBench.event(i);
        long t0 = System.nanoTime();
        j.append(e, Durability.POWER_LOSS);
        return System.nanoTime() - t0;
    }

    private record Submitted(JournalEvent event, CompletableFuture<Long> ack) {
    }

    /** {events acknowledged, groups committed, elapsed nanoseconds}. */
    private static long[] group(Journal j, int writers, int seconds) throws InterruptedException {
        ArrayBlockingQueue<Submitted> queue = new ArrayBlockingQueue<>(4 * writers);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong acked = new AtomicLong();
        AtomicLong groups = new AtomicLong();
        Thread committer = new Thread(() -> {
            List<Submitted> batch = new ArrayList<>();
            List<JournalEvent> events = new ArrayList<>();
            while (!stop.get() || !queue.isEmpty()) {
                try {
                    Submitted first = queue.poll(10, java.util.concurrent.TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    queue.drainTo(batch, 255);
                } catch (InterruptedException e) {
                    return;
                }
                batch.forEach(s -> events.add(s.event()));
                long seq = j.appendBatch(events, Durability.POWER_LOSS);
                groups.incrementAndGet();
                for (int i = 0; i < batch.size(); i++) {
                    batch.get(i).ack().complete(seq + i);
                }
                batch.clear();
                events.clear();
            }
        }, "committer");
        committer.start();
        CountDownLatch done = new CountDownLatch(writers);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long t0 = System.nanoTime();
        for (int w = 0; w < writers; w++) {
            int id = w;
            Thread t = new Thread(() -> {
                int i = 0;
                while (System.nanoTime() < end) {
                    CompletableFuture<Long> ack = new CompletableFuture<>();
                    try {
                        queue.put(new Submitted(JournalBench.event(id * 1_000_000 + i++), ack));
                    } catch (InterruptedException e) {
                        break;
                    }
                    ack.join();
                    acked.incrementAndGet();
                }
                done.countDown();
            });
            t.start();
        }
        done.await();
        long elapsed = System.nanoTime() - t0;
        stop.set(true);
        committer.join();
        return new long[] {acked.get(), groups.get(), elapsed};
    }
}
