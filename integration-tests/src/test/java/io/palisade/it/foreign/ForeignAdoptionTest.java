package io.palisade.it.foreign;

import io.palisade.substrate.lance.ForeignLanceWriter;
import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.journal.JournalReader;
import io.palisade.journal.RecoveryClassification;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * "Adoption validates before it publishes": a foreign Lance writer commits to a graph's keyed
 * table with the Lance Java API; {@code Palisade.open(path, options, true)} (what {@code recover
 * --adopt-foreign} runs) either adopts the version cleanly or refuses it with nothing published.
 */
class ForeignAdoptionTest {
    static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]},
             {"name": "log", "kind": "append-only", "columns": [{"name": "msg", "type": "string", "nullable": true}]}]}
            """;

    @TempDir
    Path dir;
    Path graph;
    long head;

    /** alice, bob and carol, one write each (three fragments, so a compaction has work). */
    @BeforeEach
    void graphWithThreePeople() {
        graph = dir.resolve("g");
        try (Graph g = Palisade.create(graph, Catalog.fromJson(CATALOG), Options.defaults())) {
            insert(g, "alice", 30L);
            insert(g, "bob", 40L);
            insert(g, "carol", 50L);
            head = g.state().head("main", "person").orElseThrow().version();
        }
    }

    @Test
    void aFreshIdAppendIsAdoptedCleanly() {
        long v;
        try (ForeignLanceWriter w = new ForeignLanceWriter(graph, "person")) {
            v = w.append("dave", 60L);
        }
        adoptsCleanly(v, Map.of("alice", 30L, "bob", 40L, "carol", 50L, "dave", 60L));
    }

    @Test
    void anUpsertOfExistingIdsIsAdoptedCleanly() {
        long v;
        try (ForeignLanceWriter w = new ForeignLanceWriter(graph, "person")) {
            v = w.upsert("alice", 31L, "bob", 41L);
        }
        adoptsCleanly(v, Map.of("alice", 31L, "bob", 41L, "carol", 50L));
    }

    @Test
    void aDeleteIsAdoptedCleanly() {
        long v;
        try (ForeignLanceWriter w = new ForeignLanceWriter(graph, "person")) {
            v = w.delete("id = 'bob'");
        }
        adoptsCleanly(v, Map.of("alice", 30L, "carol", 50L));
    }

    @Test
    void aCompactionIsAdoptedCleanly() {
        long v;
        try (ForeignLanceWriter w = new ForeignLanceWriter(graph, "person")) {
            v = w.compact();
        }
        assertThat(v).as("Lance compacted the three fragments").isGreaterThan(head);
        adoptsCleanly(v, Map.of("alice", 30L, "bob", 40L, "carol", 50L));
    }

    @Test
    void aDuplicateIdAppendIsRefusedNamingTheKeysWithNothingPublished() {
        long v;
        try (ForeignLanceWriter w = new ForeignLanceWriter(graph, "person")) {
            v = w.append("alice", 99L, "dave", 60L, "bob", 98L, "bob", 97L);
        }
        ForeignCommitException e = refusedWithNothingPublished(v);
        assertThat(e.duplicatesChecked()).isTrue();
        assertThat(e.duplicateKeys()).containsExactly("alice", "bob");
        assertThat(e.getMessage()).contains("holds 2 ids more than once (3 extra rows)")
                .contains("'alice' (2 rows), 'bob' (3 rows)");
    }

    @Test
    void aPkStrippingOverwriteIsRefusedWithNothingPublished() {
        long v;
        try (ForeignLanceWriter w = new ForeignLanceWriter(graph, "person")) {
            v = w.overwriteStrippingPk("alice", 30L, "zed", 1L);
        }
        ForeignCommitException e = refusedWithNothingPublished(v);
        assertThat(e.duplicatesChecked()).isTrue();
        assertThat(e.duplicateKeys()).isEmpty();
        assertThat(e.getMessage()).contains("no longer marks 'id' as the primary key");
    }

    private void adoptsCleanly(long version, Map<String, Long> expected) {
        assertThatThrownBy(() -> Palisade.open(graph, Options.defaults()))
                .isInstanceOfSatisfying(ForeignCommitException.class,
                        e -> assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.PENDING));
        try (Graph g = Palisade.open(graph, Options.defaults(), true)) {
            assertThat(g.recoveryReport().classifications()).extracting(RecoveryClassification::kind)
                    .containsExactly(RecoveryClassification.Kind.FOREIGN_COMMIT);
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(version);
            Map<String, Long> rows = new LinkedHashMap<>();
            for (Map<String, Object> r : g.scan("main", "person")) {
                assertThat(rows.put((String) r.get("id"), (Long) r.get("age"))).as("id %s once", r.get("id")).isNull();
            }
            assertThat(rows).isEqualTo(expected);
            insert(g, "erin", 70L); // the adopted head takes normal writes
        }
        try (Graph g = Palisade.open(graph, Options.defaults())) {
            assertThat(g.recoveryReport().changedAnything()).isFalse();
        }
    }

    private ForeignCommitException refusedWithNothingPublished(long version) {
        long endBefore = journalEnd();
        String digestBefore = digest();
        ForeignCommitException[] caught = new ForeignCommitException[1];
        assertThatThrownBy(() -> Palisade.open(graph, Options.defaults(), true))
                .isInstanceOfSatisfying(ForeignCommitException.class, e -> caught[0] = e);
        ForeignCommitException e = caught[0];
        assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.ADOPTION_REFUSED);
        assertThat(e.table()).isEqualTo("person");
        assertThat(e.graphBranch()).isEqualTo("main");
        assertThat(e.tableBranch()).isEqualTo("main");
        assertThat(e.journalVersion()).isEqualTo(head);
        assertThat(e.latestVersion()).isEqualTo(version);
        List<Long> versions = new ArrayList<>();
        for (long x = head + 1; x <= version; x++) {
            versions.add(x);
        }
        assertThat(e.foreignVersions()).isEqualTo(versions);
        assertThat(e.getMessage()).contains("table 'person'").contains("graph branch 'main'")
                .contains("table branch 'main'").contains("head version " + head).contains("Nothing was published")
                .doesNotContain("Palisade.open").doesNotContain("[ref=");
        // nothing journaled but the refused session's WriterStarted, the heads unchanged
        assertThat(journalEnd()).isEqualTo(endBefore + 1);
        assertThat(digest()).isEqualTo(digestBefore);
        // and the graph still refuses a normal open as pending
        assertThatThrownBy(() -> Palisade.open(graph, Options.defaults()))
                .isInstanceOfSatisfying(ForeignCommitException.class,
                        p -> assertThat(p.situation()).isEqualTo(ForeignCommitException.Situation.PENDING));
        return e;
    }

    private long journalEnd() {
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade"))) {
            return r.endSequence();
        }
    }

    private String digest() {
        return HeadsReplayer.of(graph.resolve("_palisade")).replay().state().digest();
    }

    static void insert(Graph g, String id, long age) {
        try (BufferAllocator a = new RootAllocator();
             VectorSchemaRoot root = VectorSchemaRoot.create(g.catalog().require("person").arrowSchema(), a)) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", id);
            r.put("age", age);
            ArrowRows.fill(root, List.of(r));
            g.insert("main", "person", root);
        }
    }
}
