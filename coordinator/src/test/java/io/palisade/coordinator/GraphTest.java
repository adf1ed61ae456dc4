package io.palisade.coordinator;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.IdempotencyMismatchException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.ValidationException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GraphTest extends GraphTestSupport {
    private static Map<String, Object> byId(List<Map<String, Object>> rows, String id) {
        return rows.stream().filter(r -> id.equals(r.get("id"))).findFirst().orElseThrow();
    }

    @Test
    void insertUpsertAndScanOnMain() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30, "bob", 40);
             VectorSchemaRoot b = Rows.people(allocator, "alice", 31)) {
            Receipt r1 = g.insert("main", "person", a);
            assertThat(r1.rows()).isEqualTo(2);
            Receipt r2 = g.upsert("main", "person", b);
            assertThat(r2.version()).isGreaterThan(r1.version());
            assertThat(r2.seq()).isGreaterThan(r1.seq());
            List<Map<String, Object>> rows = g.scan("main", "person");
            assertThat(rows).hasSize(2);
            assertThat(byId(rows, "alice").get("age")).isEqualTo(31L);
        }
    }

    @Test
    void strictInsertOfExistingKeyFailsWithoutWriting() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30);
             VectorSchemaRoot again = Rows.people(allocator, "alice", 99, "carol", 5)) {
            g.insert("main", "person", a);
            long before = g.state().head("main", "person").orElseThrow().version();
            assertThatThrownBy(() -> g.insert("main", "person", again)).isInstanceOf(KeyConflictException.class)
                    .satisfies(e -> assertThat(((KeyConflictException) e).keys()).containsExactly("alice"));
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(before);
            List<Map<String, Object>> rows = g.scan("main", "person");
            assertThat(rows).hasSize(1);
            assertThat(byId(rows, "alice").get("age")).isEqualTo(30L);
        }
    }

    @Test
    void badInputIsAValidationErrorAndWritesNothing() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot nullId = Rows.people(allocator, null, 1);
             VectorSchemaRoot dup = Rows.people(allocator, "x", 1, "x", 2)) {
            long before = g.state().head("main", "person").orElseThrow().version();
            assertThatThrownBy(() -> g.insert("main", "person", nullId)).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("null key");
            assertThatThrownBy(() -> g.insert("main", "person", dup)).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("duplicate key 'x'");
            assertThatThrownBy(() -> g.insert("main", "nobody", dup)).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("unknown table 'nobody'");
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(before);
            assertThat(g.scan("main", "person")).isEmpty();
        }
    }

    @Test
    void idempotencyKeyReturnsTheFirstReceiptAcrossReopen() {
        Path p = dir.resolve("g");
        Receipt first;
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30)) {
            first = g.insert("main", "person", a, WriteOptions.idempotencyKey("k1"));
            assertThat(g.insert("main", "person", a, WriteOptions.idempotencyKey("k1"))).isEqualTo(first);
        }
        try (Graph g = Palisade.open(p, Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30)) {
            assertThat(g.insert("main", "person", a, WriteOptions.idempotencyKey("k1"))).isEqualTo(first);
            assertThat(g.scan("main", "person")).hasSize(1);
        }
    }

    @Test
    void anIdempotencyKeyGivenAnotherRequestIsRefusedNamingTheFirstWrite() {
        Path p = dir.resolve("g");
        Receipt first;
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30, "bob", 40);
             VectorSchemaRoot reordered = Rows.people(allocator, "bob", 40, "alice", 30);
             VectorSchemaRoot other = Rows.people(allocator, "alice", 31, "bob", 40)) {
            first = g.upsert("main", "person", a, WriteOptions.idempotencyKey("req-1"));
            // the same rows in another order are the same request
            assertThat(g.upsert("main", "person", reordered, WriteOptions.idempotencyKey("req-1"))).isEqualTo(first);
            assertThatThrownBy(() -> g.upsert("main", "person", other, WriteOptions.idempotencyKey("req-1")))
                    .isInstanceOfSatisfying(IdempotencyMismatchException.class, e -> {
                        assertThat(e.idempotencyKey()).isEqualTo("req-1");
                        assertThat(e.firstIntent()).isEqualTo(first.intent());
                    });
            // another kind of write with the same rows is another request
            assertThatThrownBy(() -> g.insert("main", "person", a, WriteOptions.idempotencyKey("req-1")))
                    .isInstanceOf(IdempotencyMismatchException.class);
            assertThatThrownBy(() -> g.deleteAsync("main", "person", List.of("alice"), WriteOptions.idempotencyKey("req-1"))
                    .join()).hasCauseInstanceOf(IdempotencyMismatchException.class);
            // two requests with one key in one group: the second is refused, the first is written
            var d1 = g.deleteAsync("main", "person", List.of("alice"), WriteOptions.idempotencyKey("req-2"));
            var d2 = g.deleteAsync("main", "person", List.of("bob"), WriteOptions.idempotencyKey("req-2"));
            assertThat(d1.join().rows()).isEqualTo(1);
            assertThatThrownBy(d2::join).hasCauseInstanceOf(IdempotencyMismatchException.class);
            assertThat(g.scan("main", "person")).extracting(r -> r.get("id")).containsExactly("bob");
        }
        // the digest is journaled and checkpointed: a reopened writer refuses the same mismatch
        try (Graph g = Palisade.open(p, Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30, "bob", 40);
             VectorSchemaRoot other = Rows.people(allocator, "alice", 31, "bob", 40)) {
            assertThat(g.upsert("main", "person", a, WriteOptions.idempotencyKey("req-1"))).isEqualTo(first);
            assertThatThrownBy(() -> g.upsert("main", "person", other, WriteOptions.idempotencyKey("req-1")))
                    .isInstanceOf(IdempotencyMismatchException.class);
            assertThat(g.scan("main", "person")).extracting(r -> r.get("id")).containsExactly("bob");
        }
    }

    @Test
    void aSecondWriterIsRefusedWhileTheFirstHoldsTheLease() {
        Path p = dir.resolve("g");
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults())) {
            assertThatThrownBy(() -> Palisade.open(p, Options.defaults())).isInstanceOf(GraphRefusedException.class);
            assertThat(g.branches()).contains("main");
        }
    }

    @Test
    void branchWritesForkOnceAndLeaveMainUntouched() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30);
             VectorSchemaRoot b = Rows.people(allocator, "bob", 40);
             VectorSchemaRoot c = Rows.people(allocator, "carol", 50)) {
            g.insert("main", "person", a);
            g.createBranch("dev", "main");
            assertThat(g.heads("dev").get("person").owned()).isFalse();
            g.insert("dev", "person", b);
            assertThat(g.heads("dev").get("person").owned()).isTrue();
            String forked = g.heads("dev").get("person").head().tableBranch();
            g.insert("dev", "person", c);
            assertThat(g.heads("dev").get("person").head().tableBranch()).isEqualTo(forked);
            assertThat(g.scan("dev", "person")).extracting(r -> r.get("id")).containsExactlyInAnyOrder("alice", "bob", "carol");
            assertThat(g.scan("main", "person")).extracting(r -> r.get("id")).containsExactly("alice");
        }
    }

    @Test
    void aDeleteCountsTheRowsItRemovedAndOneThatFindsNoneCommitsNoVersion() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30, "bob", 40)) {
            g.insert("main", "person", a);
            long before = g.state().head("main", "person").orElseThrow().version();

            Receipt none = g.delete("main", "person", List.of("nobody", "ghost"));
            assertThat(none.rows()).isZero();
            assertThat(none.version()).isEqualTo(before);
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(before);

            Receipt some = g.delete("main", "person", List.of("bob", "nobody"));
            assertThat(some.rows()).isEqualTo(1);
            assertThat(some.version()).isEqualTo(before + 1);
            assertThat(g.scan("main", "person")).extracting(r -> r.get("id")).containsExactly("alice");

            // two deletes of one key in one group: the first removes it, the second finds it gone
            var d1 = g.deleteAsync("main", "person", List.of("alice"), WriteOptions.NONE);
            var d2 = g.deleteAsync("main", "person", List.of("alice"), WriteOptions.NONE);
            assertThat(d1.join().rows() + d2.join().rows()).isEqualTo(1);
            assertThat(g.scan("main", "person")).isEmpty();
        }
        try (Graph g = Palisade.open(dir.resolve("g"), Options.defaults())) {
            // the no-op delete is explained by the journal as committed with no version
            assertThat(g.scan("main", "person")).isEmpty();
        }
    }

    @Test
    void deleteAndKeylessAppend() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30, "bob", 40);
             VectorSchemaRoot log = Rows.logLines(allocator, "hello", "world")) {
            g.insert("main", "person", a);
            g.delete("main", "person", List.of("bob", "nobody"));
            assertThat(g.scan("main", "person")).extracting(r -> r.get("id")).containsExactly("alice");
            g.append("main", "log", log);
            g.append("main", "log", log);
            assertThat(g.scan("main", "log")).hasSize(4);
            assertThatThrownBy(() -> g.append("main", "person", a)).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("bare append cannot be expressed");
            assertThatThrownBy(() -> g.insert("main", "log", log)).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("append-only");
            assertThatThrownBy(() -> g.upsert("main", "log", log)).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("append-only");
        }
    }

    /**
     * A branch's first write that changes nothing (a delete of an absent key) still forks its table branch: the branch's
     * head is then the fork version, whose Clone transaction Lance's Java binding cannot read without aborting the JVM.
     * The graph opens again and the branch reads and writes.
     */
    @Test
    void aBranchWhoseFirstWriteChangedNothingOpensAgain() {
        Path p = dir.resolve("g");
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30)) {
            g.upsert("main", "person", a);
            g.createBranch("b", "main");
            g.delete("b", "person", List.of("nobody"));
            assertThat(g.state().pin("b", "person").orElseThrow().owned()).isTrue();
        }
        try (Graph g = Palisade.open(p, Options.defaults());
             VectorSchemaRoot b = Rows.people(allocator, "bob", 40)) {
            assertThat(g.scan("b", "person")).extracting(r -> r.get("id")).containsExactly("alice");
            g.upsert("b", "person", b);
            assertThat(g.scan("b", "person")).extracting(r -> r.get("id")).containsExactlyInAnyOrder("alice", "bob");
        }
    }

    @Test
    void aDeletedGraphBranchsNameIsNotReusedOnceItsTablesHaveBranches() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            g.createBranch("feat", "main");
            g.deleteBranch("feat");
            g.createBranch("feat", "main"); // nothing was written on it: its name is free
            g.insert("feat", "person", List.of(Row.of("id", "ghost", "age", 1)));
            g.deleteBranch("feat");
            // its table branch keeps its history: a new branch of the name would meet it at its first write
            assertThatThrownBy(() -> g.createBranch("feat", "main"))
                    .isInstanceOf(io.palisade.fencing.ValidationException.class)
                    .hasMessageContaining("was used by a deleted branch").hasMessageContaining("[person]");
            g.createBranch("feat2", "main");
            g.insert("feat2", "person", List.of(Row.of("id", "bob", "age", 2)));
            assertThat(g.branches()).containsExactly("feat2", "main");
        }
    }

    @Test
    void theOptionsTurnTheJournalsPagePreparingOffAndBackOn() {
        Path p = dir.resolve("g");
        long before = preparingThreads();
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults().withPrepareJournalAhead(false))) {
            g.insert("main", "person", List.of(Row.of("id", "alice", "age", 1)));
            assertThat(preparingThreads()).as("journal threads preparing pages, turned off").isEqualTo(before);
        }
        try (Graph g = Palisade.open(p, Options.defaults())) {
            g.insert("main", "person", List.of(Row.of("id", "bob", "age", 2)));
            assertThat(preparingThreads()).as("journal threads preparing pages, on by default").isEqualTo(before + 1);
            assertThat(g.scan("main", "person")).hasSize(2);
        }
    }

    private static long preparingThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("palisade-journal-pretouch")).count();
    }

    /**
     * An idle graph's committer parks until a submission wakes it: with nothing unfolded and nothing in flight, a park
     * lasts up to a second, so a few seconds of idleness cost a few parks (a committer polling every 10 ms would make
     * hundreds, one polling every 100 µs thousands); and the next write is taken up.
     */
    @Test
    void anIdleGraphsCommitterParksUntilAWriteWakesIt() throws Exception {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            g.insert("main", "person", List.of(Row.of("id", "alice", "age", 1)));
            long before = Internals.engine(g).committerParks();
            Thread.sleep(3_000); // the window measured, not a wait for an event
            long parks = Internals.engine(g).committerParks() - before;
            assertThat(parks).as("parks of an idle committer in 3 s").isBetween(1L, 12L);
            g.insert("main", "person", List.of(Row.of("id", "bob", "age", 2)));
            assertThat(g.scan("main", "person")).hasSize(2);
        }
    }
}
