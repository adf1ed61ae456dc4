package io.palisade.coordinator;

import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.ValidationException;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/** Bad input and strict inserts of present keys: refused, nothing committed, the table unchanged. */
class ValidationTest {
    private static final Field ID = Field.notNullable("id", ArrowType.Utf8.INSTANCE);
    private static final Field AGE = Field.nullable("age", new ArrowType.Int(64, true));

    @TempDir
    Path dir;
    BufferAllocator allocator;
    Graph g;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
        try (VectorSchemaRoot seed = Rows.people(allocator, "alice", 30, "bob", 40)) {
            g.insert("main", "person", seed);
        }
    }

    @AfterEach
    void tearDown() {
        g.close();
        allocator.close();
    }

    private VectorSchemaRoot batch(Schema schema, List<Map<String, Object>> rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowRows.fill(root, rows);
        return root;
    }

    private static Map<String, Object> row(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private Map<String, Long> people() {
        Map<String, Long> out = new HashMap<>();
        for (Map<String, Object> r : g.scan("main", "person")) {
            out.put((String) r.get("id"), (Long) r.get("age"));
        }
        return out;
    }

    /** What must not change when a write is refused. */
    private record Before(long journalEnd, long head, long physical, Map<String, Long> rows, long commits) {
    }

    private Before before() {
        return new Before(Journals.end(g), g.state().head("main", "person").orElseThrow().version(),
                Journals.physicalVersion(g, "person"), people(), g.metrics().snapshot().commits());
    }

    /** Nothing recorded as an intent nor committed since {@code b}; heads, Lance and rows unchanged. */
    private void assertNothingWritten(Before b) {
        List<JournalEvent> events = Journals.events(g, b.journalEnd());
        assertThat(Journals.intentsRecorded(events)).as("no intent journaled").isZero();
        assertThat(Journals.committedCompletions(events)).as("no completion COMMITTED").isZero();
        assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(b.head());
        assertThat(Journals.physicalVersion(g, "person")).as("no Lance version").isEqualTo(b.physical());
        assertThat(people()).isEqualTo(b.rows());
        assertThat(g.metrics().snapshot().commits()).isEqualTo(b.commits());
    }

    /** Runs {@code write} as insert and as upsert; both must be refused with a ValidationException mentioning {@code message}. */
    private void assertRefused(VectorSchemaRoot rows, String table, String branch, String message) {
        for (boolean strict : new boolean[]{true, false}) {
            Before b = before();
            Throwable t = catchThrowable(() -> {
                if (strict) {
                    g.insert(branch, table, rows);
                } else {
                    g.upsert(branch, table, rows);
                }
            });
            assertThat(t).as(strict ? "insert" : "upsert").isInstanceOf(ValidationException.class).hasMessageContaining(message);
            assertNothingWritten(b);
        }
    }

    @Test
    void strictInsertOfAnExistingIdFailsAndNeverUpdatesTheRow() {
        Before b = before();
        try (VectorSchemaRoot again = Rows.people(allocator, "alice", 99)) {
            assertThatThrownBy(() -> g.insert("main", "person", again)).isInstanceOf(KeyConflictException.class)
                    .satisfies(e -> {
                        KeyConflictException k = (KeyConflictException) e;
                        assertThat(k.keys()).containsExactly("alice");
                        assertThat(k.table()).isEqualTo("person");
                    });
        }
        assertThat(people()).containsEntry("alice", 30L);
        assertThat(Journals.physicalVersion(g, "person")).isEqualTo(b.physical());
        assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(b.head());
        List<JournalEvent> events = Journals.events(g, b.journalEnd());
        assertThat(Journals.committedCompletions(events)).isZero();
        assertThat(events).filteredOn(e -> e instanceof IntentCompleted).singleElement()
                .satisfies(e -> assertThat(((IntentCompleted) e).outcome()).isEqualTo(IntentOutcome.KEY_CONFLICT));
    }

    @Test
    void strictInsertOfAnExistingIdInAGroupFailsAloneAndNeverUpdatesTheRow() {
        VectorSchemaRoot clash = Rows.people(allocator, "carol", 1, "alice", 99);
        VectorSchemaRoot fresh = Rows.people(allocator, "dave", 7);
        VectorSchemaRoot fresh2 = Rows.people(allocator, "erin", 8);
        try {
            CompletableFuture<Receipt> fc;
            CompletableFuture<Receipt> ff;
            CompletableFuture<Receipt> ff2;
            try (Journals.CommitterGate gate = new Journals.CommitterGate(g)) {
                ff = g.insertAsync("main", "person", fresh, WriteOptions.NONE);
                fc = g.insertAsync("main", "person", clash, WriteOptions.NONE);
                ff2 = g.insertAsync("main", "person", fresh2, WriteOptions.NONE);
            }
            Throwable t = catchThrowable(fc::join);
            assertThat(t).isInstanceOf(CompletionException.class).cause().isInstanceOf(KeyConflictException.class);
            assertThat(((KeyConflictException) t.getCause()).keys()).containsExactly("alice");
            Receipt r1 = ff.join();
            Receipt r2 = ff2.join();
            assertThat(r1.version()).isEqualTo(r2.version());
            assertThat(people()).containsOnly(Map.entry("alice", 30L), Map.entry("bob", 40L), Map.entry("dave", 7L),
                    Map.entry("erin", 8L));
        } finally {
            clash.close();
            fresh.close();
            fresh2.close();
        }
    }

    @Test
    void nullIdIsRefused() {
        try (VectorSchemaRoot rows = Rows.people(allocator, "zed", 1, null, 2)) {
            assertRefused(rows, "person", "main", "null");
        }
    }

    @Test
    void duplicateIdInsideOneDeltaIsRefused() {
        try (VectorSchemaRoot rows = Rows.people(allocator, "x", 1, "y", 2, "x", 3)) {
            assertRefused(rows, "person", "main", "duplicate key 'x'");
        }
    }

    @Test
    void duplicateOfAnExistingIdInsideOneDeltaIsRefusedEvenForUpsert() {
        try (VectorSchemaRoot rows = Rows.people(allocator, "alice", 1, "alice", 2)) {
            assertRefused(rows, "person", "main", "duplicate key 'alice'");
        }
    }

    @Test
    void wrongColumnTypeIsRefused() {
        Schema intAge = new Schema(List.of(ID, Field.nullable("age", new ArrowType.Int(32, true))));
        try (VectorSchemaRoot rows = batch(intAge, List.of(row("id", "zed", "age", 3)))) {
            assertRefused(rows, "person", "main", "column 'age'");
        }
        Schema intId = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true)), AGE));
        try (VectorSchemaRoot rows = batch(intId, List.of(row("id", 7L, "age", 3L)))) {
            assertRefused(rows, "person", "main", "column 'id'");
        }
    }

    @Test
    void unknownColumnIsRefused() {
        Schema extra = new Schema(List.of(ID, AGE, Field.nullable("email", ArrowType.Utf8.INSTANCE)));
        try (VectorSchemaRoot rows = batch(extra, List.of(row("id", "zed", "age", 3L, "email", "z@x")))) {
            assertRefused(rows, "person", "main", "no column 'email'");
        }
    }

    @Test
    void missingIdIsRefused() {
        Schema noId = new Schema(List.of(AGE));
        try (VectorSchemaRoot rows = batch(noId, List.of(row("age", 3L)))) {
            assertRefused(rows, "person", "main", "column 'id'");
        }
    }

    @Test
    void nullInANonNullColumnIsRefused() {
        Schema edge = g.catalog().require("knows").arrowSchema();
        try (VectorSchemaRoot rows = batch(edge, List.of(row("id", "e1", "src", "alice", "dst", null)))) {
            Before b = before();
            long knows = Journals.physicalVersion(g, "knows");
            assertThatThrownBy(() -> g.insert("main", "knows", rows)).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("'dst'");
            assertNothingWritten(b);
            assertThat(Journals.physicalVersion(g, "knows")).isEqualTo(knows);
            assertThat(g.scan("main", "knows")).isEmpty();
        }
    }

    @Test
    void emptyBatchIsRefused() {
        try (VectorSchemaRoot rows = Rows.people(allocator)) {
            assertThat(rows.getRowCount()).isZero();
            assertRefused(rows, "person", "main", "at least one row");
        }
        Before b = before();
        assertThatThrownBy(() -> g.delete("main", "person", List.of())).isInstanceOf(ValidationException.class);
        assertNothingWritten(b);
    }

    @Test
    void unknownTableIsRefused() {
        try (VectorSchemaRoot rows = Rows.people(allocator, "zed", 1)) {
            assertRefused(rows, "nobody", "main", "unknown table 'nobody'");
            Before b = before();
            assertThatThrownBy(() -> g.delete("main", "nobody", List.of("zed"))).isInstanceOf(ValidationException.class);
            assertNothingWritten(b);
        }
    }

    @Test
    void unknownBranchIsRefused() {
        try (VectorSchemaRoot rows = Rows.people(allocator, "zed", 1)) {
            assertRefused(rows, "person", "nope", "unknown graph branch 'nope'");
            Before b = before();
            assertThatThrownBy(() -> g.delete("nope", "person", List.of("alice"))).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("nope");
            assertNothingWritten(b);
        }
        assertThat(g.branches()).containsExactly("main");
    }

    @Test
    void badOpQueuedWithGoodOnesFailsAloneAndOnlyTheGoodOnesAreJournaled() {
        List<VectorSchemaRoot> roots = new ArrayList<>();
        Function<VectorSchemaRoot, VectorSchemaRoot> keep = r -> {
            roots.add(r);
            return r;
        };
        try {
            long from = Journals.end(g);
            CompletableFuture<Receipt> good1;
            CompletableFuture<Receipt> bad;
            CompletableFuture<Receipt> good2;
            try (Journals.CommitterGate gate = new Journals.CommitterGate(g)) {
                good1 = g.upsertAsync("main", "person", keep.apply(Rows.people(allocator, "alice", 31)), WriteOptions.NONE);
                bad = g.upsertAsync("main", "person", keep.apply(Rows.people(allocator, "bob", 1, "bob", 2)), WriteOptions.NONE);
                good2 = g.upsertAsync("main", "person", keep.apply(Rows.people(allocator, "carol", 5)), WriteOptions.NONE);
            }
            assertThat(catchThrowable(bad::join)).cause().isInstanceOf(ValidationException.class)
                    .hasMessageContaining("duplicate key 'bob'");
            Receipt r1 = good1.join();
            Receipt r2 = good2.join();
            List<JournalEvent> events = Journals.events(g, from);
            assertThat(Journals.intentsRecorded(events)).isEqualTo(2);
            assertThat(events).filteredOn(e -> e instanceof IntentCompleted).extracting(e -> ((IntentCompleted) e).intentId())
                    .containsExactlyInAnyOrder(r1.intent(), r2.intent());
            assertThat(people()).containsOnly(Map.entry("alice", 31L), Map.entry("bob", 40L), Map.entry("carol", 5L));
            assertThat(g.metrics().snapshot().validationFailures()).isEqualTo(1);
        } finally {
            roots.forEach(VectorSchemaRoot::close);
        }
    }
}
