package io.palisade.coordinator;

import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.WriterFencedException;
import io.palisade.journal.JournalReader;
import io.palisade.journal.KafkaJournalConfig;
import io.palisade.journal.KafkaClusterExtension;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The coordinator's main flows with the journal on Kafka (one in-process KRaft node for the class). */
class KafkaJournalGraphTest extends GraphTestSupport {
    @org.junit.jupiter.api.extension.RegisterExtension
    static final KafkaClusterExtension KAFKA = new KafkaClusterExtension(1);

    private static Map<String, Object> byId(List<Map<String, Object>> rows, String id) {
        return rows.stream().filter(r -> id.equals(r.get("id"))).findFirst().orElseThrow();
    }

    @Test
    void writesWithAKeyConflictAndReopenReplayTheKafkaJournal() {
        Path p = dir.resolve("g");
        KafkaJournalConfig journal = KAFKA.cluster().newJournal("g");
        Receipt upserted;
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults(), journal);
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30, "bob", 40);
             VectorSchemaRoot again = Rows.people(allocator, "alice", 99, "carol", 5);
             VectorSchemaRoot b = Rows.people(allocator, "alice", 31)) {
            g.insert("main", "person", a);
            long before = g.state().head("main", "person").orElseThrow().version();
            assertThatThrownBy(() -> g.insert("main", "person", again)).isInstanceOf(KeyConflictException.class)
                    .satisfies(e -> assertThat(((KeyConflictException) e).keys()).containsExactly("alice"));
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(before);
            upserted = g.upsert("main", "person", b);
        }
        assertThat(KafkaJournalConfig.read(p.resolve("_palisade"))).hasValue(journal);
        assertThat(p.resolve("_palisade").resolve("journal")).doesNotExist(); // no Chronicle segment was written
        try (Graph g = Palisade.open(p, Options.defaults());
             VectorSchemaRoot c = Rows.people(allocator, "carol", 5)) {
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(upserted.version());
            List<Map<String, Object>> rows = g.scan("main", "person");
            assertThat(rows).hasSize(2);
            assertThat(byId(rows, "alice").get("age")).isEqualTo(31L);
            Receipt r = g.insert("main", "person", c);
            assertThat(r.seq()).isGreaterThan(upserted.seq());
        }
        try (JournalReader r = JournalReader.open(p.resolve("_palisade"))) {
            assertThat(r.verify().ok()).isTrue();
        }
    }

    @Test
    void aSecondCoordinatorFencesTheFirstWhoseNextWriteFailsBeforeAnyLanceCommit() {
        Path p = dir.resolve("g");
        try (Graph first = Palisade.create(p, Rows.catalog(), Options.defaults(), KAFKA.cluster().newJournal("g"));
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30);
             VectorSchemaRoot zombie = Rows.people(allocator, "zed", 1);
             VectorSchemaRoot d = Rows.people(allocator, "dora", 2)) {
            first.insert("main", "person", a);
            try (Graph second = Palisade.open(p, Options.defaults())) {
                long version = second.state().head("main", "person").orElseThrow().version();
                assertThatThrownBy(() -> first.insert("main", "person", zombie))
                        .isInstanceOf(WriterFencedException.class);
                assertThatThrownBy(() -> first.upsert("main", "person", zombie))
                        .isInstanceOf(WriterFencedException.class);
                // the fenced writer's Phase A failed: no Lance commit of it exists
                assertThat(second.scan("main", "person")).extracting(r -> r.get("id")).containsExactly("alice");
                Receipt r = second.insert("main", "person", d);
                assertThat(r.version()).isEqualTo(version + 1);
                assertThat(second.scan("main", "person")).extracting(x -> x.get("id"))
                        .containsExactlyInAnyOrder("alice", "dora");
            }
        }
    }
}
