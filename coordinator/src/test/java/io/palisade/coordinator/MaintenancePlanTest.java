package io.palisade.coordinator;

import io.palisade.fencing.WriteConflictException;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.ActionCodec;
import io.palisade.fencing.action.ActionKind;
import io.palisade.fencing.action.AddIndex;
import io.palisade.fencing.action.RewriteFragments;
import io.palisade.fencing.action.RewriteIndex;
import io.palisade.fencing.conflict.CommittedTransaction;
import io.palisade.fencing.conflict.ConflictResolver;
import io.palisade.fencing.conflict.Transaction;
import io.palisade.fencing.conflict.Verdict;
import io.palisade.journal.Durability;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.LogicalOperation;
import io.palisade.substrate.CatalogActions;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.OperationKind;
import io.palisade.substrate.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Maintenance runs through the committer as planned, journaled and judged operations: the intent
 * names exactly what the substrate then commits, and the conflict matrix judges the plan against
 * every commit since the op's base.
 */
class MaintenancePlanTest {
    @TempDir
    Path dir;

    /** Six inserts of two rows each: six small fragments at the returned head version. */
    private static long sixFragments(Graph g, BufferAllocator allocator) {
        for (int i = 0; i < 6; i++) {
            try (VectorSchemaRoot r = Rows.people(allocator, "k" + i, i, "m" + i, 100 + i)) {
                g.insert("main", "person", r);
            }
        }
        return g.state().head("main", "person").orElseThrow().version();
    }

    private static IntentRecorded intent(List<JournalEvent> events, LogicalOperation op) {
        return events.stream().filter(e -> e instanceof IntentRecorded ir && ir.operation() == op)
                .map(e -> (IntentRecorded) e).reduce((a, b) -> b).orElseThrow();
    }

    private static IntentCompleted completion(List<JournalEvent> events, String intent) {
        return events.stream().filter(e -> e instanceof IntentCompleted c && c.intentId().equals(intent))
                .map(e -> (IntentCompleted) e).findFirst().orElseThrow();
    }

    private static Set<Long> rewritten(List<Action> actions) {
        Set<Long> out = new TreeSet<>();
        actions.stream().filter(a -> a instanceof RewriteFragments).forEach(a -> out.addAll(((RewriteFragments) a).oldFragmentIds()));
        return out;
    }

    private static List<String> ids(Graph g) {
        return g.scan("main", "person").stream().map(r -> String.valueOf(r.get("id"))).toList();
    }

    @Test
    void aCompactionJournalsTheFragmentsTheSubstrateRewroteAndANoOpCommitsNothing() {
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            long v = sixFragments(g, allocator);
            Set<Map<String, Object>> before = new HashSet<>(g.scan("main", "person"));
            long from = Journals.end(g);

            Receipt r = g.compact("main", "person");

            List<JournalEvent> events = Journals.events(g, from);
            IntentRecorded ir = intent(events, LogicalOperation.COMPACTION);
            assertThat(ir.intentId()).isEqualTo(r.intent());
            List<Action> planned = ActionCodec.decode(ir.actions());
            assertThat(planned).extracting(Action::kind).contains(ActionKind.REWRITE_FRAGMENTS);
            assertThat(r.version()).isGreaterThan(v);
            TableCommitted tc = events.stream().filter(e -> e instanceof TableCommitted).map(e -> (TableCommitted) e)
                    .findFirst().orElseThrow();
            assertThat(tc.achievedVersion()).isEqualTo(r.version());
            // the committed Rewrite removed exactly the fragments the intent named
            CommitDescription committed = g.engine().context().store().decompose("person", TableRef.main(r.version()));
            assertThat(committed.kind()).isEqualTo(OperationKind.REWRITE);
            assertThat(rewritten(planned)).isEqualTo(new TreeSet<>(committed.fragmentsRemoved())).hasSize(6);
            assertThat(completion(events, r.intent()).outcome()).isEqualTo(IntentOutcome.COMMITTED);
            assertThat(new HashSet<>(g.scan("main", "person"))).isEqualTo(before);

            long from2 = Journals.end(g);
            Receipt again = g.compact("main", "person");
            List<JournalEvent> events2 = Journals.events(g, from2);
            assertThat(again.version()).isEqualTo(r.version());
            assertThat(Journals.physicalVersion(g, "person")).isEqualTo(r.version());
            assertThat(ActionCodec.decode(intent(events2, LogicalOperation.COMPACTION).actions())).isEmpty();
            IntentCompleted done = completion(events2, again.intent());
            assertThat(done.outcome()).isEqualTo(IntentOutcome.COMMITTED);
            assertThat(done.reason()).startsWith("no-op: nothing to compact");
        }
    }

    @Test
    void anAppendOnlyTableIsCompactedByItsPlanToo() {
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            for (int i = 0; i < 3; i++) {
                try (VectorSchemaRoot r = Rows.logLines(allocator, "line" + i)) {
                    g.append("main", "log", r);
                }
            }
            long from = Journals.end(g);
            Receipt r = g.compact("main", "log");
            List<Action> planned = ActionCodec.decode(intent(Journals.events(g, from), LogicalOperation.COMPACTION).actions());
            CommitDescription committed = g.engine().context().store().decompose("log", TableRef.main(r.version()));
            assertThat(committed.kind()).isEqualTo(OperationKind.REWRITE);
            assertThat(rewritten(planned)).hasSize(3).isEqualTo(new TreeSet<>(committed.fragmentsRemoved()));
            assertThat(planned).extracting(Action::kind).doesNotContain(ActionKind.REBIND_INDEX_COVERAGE);
            assertThat(g.scan("main", "log")).hasSize(3);
        }
    }

    @Test
    void anIndexOptimiseJournalsAddIndexThenRewriteIndexThenNothing() {
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults().withIndexedMerge(false))) {
            try (VectorSchemaRoot r = Rows.people(allocator, "a", 1, "b", 2)) {
                g.insert("main", "person", r);
            }
            long from = Journals.end(g);
            Receipt built = g.optimizeIndex("main", "person");
            List<Action> first = ActionCodec.decode(intent(Journals.events(g, from), LogicalOperation.INDEX_MAINTENANCE).actions());
            assertThat(first).hasSize(1).first().isInstanceOfSatisfying(AddIndex.class, a -> {
                assertThat(a.name()).isEqualTo(KeyedTable.ID_INDEX_NAME);
                assertThat(a.coverage()).hasSize(1);
            });
            assertThat(g.engine().context().store().decompose("person", TableRef.main(built.version())).indicesAdded())
                    .containsExactly(KeyedTable.ID_INDEX_NAME);

            try (VectorSchemaRoot r = Rows.people(allocator, "c", 3)) {
                g.insert("main", "person", r);
            }
            long from2 = Journals.end(g);
            Receipt rewritten = g.optimizeIndex("main", "person");
            List<Action> second = ActionCodec.decode(intent(Journals.events(g, from2), LogicalOperation.INDEX_MAINTENANCE).actions());
            assertThat(second).hasSize(1).first().isInstanceOfSatisfying(RewriteIndex.class,
                    a -> assertThat(a.coverage()).hasSize(2));
            assertThat(rewritten.version()).isGreaterThan(built.version());

            long from3 = Journals.end(g);
            Receipt none = g.optimizeIndex("main", "person");
            List<JournalEvent> events3 = Journals.events(g, from3);
            assertThat(none.version()).isEqualTo(rewritten.version());
            assertThat(ActionCodec.decode(intent(events3, LogicalOperation.INDEX_MAINTENANCE).actions())).isEmpty();
            assertThat(completion(events3, none.intent()).reason()).startsWith("no-op");
            assertThat(ids(g)).containsExactlyInAnyOrder("a", "b", "c");
        }
    }

    @Test
    @SuppressWarnings("try")
    void aCompactionWhoseFragmentsADeleteTouchedSinceItsBaseIsJudgedAndPlannedAgain() {
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            long v = sixFragments(g, allocator);
            long from = Journals.end(g);
            CompletableFuture<Receipt> deleted;
            CompletableFuture<Receipt> compacted;
            try (Journals.CommitterGate gate = new Journals.CommitterGate(g)) {
                deleted = g.deleteAsync("main", "person", List.of("k3"), WriteOptions.NONE);
                compacted = g.compactAsync("main", "person"); // based on v: the delete is not in its view
            }
            long d = deleted.join().version();
            Receipt c = compacted.join();
            assertThat(d).isEqualTo(v + 1);
            assertThat(c.version()).isGreaterThan(d);
            assertThat(g.metrics().maintenanceReplans()).isEqualTo(1);

            // the verdict the matrix gives for the plan read at v against the delete: a retryable conflict
            List<Action> planned = ActionCodec.decode(intent(Journals.events(g, from), LogicalOperation.COMPACTION).actions());
            List<Action> delete = CatalogActions.of(g.engine().context().store().decompose("person", TableRef.main(d)), true, -1, Optional.empty());
            assertThat(delete).extracting(Action::kind).contains(ActionKind.UPDATE_DELETION_VECTOR);
            Verdict verdict = ConflictResolver.check(new Transaction("compact", v, planned),
                    List.of(new CommittedTransaction("delete", d, delete)));
            assertThat(verdict.outcome()).isEqualTo(Verdict.Outcome.RETRYABLE_CONFLICT);
            // planned again from the head, the plan is what Lance rewrote
            CommitDescription committed = g.engine().context().store().decompose("person", TableRef.main(c.version()));
            assertThat(rewritten(planned)).isEqualTo(new TreeSet<>(committed.fragmentsRemoved()));

            List<String> ids = ids(g);
            assertThat(ids).hasSize(11).doesNotHaveDuplicates().doesNotContain("k3").contains("m3", "k0", "m5");
        }
    }

    @Test
    @SuppressWarnings("try")
    void exhaustedReplansAreAJournaledRetryableWriteConflictAndChangeNothing() {
        Options noRetries = new Options(Durability.POWER_LOSS, true, 256, 0, 10_000);
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), noRetries)) {
            sixFragments(g, allocator);
            long from = Journals.end(g);
            CompletableFuture<Receipt> deleted;
            CompletableFuture<Receipt> compacted;
            CompletableFuture<List<JournalEvent>> answeredWith;
            try (Journals.CommitterGate gate = new Journals.CommitterGate(g)) {
                deleted = g.deleteAsync("main", "person", List.of("k1"), WriteOptions.NONE);
                compacted = g.compactAsync("main", "person");
                // the journal as the writer finds it the moment it is told of the rejection
                answeredWith = compacted.handle((r, e) -> Journals.events(g, from));
            }
            long d = deleted.join().version();
            assertThatThrownBy(compacted::join).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(WriteConflictException.class);
            assertThat(Journals.physicalVersion(g, "person")).isEqualTo(d);
            List<JournalEvent> events = answeredWith.join();
            IntentRecorded ir = intent(events, LogicalOperation.COMPACTION);
            assertThat(ActionCodec.decode(ir.actions())).extracting(Action::kind).contains(ActionKind.REWRITE_FRAGMENTS);
            assertThat(completion(events, ir.intentId()).outcome()).isEqualTo(IntentOutcome.WRITE_CONFLICT);

            Receipt retried = g.compact("main", "person");
            assertThat(retried.version()).isGreaterThan(d);
            assertThat(ids(g)).hasSize(11).doesNotHaveDuplicates().doesNotContain("k1");
        }
    }
}
