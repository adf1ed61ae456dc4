package io.palisade.coordinator;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.palisade.coordinator.internal.KeyBloom;
import io.palisade.coordinator.internal.KeyPresence;
import io.palisade.coordinator.internal.Latency;
import io.palisade.coordinator.internal.Meters;

import java.nio.file.Path;
import java.util.function.ToLongFunction;

/**
 * What a graph has done so far, as Micrometer meters (docs/coordinator.md, "Metrics"): commits, conflicts by kind,
 * retries, acknowledgement and phase latencies, folds, back-pressure, maintenance, and gauges of its heads state and
 * unfolded writes. The meters live in the graph from its open to its close; the read methods below read them.
 *
 * <p>A {@link MeterBinder}: {@link #bindTo} publishes the meters in an embedder's registry (Prometheus, OTLP, a
 * Spring Boot application's), named {@code palisade.*} and tagged {@code graph} with the graph directory's name, or
 * the name given to {@link #binder(String)}. There each counter and gauge reads the graph's own (a counter counts
 * from the open), and each timer has the 0.5 and 0.99 percentiles and a histogram, recorded from the binding on.
 * Closing the graph removes its meters from the registries they were bound to.
 */
public final class Metrics implements MeterBinder {
    private final Meters m;
    private final String graphName;

    Metrics(Meters meters, Path root) {
        this.m = meters;
        Path name = root.toAbsolutePath().normalize().getFileName();
        this.graphName = name == null ? "graph" : name.toString();
    }

    /**
     * Publishes the graph's meters in {@code registry}, tagged {@code graph} = {@link #graphName()}. Binding the same
     * registry again does nothing.
     *
     * @throws IllegalStateException when the graph is closed, when this registry has the graph's meters under another
     *                               name, or when it has the meters of another graph of the same name (bind one of them
     *                               with {@link #binder(String)})
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        m.bind(registry, graphName);
    }

    /** A binder that publishes the graph's meters tagged {@code graph} = {@code graphName} instead. */
    public MeterBinder binder(String graphName) {
        if (graphName == null || graphName.isBlank()) {
            throw new IllegalArgumentException("a graph name for the meters must not be blank");
        }
        return registry -> m.bind(registry, graphName);
    }

    /** The {@code graph} tag of {@link #bindTo}: the name of the graph's directory. */
    public String graphName() {
        return graphName;
    }

    /**
     * Journal-ack acknowledgement groups that waited for a fold of their table because the unfolded rows were past
     * {@link Options#maxUnfoldedBytes()} or the table's fold lag past {@link Options#maxFoldLagMillis()}.
     */
    public long backPressureWaits() {
        return sum(t -> t.backPressure().count());
    }

    /** Wall time the committer spent folding for those back-pressured groups (the writers' extra wait). */
    public long backPressureNanos() {
        return sum(t -> t.backPressure().totalNanos());
    }

    /** Wall time spent in committed folds, from building their rows out of the tail to their publication. */
    public long foldNanos() {
        return sum(t -> t.fold().totalNanos());
    }

    /** Rows the committed folds wrote (the newest row of each upserted key; deletes not counted). */
    public long foldedRows() {
        return sum(t -> count(t.foldedRows()));
    }

    /**
     * Bytes of a journal-ack table's negative key filter sized for {@code keys} keys at the false-positive rate the
     * coordinator uses ({@code KeyPresence.FPP}); the coordinator sizes a table's filter for twice its keys (at least
     * 65,536) so that it can grow before a rebuild ({@link #keyFilterBytesForTable}).
     */
    public static long keyFilterBytes(long keys) {
        return KeyBloom.forCapacity(keys, KeyPresence.FPP).bytes();
    }

    /** Bytes of the negative key filter the coordinator builds for a journal-ack table holding {@code keys} keys. */
    public static long keyFilterBytesForTable(long keys) {
        return keyFilterBytes(KeyPresence.capacityFor(keys));
    }

    /** Merge-inserts (keyed writes and folds) Lance ran on its indexed plan. */
    public long mergesIndexed() {
        return count(m.mergesIndexed);
    }

    /** Merge-inserts (keyed writes and folds) Lance ran on its scan plan. */
    public long mergesScanned() {
        return count(m.mergesScanned);
    }

    /** Writes acknowledged from the journal (journal-ack tables). */
    public long journalAcks() {
        return count(m.journalAckWrites);
    }

    /**
     * Acknowledgement groups of journal-ack writes: each is one journal append and one sync, so
     * {@link #journalAcks()} / this is the writes one sync acknowledges.
     */
    public long journalAckGroups() {
        return count(m.journalAckGroups);
    }

    /** Folds committed to journal-ack tables. */
    public long folds() {
        return sum(t -> count(t.folds()));
    }

    /** Journal-ack writes the folds committed. */
    public long foldedWrites() {
        return sum(t -> count(t.foldedWrites()));
    }

    /** Strict-insert keys looked up in a table because its negative key filter could not rule them out. */
    public long keyLookups() {
        return count(m.keyLookups);
    }

    /** Keys looked up although the table did not hold them (the negative filter's false positives). */
    public long keyFilterFalsePositives() {
        return count(m.keyFilterFalsePositives);
    }

    /** Committer time spent reading tables for those keys, in nanoseconds: every write queued meanwhile waits. */
    public long keyLookupNanos() {
        return m.keyLookup.totalNanos();
    }

    /** Negative key filters built from a table's keys (one scan of its key column each). */
    public long keyFilterBuilds() {
        return m.keyFilterBuild.count();
    }

    /** Committer time spent building them, in nanoseconds: every write queued meanwhile waits. */
    public long keyFilterBuildNanos() {
        return m.keyFilterBuild.totalNanos();
    }

    /** Commits (writes, maintenance, bulk-load batches) that Lance rebased over a foreign version: none acknowledged. */
    public long foreignCommits() {
        return count(m.foreignCommits);
    }

    /**
     * Maintenance operations (index optimise, compaction; explicit or automatic) that completed, no-ops
     * included. They are not in {@link Snapshot#commits()}, the group sizes or the phase latencies, which
     * describe writes.
     */
    public long maintenanceCommits() {
        return count(m.maintenanceCommits);
    }

    /** Index optimises the committer ran by itself ({@link Options#indexRefreshEvery()}) and that completed. */
    public long autoIndexRefreshes() {
        return count(m.autoIndexRefreshes);
    }

    /** Automatic index optimises that failed (logged; the writes that triggered them are unaffected). */
    public long autoIndexRefreshFailures() {
        return count(m.autoIndexRefreshFailures);
    }

    /** Compactions the committer ran by itself ({@link Compaction}) and that completed. */
    public long autoCompactions() {
        return count(m.autoCompactions);
    }

    /** Automatic compactions that failed (logged; the writes that triggered them are unaffected). */
    public long autoCompactionFailures() {
        return count(m.autoCompactionFailures);
    }

    /** Table versions removed by retention ({@link Retention}). */
    public long versionsExpired() {
        return count(m.versionsExpired);
    }

    /** Bytes removed with them. */
    public long expiredBytes() {
        return count(m.expiredBytes);
    }

    /** Idempotency keys forgotten under the idempotency window ({@link Idempotency}). */
    public long idempotencyKeysForgotten() {
        return count(m.keysForgotten);
    }

    /**
     * Completed intents the heads state forgot because a checkpoint covered them (their records stay in the journal):
     * with {@link Graph#state()}'s {@code completedCount()} and {@code receiptCount()}, what keeps its memory flat.
     */
    public long completedIntentsForgotten() {
        return count(m.intentsForgotten);
    }

    /**
     * Journal-ack writes whose rows the journal's row release replaced once a checkpoint covered their fold
     * (docs/journal.md "Row release"); their intents, completions and folds stay in the journal.
     */
    public long journalRowsReleased() {
        return count(m.journalRowsReleased);
    }

    /** Record bytes the journal's row release gave back. */
    public long journalRowBytesReleased() {
        return count(m.journalRowBytesReleased);
    }

    /** Runs of the journal's row release that failed (logged; the rows stay, the next checkpoint's run retries). */
    public long journalReleaseFailures() {
        return count(m.journalReleaseFailures);
    }

    /**
     * Closed journal files the file retention moved out of the local journal (docs/journal.md "File retention"), their
     * chain anchors kept in {@code journal/archive.log}.
     */
    public long journalFilesArchived() {
        return count(m.journalFilesArchived);
    }

    /** Bytes of the journal files the file retention moved out of the local journal. */
    public long journalBytesArchived() {
        return count(m.journalBytesArchived);
    }

    /** Removals of old versions that failed (logged; the next removal of the table branch retries). */
    public long expiryFailures() {
        return count(m.versionCleanupFailures);
    }

    /**
     * Time spent in maintenance commits (compaction and index optimise, from their intent to their publication), in
     * nanoseconds: every write queued meanwhile waits for it, except during a journal-ack table's compaction, whose
     * Lance work runs on the fold thread while acknowledgements go on.
     */
    public long maintenanceNanos() {
        return m.maintenance.totalNanos();
    }

    /**
     * The longest single maintenance commit, in nanoseconds: the most a write waited for one (a journal-ack table's
     * compaction included, although writes do not wait for it).
     */
    public long maintenanceMaxNanos() {
        return m.longestMaintenanceNanos();
    }

    /** How often a maintenance plan was judged against a winner and made again from the head. */
    public long maintenanceReplans() {
        return count(m.maintenanceReplans);
    }

    /**
     * Writes refused by an integrity check of the catalog's declarations: an edge endpoint its node table does not
     * hold, a node deleted while edges name it, a unique value another id holds (docs/integrity.md).
     */
    public long integrityConflicts() {
        return count(m.integrityConflicts);
    }

    /** Graph transactions committed ({@code palisade.transactions}): one per commit point, whatever its parts. */
    public long transactions() {
        return count(m.transactions);
    }

    /**
     * Images built for the integrity checks (docs/integrity.md): one scan of a table's checked columns each. Steady
     * state builds none; a count that keeps rising means the images do not fit {@code Options.maxImageRows}.
     */
    public long integrityImageBuilds() {
        return count(m.integrityImageBuilds);
    }

    /** An immutable snapshot. Mean latencies are per substrate commit (group). */
    public record Snapshot(long commits, long substrateCommits, long keyConflicts, long writeConflicts,
                           long validationFailures, long retries, long idempotentReplays, long largestGroup,
                           double meanGroupSize, double meanPhaseAMicros, double meanPhaseBMicros, double meanPhaseCDMicros) {
    }

    public Snapshot snapshot() {
        long commits = count(m.tableAckWrites) + count(m.journalAckWrites);
        long substrateCommits = count(m.substrateCommits);
        long groups = Math.max(1, substrateCommits);
        return new Snapshot(commits, substrateCommits, count(m.keyConflicts), count(m.writeConflicts),
                count(m.validationFailures), count(m.retries), count(m.idempotentReplays), m.largestGroup(),
                (double) commits / groups, micros(m.intentPhase) / groups, micros(m.commitPhase) / groups,
                micros(m.publishPhase) / groups);
    }

    private static long count(Counter c) {
        return (long) c.count();
    }

    private static double micros(Latency l) {
        return l.totalNanos() / 1e3;
    }

    /** The sum of {@code f} over the meters of the journal-ack tables. */
    private long sum(ToLongFunction<Meters.TableMeters> f) {
        long n = 0;
        for (Meters.TableMeters t : m.tables()) {
            n += f.applyAsLong(t);
        }
        return n;
    }
}
