package io.palisade.coordinator;

import io.palisade.fencing.EndpointConflictException;
import io.palisade.fencing.IdempotencyMismatchException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.UniqueConflictException;
import io.palisade.fencing.ValidationException;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

import static io.palisade.coordinator.IntegrityTest.edge;
import static io.palisade.coordinator.IntegrityTest.person;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Graph transactions: several tables written together, checked as a whole (docs/transactions.md). */
class TransactionTest extends GraphTestSupport {

    /** IntegrityTest's graph with the node tables in {@code nodeAck} mode and the edge tables in {@code edgeAck}. */
    static String catalog(String nodeAck, String edgeAck) {
        return """
                {"tables": [
                  {"name": "person", "kind": "node", "ack": "%1$s", "unique": ["email"], "columns": [
                    {"name": "id", "type": "string"}, {"name": "email", "type": "string", "nullable": true}]},
                  {"name": "company", "kind": "node", "ack": "%1$s", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "works_at", "kind": "edge", "ack": "%2$s", "src": "person", "dst": "company", "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]},
                  {"name": "notes", "kind": "append-only", "columns": [{"name": "text", "type": "string"}]}
                ]}""".formatted(nodeAck, edgeAck);
    }

    private Graph create(String nodeAck, String edgeAck) {
        return Palisade.create(dir.resolve("g"), Catalog.fromJson(catalog(nodeAck, edgeAck)), IntegrityTest.options());
    }

    /**
     * A new graph of {@code catalogJson} opened with a stepped committer: writes queued stay queued until the test steps
     * it, so that several are judged in one batch.
     */
    private Graph stepped(String catalogJson) {
        Options options = IntegrityTest.options();
        Path root = dir.resolve("g");
        Palisade.create(root, Catalog.fromJson(catalogJson), options).close();
        return Palisade.open(root, options, false, new Palisade.Wiring(Palisade.Wiring.standard(options).stores(), true));
    }

    private Graph reopen() {
        return Palisade.open(dir.resolve("g"), IntegrityTest.options());
    }

    static Set<String> ids(Graph g, String table) {
        Set<String> out = new HashSet<>();
        g.scan("main", table).forEach(r -> out.add(String.valueOf(r.get("id"))));
        return out;
    }

    private static List<JournalRecord> journal(Graph g) {
        try (JournalReader r = JournalReader.open(g.path().resolve("_palisade")); var c = r.read(0)) {
            return c.drain();
        }
    }

    private static long transactionsCommitted(Graph g) {
        return journal(g).stream().filter(r -> r.event() instanceof JournalEvent.TransactionCommitted).count();
    }

    // ------------------------------------------------------------------ all or nothing

    @ParameterizedTest
    @CsvSource({"table,table", "journal,journal", "table,journal", "journal,table"})
    void aNodeItsCompanyAndTheEdgeBetweenThemCommitTogether(String nodeAck, String edgeAck) {
        TransactionReceipt r;
        try (Graph g = create(nodeAck, edgeAck)) {
            long before = g.state().lastSequence();
            r = g.transaction("main")
                    .insert("person", List.of(person("alice", "a@x")))
                    .insert("company", List.of(Row.of("id", "acme")))
                    .insert("works_at", List.of(edge("e1", "alice", "acme")))
                    .commit();
            assertThat(r.parts()).extracting(Receipt::table).containsExactly("person", "company", "works_at");
            assertThat(r.parts()).allSatisfy(p -> assertThat(p.seq()).isEqualTo(r.seq()));
            assertThat(r.parts()).allSatisfy(p -> assertThat(p.rows()).isEqualTo(1));
            // a table-ack part is in its table when the receipt is given
            for (Receipt p : r.parts()) {
                boolean tableAck = (p.table().equals("works_at") ? edgeAck : nodeAck).equals("table");
                assertThat(p.folded()).as(p.table()).isEqualTo(tableAck);
            }
            assertThat(ids(g, "person")).containsExactly("alice");
            assertThat(ids(g, "works_at")).containsExactly("e1");
            // a reader at any journal position sees all of it or none of it
            for (long seq = before; seq <= g.state().lastSequence(); seq++) {
                int present = 0;
                for (String t : List.of("person", "company", "works_at")) {
                    present += g.scanAt("main", t, seq).size();
                }
                assertThat(present).as("tables at sequence %d", seq).isIn(0, 3);
                assertThat(present).as("tables at sequence %d", seq).isEqualTo(seq >= r.seq() ? 3 : 0);
            }
            assertThat(g.metrics().transactions()).isEqualTo(1);
            assertThat(transactionsCommitted(g)).isEqualTo(1);
        }
        try (Graph g = reopen()) {
            assertThat(ids(g, "person")).containsExactly("alice");
            assertThat(ids(g, "company")).containsExactly("acme");
            assertThat(ids(g, "works_at")).containsExactly("e1");
            assertThatThrownBy(() -> g.delete("main", "company", List.of("acme")))
                    .isInstanceOf(EndpointConflictException.class);
            g.awaitFold();
            assertThat(g.state().unfoldedTables("main")).isEmpty();
            assertThat(ids(g, "works_at")).containsExactly("e1");
        }
    }

    @ParameterizedTest
    @CsvSource({"table,table", "journal,journal", "table,journal"})
    void aKeyConflictOnAnyTableFailsTheWholeTransactionAndNamesTableAndKeys(String nodeAck, String edgeAck) {
        try (Graph g = create(nodeAck, edgeAck)) {
            g.insert("main", "person", List.of(person("bob", "b@x")));
            assertThatThrownBy(() -> g.transaction("main")
                    .insert("company", List.of(Row.of("id", "acme")))
                    .insert("person", List.of(person("carol", "c@x"), person("bob", "b2@x")))
                    .commit())
                    .isInstanceOfSatisfying(KeyConflictException.class, e -> {
                        assertThat(e.table()).isEqualTo("person");
                        assertThat(e.keys()).containsExactly("bob");
                    });
            assertThat(ids(g, "company")).isEmpty();
            assertThat(ids(g, "person")).containsExactly("bob");
            assertThat(transactionsCommitted(g)).isZero();
            // the part at fault is explained in the journal; nothing else of the transaction is
            assertThat(journal(g)).filteredOn(r -> r.event() instanceof JournalEvent.IntentCompleted c
                    && c.outcome() == IntentOutcome.KEY_CONFLICT).hasSize(1);
            // a retry that no longer conflicts commits whole
            g.transaction("main").insert("company", List.of(Row.of("id", "acme")))
                    .upsert("person", List.of(person("carol", "c@x"), person("bob", "b2@x"))).commit();
            assertThat(ids(g, "person")).containsExactlyInAnyOrder("bob", "carol");
            assertThat(ids(g, "company")).containsExactly("acme");
        }
    }

    // ------------------------------------------------------------------ endpoints

    @ParameterizedTest
    @CsvSource({"table,table", "journal,journal", "journal,table"})
    void endpointsAreCheckedOnTheTransactionAsAWhole(String nodeAck, String edgeAck) {
        try (Graph g = create(nodeAck, edgeAck)) {
            g.insert("main", "company", List.of(Row.of("id", "acme")));
            // an edge to a node nobody holds: nothing of the transaction is written
            assertThatThrownBy(() -> g.transaction("main")
                    .insert("person", List.of(person("alice", "a@x")))
                    .insert("works_at", List.of(edge("e1", "alice", "acme"), edge("e2", "ghost", "acme")))
                    .commit())
                    .isInstanceOfSatisfying(EndpointConflictException.class, e -> {
                        assertThat(e.situation()).isEqualTo(EndpointConflictException.Situation.MISSING_ENDPOINT);
                        assertThat(e.keys()).containsExactly("ghost");
                    });
            assertThat(ids(g, "person")).isEmpty();
            assertThat(ids(g, "works_at")).isEmpty();
            // the node and its edge together
            g.transaction("main").insert("person", List.of(person("alice", "a@x")))
                    .insert("works_at", List.of(edge("e1", "alice", "acme"))).commit();
            // a node with edges is not deleted alone, in a transaction or not
            assertThatThrownBy(() -> g.transaction("main").delete("person", List.of("alice")).commit())
                    .isInstanceOfSatisfying(EndpointConflictException.class, e ->
                            assertThat(e.situation()).isEqualTo(EndpointConflictException.Situation.NODE_HAS_EDGES));
            // an edge moved away from the node in the same transaction as its delete
            g.insert("main", "person", List.of(person("bob", "b@x")));
            TransactionReceipt moved = g.transaction("main").delete("person", List.of("alice"))
                    .upsert("works_at", List.of(edge("e1", "bob", "acme"))).commit();
            assertThat(moved.parts().get(0).rows()).isEqualTo(1);
            // the node and its edges deleted together
            g.transaction("main").delete("works_at", List.of("e1")).delete("person", List.of("bob")).commit();
            assertThat(ids(g, "person")).isEmpty();
            assertThat(ids(g, "works_at")).isEmpty();
            // a delete of a node that a part re-points an edge to is refused
            g.transaction("main").insert("person", List.of(person("carol", "c@x")))
                    .insert("works_at", List.of(edge("e3", "carol", "acme"))).commit();
            assertThatThrownBy(() -> g.transaction("main").delete("company", List.of("acme")).commit())
                    .isInstanceOf(EndpointConflictException.class);
            assertThat(ids(g, "company")).containsExactly("acme");
        }
    }

    // ------------------------------------------------------------------ unique values

    @ParameterizedTest
    @CsvSource({"table,table", "journal,journal"})
    void uniqueValuesAreCheckedOnTheTransactionAsAWhole(String nodeAck, String edgeAck) {
        try (Graph g = create(nodeAck, edgeAck)) {
            g.insert("main", "person", List.of(person("alice", "a@x"), person("bob", "b@x")));
            // two parts taking one value under different ids
            assertThatThrownBy(() -> g.transaction("main")
                    .insert("person", List.of(person("carol", "c@x")))
                    .insert("person", List.of(person("dave", "c@x")))
                    .commit())
                    .isInstanceOfSatisfying(UniqueConflictException.class, e -> {
                        assertThat(e.column()).isEqualTo("email");
                        assertThat(e.value()).isEqualTo("c@x");
                    });
            // a value held at the base
            assertThatThrownBy(() -> g.transaction("main").insert("person", List.of(person("erin", "a@x"))).commit())
                    .isInstanceOfSatisfying(UniqueConflictException.class, e -> assertThat(e.holder()).isEqualTo("alice"));
            assertThat(ids(g, "person")).containsExactlyInAnyOrder("alice", "bob");
            // two parts swapping their values, and a value freed by a delete in the same transaction
            g.transaction("main").upsert("person", List.of(person("alice", "b@x")))
                    .upsert("person", List.of(person("bob", "a@x"))).commit();
            g.transaction("main").delete("person", List.of("alice")).insert("person", List.of(person("frank", "b@x")))
                    .commit();
            Map<String, Row> rows = g.get("main", "person", List.of("bob", "frank"));
            assertThat(rows.get("bob").get("email")).isEqualTo("a@x");
            assertThat(rows.get("frank").get("email")).isEqualTo("b@x");
            // the images agree with the state after the refusals: a value the refused transactions named is free
            g.insert("main", "person", List.of(person("gina", "c@x")));
            assertThatThrownBy(() -> g.insert("main", "person", List.of(person("hal", "b@x"))))
                    .isInstanceOfSatisfying(UniqueConflictException.class, e -> assertThat(e.holder()).isEqualTo("frank"));
        }
    }

    // ------------------------------------------------------------------ bad input

    @ParameterizedTest
    @CsvSource({"table,journal"})
    void badTransactionsAreRefusedWithNothingWritten(String nodeAck, String edgeAck) {
        try (Graph g = create(nodeAck, edgeAck)) {
            long before = g.state().lastSequence();
            assertThatThrownBy(() -> g.transaction("main").insert("person", List.of(person("a", "1")))
                    .delete("person", List.of("a")).commit())
                    .isInstanceOf(ValidationException.class).hasMessageContaining("written twice in one transaction");
            assertThatThrownBy(() -> g.transaction("main").insert("notes", List.of(Row.of("text", "x"))))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("append-only");
            assertThatThrownBy(() -> g.transaction("main").insert("nope", List.of(Row.of("id", "x"))))
                    .isInstanceOf(ValidationException.class);
            assertThatThrownBy(() -> g.transaction("main").commit())
                    .isInstanceOf(ValidationException.class).hasMessageContaining("at least one");
            assertThatThrownBy(() -> g.transaction("elsewhere").insert("company", List.of(Row.of("id", "c"))).commit())
                    .isInstanceOf(ValidationException.class).hasMessageContaining("unknown graph branch 'elsewhere'");
            assertThatThrownBy(() -> g.transaction("main").insert("company", List.of(Row.of("id", "c", "x", 1))).commit())
                    .isInstanceOf(ValidationException.class);
            Transaction t = g.transaction("main").insert("company", List.of(Row.of("id", "c")));
            t.close();
            assertThatThrownBy(t::commit).isInstanceOf(IllegalStateException.class);
            assertThat(g.state().lastSequence()).isEqualTo(before);
            assertThat(ids(g, "company")).isEmpty();
        }
    }

    // ------------------------------------------------------------------ branches

    @ParameterizedTest
    @CsvSource({"table,journal", "journal,table"})
    void aTransactionOnAGraphBranchLeavesItsParentAsItWas(String nodeAck, String edgeAck) {
        try (Graph g = create(nodeAck, edgeAck)) {
            g.insert("main", "company", List.of(Row.of("id", "acme")));
            g.createBranch("dev", "main");
            g.transaction("dev").insert("person", List.of(person("alice", "a@x")))
                    .insert("works_at", List.of(edge("e1", "alice", "acme"))).commit();
            assertThat(g.scan("dev", "works_at")).hasSize(1);
            assertThat(ids(g, "person")).isEmpty();
            assertThat(ids(g, "works_at")).isEmpty();
        }
    }

    // ------------------------------------------------------------------ branch merges

    @ParameterizedTest
    @CsvSource({"table,table", "journal,journal", "table,journal"})
    void aMergeOfAGraphWithRulesIsOneTransactionCheckedAsAWhole(String nodeAck, String edgeAck) {
        try (Graph g = create(nodeAck, edgeAck)) {
            g.transaction("main").insert("person", List.of(person("alice", "a@x")))
                    .insert("company", List.of(Row.of("id", "acme"))).commit();
            g.createBranch("b", "main");
            g.transaction("b").insert("person", List.of(person("bob", "b@x")))
                    .insert("works_at", List.of(edge("e1", "bob", "acme"))).commit();
            g.upsert("b", "person", List.of(person("alice", "a2@x")));
            g.insert("main", "person", List.of(person("carol", "c@x")));
            long commitsBefore = transactionsCommitted(g);

            MergeResult m = g.merge("b", "main");
            assertThat(m.inserted()).isEqualTo(2);
            assertThat(m.updated()).isEqualTo(1);
            assertThat(m.deleted()).isZero();
            long seq = m.receipts().get(0).seq();
            assertThat(m.receipts()).allSatisfy(r -> assertThat(r.seq()).isEqualTo(seq));
            assertThat(transactionsCommitted(g)).isEqualTo(commitsBefore + 1);
            JournalEvent.TransactionCommitted point = (JournalEvent.TransactionCommitted) journal(g).stream()
                    .filter(r -> r.sequence() == seq).findFirst().orElseThrow().event();
            assertThat(point.intentIds()).containsExactlyElementsOf(m.receipts().stream().map(Receipt::intent).toList());
            assertThat(ids(g, "person")).containsExactlyInAnyOrder("alice", "bob", "carol");
            assertThat(ids(g, "works_at")).containsExactly("e1");
            assertThat(g.get("main", "person", List.of("alice")).get("alice").get("email")).isEqualTo("a2@x");

            // an edge the branch added to a node the target deleted since the fork: the whole merge is refused
            g.createBranch("c", "main");
            g.transaction("c").insert("person", List.of(person("frank", "f@x")))
                    .insert("works_at", List.of(edge("e2", "carol", "acme"))).commit();
            g.delete("main", "person", List.of("carol"));
            long refusedBefore = transactionsCommitted(g);
            assertThatThrownBy(() -> g.merge("c", "main")).isInstanceOfSatisfying(EndpointConflictException.class,
                    e -> assertThat(e.keys()).contains("carol"));
            // one unique value taken on both sides
            g.createBranch("d", "main");
            g.insert("d", "person", List.of(person("dan", "x@x")));
            g.insert("main", "person", List.of(person("erin", "x@x")));
            assertThatThrownBy(() -> g.merge("d", "main")).isInstanceOfSatisfying(UniqueConflictException.class,
                    e -> assertThat(e.getMessage()).contains("x@x"));
            assertThat(transactionsCommitted(g)).isEqualTo(refusedBefore);
            g.awaitFold();
            assertThat(ids(g, "person")).containsExactlyInAnyOrder("alice", "bob", "erin");
            assertThat(ids(g, "works_at")).containsExactly("e1");
        }
        try (Graph g = reopen()) {
            assertThat(ids(g, "person")).containsExactlyInAnyOrder("alice", "bob", "erin");
            assertThat(ids(g, "works_at")).containsExactly("e1");
            // the refused branch is merged once its conflict is gone
            g.delete("main", "person", List.of("erin"));
            assertThat(g.merge("d", "main").inserted()).isEqualTo(1);
            assertThat(ids(g, "person")).containsExactlyInAnyOrder("alice", "bob", "dan");
        }
    }

    // ------------------------------------------------------------------ cascading node deletes

    /** works_at edges go with the node they name; knows edges (person to person) refuse its delete. */
    static String cascadingCatalog(String edgeAck) {
        return """
                {"tables": [
                  {"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "company", "kind": "node", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "works_at", "kind": "edge", "ack": "%1$s", "src": "person", "dst": "company",
                   "on_endpoint_delete": "cascade", "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]},
                  {"name": "knows", "kind": "edge", "ack": "%1$s", "src": "person", "dst": "person", "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}
                ]}""".formatted(edgeAck);
    }

    @ParameterizedTest
    @CsvSource({"table", "journal"})
    void aNodeDeleteTakesTheEdgesOfACascadingTableAlongInOneCommit(String edgeAck) {
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(cascadingCatalog(edgeAck)),
                IntegrityTest.options())) {
            assertThat(g.catalog().require("works_at").cascade()).isTrue();
            assertThat(Catalog.fromJson(g.catalog().toJson()).require("works_at").cascade()).isTrue();
            g.transaction("main").insert("person", List.of(Row.of("id", "alice"), Row.of("id", "bob")))
                    .insert("company", List.of(Row.of("id", "acme"), Row.of("id", "initech")))
                    .insert("works_at", List.of(edge("e1", "alice", "acme"), edge("e2", "bob", "acme"),
                            edge("e3", "bob", "initech")))
                    .insert("knows", List.of(edge("k1", "alice", "bob"))).commit();
            long commits = transactionsCommitted(g);

            // a single delete of a node: its works_at edges go with it, in one transaction
            Receipt r = g.delete("main", "company", List.of("acme"));
            assertThat(r.table()).isEqualTo("company");
            assertThat(r.rows()).isEqualTo(1);
            assertThat(ids(g, "company")).containsExactly("initech");
            assertThat(ids(g, "works_at")).containsExactly("e3");
            assertThat(transactionsCommitted(g)).isEqualTo(commits + 1);
            JournalEvent.TransactionCommitted point = (JournalEvent.TransactionCommitted) journal(g).stream()
                    .filter(x -> x.sequence() == r.seq()).findFirst().orElseThrow().event();
            assertThat(point.intentIds()).hasSize(2).startsWith(r.intent());

            // an edge table without the option still refuses: nothing deleted, its works_at edge neither; the future of
            // an asynchronous delete carries the typed failure, as any write's does
            assertThat(g.deleteAsync("main", "person", List.of("bob"), WriteOptions.NONE).handle((x, e) -> e).join())
                    .isInstanceOf(EndpointConflictException.class);
            assertThatThrownBy(() -> g.delete("main", "person", List.of("bob")))
                    .isInstanceOfSatisfying(EndpointConflictException.class, e -> {
                        assertThat(e.situation()).isEqualTo(EndpointConflictException.Situation.NODE_HAS_EDGES);
                        assertThat(e.getMessage()).contains("knows/k1");
                    });
            assertThat(ids(g, "person")).containsExactlyInAnyOrder("alice", "bob");
            assertThat(ids(g, "works_at")).containsExactly("e3");

            // in a transaction: the cascaded deletes follow the named parts, their rows counted from the folded table
            // too (beside a named delete of the same table); an edge the transaction writes is its own
            g.insert("main", "works_at", List.of(edge("e5", "bob", "initech")));
            g.awaitFold();
            TransactionReceipt t = g.transaction("main").delete("knows", List.of("k1"))
                    .delete("works_at", List.of("e-none")).delete("person", List.of("bob")).commit();
            assertThat(t.parts()).extracting(Receipt::table)
                    .containsExactly("knows", "works_at", "person", "works_at");
            assertThat(t.parts().get(1).rows()).isZero();
            assertThat(t.parts().get(3).rows()).isEqualTo(2);
            assertThat(ids(g, "works_at")).isEmpty();
            assertThat(ids(g, "person")).containsExactly("alice");
            // a transaction that adds an edge to the node it deletes is refused: the edge would dangle
            assertThatThrownBy(() -> g.transaction("main").insert("works_at", List.of(edge("e4", "alice", "initech")))
                    .delete("company", List.of("initech")).commit()).isInstanceOf(EndpointConflictException.class);
            assertThat(ids(g, "company")).containsExactly("initech");
        }
        try (Graph g = reopen()) {
            assertThat(ids(g, "works_at")).isEmpty();
            assertThat(ids(g, "person")).containsExactly("alice");
            assertThat(ids(g, "company")).containsExactly("initech");
            assertThat(g.catalog().require("works_at").cascade()).isTrue();
        }
    }

    @org.junit.jupiter.api.Test
    void aCascadeKeepsTheIdempotencyKeysToThePartsTheWriterNamed() {
        TransactionReceipt first;
        try (Graph g = stepped(cascadingCatalog("journal"))) {
            var setup = g.transaction("main").insert("person", List.of(Row.of("id", "alice")))
                    .insert("company", List.of(Row.of("id", "acme")))
                    .insert("works_at", List.of(edge("e1", "alice", "acme"))).commitAsync();
            g.engine().stepCommitter();
            setup.join();
            // the cascade adds a second part, with no key: "K#1" stays free for another transaction of the batch
            var a = g.transaction("main").idempotencyKey("K").delete("company", List.of("acme")).commitAsync();
            var b = g.transaction("main").idempotencyKey("K#1").insert("person", List.of(Row.of("id", "bob")))
                    .commitAsync();
            g.engine().stepCommitter();
            first = a.join();
            assertThat(first.parts()).extracting(Receipt::table).containsExactly("company", "works_at");
            assertThat(b.join().parts()).hasSize(1);
            // a repeat answers with the parts its writer named
            var again = g.transaction("main").idempotencyKey("K").delete("company", List.of("acme")).commitAsync();
            g.engine().stepCommitter();
            assertThat(again.join().transaction()).isEqualTo(first.transaction());
            assertThat(again.join().parts()).extracting(Receipt::intent).containsExactly(first.parts().get(0).intent());
        }
        try (Graph g = reopen()) {
            assertThat(ids(g, "person")).containsExactlyInAnyOrder("alice", "bob");
            assertThat(ids(g, "works_at")).isEmpty();
            assertThat(ids(g, "company")).isEmpty();
        }
    }

    @org.junit.jupiter.api.Test
    void theCascadeOptionIsCheckedWhereItIsDeclared() {
        assertThatThrownBy(() -> Catalog.fromJson(cascadingCatalog("table").replace("\"cascade\"", "\"always\"")))
                .isInstanceOf(ValidationException.class).hasMessageContaining("\"on_endpoint_delete\" must be");
        assertThatThrownBy(() -> Catalog.fromJson("""
                {"tables": [{"name": "person", "kind": "node", "on_endpoint_delete": "cascade",
                  "columns": [{"name": "id", "type": "string"}]}]}""")).isInstanceOf(ValidationException.class)
                .hasMessageContaining("needs an edge table that declares");
        Catalog refuse = Catalog.fromJson(cascadingCatalog("table").replace("\"cascade\"", "\"refuse\""));
        assertThat(refuse.require("works_at").cascade()).isFalse();
        assertThat(refuse.toJson()).doesNotContain("on_endpoint_delete");
    }

    // ------------------------------------------------------------------ idempotency keys

    private static TransactionReceipt hire(Graph g, String key, String person, String email) {
        return g.transaction("main").idempotencyKey(key)
                .insert("person", List.of(person(person, email)))
                .upsert("company", List.of(Row.of("id", "acme")))
                .insert("works_at", List.of(edge("e-" + person, person, "acme")))
                .commit();
    }

    private static void assertSameTransaction(TransactionReceipt repeat, TransactionReceipt first) {
        assertThat(repeat.transaction()).isEqualTo(first.transaction());
        assertThat(repeat.seq()).isEqualTo(first.seq());
        assertThat(repeat.branch()).isEqualTo(first.branch());
        assertThat(repeat.parts()).extracting(Receipt::intent)
                .containsExactlyElementsOf(first.parts().stream().map(Receipt::intent).toList());
        assertThat(repeat.parts()).extracting(Receipt::table).containsExactly("person", "company", "works_at");
        assertThat(repeat.parts()).allSatisfy(p -> assertThat(p.seq()).isEqualTo(first.seq()));
    }

    @ParameterizedTest
    @CsvSource({"table,table", "journal,journal", "table,journal"})
    void aTransactionRepeatedWithItsIdempotencyKeyGetsTheFirstReceiptAndWritesNothing(String nodeAck, String edgeAck) {
        TransactionReceipt first;
        try (Graph g = create(nodeAck, edgeAck)) {
            first = hire(g, "hire-alice", "alice", "a@x");
            long replays = g.metrics().snapshot().idempotentReplays();
            TransactionReceipt again = hire(g, "hire-alice", "alice", "a@x");
            assertSameTransaction(again, first);
            assertThat(g.metrics().snapshot().idempotentReplays()).isEqualTo(replays + 1);
            assertThat(transactionsCommitted(g)).isEqualTo(1);

            // the key with other parts, or given to a single write, is refused: nothing written
            long last = g.state().lastSequence();
            assertThatThrownBy(() -> hire(g, "hire-alice", "bob", "b@x"))
                    .isInstanceOfSatisfying(IdempotencyMismatchException.class,
                            e -> assertThat(e.idempotencyKey()).isEqualTo("hire-alice"));
            assertThatThrownBy(() -> g.transaction("main").idempotencyKey("hire-alice")
                    .upsert("company", List.of(Row.of("id", "acme")))
                    .insert("person", List.of(person("alice", "a@x")))
                    .insert("works_at", List.of(edge("e-alice", "alice", "acme"))).commit())
                    .as("the same parts in another order are another transaction")
                    .isInstanceOf(IdempotencyMismatchException.class);
            assertThatThrownBy(() -> g.insert("main", "person", List.of(person("bob", "b@x")),
                    WriteOptions.idempotencyKey("hire-alice"))).isInstanceOf(IdempotencyMismatchException.class);
            assertThatThrownBy(() -> hire(g, "hire-alice#1", "bob", "b@x"))
                    .as("a key another transaction's part holds").isInstanceOf(IdempotencyMismatchException.class);
            g.awaitFold();
            assertThat(ids(g, "person")).containsExactly("alice");
            assertThat(transactionsCommitted(g)).isEqualTo(1);
            assertThat(journal(g).stream().filter(r -> r.sequence() > last)
                    .noneMatch(r -> r.event() instanceof JournalEvent.IntentRecorded ir
                            && ir.operation() != io.palisade.journal.LogicalOperation.FOLD)).isTrue();

            // a key whose transaction was refused answers nothing: the next commit with it is judged afresh
            assertThatThrownBy(() -> hire(g, "hire-carol", "carol", "a@x")).isInstanceOf(UniqueConflictException.class);
            assertThat(hire(g, "hire-carol", "carol", "c@x").transaction()).isNotEqualTo(first.transaction());
            assertThat(ids(g, "person")).containsExactlyInAnyOrder("alice", "carol");
        }
        try (Graph g = reopen()) {
            // the receipts are rebuilt from the journal
            assertSameTransaction(hire(g, "hire-alice", "alice", "a@x"), first);
            assertThat(hire(g, "hire-alice", "alice", "a@x").parts()).allSatisfy(p -> assertThat(p.rows()).isEqualTo(1));
            assertThat(transactionsCommitted(g)).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @CsvSource({"table,journal", "journal,journal"})
    void aKeyRepeatedWithinOneBatchCommitsOnceAndAnswersBoth(String nodeAck, String edgeAck) {
        try (Graph g = stepped(catalog(nodeAck, edgeAck))) {
            Callable<java.util.concurrent.CompletableFuture<TransactionReceipt>> hire = () -> g.transaction("main")
                    .idempotencyKey("hire-alice").insert("person", List.of(person("alice", "a@x")))
                    .insert("company", List.of(Row.of("id", "acme"))).commitAsync();
            var a = hire.call();
            var b = hire.call();
            var other = g.transaction("main").idempotencyKey("hire-alice")
                    .insert("person", List.of(person("bob", "b@x"))).commitAsync();
            var part = g.transaction("main").idempotencyKey("hire-alice#1")
                    .insert("person", List.of(person("carol", "c@x"))).commitAsync();
            assertThat(a).isNotDone();
            g.engine().stepCommitter();
            assertThat(b.join()).isEqualTo(a.join());
            assertThatThrownBy(other::join).hasCauseInstanceOf(IdempotencyMismatchException.class);
            assertThatThrownBy(part::join).hasCauseInstanceOf(IdempotencyMismatchException.class);
            assertThat(transactionsCommitted(g)).isEqualTo(1);
            assertThat(ids(g, "person")).containsExactly("alice");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    // ------------------------------------------------------------------ transactions queued together

    @ParameterizedTest
    @CsvSource({"table,table", "journal,journal", "table,journal"})
    void transactionsQueuedTogetherAreJudgedInOrderAndShareOneAppend(String nodeAck, String edgeAck) {
        try (Graph g = stepped(catalog(nodeAck, edgeAck))) {
            long before = g.state().lastSequence();
            // queued before the committer runs: one batch, each judged against the ones before it
            var hire = g.transaction("main").insert("person", List.of(person("alice", "a@x")))
                    .insert("company", List.of(Row.of("id", "acme"))).commitAsync();
            var edge = g.transaction("main").insert("works_at", List.of(edge("e1", "alice", "acme"))).commitAsync();
            var sameKey = g.transaction("main").insert("person", List.of(person("alice", "other@x"))).commitAsync();
            var sameEmail = g.transaction("main").insert("person", List.of(person("bob", "a@x"))).commitAsync();
            var dropAcme = g.transaction("main").delete("company", List.of("acme")).commitAsync();
            var fire = g.transaction("main").delete("works_at", List.of("e1")).delete("person", List.of("alice"))
                    .commitAsync();
            var reuse = g.transaction("main").insert("person", List.of(person("carol", "a@x"))).commitAsync();
            assertThat(hire).isNotDone();
            g.engine().stepCommitter();
            assertThat(hire.join().parts()).hasSize(2);
            assertThat(edge.join().seq()).isGreaterThan(hire.join().seq());
            assertThatThrownBy(sameKey::join).hasCauseInstanceOf(KeyConflictException.class);
            assertThatThrownBy(sameEmail::join).hasCauseInstanceOf(UniqueConflictException.class);
            assertThatThrownBy(dropAcme::join).hasCauseInstanceOf(EndpointConflictException.class);
            assertThat(fire.join().parts().get(1).rows()).isEqualTo(1);
            assertThat(reuse.join().seq()).isGreaterThan(fire.join().seq());
            assertThat(ids(g, "person")).containsExactly("carol");
            assertThat(ids(g, "company")).containsExactly("acme");
            assertThat(ids(g, "works_at")).isEmpty();
            // one append: the four commits (its start, 2 records a part, then the commit point) and the three refusals'
            // intent and completion, nothing between them; the folds of the table-ack parts follow
            List<JournalRecord> after = journal(g).stream().filter(r -> r.sequence() > before).toList();
            List<JournalRecord> commits = after.stream()
                    .filter(r -> r.event() instanceof JournalEvent.TransactionCommitted).toList();
            assertThat(commits).hasSize(4);
            long lastCommit = commits.get(3).sequence();
            assertThat(lastCommit - before).isEqualTo(6 + 4 + 6 + 4 + 3 * 2);
            assertThat(after.stream().filter(r -> r.sequence() <= lastCommit)
                    .noneMatch(r -> r.event() instanceof JournalEvent.FoldPlanned)).isTrue();
        }
        try (Graph g = reopen()) {
            assertThat(ids(g, "person")).containsExactly("carol");
            assertThat(g.get("main", "person", List.of("carol")).get("carol").get("email")).isEqualTo("a@x");
        }
    }

    @ParameterizedTest
    @CsvSource({"table,table", "table,journal"})
    void aTableAckPartLeftUnfoldedByACrashIsFoldedBeforeTheNextOperationOnItsTable(String nodeAck, String edgeAck)
            throws Exception {
        Graph crashed = stepped(catalog(nodeAck, edgeAck));
        io.palisade.heads.PhaseCrashPoints.listener(point -> {
            if (point.equals("after-transaction-commit")) {
                throw new Simulation.SimulatedCrash(point);
            }
        });
        try {
            var tx = crashed.transaction("main").insert("person", List.of(person("alice", "a@x")))
                    .insert("company", List.of(Row.of("id", "acme")))
                    .insert("works_at", List.of(edge("e1", "alice", "acme"))).commitAsync();
            assertThatThrownBy(crashed.engine()::stepCommitter).isInstanceOf(Simulation.SimulatedCrash.class);
            assertThat(tx).isCompletedExceptionally();
        } finally {
            io.palisade.heads.PhaseCrashPoints.listener(null);
        }
        crashed.engine().abandon();
        try (Graph g = reopen()) {
            // committed: whole, with the table-ack parts still unfolded (no fold ran before the crash)
            assertThat(g.state().unfoldedTables("main")).containsKey("person");
            assertThat(ids(g, "person")).containsExactly("alice");
            assertThat(ids(g, "works_at")).containsExactly("e1");
            // a single write of the table folds its part first, then commits over it
            g.upsert("main", "person", List.of(person("alice", "new@x")));
            assertThat(g.state().foldMark("main", "person").unfolded()).isZero();
            assertThat(g.get("main", "person", List.of("alice")).get("alice").get("email")).isEqualTo("new@x");
            // so does a write of another table, and a branch from the graph sees every part
            g.insert("main", "company", List.of(Row.of("id", "beta")));
            assertThat(g.state().foldMark("main", "company").unfolded()).isZero();
            assertThat(ids(g, "company")).containsExactlyInAnyOrder("acme", "beta");
            g.createBranch("dev", "main");
            assertThat(g.scan("dev", "works_at")).hasSize(1);
        }
        try (Graph g = reopen()) {
            assertThat(g.state().unfoldedTables("main")).isEmpty();
            assertThat(g.get("main", "person", List.of("alice")).get("alice").get("email")).isEqualTo("new@x");
            assertThat(ids(g, "works_at")).containsExactly("e1");
        }
    }

    // ------------------------------------------------------------------ races

    @ParameterizedTest
    @CsvSource({"table,table", "journal,journal"})
    void transactionsAddingEdgesRacingTheirEndpointsDeleteNeverLeaveADanglingEdge(String nodeAck, String edgeAck)
            throws Exception {
        try (Graph g = create(nodeAck, edgeAck)) {
            int n = 16;
            List<Row> companies = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                companies.add(Row.of("id", "c" + i));
            }
            g.insert("main", "company", companies);
            List<Callable<?>> tasks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String c = "c" + i;
                tasks.add(() -> g.transaction("main").insert("person", List.of(person("p" + c, null)))
                        .insert("works_at", List.of(edge("e" + c, "p" + c, c))).commit());
                tasks.add(() -> g.transaction("main").delete("company", List.of(c)).commit());
            }
            List<Throwable> outcomes = race(32, tasks);
            for (int i = 0; i < n; i++) {
                Throwable add = outcomes.get(2 * i);
                Throwable delete = outcomes.get(2 * i + 1);
                assertThat(add == null ^ delete == null).as("c%d: add %s, delete %s", i, add, delete).isTrue();
                assertThat(add == null ? delete : add).isInstanceOf(EndpointConflictException.class);
            }
            Set<String> companiesLeft = ids(g, "company");
            Set<String> persons = ids(g, "person");
            for (Map<String, Object> e : g.scan("main", "works_at")) {
                assertThat(companiesLeft).contains(String.valueOf(e.get("dst")));
                assertThat(persons).contains(String.valueOf(e.get("src")));
            }
            // every transaction whole: a person exactly when its edge
            assertThat(persons).hasSize(g.scan("main", "works_at").size());
        }
    }

    @ParameterizedTest
    @CsvSource({"table,table", "journal,journal"})
    void transactionsTakingOneUniqueValueUnderDifferentIdsLetExactlyOneWin(String nodeAck, String edgeAck)
            throws Exception {
        try (Graph g = create(nodeAck, edgeAck)) {
            g.insert("main", "company", List.of(Row.of("id", "acme")));
            List<Callable<?>> tasks = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                String id = "p" + i;
                tasks.add(() -> g.transaction("main").insert("person", List.of(person(id, "same@x")))
                        .insert("works_at", List.of(edge("e" + id, id, "acme"))).commit());
            }
            List<Throwable> outcomes = race(32, tasks);
            assertThat(outcomes.stream().filter(o -> o == null).count()).isEqualTo(1);
            assertThat(outcomes.stream().filter(o -> o != null))
                    .allSatisfy(o -> assertThat(o).isInstanceOf(UniqueConflictException.class));
            assertThat(ids(g, "person")).hasSize(1);
            assertThat(ids(g, "works_at")).hasSize(1);
        }
    }

    @ParameterizedTest
    @CsvSource({"table,table", "journal,journal"})
    void transactionsInsertingOneNewKeyLetExactlyOneWin(String nodeAck, String edgeAck) throws Exception {
        try (Graph g = create(nodeAck, edgeAck)) {
            g.insert("main", "company", List.of(Row.of("id", "acme")));
            List<Callable<?>> tasks = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                String e = "e" + i;
                String email = "m" + i + "@x";
                tasks.add(() -> g.transaction("main").insert("person", List.of(person("same", email)))
                        .insert("works_at", List.of(edge(e, "same", "acme"))).commit());
            }
            List<Throwable> outcomes = race(32, tasks);
            assertThat(outcomes.stream().filter(o -> o == null).count()).isEqualTo(1);
            assertThat(outcomes.stream().filter(o -> o != null))
                    .allSatisfy(o -> assertThat(o).isInstanceOf(KeyConflictException.class));
            assertThat(ids(g, "person")).containsExactly("same");
            assertThat(ids(g, "works_at")).hasSize(1);
        }
    }
}
