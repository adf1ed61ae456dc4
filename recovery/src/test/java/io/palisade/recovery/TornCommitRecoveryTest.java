package io.palisade.recovery;

import io.palisade.fencing.TableCorruptedException;
import io.palisade.fencing.action.ActionCodec;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.Durability;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalEvent.TableVersionSetAside;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.RecoveryClassification.Kind;
import io.palisade.journal.TableHead;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A power cut inside a Lance commit (file names survive, unsynced bytes do not) over a real Lance table:
 * torn versions above the head are set aside and journaled, the intent aborted and the version number
 * reused; a damaged published head is corruption naming the file, the version and the intents.
 */
class TornCommitRecoveryTest {
    static {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    private static final Schema PERSON = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null),
            new Field("age", FieldType.nullable(new ArrowType.Int(64, true)), null)));

    @TempDir
    Path dir;
    Path palisade;
    BufferAllocator allocator;
    LanceTableStore store;
    Journal journal;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        palisade = dir.resolve("_palisade");
        store = new LanceTableStore(dir.resolve("tables").toString());
        store.createKeyed("person", TableKind.NODE, PERSON).close();
        journal = Journal.open(palisade, JournalOptions.defaults());
        String create = "i-create";
        TableHead v1 = head(1);
        journal.appendBatch(List.of(
                new IntentRecorded(create, null, LogicalOperation.CREATE_TABLE, HeadsState.MAIN, "person",
                        new ExpectedBase(TableRef.MAIN, 0, 0, 0), ActionCodec.encode(List.of()), null,
                        new HeadTransition(HeadsState.MAIN, "person", null, v1)),
                new TableCommitted(List.of(create), HeadsState.MAIN, "person", TableRef.MAIN, 1),
                new HeadPublished(List.of(new HeadTransition(HeadsState.MAIN, "person", null, v1))),
                new IntentCompleted(create, IntentOutcome.COMMITTED, "", null, List.of())), Durability.POWER_LOSS);
    }

    @AfterEach
    void tearDown() {
        PhaseCrashPoints.listener(null);
        journal.close();
        store.close();
        allocator.close();
    }

    private static TableHead head(long v) {
        return new TableHead(TableRef.MAIN, v, 0, 0);
    }

    /** Phase A of an upsert from {@code base} (journaled), then its Lance commit (Phase B, not journaled). */
    private String upsertInFlight(String id, long base, String key) {
        journal.append(new IntentRecorded(id, null, LogicalOperation.UPSERT, HeadsState.MAIN, "person",
                new ExpectedBase(TableRef.MAIN, base, 0, journal.endSequence() - 1), ActionCodec.encode(List.of()), null,
                new HeadTransition(HeadsState.MAIN, "person", head(base), head(base + 1))), Durability.POWER_LOSS);
        assertThat(commit(base, key)).isEqualTo(TableRef.main(base + 1));
        return id;
    }

    private TableRef commit(long base, String key) {
        try (KeyedTable t = store.openKeyed("person", TableRef.main(base));
             VectorSchemaRoot root = VectorSchemaRoot.create(PERSON, allocator)) {
            ArrowRows.fill(root, List.of(new HashMap<>(Map.of("id", key, "age", 30L))));
            return t.upsert(root, MergePath.V2_FENCED).ref();
        }
    }

    private Path manifest(long version) {
        return dir.resolve("tables/person.lance/_versions").resolve(Long.toUnsignedString(~version) + ".manifest");
    }

    private HeadsState replayed() {
        return HeadsReplayer.of(palisade).replay().state();
    }

    private List<JournalRecord> records(long from) {
        List<JournalRecord> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(palisade); JournalCursor c = r.read(from)) {
            for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                out.add(rec);
            }
        }
        return out;
    }

    private List<TableVersionSetAside> setAsides(long from) {
        return records(from).stream().map(JournalRecord::event).filter(e -> e instanceof TableVersionSetAside)
                .map(e -> (TableVersionSetAside) e).toList();
    }

    @Test
    void aZeroLengthManifestAboveTheHeadIsSetAsideJournaledAndTheVersionNumberReused() throws IOException {
        String intent = upsertInFlight("i-torn", 1, "alice");
        Files.write(manifest(2), new byte[0]); // the power cut: the name survived, the bytes did not
        long before = journal.endSequence();

        RecoveryReport report = Recovery.run(journal, replayed(), store, false);

        RecoveryClassification c = report.classifications().get(0);
        assertThat(report.classifications()).hasSize(1);
        assertThat(c.subjectId()).isEqualTo(intent);
        assertThat(c.kind()).isEqualTo(Kind.TORN_VERSION_SET_ASIDE);
        assertThat(c.detail()).contains("main@2", "manifest zero-length");
        List<TableVersionSetAside> journaled = setAsides(before);
        assertThat(journaled).singleElement().satisfies(e -> {
            assertThat(e.table()).isEqualTo("person");
            assertThat(e.version()).isEqualTo(2);
            assertThat(e.intentIds()).containsExactly(intent);
            assertThat(e.files()).contains(manifest(2).toString());
            assertThat(e.damaged()).containsExactly(manifest(2) + ": zero-length");
            assertThat(Path.of(e.destination())).startsWith(palisade.resolve("torn"));
            assertThat(Path.of(e.destination()).resolve(manifest(2).getFileName())).exists();
        });
        // journaled before the completion, which says ABORTED
        List<JournalEvent> events = records(before).stream().map(JournalRecord::event).toList();
        int setAside = events.indexOf(journaled.get(0));
        assertThat(events.subList(setAside, events.size())).anySatisfy(e -> assertThat(e)
                .isEqualTo(new IntentCompleted(intent, IntentOutcome.ABORTED,
                        "its commit was torn by a power cut and set aside by recovery", null, List.of())));
        assertThat(report.state().completedIntent(intent)).hasValueSatisfying(ci ->
                assertThat(ci.outcome()).isEqualTo(IntentOutcome.ABORTED));
        assertThat(manifest(2)).doesNotExist();
        assertThat(store.latest("person", TableRef.MAIN)).isEqualTo(TableRef.main(1));

        // the next write succeeds, at the same version number
        assertThat(commit(1, "bob")).isEqualTo(TableRef.main(2));
        assertThat(store.scanUnchecked("person", TableRef.main(2))).extracting(r -> r.get("id")).containsExactly("bob");

        // ... and once it is journaled as published, a second recovery journals nothing
        journal.append(new HeadPublished(List.of(new HeadTransition(HeadsState.MAIN, "person", head(1), head(2)))),
                Durability.POWER_LOSS);
        RecoveryReport again = Recovery.run(journal, replayed(), store, false);
        assertThat(again.changedAnything()).isFalse();
    }

    @Test
    void aGarbageManifestAboveTheHeadIsSetAsideToo() throws IOException {
        String intent = upsertInFlight("i-garbage", 1, "alice");
        Files.writeString(manifest(2), "a manifest overwritten by garbage, not empty at all");

        RecoveryReport report = Recovery.run(journal, replayed(), store, false);

        assertThat(report.classifications()).singleElement().satisfies(c -> {
            assertThat(c.subjectId()).isEqualTo(intent);
            assertThat(c.kind()).isEqualTo(Kind.TORN_VERSION_SET_ASIDE);
            assertThat(c.detail()).contains("no Lance footer");
        });
        assertThat(Recovery.run(journal, replayed(), store, false).changedAnything()).isFalse();
        assertThat(commit(1, "bob")).isEqualTo(TableRef.main(2));
    }

    @Test
    void aTornVersionAboveTheHeadWithNoOpenIntentIsSetAsideAsTorn() throws IOException {
        // what a recovery before this rule left behind: the intent ABORTED, the torn manifest still there
        assertThat(commit(1, "alice")).isEqualTo(TableRef.main(2));
        Files.write(manifest(2), new byte[0]);
        long before = journal.endSequence();

        RecoveryReport report = Recovery.run(journal, replayed(), store, false);

        assertThat(report.classifications()).singleElement().satisfies(c -> {
            assertThat(c.subjectId()).isEqualTo("main@2");
            assertThat(c.kind()).isEqualTo(Kind.TORN_VERSION_SET_ASIDE);
        });
        assertThat(setAsides(before)).singleElement().satisfies(e -> assertThat(e.intentIds()).isEmpty());
        assertThat(Recovery.run(journal, replayed(), store, false).changedAnything()).isFalse();
        assertThat(commit(1, "bob")).isEqualTo(TableRef.main(2));
    }

    @Test
    void killedBetweenJournalingTheSetAsideAndMovingTheNextRunFinishesWithoutJournalingItAgain() throws IOException {
        String intent = upsertInFlight("i-killed", 1, "alice");
        Files.write(manifest(2), new byte[0]);
        long before = journal.endSequence();
        PhaseCrashPoints.listener(p -> {
            if (p.equals(PhaseCrashPoints.RECOVERY_AFTER_SET_ASIDE_JOURNALED)) {
                throw new KilledHere();
            }
        });
        assertThatThrownBy(() -> Recovery.run(journal, replayed(), store, false)).isInstanceOf(KilledHere.class);
        PhaseCrashPoints.listener(null);
        assertThat(setAsides(before)).hasSize(1);
        assertThat(manifest(2)).exists(); // journaled, not moved

        RecoveryReport report = Recovery.run(journal, replayed(), store, false);

        assertThat(setAsides(before)).hasSize(1); // not journaled twice
        assertThat(manifest(2)).doesNotExist();
        assertThat(report.closedRecovery()).isNotNull();
        assertThat(report.state().completedIntent(intent)).hasValueSatisfying(ci ->
                assertThat(ci.outcome()).isEqualTo(IntentOutcome.ABORTED));
        assertThat(Path.of(setAsides(before).get(0).destination()).resolve(manifest(2).getFileName())).exists();
        assertThat(Recovery.run(journal, replayed(), store, false).changedAnything()).isFalse();
        assertThat(commit(1, "bob")).isEqualTo(TableRef.main(2));
    }

    @Test
    void aDamagedPublishedHeadIsCorruptionNamingTheFileTheVersionAndTheIntents() throws IOException {
        String intent = upsertInFlight("i-published", 1, "alice");
        journal.appendBatch(List.of(
                new TableCommitted(List.of(intent), HeadsState.MAIN, "person", TableRef.MAIN, 2),
                new HeadPublished(List.of(new HeadTransition(HeadsState.MAIN, "person", head(1), head(2)))),
                new IntentCompleted(intent, IntentOutcome.COMMITTED, "", null, List.of())), Durability.POWER_LOSS);
        Files.write(manifest(2), new byte[0]);
        long end = journal.endSequence();

        assertThatThrownBy(() -> Recovery.run(journal, replayed(), store, false))
                .isInstanceOfSatisfying(TableCorruptedException.class, e -> {
                    assertThat(e.table()).isEqualTo("person");
                    assertThat(e.graphBranch()).isEqualTo(HeadsState.MAIN);
                    assertThat(e.tableBranch()).isEqualTo(TableRef.MAIN);
                    assertThat(e.version()).isEqualTo(2);
                    assertThat(e.intentIds()).containsExactly(intent);
                    assertThat(e.files()).containsExactly(manifest(2) + ": zero-length");
                    assertThat(e.getMessage()).contains("person", "version 2", manifest(2).toString(), intent);
                });
        assertThat(journal.endSequence()).isEqualTo(end); // nothing journaled
        assertThat(manifest(2)).exists().isEmptyFile(); // nothing moved
    }

    private static final class KilledHere extends Error {
        private static final long serialVersionUID = 1L;
    }
}
