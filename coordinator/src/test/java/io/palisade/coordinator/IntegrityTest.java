package io.palisade.coordinator;

import io.palisade.fencing.EndpointConflictException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.UniqueConflictException;
import io.palisade.fencing.ValidationException;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Edge endpoints and unique columns declared in the catalog, checked at commit (docs/integrity.md). */
class IntegrityTest extends GraphTestSupport {

    /** person and company nodes, works_at edges between them; person.email unique; both tables in {@code ack} mode. */
    static String catalog(String ack) {
        return """
                {"tables": [
                  {"name": "person", "kind": "node", "ack": "%1$s", "unique": ["email"], "columns": [
                    {"name": "id", "type": "string"}, {"name": "email", "type": "string", "nullable": true}]},
                  {"name": "company", "kind": "node", "ack": "%1$s", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "works_at", "kind": "edge", "ack": "%1$s", "src": "person", "dst": "company", "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]},
                  {"name": "knows", "kind": "edge", "ack": "%1$s", "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}
                ]}""".formatted(ack);
    }

    static Row person(String id, String email) {
        Map<String, Object> m = new HashMap<>();
        m.put("id", id);
        m.put("email", email);
        return Row.of(m);
    }

    static Row edge(String id, String src, String dst) {
        return Row.of("id", id, "src", src, "dst", dst);
    }

    static Options options() {
        return Options.defaults().withFolding(3_600_000, 1_000_000, 1L << 40);
    }

    private Graph create(String ack) {
        return Palisade.create(dir.resolve("g"), Catalog.fromJson(catalog(ack)), options());
    }

    private static Set<String> ids(Graph g, String table) {
        Set<String> out = new HashSet<>();
        g.scan("main", table).forEach(r -> out.add(String.valueOf(r.get("id"))));
        return out;
    }

    private static List<JournalEvent.IntentCompleted> integrityCompletions(Graph g) {
        List<JournalEvent.IntentCompleted> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(g.path().resolve("_palisade")); var c = r.read(0)) {
            for (JournalRecord rec : c.drain()) {
                if (rec.event() instanceof JournalEvent.IntentCompleted ic && ic.outcome() == IntentOutcome.INTEGRITY_CONFLICT) {
                    out.add(ic);
                }
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ the catalog

    @Test
    void theCatalogDeclaresEndpointsAndUniqueColumnsAndRefusesWhatCannotHold() {
        Catalog c = Catalog.fromJson(catalog("table"));
        assertThat(c.require("works_at").srcTable()).contains("person");
        assertThat(c.require("works_at").dstTable()).contains("company");
        assertThat(c.require("person").unique()).containsExactly("email");
        assertThat(c.require("knows").declaresIntegrity()).isFalse();
        assertThat(Catalog.fromJson(c.toJson())).isEqualTo(c);
        assertThat(c.endpointsInto("person")).containsExactly(new Catalog.Endpoint("works_at", "src", "person"));

        String node = "{\"name\": \"p\", \"kind\": \"node\", \"columns\": [{\"name\": \"id\", \"type\": \"string\"},"
                + " {\"name\": \"n\", \"type\": \"int64\", \"nullable\": true}, {\"name\": \"v\", \"type\": {\"vector\": \"float32\", \"dim\": 2}, \"nullable\": true}]";
        String edge = "{\"name\": \"e\", \"kind\": \"edge\", \"columns\": [{\"name\": \"id\", \"type\": \"string\"},"
                + " {\"name\": \"src\", \"type\": \"string\"}, {\"name\": \"dst\", \"type\": \"int64\"}]";
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [" + node + "}, " + edge + ", \"src\": \"q\"}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("\"src\" names table 'q', which the catalog does not declare");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [" + node + "}, " + edge + ", \"dst\": \"p\"}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("column 'dst' is int64 but the ids of table 'p' are string");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [" + node + ", \"src\": \"p\"}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("this table is node");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [" + node + ", \"unique\": [\"id\"]}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("cannot list 'id'");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [" + node + ", \"unique\": [\"mail\"]}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("names column 'mail', which the table does not declare");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [" + node + ", \"unique\": [\"v\"]}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("only scalar columns can be unique");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [" + node + ", \"unique\": \"n\"}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("must be an array of column names");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [" + node + ", \"unique\": [\"n\", \"n\"]}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("lists column 'n' twice");
        // a catalog without the new keys has the canonical form (and digest) it had before they existed
        Catalog plain = Catalog.fromJson("{\"tables\": [" + node + "}]}");
        assertThat(plain.toJson()).doesNotContain("unique", "\"src\"", "\"dst\"");
        assertThat(plain.declaresIntegrity()).isFalse();
    }

    // ------------------------------------------------------------------ endpoints

    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void anEdgeNeedsItsEndpointsAndANodeWithEdgesCannotBeDeleted(String ack) {
        try (Graph g = create(ack)) {
            g.insert("main", "person", List.of(person("alice", null), person("bob", null)));
            g.insert("main", "company", List.of(Row.of("id", "acme")));
            g.insert("main", "works_at", List.of(edge("e1", "alice", "acme")));

            assertThatThrownBy(() -> g.insert("main", "works_at", List.of(edge("e2", "bob", "acme"), edge("e3", "carol", "initech"))))
                    .isInstanceOfSatisfying(EndpointConflictException.class, e -> {
                        assertThat(e.situation()).isEqualTo(EndpointConflictException.Situation.MISSING_ENDPOINT);
                        assertThat(e.keys()).containsExactly("carol");
                        assertThat(e.edges()).containsExactly("works_at/e3");
                        assertThat(e).hasMessageContaining("table 'person'");
                    });
            assertThat(ids(g, "works_at")).containsExactly("e1"); // the whole write refused, e2 with it
            assertThatThrownBy(() -> g.upsert("main", "works_at", List.of(edge("e1", "alice", "initech"))))
                    .isInstanceOfSatisfying(EndpointConflictException.class,
                            e -> assertThat(e.keys()).containsExactly("initech"));

            assertThatThrownBy(() -> g.delete("main", "person", List.of("bob", "alice")))
                    .isInstanceOfSatisfying(EndpointConflictException.class, e -> {
                        assertThat(e.situation()).isEqualTo(EndpointConflictException.Situation.NODE_HAS_EDGES);
                        assertThat(e.keys()).containsExactly("alice");
                        assertThat(e.edges()).containsExactly("works_at/e1 (src)");
                    });
            assertThatThrownBy(() -> g.delete("main", "company", List.of("acme")))
                    .isInstanceOf(EndpointConflictException.class).hasMessageContaining("works_at/e1 (dst)");
            assertThat(ids(g, "person")).containsExactlyInAnyOrder("alice", "bob");

            // the edge moved to another person frees alice; deleting the edge frees bob and acme
            g.upsert("main", "works_at", List.of(edge("e1", "bob", "acme")));
            assertThat(g.delete("main", "person", List.of("alice")).rows()).isEqualTo(1);
            assertThatThrownBy(() -> g.delete("main", "person", List.of("bob"))).isInstanceOf(EndpointConflictException.class);
            g.delete("main", "works_at", List.of("e1"));
            assertThat(g.delete("main", "person", List.of("bob")).rows()).isEqualTo(1);
            assertThat(g.delete("main", "company", List.of("acme")).rows()).isEqualTo(1);
            // an edge table without declared endpoints keeps today's behaviour
            g.insert("main", "knows", List.of(edge("k1", "nobody", "no-one")));

            List<JournalEvent.IntentCompleted> refused = integrityCompletions(g);
            assertThat(refused).hasSize(5);
            assertThat(refused.get(0).reason()).startsWith("endpoint conflict: table 'works_at'");
            assertThat(refused.get(0).conflictingKeys()).containsExactly("carol");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void theChecksHoldAcrossAReopenAndAFold(String ack) {
        try (Graph g = create(ack)) {
            g.insert("main", "person", List.of(person("alice", "a@x"), person("bob", "b@x")));
            g.insert("main", "company", List.of(Row.of("id", "acme")));
            g.insert("main", "works_at", List.of(edge("e1", "alice", "acme")));
        }
        try (Graph g = Palisade.open(dir.resolve("g"), options())) {
            assertThatThrownBy(() -> g.delete("main", "person", List.of("alice"))).isInstanceOf(EndpointConflictException.class);
            assertThatThrownBy(() -> g.insert("main", "person", List.of(person("carol", "b@x"))))
                    .isInstanceOf(UniqueConflictException.class);
            g.insert("main", "person", List.of(person("carol", "c@x")));
            g.awaitFold();
            assertThatThrownBy(() -> g.insert("main", "person", List.of(person("dave", "c@x"))))
                    .isInstanceOfSatisfying(UniqueConflictException.class, e -> assertThat(e.holder()).isEqualTo("carol"));
            g.delete("main", "works_at", List.of("e1"));
            g.awaitFold();
            assertThat(g.delete("main", "person", List.of("alice")).rows()).isEqualTo(1);
        }
    }

    // ------------------------------------------------------------------ unique columns

    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void aUniqueValueIsHeldByOneIdAtATime(String ack) {
        try (Graph g = create(ack)) {
            g.insert("main", "person", List.of(person("alice", "a@x"), person("bob", null), person("carol", null)));
            // a null is not a value: two rows may both have none
            assertThatThrownBy(() -> g.insert("main", "person", List.of(person("dave", "a@x"))))
                    .isInstanceOfSatisfying(UniqueConflictException.class, e -> {
                        assertThat(e.column()).isEqualTo("email");
                        assertThat(e.value()).isEqualTo("a@x");
                        assertThat(e.holder()).isEqualTo("alice");
                        assertThat(e.writer()).isEqualTo("dave");
                    });
            // two rows of one write with the same value
            assertThatThrownBy(() -> g.upsert("main", "person", List.of(person("bob", "b@x"), person("carol", "b@x"))))
                    .isInstanceOfSatisfying(UniqueConflictException.class, e -> assertThat(e.holder()).isEqualTo("bob"));
            // two rows of one write may swap their values: the write's rows take effect at once
            g.upsert("main", "person", List.of(person("bob", "s1"), person("carol", "s2")));
            g.upsert("main", "person", List.of(person("bob", "s2"), person("carol", "s1")));
            g.upsert("main", "person", List.of(person("bob", null), person("carol", null)));
            // the holder may write its own value again, and give it up
            g.upsert("main", "person", List.of(person("alice", "a@x")));
            g.upsert("main", "person", List.of(person("alice", "new@x")));
            g.upsert("main", "person", List.of(person("bob", "a@x")));
            assertThatThrownBy(() -> g.update("main", "person", List.of(Row.of("id", "carol", "email", "new@x"))))
                    .isInstanceOf(UniqueConflictException.class);
            // a deleted row's value is free
            g.delete("main", "person", List.of("alice"));
            g.update("main", "person", List.of(Row.of("id", "carol", "email", "new@x")));
            Map<String, Object> emails = new HashMap<>();
            g.scan("main", "person").forEach(r -> emails.put(String.valueOf(r.get("id")), r.get("email")));
            assertThat(emails).containsEntry("bob", "a@x").containsEntry("carol", "new@x").hasSize(2);
            assertThat(integrityCompletions(g)).hasSize(3);
            assertThat(g.metrics().integrityConflicts()).isEqualTo(3);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void imagesPastTheirRowBoundAreDroppedAndRebuiltAndTheAnswersStayExact(String ack) {
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(catalog(ack)), options().withMaxImageRows(3))) {
            g.insert("main", "person", List.of(person("a", "x"), person("b", "y")));
            g.insert("main", "company", List.of(Row.of("id", "c1")));
            g.insert("main", "works_at", List.of(edge("e1", "a", "c1")));
            g.createBranch("dev", "main");
            for (String branch : List.of("main", "dev", "main", "dev")) {
                assertThatThrownBy(() -> g.delete(branch, "person", List.of("a"))).isInstanceOf(EndpointConflictException.class);
                assertThatThrownBy(() -> g.insert(branch, "person", List.of(person("z", "x"))))
                        .isInstanceOf(UniqueConflictException.class);
                assertThatThrownBy(() -> g.insert(branch, "works_at", List.of(edge("e2", "zed", "c1"))))
                        .isInstanceOf(EndpointConflictException.class);
            }
            // five images (person, company and works_at on main; person and works_at on dev) never fit in three rows:
            // each was dropped and built again, and every answer above was still exact
            assertThat(g.metrics().integrityImageBuilds()).isGreaterThan(5);
            g.upsert("dev", "person", List.of(person("a", "moved")));
            g.insert("dev", "person", List.of(person("z", "x")));
            assertThatThrownBy(() -> g.insert("main", "person", List.of(person("z", "x")))).isInstanceOf(UniqueConflictException.class);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void writesQueuedTogetherKeepTheirOrderAcrossTablesAnEndpointTies(String ack) throws Exception {
        try (Graph g = create(ack)) {
            g.insert("main", "person", List.of(person("ann", null)));
            g.insert("main", "company", List.of(Row.of("id", "acme")));
            // hold the committer so that the writes below are queued together, in this order
            CountDownLatch hold = new CountDownLatch(1);
            CountDownLatch held = new CountDownLatch(1);
            CompletableFuture<Object> holder = CompletableFuture.supplyAsync(() -> g.engine().onCommitter(() -> {
                held.countDown();
                hold.await();
                return null;
            }));
            held.await();
            List<CompletableFuture<Receipt>> writes = new ArrayList<>();
            try (var e0 = root(g, "works_at", Map.of("id", "e0", "src", "ann", "dst", "acme"));
                 var nina = root(g, "person", Map.of("id", "nina"));
                 var e1 = root(g, "works_at", Map.of("id", "e1", "src", "nina", "dst", "acme"))) {
                writes.add(g.insertAsync("main", "works_at", e0, WriteOptions.NONE));
                writes.add(g.insertAsync("main", "person", nina, WriteOptions.NONE));
                writes.add(g.insertAsync("main", "works_at", e1, WriteOptions.NONE));
                // and the other way: the edge's delete before its node's
                writes.add(g.deleteAsync("main", "works_at", List.of("e0"), WriteOptions.NONE));
                writes.add(g.deleteAsync("main", "person", List.of("ann"), WriteOptions.NONE));
                hold.countDown();
                holder.join();
                for (CompletableFuture<Receipt> w : writes) {
                    w.join(); // every write succeeds: none overtook the write it depends on
                }
            }
            assertThat(ids(g, "works_at")).containsExactly("e1");
            assertThat(ids(g, "person")).containsExactly("nina");
        }
    }

    private org.apache.arrow.vector.VectorSchemaRoot root(Graph g, String table, Map<String, Object> row) {
        var r = org.apache.arrow.vector.VectorSchemaRoot.create(g.catalog().require(table).arrowSchema(), allocator);
        io.palisade.substrate.ArrowRows.fill(r, List.of(row));
        return r;
    }

    @Test
    void aGraphBranchDeletedAndCreatedAgainDoesNotInheritTheDeletedOnesUnfoldedWrites() {
        try (Graph g = create("journal")) {
            g.insert("main", "person", List.of(person("bob", null)));
            g.insert("main", "company", List.of(Row.of("id", "c1")));
            g.createBranch("feat", "main");
            g.insert("feat", "person", List.of(person("ghost", "g@x")));
            assertThatThrownBy(() -> g.insert("feat", "person", List.of(person("carol", "g@x"))))
                    .isInstanceOf(UniqueConflictException.class);
            g.deleteBranch("feat");
            g.createBranch("feat", "main");
            assertThat(ids(g, "person")).containsExactly("bob");
            assertThatThrownBy(() -> g.insert("feat", "works_at", List.of(edge("e1", "ghost", "c1"))))
                    .isInstanceOf(EndpointConflictException.class);
            g.insert("feat", "person", List.of(person("carol", "g@x")));
        }
    }

    @Test
    void overwritesOfConstrainedTablesAreRefusedWithNothingWritten() {
        try (Graph g = create("table")) {
            g.insert("main", "person", List.of(person("alice", "a@x")));
            try (var rows = org.apache.arrow.vector.VectorSchemaRoot.create(g.catalog().require("person").arrowSchema(), allocator)) {
                io.palisade.substrate.ArrowRows.fill(rows, List.of(Map.of("id", "zed")));
                assertThatThrownBy(() -> g.overwrite("main", "person", rows)).isInstanceOf(ValidationException.class)
                        .hasMessageContaining("integrity declarations");
            }
            assertThat(ids(g, "person")).containsExactly("alice");
        }
    }

    // ------------------------------------------------------------------ races

    /** Runs {@code tasks} at once on {@code threads} threads, each waiting for all to be ready; their outcomes. */
    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void anEdgeInsertRacingItsEndpointsDeleteNeverLeavesADanglingEdge(String ack) throws Exception {
        try (Graph g = create(ack)) {
            int n = 16;
            List<Row> people = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                people.add(person("p" + i, null));
            }
            g.insert("main", "person", people);
            g.insert("main", "company", List.of(Row.of("id", "acme")));
            List<java.util.concurrent.Callable<Receipt>> tasks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String p = "p" + i;
                tasks.add(() -> g.insert("main", "works_at", List.of(edge("e" + p, p, "acme"))));
                tasks.add(() -> g.delete("main", "person", List.of(p)));
            }
            List<Throwable> outcomes = race(32, tasks);
            for (int i = 0; i < n; i++) {
                Throwable edge = outcomes.get(2 * i);
                Throwable delete = outcomes.get(2 * i + 1);
                // exactly one of the two wins: the edge first refuses the delete, the delete first refuses the edge
                assertThat(edge == null ^ delete == null).as("p%d: edge %s, delete %s", i, edge, delete).isTrue();
                assertThat(edge == null ? delete : edge).isInstanceOf(EndpointConflictException.class);
            }
            Set<String> persons = ids(g, "person");
            for (Map<String, Object> e : g.scan("main", "works_at")) {
                assertThat(persons).as("edge %s", e.get("id")).contains(String.valueOf(e.get("src")));
            }
            // each person left has its edge; each person deleted has none
            assertThat(g.scan("main", "works_at")).hasSize(persons.size());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void writesOfOneUniqueValueUnderDifferentIdsLetExactlyOneWin(String ack) throws Exception {
        try (Graph g = create(ack)) {
            List<java.util.concurrent.Callable<Receipt>> tasks = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                String id = "p" + i;
                // half strict inserts, half upserts: both are checked
                tasks.add(i % 2 == 0 ? () -> g.insert("main", "person", List.of(person(id, "same@x")))
                        : () -> g.upsert("main", "person", List.of(person(id, "same@x"))));
            }
            List<Throwable> outcomes = race(32, tasks);
            assertThat(outcomes.stream().filter(o -> o == null).count()).isEqualTo(1);
            assertThat(outcomes.stream().filter(o -> o != null)).allSatisfy(o -> assertThat(o).isInstanceOf(UniqueConflictException.class));
            assertThat(g.scan("main", "person")).hasSize(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void insertsOfOneNewKeyFromManyWritersLetExactlyOneWin(String ack) throws Exception {
        try (Graph g = create(ack)) {
            List<java.util.concurrent.Callable<Receipt>> tasks = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                String email = "m" + i + "@x";
                tasks.add(() -> g.insert("main", "person", List.of(person("same", email))));
            }
            List<Throwable> outcomes = race(32, tasks);
            assertThat(outcomes.stream().filter(o -> o == null).count()).isEqualTo(1);
            assertThat(outcomes.stream().filter(o -> o != null)).allSatisfy(o -> assertThat(o).isInstanceOf(KeyConflictException.class));
            assertThat(g.scan("main", "person")).hasSize(1);
        }
    }
}
