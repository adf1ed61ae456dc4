package io.palisade.it.foreign;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Repair;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.journal.RecoveryClassification;
import io.palisade.substrate.lance.ForeignLanceWriter;
import io.palisade.substrate.s3.S3ProxyFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Foreign writers where they are likeliest: a graph's tables on an object store (S3Proxy in this JVM), where any
 * Lance client with the bucket's keys (LanceDB, pylance, Spark on another machine) can commit to them. A commit no
 * intent explains is found at the next open, adopted only on the operator's word and only if the version keeps the
 * key unique, and a refused one is repaired through a journaled intent, as on local disk (docs/scale-out.md).
 */
class ObjectStoreForeignTest {
    private final S3ProxyFixture s3 = S3ProxyFixture.shared();

    @TempDir
    Path dir;
    Path graph;
    String tables;
    long head;

    @BeforeEach
    void graphOnTheStoreWithTwoPeople() {
        graph = dir.resolve("g");
        tables = s3.freshUri();
        try (Graph g = Palisade.create(graph, Catalog.fromJson(ForeignAdoptionTest.CATALOG), Options.defaults(), tables,
                s3.storageOptions())) {
            ForeignAdoptionTest.insert(g, "alice", 30L);
            ForeignAdoptionTest.insert(g, "bob", 40L);
            head = g.state().head("main", "person").orElseThrow().version();
        }
    }

    private ForeignLanceWriter foreign() {
        return new ForeignLanceWriter(tables + "/person.lance", s3.storageOptions());
    }

    private Map<String, Long> people(Graph g) {
        Map<String, Long> rows = new LinkedHashMap<>();
        for (Map<String, Object> r : g.scan("main", "person")) {
            assertThat(rows.put((String) r.get("id"), (Long) r.get("age"))).as("id %s once", r.get("id")).isNull();
        }
        return rows;
    }

    @Test
    void aForeignUpsertOnTheStoreIsRefusedUntilAdoptedThenTakesWrites() {
        long v;
        try (ForeignLanceWriter w = foreign()) {
            v = w.upsert("alice", 31L, "carol", 50L);
        }
        assertThat(v).isGreaterThan(head);
        assertThatThrownBy(() -> Palisade.open(graph, Options.defaults(), s3.storageOptions()))
                .isInstanceOfSatisfying(ForeignCommitException.class, e -> {
                    assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.PENDING);
                    assertThat(e.journalVersion()).isEqualTo(head);
                    assertThat(e.latestVersion()).isEqualTo(v);
                });
        try (Graph g = Palisade.open(graph, Options.defaults(), true, s3.storageOptions())) {
            assertThat(g.recoveryReport().classifications()).extracting(RecoveryClassification::kind)
                    .containsExactly(RecoveryClassification.Kind.FOREIGN_COMMIT);
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(v);
            assertThat(people(g)).isEqualTo(Map.of("alice", 31L, "bob", 40L, "carol", 50L));
            ForeignAdoptionTest.insert(g, "dave", 60L);
        }
        try (Graph g = Palisade.open(graph, Options.defaults(), s3.storageOptions())) {
            assertThat(g.recoveryReport().changedAnything()).isFalse();
            assertThat(people(g)).containsEntry("dave", 60L).hasSize(4);
        }
    }

    @Test
    void aForeignDuplicateOnTheStoreIsRefusedWithNothingPublishedAndRepairedThroughTheJournal() {
        try (ForeignLanceWriter w = foreign()) {
            w.append("alice", 99L);
        }
        String digest = HeadsReplayer.of(graph.resolve("_palisade")).replay().state().digest();
        assertThatThrownBy(() -> Palisade.open(graph, Options.defaults(), true, s3.storageOptions()))
                .isInstanceOfSatisfying(ForeignCommitException.class, e -> {
                    assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.ADOPTION_REFUSED);
                    assertThat(e.duplicateKeys()).containsExactly("alice");
                });
        assertThat(HeadsReplayer.of(graph.resolve("_palisade")).replay().state().digest()).isEqualTo(digest);

        Repair.Report r = Repair.run(graph, Repair.Request.of("person", Repair.Duplicates.KEEP_NEWEST),
                s3.storageOptions());

        assertThat(r.status()).isEqualTo(Repair.Status.REPAIRED);
        assertThat(r.adoptedVersions()).containsExactly(head + 1);
        assertThat(r.removed()).singleElement().satisfies(x -> assertThat(x.values()).contains("\"age\":30"));
        try (Graph g = Palisade.open(graph, Options.defaults(), s3.storageOptions())) {
            assertThat(g.recoveryReport().changedAnything()).isFalse();
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(r.version());
            assertThat(people(g)).isEqualTo(Map.of("alice", 99L, "bob", 40L));
        }
        assertThat(dir.resolve("g").resolve("tables")).doesNotExist();
    }
}
