package io.palisade.coordinator.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.palisade.coordinator.Catalog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.DoubleSupplier;

/**
 * The meters of one open graph (docs/coordinator.md, "Metrics"): what its stages count and time as they run, and what
 * it gauges of its state. They live in the graph's own registry from the open to the close. {@link #bind} publishes
 * them in an embedder's registry under the same names, with a {@code graph} tag: there each counter and gauge reads the
 * graph's own meter (so a counter counts from the open), and each timer is a timer with percentiles and a histogram
 * that the graph records into from the binding on.
 *
 * <p>The stages hold the meters in fields: counting or timing a write is never a lookup. The meters of a table
 * ({@link TableMeters}) exist for its journal-ack tables only, and a fold or a back-pressure wait looks its table's up
 * once. Tags take a bounded set of values: the path, phase, kind or operation, and the catalog's table names.
 *
 * <p>Thread-safe. {@link #close} (with the graph) removes the meters from every registry they were bound to.
 */
public final class Meters implements AutoCloseable {
    /** Timers of a bound registry: percentiles and a histogram between these bounds. */
    private static final double[] PERCENTILES = {0.5, 0.99};
    private static final Duration SHORTEST = Duration.ofNanos(100_000);
    private static final Duration LONGEST = Duration.ofSeconds(60);
    /** The meter whose presence in a registry shows that a graph of a given name is bound there. */
    private static final String WRITES = "palisade.writes";

    /** A journal-ack table's meters: its folds and the acknowledgements that waited for one. */
    public record TableMeters(Counter folds, Counter foldedWrites, Counter foldedRows, Latency fold,
                              Latency backPressure) {
    }

    /** A registry the meters are published in, under a graph name, and the meters registered there. */
    private record Binding(MeterRegistry registry, String graph, List<Meter> meters) {
    }

    private final SimpleMeterRegistry own = new SimpleMeterRegistry();
    /** For each meter of the graph, how to publish it in a registry given the graph tag. */
    private final List<BiFunction<MeterRegistry, Tags, Meter>> publications = new ArrayList<>();
    private final List<Latency> latencies = new ArrayList<>();
    private final List<Binding> bindings = new ArrayList<>();
    private boolean closed;

    public final Counter tableAckWrites;
    public final Counter journalAckWrites;
    public final Counter journalAckGroups;
    public final Counter substrateCommits;
    public final Counter mergesIndexed;
    public final Counter mergesScanned;
    public final Counter keyConflicts;
    public final Counter integrityConflicts;
    public final Counter integrityImageBuilds;
    public final Counter transactions;
    public final Counter writeConflicts;
    public final Counter validationFailures;
    public final Counter retries;
    public final Counter idempotentReplays;
    public final Counter foreignCommits;
    public final Counter keyLookups;
    public final Counter keyFilterFalsePositives;
    public final Counter maintenanceCommits;
    public final Counter maintenanceReplans;
    public final Counter autoIndexRefreshes;
    public final Counter autoIndexRefreshFailures;
    public final Counter autoCompactions;
    public final Counter autoCompactionFailures;
    public final Counter versionCleanups;
    public final Counter versionCleanupFailures;
    public final Counter versionsExpired;
    public final Counter expiredBytes;
    public final Counter keysForgotten;
    public final Counter intentsForgotten;
    public final Counter journalRowsReleased;
    public final Counter journalRowBytesReleased;
    public final Counter journalReleaseFailures;
    public final Counter journalFilesArchived;
    public final Counter journalBytesArchived;

    public final Latency intentPhase;
    public final Latency commitPhase;
    public final Latency publishPhase;
    public final Latency tableAck;
    public final Latency journalAck;
    public final Latency maintenance;
    public final Latency keyLookup;
    public final Latency keyFilterBuild;

    private final AtomicLong largestGroup = new AtomicLong();
    private final AtomicLong longestMaintenanceNanos = new AtomicLong();
    private final Gauge largestGroupGauge;
    private final TimeGauge longestMaintenance;
    private final Map<String, TableMeters> tables = new LinkedHashMap<>();

    /** The meters of a graph with the tables of {@code catalog}; {@link #watch} adds the gauges of its state. */
    public Meters(Catalog catalog) {
        String writes = "Writes acknowledged with a receipt, by acknowledgement path: table (after their table commit;"
                + " a bulk load counts once) or journal (journal-ack tables, before their fold)";
        tableAckWrites = counter(WRITES, writes, "ack", "table");
        journalAckWrites = counter(WRITES, writes, "ack", "journal");
        journalAckGroups = counter("palisade.write.groups", "Acknowledgement groups of journal-ack writes: one journal "
                + "append and one sync each, whatever the number of writes in it", "ack", "journal");
        substrateCommits = counter("palisade.commits",
                "Table commits of writes: one per committed write group, one per bulk-load batch");
        String merges = "Merge-inserts of keyed writes and folds, by the plan Lance ran them with: indexed (each key"
                + " looked up in the id index) or scan (one scan of the key column joined by hash)";
        mergesIndexed = counter("palisade.merges", merges, "plan", "indexed");
        mergesScanned = counter("palisade.merges", merges, "plan", "scan");
        String conflicts = "Conflicts met, by kind: key (a strict insert met a key already held; the write is refused)"
                + ", write (a concurrent commit conflicted; retried, or refused once out of retries) or integrity (an edge"
                + " endpoint, a node with edges or a unique value; the write is refused)";
        keyConflicts = counter("palisade.conflicts", conflicts, "kind", "key");
        integrityConflicts = counter("palisade.conflicts", conflicts, "kind", "integrity");
        transactions = counter("palisade.transactions", "Graph transactions committed (each one commit point in the "
                + "journal, whatever the number of its parts)");
        integrityImageBuilds = counter("palisade.integrity.image.builds", "Images of a table's ids and checked columns "
                + "built for the integrity checks: one scan of the table each (on first use, after the table moved by a "
                + "path that does not advance them, or after one was dropped past maxImageRows)");
        writeConflicts = counter("palisade.conflicts", conflicts, "kind", "write");
        validationFailures = counter("palisade.validation.failures",
                "Writes refused as invalid (including an idempotency key repeated with another request)");
        retries = counter("palisade.retries", "Retries of a commit or a maintenance plan after a conflict");
        idempotentReplays = counter("palisade.idempotent.replays",
                "Writes answered with the receipt their idempotency key already had");
        foreignCommits = counter("palisade.foreign.commits",
                "Commits that Lance rebased over a version no intent of this graph explains (none acknowledged)");
        keyLookups = counter("palisade.key.lookups",
                "Strict-insert keys of journal-ack tables looked up in the table: its negative key filter could not rule"
                        + " them out");
        keyFilterFalsePositives = counter("palisade.key.filter.false.positives",
                "Keys looked up that the table did not hold (the negative key filter's false positives)");
        maintenanceCommits = counter("palisade.maintenance.commits",
                "Maintenance operations (index optimise, compaction; explicit or automatic) that completed, no-ops"
                        + " included");
        maintenanceReplans = counter("palisade.maintenance.replans",
                "Maintenance plans judged against a winner and made again from the head");
        String auto = "Automatic maintenance runs, by operation (compaction, index_refresh, version_cleanup) and outcome"
                + " (completed, failed: logged, the writes that triggered it unaffected)";
        autoCompactions = counter("palisade.maintenance.auto", auto, "op", "compaction", "outcome", "completed");
        autoCompactionFailures = counter("palisade.maintenance.auto", auto, "op", "compaction", "outcome", "failed");
        autoIndexRefreshes = counter("palisade.maintenance.auto", auto, "op", "index_refresh", "outcome", "completed");
        autoIndexRefreshFailures = counter("palisade.maintenance.auto", auto, "op", "index_refresh", "outcome",
                "failed");
        versionCleanups = counter("palisade.maintenance.auto", auto, "op", "version_cleanup", "outcome", "completed");
        versionCleanupFailures = counter("palisade.maintenance.auto", auto, "op", "version_cleanup", "outcome",
                "failed");
        versionsExpired = counter("palisade.retention.versions", "Table versions removed by version retention");
        expiredBytes = bytes("palisade.retention.bytes", "Bytes on disk removed by version retention");
        keysForgotten = counter("palisade.idempotency.keys.forgotten",
                "Idempotency keys forgotten under the idempotency window");
        intentsForgotten = counter("palisade.intents.forgotten",
                "Completed intents the heads state forgot because a checkpoint covered them");
        journalRowsReleased = counter("palisade.journal.rows.released",
                "Journal-ack writes whose rows the journal's row release replaced, once folded and checkpointed");
        journalRowBytesReleased = bytes("palisade.journal.rows.released.bytes",
                "Record bytes the journal's row release gave back");
        journalReleaseFailures = counter("palisade.journal.rows.release.failures",
                "Runs of the journal's row release that failed (logged; the rows stay)");
        journalFilesArchived = counter("palisade.journal.files.archived",
                "Closed journal files the file retention moved out of the local journal");
        journalBytesArchived = bytes("palisade.journal.files.archived.bytes",
                "Bytes of the journal files the file retention moved out");

        String phases = "Committer time of a table-ack write group, by phase: intent (journaling its intents), commit"
                + " (its table commit) and publish (journaling its completion and answering its writers)";
        intentPhase = timer("palisade.write.phase", phases, "phase", "intent");
        commitPhase = timer("palisade.write.phase", phases, "phase", "commit");
        publishPhase = timer("palisade.write.phase", phases, "phase", "publish");
        String acks = "Time from a write's submission to its receipt, by acknowledgement path: table or journal"
                + " (journal-ack tables)";
        tableAck = timer("palisade.write.ack", acks, "ack", "table");
        journalAck = timer("palisade.write.ack", acks, "ack", "journal");
        maintenance = timer("palisade.maintenance",
                "Time of a maintenance operation (index optimise, compaction), its intent to its publication: queued"
                        + " writes wait meanwhile, except for a journal-ack table's compaction or index refresh, whose"
                        + " Lance work runs on the fold thread");
        keyLookup = timer("palisade.key.lookup", "Committer time of one read of a journal-ack table for the "
                + "strict-insert keys its negative key filter could not rule out: queued writes wait meanwhile");
        keyFilterBuild = timer("palisade.key.filter.build", "Committer time of building a journal-ack table's negative "
                + "key filter from its keys (on first use, and when the table outgrew it or changed by a path other"
                + " than a fold): queued writes wait meanwhile");

        largestGroupGauge = gauge("palisade.write.group.largest",
                "The most writes one table commit has carried since the graph was opened", largestGroup::get);
        longestMaintenance = timeGauge("palisade.maintenance.longest",
                "The longest maintenance operation since the graph was opened: the most a write waited for one (a"
                        + " journal-ack table's compaction included, although writes do not wait for it)",
                TimeUnit.NANOSECONDS, longestMaintenanceNanos::get);

        for (Catalog.TableDef t : catalog.tables()) {
            // a journal-ack table folds its acknowledged writes; a keyed table-ack table folds graph transactions' parts
            if (t.kind().keyed()) {
                String n = t.name();
                tables.put(n, new TableMeters(
                        counter("palisade.folds", "Folds committed to a journal-ack table", "table", n),
                        counter("palisade.fold.writes", "Journal-ack writes the folds committed", "table", n),
                        counter("palisade.fold.rows",
                                "Rows the folds wrote (the newest row of each upserted key; deletes not counted)",
                                "table", n),
                        timer("palisade.fold", "Wall time of a committed fold, from building its rows to its"
                                + " publication", "table", n),
                        timer("palisade.backpressure.wait", "Time an acknowledgement group waited for a fold of its"
                                + " table, the unfolded writes being past the memory or the lag bound", "table", n)));
            }
        }
    }

    /**
     * Adds the gauges of the graph's state as {@code view} publishes it: the heads state's intents and idempotency
     * keys, and each journal-ack table's unfolded writes, their bytes and its fold lag. Called once, before any
     * {@link #bind}.
     */
    public synchronized void watch(PublishedView view) {
        String intents = "Intents the heads state keeps, by state: open (in flight), completed (since the last"
                + " checkpoint)";
        gauge("palisade.heads.intents", intents, () -> view.state().openIntents().size(), "state", "open");
        gauge("palisade.heads.intents", intents, () -> view.state().completedCount(), "state", "completed");
        gauge("palisade.heads.idempotency.keys", "Idempotency keys whose receipts the heads state keeps",
                () -> view.state().receiptCount());
        for (String t : tables.keySet()) {
            gauge("palisade.unfolded.writes", "Acknowledged writes of a table not yet folded (journal-ack writes, and"
                    + " graph transactions' parts; every graph branch)", () -> view.unfoldedWrites(t), "table", t);
            bytesGauge("palisade.unfolded.bytes", "Payload bytes of the unfolded writes of a table, held in"
                    + " memory (their sum over the tables is what maxUnfoldedBytes bounds)", () -> view.unfoldedBytes(t),
                    "table", t);
            timeGauge("palisade.fold.lag", "Age of the oldest unfolded write of a table on any graph"
                    + " branch: how far external Lance readers lag; 0 when none", TimeUnit.MILLISECONDS,
                    () -> view.foldLagMillis(t), "table", t);
        }
    }

    /** The fold meters of keyed table {@code name}. */
    public TableMeters table(String name) {
        TableMeters t = tables.get(name);
        if (t == null) {
            throw new IllegalArgumentException("table '" + name + "' is not a keyed table of this graph");
        }
        return t;
    }

    /** The fold meters of every keyed table. */
    public Collection<TableMeters> tables() {
        return tables.values();
    }

    /** Records a table commit of {@code size} writes (the largest so far). */
    public void group(int size) {
        largestGroup.accumulateAndGet(size, Math::max);
    }

    /** Records a maintenance operation of {@code nanos}, intent to publication (the longest so far). */
    public void maintained(long nanos) {
        maintenance.record(nanos);
        longestMaintenanceNanos.accumulateAndGet(nanos, Math::max);
    }

    /** The most writes one table commit has carried. */
    public long largestGroup() {
        return (long) largestGroupGauge.value();
    }

    /** The longest maintenance operation, in nanoseconds. */
    public long longestMaintenanceNanos() {
        return (long) longestMaintenance.value(TimeUnit.NANOSECONDS);
    }

    /**
     * Publishes the graph's meters in {@code registry}, tagged {@code graph} = {@code graph}. Binding a registry again
     * under the same name does nothing.
     *
     * @throws IllegalStateException when the graph is closed, when this registry has its meters under another name,
     *                               or when it has the meters of another graph of that name
     */
    public synchronized void bind(MeterRegistry registry, String graph) {
        if (closed) {
            throw new IllegalStateException("the graph is closed: its meters can no longer be bound");
        }
        for (Binding b : bindings) {
            if (b.registry() == registry) {
                if (b.graph().equals(graph)) {
                    return;
                }
                throw new IllegalStateException("this registry has the graph's meters already, as graph '" + b.graph()
                        + "'");
            }
        }
        if (registry.find(WRITES).tag("graph", graph).meter() != null) {
            throw new IllegalStateException("this registry has the meters of another graph named '" + graph
                    + "': bind one of them under another name (Metrics.binder(name))");
        }
        Tags tag = Tags.of("graph", graph);
        List<Meter> published = new ArrayList<>(publications.size());
        for (BiFunction<MeterRegistry, Tags, Meter> p : publications) {
            published.add(p.apply(registry, tag));
        }
        bindings.add(new Binding(registry, graph, published));
    }

    /** Removes the graph's meters from every registry they were bound to; nothing can be bound afterwards. */
    @Override
    public synchronized void close() {
        closed = true;
        latencies.forEach(Latency::unbindAll);
        for (Binding b : bindings) {
            b.meters().forEach(b.registry()::remove);
        }
        bindings.clear();
    }

    // ------------------------------------------------------------------ one meter, and how it is published

    private Counter counter(String name, String description, String... tags) {
        Counter c = Counter.builder(name).description(description).tags(tags).register(own);
        publications.add((r, graph) -> FunctionCounter.builder(name, c, Counter::count).description(description)
                .tags(tags).tags(graph).register(r));
        return c;
    }

    private Counter bytes(String name, String description) {
        Counter c = Counter.builder(name).description(description).baseUnit("bytes").register(own);
        publications.add((r, graph) -> FunctionCounter.builder(name, c, Counter::count).description(description)
                .baseUnit("bytes").tags(graph).register(r));
        return c;
    }

    private Latency timer(String name, String description, String... tags) {
        Latency l = new Latency(Timer.builder(name).description(description).tags(tags).register(own));
        latencies.add(l);
        publications.add((r, graph) -> {
            Timer t = Timer.builder(name).description(description).tags(tags).tags(graph)
                    .publishPercentiles(PERCENTILES).publishPercentileHistogram()
                    .minimumExpectedValue(SHORTEST).maximumExpectedValue(LONGEST).register(r);
            l.bind(t);
            return t;
        });
        return l;
    }

    private Gauge gauge(String name, String description, DoubleSupplier value, String... tags) {
        Gauge g = Gauge.builder(name, value, DoubleSupplier::getAsDouble).description(description).tags(tags)
                .strongReference(true).register(own);
        publications.add((r, graph) -> Gauge.builder(name, g, Gauge::value).description(description).tags(tags)
                .tags(graph).strongReference(true).register(r));
        return g;
    }

    private void bytesGauge(String name, String description, DoubleSupplier value, String... tags) {
        Gauge g = Gauge.builder(name, value, DoubleSupplier::getAsDouble).description(description).baseUnit("bytes")
                .tags(tags).strongReference(true).register(own);
        publications.add((r, graph) -> Gauge.builder(name, g, Gauge::value).description(description)
                .baseUnit("bytes").tags(tags).tags(graph).strongReference(true).register(r));
    }

    /** A gauge of a duration {@code value} gives in {@code unit}. */
    private TimeGauge timeGauge(String name, String description, TimeUnit unit, DoubleSupplier value, String... tags) {
        TimeGauge g = TimeGauge.builder(name, value, unit, DoubleSupplier::getAsDouble).description(description)
                .tags(tags).strongReference(true).register(own);
        publications.add((r, graph) -> TimeGauge.builder(name, g, TimeUnit.NANOSECONDS,
                        x -> x.value(TimeUnit.NANOSECONDS)).description(description).tags(tags).tags(graph)
                .strongReference(true).register(r));
        return g;
    }
}
