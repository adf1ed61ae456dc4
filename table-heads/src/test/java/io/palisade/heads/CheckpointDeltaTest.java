package io.palisade.heads;

import io.palisade.fencing.KeyFilter;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.WriterStarted;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.TableHead;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import static io.palisade.heads.Log.head;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Delta checkpoints: cost bounded by what changed, idempotency across chains and restarts, damaged chains. */
class CheckpointDeltaTest {
    @TempDir
    Path dir;

    Log log;
    int writes;

    @BeforeEach
    void start() {
        log = new Log();
        log.add(new WriterStarted(1, "owner", 1, "host", "test", 2));
        log.write("create", null, "main", "person", null, head("main", 1));
        acks(300); // some history: a full checkpoint outweighs the small deltas written over it
    }

    /** {@code n} journal-ack upserts, each with its own idempotency key {@code key-<i>} (3 records each). */
    void acks(int n) {
        for (int i = 0; i < n; i++) {
            int w = writes++;
            TableHead h = log.state.head("main", "person").orElseThrow();
            String id = "w-" + w;
            log.add(new IntentRecorded(id, "key-" + w, LogicalOperation.UPSERT, "main", "person",
                    new ExpectedBase("main", h.version(), 1, 0), new byte[] {1},
                    KeyFilter.ofStrings(0, List.of("k" + w)), new HeadTransition("main", "person", h, h)));
            log.add(new JournalEvent.RowsRecorded(id, "main", "person", 1, new byte[] {9, 9}));
            log.add(new IntentCompleted(id, IntentOutcome.JOURNALED, "", null, List.of()));
        }
    }

    @Test
    void aCheckpointWritesWhatChangedNotTheHistory() {
        Checkpoints cps = new Checkpoints(dir, 3);
        List<Checkpoints.Written> written = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            acks(100);
            written.add(cps.write(log.state));
        }
        List<Checkpoints.Written> deltas = written.stream().filter(Checkpoints.Written::delta).toList();
        List<Checkpoints.Written> fulls = written.stream().filter(w -> !w.delta()).toList();
        // the history grows 200-fold; a delta's size does not grow with it
        long firstDeltas = deltas.subList(0, 10).stream().mapToLong(Checkpoints.Written::bytes).max().orElseThrow();
        long lastDeltas = deltas.subList(deltas.size() - 10, deltas.size()).stream()
                .mapToLong(Checkpoints.Written::bytes).max().orElseThrow();
        assertThat(lastDeltas).isLessThanOrEqualTo(firstDeltas * 6 / 5); // longer ids only
        assertThat(fulls.get(fulls.size() - 1).bytes()).isGreaterThan(50 * lastDeltas);
        // full checkpoints come when the deltas add up to the last full one: geometrically spaced, so the bytes
        // written in all stay linear in the history
        assertThat(fulls.size()).isLessThanOrEqualTo(10);
        long total = written.stream().mapToLong(Checkpoints.Written::bytes).sum();
        long finalFull = CheckpointCodec.encode(log.state).length;
        assertThat(total).isLessThanOrEqualTo(5 * finalFull);

        Checkpoints.LoadResult lr = Checkpoints.loadNewestValid(dir);
        assertThat(lr.skipped()).isEmpty();
        assertThat(lr.checkpoint().orElseThrow().state()).isEqualTo(log.state);
        // pruning kept the newest three and every checkpoint their chains need, nothing else
        assertThat(cps.list().size()).isLessThanOrEqualTo(3 + Checkpoints.MAX_CHAIN + 1);
    }

    @Test
    void everyIdempotencyKeyDedupesAfterAnyCheckpointOfAChainAndAfterRestarts() {
        for (int restart = 0; restart < 3; restart++) {
            Checkpoints cps = new Checkpoints(dir, 3); // a new process: its first checkpoint is full, then deltas
            for (int i = 0; i < 5; i++) {
                acks(40);
                Checkpoints.Written w = cps.write(log.state);
                assertThat(w.delta()).isEqualTo(i > 0);
                HeadsState loaded = Checkpoints.loadNewestValid(dir).checkpoint().orElseThrow().state();
                assertThat(loaded).isEqualTo(log.state);
                for (int k = 0; k < writes; k += 7) {
                    assertThat(loaded.receipt("key-" + k)).get().extracting(IntentReceipt::intentId).isEqualTo("w-" + k);
                }
                // a reused key is refused by the loaded state as by the live one
                int reused = writes - 1 - (i * 13 % writes);
                TableHead h = loaded.head("main", "person").orElseThrow();
                IntentRecorded again = new IntentRecorded("again-" + restart + "-" + i, "key-" + reused,
                        LogicalOperation.UPSERT, "main", "person", new ExpectedBase("main", h.version(), 1, 0),
                        new byte[] {1}, KeyFilter.ofStrings(0, List.of("x")), new HeadTransition("main", "person", h, h));
                assertThatThrownBy(() -> loaded.apply(new io.palisade.journal.JournalRecord(loaded.lastSequence() + 1,
                        1, 1, again))).isInstanceOf(IllegalTransitionException.class)
                        .hasMessageContaining("reuses idempotency key 'key-" + reused + "'");
            }
            log.state = Checkpoints.loadNewestValid(dir).checkpoint().orElseThrow().state(); // restart from disk
        }
        assertThat(HeadsState.replay(HeadsState.empty(), log.records)).isEqualTo(log.state);
    }

    @Test
    void deltasStayDeltasWhileCheckpointsForgetCompletedIntentsAndReceiptsExpire() {
        Checkpoints cps = new Checkpoints(dir, 3);
        long bound = -1;
        int deltas = 0;
        for (int i = 0; i < 12; i++) {
            acks(40);
            Checkpoints.Written w = cps.write(log.state);
            // a full one first, then deltas (until they add up to the full one's size, which is small now)
            if (i == 0) {
                assertThat(w.delta()).as("the first checkpoint of a process").isFalse();
            }
            deltas += w.delta() ? 1 : 0;
            log.add(new JournalEvent.CheckpointWritten(w.sequence(), w.file().getFileName().toString(), w.headsDigest()));
            if (i % 3 == 2) { // forget the receipts of all but the newest 50 writes (150 records)
                bound = log.state.lastSequence() - 150;
                log.add(new JournalEvent.ReceiptsExpired(bound, "test window"));
            }
            assertThat(log.state.completedCount()).as("completed intents kept after checkpoint %d", i).isZero();
            HeadsState loaded = Checkpoints.loadNewestValid(dir).checkpoint().orElseThrow().state();
            assertThat(HeadsState.replay(loaded, log.records.subList((int) loaded.lastSequence() + 1, log.records.size())))
                    .as("checkpoint %d plus the tail", i).isEqualTo(log.state);
        }
        assertThat(deltas).as("deltas written over a forgetting state").isGreaterThanOrEqualTo(6);
        assertThat(log.state.receiptsExpiredThrough()).isEqualTo(bound);
        assertThat(log.state.receiptCount()).as("receipts kept").isLessThanOrEqualTo(40 * 3 + 50);
        assertThat(log.state.receipt("key-0")).as("an expired key").isEmpty();
        assertThat(log.state.receipt("key-" + (writes - 1))).as("the newest key").isPresent();
        assertThat(HeadsState.replay(HeadsState.empty(), log.records)).isEqualTo(log.state);
        // an expired key may be used again; a kept one may not
        TableHead h = log.state.head("main", "person").orElseThrow();
        log.add(new IntentRecorded("reuse", "key-0", LogicalOperation.UPSERT, "main", "person",
                new ExpectedBase("main", h.version(), 1, 0), new byte[] {1}, KeyFilter.ofStrings(0, List.of("k0")),
                new HeadTransition("main", "person", h, h)));
        HeadsState st = log.state;
        IntentRecorded kept = new IntentRecorded("reuse-2", "key-" + (writes - 1), LogicalOperation.UPSERT, "main",
                "person", new ExpectedBase("main", h.version(), 1, 0), new byte[] {1},
                KeyFilter.ofStrings(0, List.of("x")), new HeadTransition("main", "person", h, h));
        assertThatThrownBy(() -> st.apply(new io.palisade.journal.JournalRecord(st.lastSequence() + 1, 1, 1, kept)))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("reuses idempotency key");
    }

    @Test
    void aDeltaWhoseParentIsDamagedIsSkippedAndAnOlderChainIsUsed() throws IOException {
        Checkpoints cps = new Checkpoints(dir, 5);
        List<Checkpoints.Written> w = new ArrayList<>();
        List<HeadsState> states = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            acks(5);
            w.add(cps.write(log.state));
            states.add(log.state);
        }
        assertThat(w).extracting(Checkpoints.Written::delta).containsExactly(false, true, true, true);
        assertThat(w.get(3).parentSequence()).isEqualTo(w.get(2).sequence());
        byte[] b = Files.readAllBytes(w.get(2).file());
        b[b.length / 2] ^= 0x5A;
        Files.write(w.get(2).file(), b);

        Checkpoints.LoadResult lr = cps.loadNewestValid();
        assertThat(lr.checkpoint().orElseThrow().sequence()).isEqualTo(w.get(1).sequence());
        assertThat(lr.checkpoint().orElseThrow().state()).isEqualTo(states.get(1));
        assertThat(lr.skipped()).extracting(Checkpoints.Skipped::sequence)
                .containsExactly(w.get(3).sequence(), w.get(2).sequence());
        assertThat(lr.skipped().get(0).reason()).contains("a delta over heads-" + w.get(2).sequence() + ".ckpt")
                .contains("CRC32C mismatch");
        assertThatThrownBy(() -> Checkpoints.read(w.get(3).file())).isInstanceOf(CheckpointDamagedException.class);

        Files.delete(w.get(0).file()); // the chain's full checkpoint is gone: nothing above it verifies
        Checkpoints.LoadResult none = cps.loadNewestValid();
        assertThat(none.checkpoint()).isEmpty();
        assertThat(none.skipped()).hasSize(3);
    }

    @Test
    void pruningKeepsTheCheckpointsAChainNeeds() {
        Checkpoints cps = new Checkpoints(dir, 2);
        List<Checkpoints.Written> w = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            acks(5);
            w.add(cps.write(log.state));
        }
        assertThat(w.get(0).delta()).isFalse();
        assertThat(w.subList(1, 6)).allMatch(Checkpoints.Written::delta);
        // every delta's chain reaches the full checkpoint: all six are needed by the newest two
        assertThat(cps.list()).hasSize(6);
        assertThat(cps.loadNewestValid().checkpoint().orElseThrow().state()).isEqualTo(log.state);
    }

    @Test
    void aStateOfAnotherLineageIsWrittenFull() {
        Checkpoints cps = new Checkpoints(dir, 3);
        acks(10);
        cps.write(log.state);
        acks(10);
        HeadsState replayed = HeadsState.replay(HeadsState.empty(), log.records); // equal, but not this lineage
        Checkpoints.Written w = cps.write(replayed);
        assertThat(w.delta()).isFalse();
        assertThat(cps.loadNewestValid().checkpoint().orElseThrow().state()).isEqualTo(log.state);
    }

    @Test
    void aReceiptKeepsItsRequestDigestThroughFullAndDeltaCheckpoints() {
        Checkpoints cps = new Checkpoints(dir, 3);
        acks(3);
        cps.write(log.state);
        TableHead h = log.state.head("main", "person").orElseThrow();
        log.add(new IntentRecorded("digested", "key-d", LogicalOperation.UPSERT, "main", "person",
                new ExpectedBase("main", h.version(), 1, 0), new byte[] {1}, KeyFilter.ofStrings(0, List.of("kd")),
                new HeadTransition("main", "person", h, h), "c0ffee"));
        log.add(new JournalEvent.RowsRecorded("digested", "main", "person", 1, new byte[] {9}));
        log.add(new IntentCompleted("digested", IntentOutcome.JOURNALED, "", null, List.of()));
        assertThat(log.state.receipt("key-d").orElseThrow().requestDigest()).isEqualTo("c0ffee");
        assertThat(cps.write(log.state).delta()).isTrue();
        HeadsState read = cps.loadNewestValid().checkpoint().orElseThrow().state();
        assertThat(read).isEqualTo(log.state);
        assertThat(read.receipt("key-d").orElseThrow().requestDigest()).isEqualTo("c0ffee");
        assertThat(read.receipt("key-0").orElseThrow().requestDigest()).isNull();
    }

    @Test
    void formatFourThreeTwoAndOneCheckpointsAreStillRead() throws IOException {
        acks(5);
        assertThat(log.state.receipts.size()).isPositive();
        // format 4's receipts have no request digest
        byte[] v4 = CheckpointCodec.encodeFormat4(log.state);
        Path f4 = dir.resolve("heads-" + log.state.lastSequence() + ".ckpt");
        Files.write(f4, v4);
        assertThat(Checkpoints.read(f4)).isEqualTo(log.state);
        Files.delete(f4);
        // format 3 is format 4 without the receipts' expiry bound (8 bytes after the kind byte and 28 bytes of scalars)
        byte[] v3 = withoutBodyBytes(v4, 3, 1 + 28, 8);
        Path f3 = dir.resolve("heads-" + log.state.lastSequence() + ".ckpt");
        Files.write(f3, v3);
        assertThat(Checkpoints.read(f3)).isEqualTo(log.state);
        Files.delete(f3);
        // format 2 is format 3's full body without its kind byte and without the section of writes after fold plans
        byte[] v2 = reformat(v3, 2, 1, 4);
        Path f2 = dir.resolve("heads-" + log.state.lastSequence() + ".ckpt");
        Files.write(f2, v2);
        assertThat(Checkpoints.read(f2)).isEqualTo(log.state);
        // format 1 also has no fold marks and plans (both counts); it reads back without the journal-ack marks
        HeadsState plain = HeadsState.replay(HeadsState.empty(), log.records.subList(0, 5));
        byte[] v1 = reformat(withoutBodyBytes(CheckpointCodec.encodeFormat4(plain), 3, 1 + 28, 8), 1, 1, 12);
        Path f1 = dir.resolve("heads-" + plain.lastSequence() + ".ckpt");
        Files.write(f1, v1);
        assertThat(Checkpoints.read(f1)).isEqualTo(plain);
        assertThat(Checkpoints.loadNewestValid(dir).checkpoint().orElseThrow().sequence()).isEqualTo(log.state.lastSequence());
    }

    @Test
    void theRecordedCatalogIsCheckpointedInFullAndDeltaAndFormatFiveReadsWithoutIt() throws IOException {
        Checkpoints cps = new Checkpoints(dir, 3);
        assertThat(cps.write(log.state).delta()).isFalse();
        long first = log.add(JournalEvent.CatalogRecorded.of("{\"tables\": []}", "graph created"));
        acks(2);
        long second = log.add(JournalEvent.CatalogRecorded.of("{\"tables\": [1]}", "columns added to table 'person'"));
        JournaledCatalog c = log.state.catalog().orElseThrow();
        assertThat(c.sequence()).isEqualTo(second);
        assertThat(c.reason()).isEqualTo("columns added to table 'person'");
        assertThat(c.previousDigest()).isEqualTo(JournalEvent.CatalogRecorded.sha256("{\"tables\": []}"));
        assertThat(first).isLessThan(second);
        // a delta carries the catalog whole: it is read back with the state
        assertThat(cps.write(log.state).delta()).isTrue();
        HeadsState read = cps.loadNewestValid().checkpoint().orElseThrow().state();
        assertThat(read).isEqualTo(log.state);
        assertThat(read.catalog()).contains(c);
        // a catalog recorded again unchanged keeps the previous one it had
        log.add(JournalEvent.CatalogRecorded.of("{\"tables\": [1]}", "recorded again"));
        assertThat(log.state.catalog().orElseThrow().previousDigest()).isEqualTo(c.previousDigest());
        // format 5 has no catalog: it reads back as the state without one
        Path f5 = dir.resolve("heads-" + log.state.lastSequence() + ".ckpt");
        Files.write(f5, CheckpointCodec.encodeFormat5(log.state));
        HeadsState old = Checkpoints.read(f5);
        assertThat(old.catalog()).isEmpty();
        assertThat(old.lastSequence()).isEqualTo(log.state.lastSequence());
        // the heads digest covers the catalog: a checkpoint whose catalog was altered disagrees with its journaled digest
        assertThat(old.digest()).isNotEqualTo(log.state.digest());
    }

    /** {@code image} rewritten as {@code version} without {@code length} body bytes at body offset {@code at}. */
    private static byte[] withoutBodyBytes(byte[] image, int version, int at, int length) {
        int header = CheckpointDescriptor.HEADER_LENGTH;
        int body = image.length - header - CheckpointDescriptor.TRAILER_LENGTH;
        int newBody = body - length;
        byte[] out = new byte[header + newBody + CheckpointDescriptor.TRAILER_LENGTH];
        System.arraycopy(image, 0, out, 0, header + at);
        System.arraycopy(image, header + at + length, out, header + at, body - at - length);
        UnsafeBuffer b = new UnsafeBuffer(out);
        b.putInt(CheckpointDescriptor.VERSION_OFFSET, version, ByteOrder.LITTLE_ENDIAN);
        b.putInt(CheckpointDescriptor.BODY_LENGTH_OFFSET, newBody, ByteOrder.LITTLE_ENDIAN);
        CRC32C c = new CRC32C();
        c.update(out, 0, header + newBody);
        b.putInt(header + newBody, (int) c.getValue(), ByteOrder.LITTLE_ENDIAN);
        return out;
    }

    /** A format-3 full image rewritten as {@code version}: {@code cutHead} body bytes dropped in front, {@code cutTail} at the end. */
    private static byte[] reformat(byte[] v3, int version, int cutHead, int cutTail) {
        int header = CheckpointDescriptor.HEADER_LENGTH;
        int body = v3.length - header - CheckpointDescriptor.TRAILER_LENGTH;
        int newBody = body - cutHead - cutTail;
        byte[] out = new byte[header + newBody + CheckpointDescriptor.TRAILER_LENGTH];
        System.arraycopy(v3, 0, out, 0, header);
        System.arraycopy(v3, header + cutHead, out, header, newBody);
        UnsafeBuffer b = new UnsafeBuffer(out);
        b.putInt(CheckpointDescriptor.VERSION_OFFSET, version, ByteOrder.LITTLE_ENDIAN);
        b.putInt(CheckpointDescriptor.BODY_LENGTH_OFFSET, newBody, ByteOrder.LITTLE_ENDIAN);
        CRC32C c = new CRC32C();
        c.update(out, 0, header + newBody);
        b.putInt(header + newBody, (int) c.getValue(), ByteOrder.LITTLE_ENDIAN);
        return out;
    }
}
