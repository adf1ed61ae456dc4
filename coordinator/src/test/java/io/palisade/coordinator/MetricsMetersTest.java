package io.palisade.coordinator;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.palisade.fencing.KeyConflictException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A graph's meters bound in an embedder's registry (docs/coordinator.md, "Metrics"): the counts equal the writes made
 * on each acknowledgement path, the timers have percentiles, the gauges read the graph's state, and closing the graph
 * removes them.
 */
class MetricsMetersTest extends GraphTestSupport {
    /** {@code city} is acknowledged after its table commit, {@code person} from the journal. */
    static final String CATALOG = """
            {"tables": [{"name": "city", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]},
             {"name": "person", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]}]}
            """;

    private static List<Row> row(String id, int age) {
        return List.of(Row.of("id", id, "age", age));
    }

    private static double counter(MeterRegistry r, String name, String... tags) {
        return r.get(name).tags(tags).functionCounter().count();
    }

    private static double gauge(MeterRegistry r, String name, String... tags) {
        return r.get(name).tags(tags).gauge().value();
    }

    private static Timer timer(MeterRegistry r, String name, String... tags) {
        return r.get(name).tags(tags).timer();
    }

    private static double p99(Timer t) {
        for (ValueAtPercentile v : t.takeSnapshot().percentileValues()) {
            if (v.percentile() == 0.99) {
                return v.value(TimeUnit.NANOSECONDS);
            }
        }
        throw new AssertionError(t.getId() + " publishes no 0.99 percentile");
    }

    private static List<Row> cities(int from, int n, int age) {
        List<Row> out = new java.util.ArrayList<>(n);
        for (int i = from; i < from + n; i++) {
            out.add(Row.of("id", "c" + i, "age", age));
        }
        return out;
    }

    @Test
    void eachMergeIsCountedUnderThePlanLanceRanItWith() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Graph g = Palisade.create(dir.resolve("plans"), Catalog.fromJson(CATALOG), JournalAckTest.noAutoFold())) {
            g.metrics().bindTo(registry);
            int table = 20_000;
            g.insert("main", "city", cities(0, table, 1));
            g.optimizeIndex("main", "city"); // the id index covers the whole table: the indexed plan is the table's
            long indexed = g.metrics().mergesIndexed();
            long scanned = g.metrics().mergesScanned();

            g.upsert("main", "city", cities(7, 1, 2)); // one row: the indexed plan
            assertThat(g.metrics().mergesIndexed()).isEqualTo(indexed + 1);
            assertThat(g.metrics().mergesScanned()).isEqualTo(scanned);

            int large = 15_000; // rows × table rows = 3·10⁸: the scan plan costs less (MergeCost)
            assertThat(io.palisade.substrate.MergeCost.scanCheaper(large, table)).isTrue();
            g.upsert("main", "city", cities(0, large, 3));
            assertThat(g.metrics().mergesIndexed()).isEqualTo(indexed + 1);
            assertThat(g.metrics().mergesScanned()).isEqualTo(scanned + 1);
            assertThat(counter(registry, "palisade.merges", "plan", "scan")).isEqualTo(scanned + 1);
            assertThat(counter(registry, "palisade.merges", "plan", "indexed")).isEqualTo(indexed + 1);
            java.util.Map<String, Row> got = g.get("main", "city", List.of("c0", "c7", "c19999"));
            assertThat(got.get("c0").get("age")).isEqualTo(3L);
            assertThat(got.get("c7").get("age")).isEqualTo(3L);
            assertThat(got.get("c19999").get("age")).isEqualTo(1L);
        }
    }

    @Test
    void theBinderPublishesTheWritesOfBothAcknowledgementPathsTheirLatenciesAndTheGraphsState() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Graph g = Palisade.create(dir.resolve("orders"), Catalog.fromJson(CATALOG), JournalAckTest.noAutoFold())) {
            g.metrics().bindTo(registry);
            assertThat(g.metrics().graphName()).isEqualTo("orders");

            // four table-ack writes, one of them repeated under its idempotency key, and a strict insert of a held key
            g.insert("main", "city", List.of(Row.of("id", "paris", "age", 1), Row.of("id", "rome", "age", 2)));
            g.upsert("main", "city", row("paris", 3));
            g.delete("main", "city", List.of("rome"));
            g.upsert("main", "city", row("oslo", 4), WriteOptions.idempotencyKey("req-1"));
            g.upsert("main", "city", row("oslo", 4), WriteOptions.idempotencyKey("req-1"));
            assertThatThrownBy(() -> g.insert("main", "city", row("paris", 5))).isInstanceOf(KeyConflictException.class);
            // three journal-ack writes and a strict insert of a key the unfolded tail holds
            g.insert("main", "person", row("alice", 30));
            g.upsert("main", "person", row("bob", 40));
            g.upsert("main", "person", row("alice", 31));
            assertThatThrownBy(() -> g.insert("main", "person", row("bob", 41))).isInstanceOf(KeyConflictException.class);

            String[] orders = {"graph", "orders"};
            assertThat(counter(registry, "palisade.writes", "graph", "orders", "ack", "table")).isEqualTo(4);
            assertThat(counter(registry, "palisade.writes", "graph", "orders", "ack", "journal")).isEqualTo(3);
            // one journal append (one sync) per journal-ack group: the three writes, one at a time, and the refused insert
            assertThat(counter(registry, "palisade.write.groups", "graph", "orders", "ack", "journal")).isEqualTo(4);
            assertThat(counter(registry, "palisade.commits", orders)).isEqualTo(4);
            assertThat(counter(registry, "palisade.conflicts", "graph", "orders", "kind", "key")).isEqualTo(2);
            assertThat(counter(registry, "palisade.conflicts", "graph", "orders", "kind", "write")).isZero();
            assertThat(counter(registry, "palisade.idempotent.replays", orders)).isEqualTo(1);
            assertThat(counter(registry, "palisade.folds", "graph", "orders", "table", "person")).isZero();

            Timer tableAck = timer(registry, "palisade.write.ack", "graph", "orders", "ack", "table");
            Timer journalAck = timer(registry, "palisade.write.ack", "graph", "orders", "ack", "journal");
            assertThat(tableAck.count()).isEqualTo(4);
            assertThat(journalAck.count()).isEqualTo(3);
            assertThat(p99(tableAck)).isPositive();
            assertThat(p99(journalAck)).isPositive();
            for (String phase : List.of("intent", "commit", "publish")) {
                Timer t = timer(registry, "palisade.write.phase", "graph", "orders", "phase", phase);
                assertThat(t.count()).as(phase).isEqualTo(5); // the four committed groups and the refused insert's
                assertThat(p99(t)).as(phase).isPositive();
            }

            // the unfolded writes of person, aged 20 minutes by the graph's clock (nothing waits on wall time)
            g.engine().clock(() -> System.currentTimeMillis() + 1_200_000);
            assertThat(gauge(registry, "palisade.unfolded.writes", "graph", "orders", "table", "person")).isEqualTo(3);
            assertThat(gauge(registry, "palisade.unfolded.bytes", "graph", "orders", "table", "person")).isPositive();
            assertThat(registry.get("palisade.fold.lag").tags("graph", "orders", "table", "person").timeGauge()
                    .value(TimeUnit.SECONDS)).isGreaterThanOrEqualTo(1_200);
            assertThat(gauge(registry, "palisade.heads.intents", "graph", "orders", "state", "open")).isZero();
            assertThat(gauge(registry, "palisade.heads.intents", "graph", "orders", "state", "completed"))
                    .isGreaterThanOrEqualTo(7);
            assertThat(gauge(registry, "palisade.heads.idempotency.keys", orders)).isEqualTo(1);
            assertThat(gauge(registry, "palisade.write.group.largest", orders)).isEqualTo(1);

            // a branch folds person first: one fold of its three writes, and nothing left unfolded
            g.createBranch("dev", "main");
            assertThat(counter(registry, "palisade.folds", "graph", "orders", "table", "person")).isEqualTo(1);
            assertThat(counter(registry, "palisade.fold.writes", "graph", "orders", "table", "person")).isEqualTo(3);
            assertThat(counter(registry, "palisade.fold.rows", "graph", "orders", "table", "person")).isEqualTo(2);
            assertThat(timer(registry, "palisade.fold", "graph", "orders", "table", "person").count()).isEqualTo(1);
            assertThat(gauge(registry, "palisade.unfolded.writes", "graph", "orders", "table", "person")).isZero();
            assertThat(registry.get("palisade.fold.lag").tags("graph", "orders", "table", "person").timeGauge()
                    .value(TimeUnit.SECONDS)).isZero();

            // the graph's own read methods read the same meters
            Metrics.Snapshot s = g.metrics().snapshot();
            assertThat(s.commits()).isEqualTo(7);
            assertThat(s.substrateCommits()).isEqualTo(4);
            assertThat(s.keyConflicts()).isEqualTo(2);
            assertThat(s.idempotentReplays()).isEqualTo(1);
            assertThat(g.metrics().journalAcks()).isEqualTo(3);
            assertThat(g.metrics().journalAckGroups()).isEqualTo(4);
            assertThat(g.metrics().folds()).isEqualTo(1);
            assertThat(g.metrics().foldedWrites()).isEqualTo(3);
            assertThat(g.metrics().foldNanos()).isPositive();
        }
        assertThat(registry.getMeters()).as("closing the graph removes its meters").isEmpty();
    }

    @Test
    void aRegistryBoundLateCountsFromTheOpenAndTimesFromItsBinding() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), JournalAckTest.noAutoFold())) {
            g.upsert("main", "city", row("paris", 1));
            g.upsert("main", "person", row("alice", 1));
            g.metrics().binder("billing").bindTo(registry);
            g.metrics().binder("billing").bindTo(registry); // again: nothing more
            g.upsert("main", "city", row("paris", 2));

            assertThat(counter(registry, "palisade.writes", "graph", "billing", "ack", "table")).isEqualTo(2);
            assertThat(counter(registry, "palisade.writes", "graph", "billing", "ack", "journal")).isEqualTo(1);
            assertThat(timer(registry, "palisade.write.ack", "graph", "billing", "ack", "table").count()).isEqualTo(1);
            assertThat(timer(registry, "palisade.write.ack", "graph", "billing", "ack", "journal").count()).isZero();
            assertThat(registry.find("palisade.writes").tag("graph", "g").meters()).isEmpty();
            assertThatThrownBy(() -> g.metrics().bindTo(registry)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("as graph 'billing'");
        }
    }

    @Test
    void twoGraphsOfOneNameAreNotMixedInOneRegistry() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Graph a = Palisade.create(dir.resolve("a").resolve("graph"), Catalog.fromJson(CATALOG), Options.defaults());
             Graph b = Palisade.create(dir.resolve("b").resolve("graph"), Catalog.fromJson(CATALOG), Options.defaults())) {
            a.metrics().bindTo(registry);
            assertThatThrownBy(() -> b.metrics().bindTo(registry)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("another graph named 'graph'");
            b.metrics().binder("graph-b").bindTo(registry);
            b.upsert("main", "city", row("paris", 1));
            assertThat(counter(registry, "palisade.writes", "graph", "graph", "ack", "table")).isZero();
            assertThat(counter(registry, "palisade.writes", "graph", "graph-b", "ack", "table")).isEqualTo(1);
            b.close();
            assertThat(registry.find("palisade.writes").tag("graph", "graph-b").meters()).isEmpty();
            assertThat(registry.find("palisade.writes").tag("graph", "graph").meters()).hasSize(2);
            assertThatThrownBy(() -> b.metrics().binder("again").bindTo(registry))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        }
    }
}
