package io.palisade.benchmarks;

import io.palisade.journal.Durability;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.KafkaJournalConfig;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Chronicle vs Kafka journal append, side by side in one run (issue 19; docs/benchmarks.md "Journal storages").
 * The Kafka journal runs on an in-process KRaft node (Kafka's test kit), replication 1, on the same machine.
 *
 * <ul>
 *   <li>single: {@code --records} appends of one 200-byte-payload event, {@code POWER_LOSS}, one at a time
 *       (Chronicle: one msync each; Kafka: one transaction each); p50/p99/max latency.</li>
 *   <li>group: {@code --writers} threads each submit one event and wait for its acknowledgement, for
 *       {@code --seconds}; one committer thread drains what is queued (up to 256) into one {@code appendBatch}
 *       (the coordinator's group commit); acknowledged events per second and the mean group size.</li>
 * </ul>
 * Usage: {@code JournalStorageHarness [--records 500] [--writers 16] [--seconds 10] [--brokers 1]}.
 */
public final class JournalStorageHarness {
    private JournalStorageHarness() {
    }

    public static void main(String[] args) throws Exception {
        int records = 500;
        int writers = 16;
        int seconds = 10;
        int brokers = 1;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--records" -> records = Integer.parseInt(args[i + 1]);
                case "--writers" -> writers = Integer.parseInt(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--brokers" -> brokers = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--records N, --writers N, --seconds N, --brokers N)");
            }
        }
        int rf = Math.min(3, brokers);
        try (KafkaClusterTestKit kit = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(brokers == 1).setNumBrokerNodes(brokers).setNumControllerNodes(1).build())
                .setConfigProp("offsets.topic.replication.factor", Integer.toString(rf))
                .setConfigProp("transaction.state.log.replication.factor", Integer.toString(rf))
                .setConfigProp("transaction.state.log.min.isr", Integer.toString(rf >= 3 ? 2 : 1))
                .setConfigProp("transaction.state.log.num.partitions", "1")
                .setConfigProp("offsets.topic.num.partitions", "1")
                .build()) {
            kit.format();
            kit.startup();
            kit.waitForReadyBrokers();
            Path root = Files.createTempDirectory("journal-storage-bench");
            KafkaJournalConfig kafka = KafkaJournalConfig.forNewGraph(kit.bootstrapServers(), "bench")
                    .withReplication(rf, rf >= 3 ? 2 : 1);
            Path chronicleDir = root.resolve("chronicle/_palisade");
            Path kafkaDir = root.resolve("kafka/_palisade");
            kafka.write(kafkaDir);
            System.out.printf("storage    single p50 ms  p99 ms  max ms   group(%d writers) events/s  mean group%n", writers);
            for (String storage : List.of("chronicle", "kafka")) {
                Path dir = storage.equals("chronicle") ? chronicleDir : kafkaDir;
                try (Journal j = Journal.open(dir, JournalOptions.defaults())) {
                    single(j, Math.max(20, records / 10)); // warm-up
                    long[] lat = single(j, records);
                    double[] group = group(j, writers, seconds);
                    System.out.printf("%-10s %13.2f %7.2f %7.2f   %26.0f %11.1f%n", storage, ms(lat, 0.50), ms(lat, 0.99),
                            ms(lat, 1.0), group[0], group[1]);
                }
            }
            JournalBench.delete(root);
        }
    }

    private static double ms(long[] sorted, double q) {
        int i = Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1);
        return sorted[Math.max(0, i)] / 1e6;
    }

    private static long[] single(Journal j, int n) {
        long[] lat = new long[n];
        for (int i = 0; i < n; i++) {
            JournalEvent e = JournalBench.event(i);
            long t0 = System.nanoTime();
            j.append(e, Durability.POWER_LOSS);
            lat[i] = System.nanoTime() - t0;
        }
        Arrays.sort(lat);
        return lat;
    }

    private record Submitted(JournalEvent event, CompletableFuture<Long> ack) {
    }

    /** {events acknowledged per second, mean group size}. */
    private static double[] group(Journal j, int writers, int seconds) throws InterruptedException {
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
        double elapsed = (System.nanoTime() - t0) / 1e9;
        stop.set(true);
        committer.join();
        return new double[] {acked.get() / elapsed, groups.get() == 0 ? 0 : (double) acked.get() / groups.get()};
    }
}
