package io.palisade.benchmarks;

import io.palisade.journal.Durability;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.JournalReader;
import io.palisade.journal.codec.RecordCodec;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.ExpandableArrayBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Journal append and read costs, each side by side with raw Chronicle Queue doing the same
 * bytes in the same run. Every result is in events per second.
 *
 * <ul>
 *   <li>{@code append}: one 200-byte-payload event per call (276-byte record) in each durability mode;
 *       {@code rawAppend} / {@code rawAppendSync}: the same encoded record bytes written by a plain
 *       Chronicle appender, without and with {@code appender.sync()}.</li>
 *   <li>{@code appendBatch64PowerLoss}: 64 events and one sync per call (group commit); {@code appendGroupPowerLoss}:
 *       1, 4, 16, 64 or 256 events and one sync per call (syncs per second; the journal's limit per group size);
 *       {@code rawBatch64Sync}: 64 raw writes and one sync.</li>
 *   <li>{@code readVerify}: sequential read of 100,000 records with decode, CRC32C and SHA-256 chain check;
 *       {@code rawRead}: a plain tailer copying the same excerpts.</li>
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class JournalBench {
    static {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    /** Payload of exactly 200 bytes: a 4-byte length and 196 characters. */
    static JournalEvent event(int i) {
        return event(i, 200);
    }

    /** Payload of exactly {@code payload} bytes (at least 24): a 4-byte length and the characters. */
    static JournalEvent event(int i, int payload) {
        String name = String.format("%0" + (payload - 4) + "d", i);
        return new JournalEvent.GraphBranchDeleted(name);
    }

    static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static SingleChronicleQueue rawQueue(Path dir) {
        return SingleChronicleQueueBuilder.binary(dir).rollCycle(RollCycles.FAST_DAILY).blockSize(64L << 20)
                .syncMode(SyncMode.SYNC).build();
    }

    /** The encoded record bytes the journal writes for {@link #event(int)}. */
    static byte[] encodedRecord() {
        ExpandableArrayBuffer buf = new ExpandableArrayBuffer(512);
        int len = new RecordCodec().encode(event(7), 7, System.nanoTime(), 1, new byte[32], buf);
        return java.util.Arrays.copyOf(buf.byteArray(), len);
    }

    @State(Scope.Thread)
    public static class Writer {
        @Param({"PROCESS_CRASH", "POWER_LOSS"})
        public Durability durability;

        Path dir;
        Journal journal;
        JournalEvent event = event(1);

        @Setup(Level.Iteration)
        public void open() throws IOException {
            dir = Files.createTempDirectory("journal-bench");
            journal = Journal.open(dir.resolve("_palisade"), JournalOptions.defaults());
        }

        @TearDown(Level.Iteration)
        public void close() {
            journal.close();
            delete(dir);
        }
    }

    @State(Scope.Thread)
    public static class BatchWriter {
        Path dir;
        Journal journal;
        List<JournalEvent> batch = new ArrayList<>();

        @Setup(Level.Iteration)
        public void open() throws IOException {
            dir = Files.createTempDirectory("journal-bench");
            journal = Journal.open(dir.resolve("_palisade"), JournalOptions.defaults());
            for (int i = 0; i < 64; i++) {
                batch.add(event(i));
            }
        }

        @TearDown(Level.Iteration)
        public void close() {
            journal.close();
            delete(dir);
        }
    }

    @State(Scope.Thread)
    public static class Raw {
        Path dir;
        SingleChronicleQueue queue;
        ExcerptAppender appender;
        byte[] record = encodedRecord();

        @Setup(Level.Iteration)
        public void open() throws IOException {
            dir = Files.createTempDirectory("raw-bench");
            queue = rawQueue(dir);
            appender = queue.createAppender();
        }

        @TearDown(Level.Iteration)
        public void close() {
            appender.close();
            queue.close();
            delete(dir);
        }

        void write() {
            try (DocumentContext dc = appender.writingDocument()) {
                dc.wire().bytes().write(record, 0, record.length);
            }
        }
    }

    @Benchmark
    public long append(Writer w) {
        return w.journal.append(w.event, w.durability);
    }

    @Benchmark
    public void rawAppend(Raw r) {
        r.write();
    }

    @Benchmark
    public void rawAppendSync(Raw r) {
        r.write();
        r.appender.sync();
    }

    @Benchmark
    @OperationsPerInvocation(64)
    public long appendBatch64PowerLoss(BatchWriter w) {
        return w.journal.appendBatch(w.batch, Durability.POWER_LOSS);
    }

    /**
     * A group of {@code group} events and one {@code POWER_LOSS} sync per call: the journal's physical limit at each
     * group size (one call = one sync; records per second = the score × {@code group}).
     */
    @State(Scope.Thread)
    public static class GroupWriter {
        @Param({"1", "4", "16", "64", "256"})
        int group;
        /** Payload bytes of each event (a record is 76 bytes more): at a fixed total, fewer and larger records. */
        @Param({"200"})
        int payload;
        Path dir;
        Journal journal;
        List<JournalEvent> batch = new ArrayList<>();

        @Setup(Level.Iteration)
        public void open() throws IOException {
            dir = Files.createTempDirectory("journal-bench");
            journal = Journal.open(dir.resolve("_palisade"), JournalOptions.defaults());
            batch.clear();
            for (int i = 0; i < group; i++) {
                batch.add(event(i, payload));
            }
        }

        @TearDown(Level.Iteration)
        public void close() {
            journal.close();
            delete(dir);
        }
    }

    /** Syncs per second at a group size ({@link GroupWriter}); multiply by the group for records per second. */
    @Benchmark
    public long appendGroupPowerLoss(GroupWriter w) {
        return w.journal.appendBatch(w.batch, Durability.POWER_LOSS);
    }

    @Benchmark
    @OperationsPerInvocation(64)
    public void rawBatch64Sync(Raw r) {
        for (int i = 0; i < 64; i++) {
            r.write();
        }
        r.appender.sync();
    }

    /** Per-append CPU work the journal adds to a raw append, measured separately (the profile of the ratio). */
    @State(Scope.Thread)
    public static class Codec {
        RecordCodec codec = new RecordCodec();
        ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(512);
        JournalEvent event = event(3);
        byte[] previous = new byte[32];
        byte[] record = encodedRecord();
        byte[] out = new byte[32];
    }

    @Benchmark
    public int encodeAndCrc(Codec c) {
        return c.codec.encode(c.event, 9, 1_700_000_000_000_000_000L, 1, c.previous, c.buffer);
    }

    @Benchmark
    public byte[] sha256OfRecord(Codec c) {
        c.codec.hash(c.record, 0, c.record.length, c.out);
        return c.out;
    }

    static final int READ_RECORDS = 100_000;

    @State(Scope.Benchmark)
    public static class Populated {
        Path dir;
        Path palisade;
        Path raw;

        @Setup(Level.Trial)
        public void fill() throws IOException {
            dir = Files.createTempDirectory("journal-read-bench");
            palisade = dir.resolve("_palisade");
            try (Journal j = Journal.open(palisade, JournalOptions.defaults())) {
                List<JournalEvent> batch = new ArrayList<>();
                for (int i = 0; i < READ_RECORDS - 1; i++) { // + WriterStarted
                    batch.add(event(i));
                    if (batch.size() == 1000) {
                        j.appendBatch(batch, Durability.PROCESS_CRASH);
                        batch.clear();
                    }
                }
                j.appendBatch(batch, Durability.POWER_LOSS);
            }
            raw = dir.resolve("raw");
            byte[] record = encodedRecord();
            try (SingleChronicleQueue q = rawQueue(raw); ExcerptAppender a = q.createAppender()) {
                for (int i = 0; i < READ_RECORDS; i++) {
                    try (DocumentContext dc = a.writingDocument()) {
                        dc.wire().bytes().write(record, 0, record.length);
                    }
                }
            }
        }

        @TearDown(Level.Trial)
        public void clean() {
            delete(dir);
        }
    }

    @Benchmark
    @OperationsPerInvocation(READ_RECORDS)
    public long readVerify(Populated p) {
        long n = 0;
        try (JournalReader r = JournalReader.open(p.palisade); JournalCursor c = r.read(0)) {
            while (c.poll() != null) {
                n++;
            }
        }
        if (n != READ_RECORDS) {
            throw new IllegalStateException("read " + n);
        }
        return n;
    }

    @Benchmark
    @OperationsPerInvocation(READ_RECORDS)
    public long rawRead(Populated p) {
        long n = 0;
        byte[] buf = new byte[1024];
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(p.raw).rollCycle(RollCycles.FAST_DAILY)
                .blockSize(64L << 20).readOnly(true).build(); ExcerptTailer t = q.createTailer()) {
            while (true) {
                try (DocumentContext dc = t.readingDocument()) {
                    if (!dc.isPresent()) {
                        break;
                    }
                    net.openhft.chronicle.bytes.Bytes<?> b = dc.wire().bytes();
                    int len = (int) b.readRemaining();
                    b.read(buf, 0, len);
                    n += buf[len - 1];
                }
            }
        }
        return n;
    }
}
