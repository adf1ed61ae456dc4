package io.palisade.it.crash;

import io.palisade.it.crash.CrashMatrixTest.Cell;
import io.palisade.it.crash.CrashMatrixTest.WriteOp;
import io.palisade.journal.KafkaClusterExtension;
import io.palisade.journal.KafkaTestCluster;
import io.palisade.substrate.s3.S3ProxyFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The crash matrix's main cells on the scale-out deployment (docs/crash-points.md "On an object store and a
 * Kafka journal"): each graph's tables on S3 (the test JVM's in-process S3Proxy, {@link S3ProxyFixture#shared()},
 * which the children reach over loopback) and its journal on Kafka (an in-process KRaft cluster of one combined
 * broker+controller node). The cells are {@link CrashMatrixTest}'s own ({@link CrashMatrixTest#cells},
 * {@link CrashMatrixTest#runWritePathCell}): every write-path point that insert, upsert, delete and a branch write
 * (upsert on a new graph branch, with its {@code after-fork}) reach, each cell that leaves work followed by its
 * recovery-point child ({@link CrashMatrixTest#recoveryPointFor}), and one bulk-load cell that leaves an open load
 * ({@value #LOAD_CELL}: one batch journaled, the second committed to the store but not journaled). Every child is
 * halted at its named point (exit status 86, asserted); the parent then opens the graph on the same deployment
 * (recovery runs) and checks {@link CrashHarness#verify}'s invariants unchanged plus invariant 6: the graph is really
 * on the store (no local {@code tables/}, and a Lance reader of the {@code s3://} table at each branch's published
 * head sees the model's rows).
 *
 * <p>One Kafka node is enough for crash semantics: the children are killed, not the broker, and what a crash point
 * tests is what the writer had made durable when it halted; a journal commit on one node is as durable to the next
 * writer as on three. {@link KafkaTestCluster#start(int) start(1)} gives every journal topic (and the transaction
 * state log) replication 1 with {@code min.insync.replicas} 1, which {@code KafkaJournalConfig} accepts; it boots
 * faster than 3 brokers + 1 controller and commits a transaction in 10–25 ms instead of about 50. Replication under
 * broker loss is {@code KafkaFailoverTest}'s subject. {@code -Dpalisade.kafka.tests=off} skips the suite, loudly ({@link KafkaClusterExtension}).
 */
class ObjectStoreCrashMatrixTest {
    /** The operations whose every write-path cell this suite has (docs/crash-points.md lists them all). */
    static final List<WriteOp> ALL_OPS = List.of(WriteOp.INSERT, WriteOp.UPSERT, WriteOp.DELETE, WriteOp.BRANCH_WRITE);
    /**
     * The operations a run covers. CI size: insert, delete and the branch write (a strict merge-insert, a delete, and
     * an upsert on a new graph branch: a fork plus a merge-insert on a new Lance branch); the upsert on {@code main}
     * is the branch write's commit without the fork, and its cells run on local disk in {@link CrashMatrixTest}.
     * {@code -Dpalisade.crash.objectstore.ops=all} runs all four.
     */
    static final List<WriteOp> OPS = "all".equals(System.getProperty("palisade.crash.objectstore.ops")) ? ALL_OPS
            : List.of(WriteOp.INSERT, WriteOp.DELETE, WriteOp.BRANCH_WRITE);
    /** The one bulk-load cell: it leaves an open load for recovery to restore. */
    static final String LOAD_CELL = "load-after-batch:2";
    private static final String TAG = "[crash-objectstore]";

    private static final List<String> CELLS = new ArrayList<>();
    private static CrashSummary.Snapshot start;
    @org.junit.jupiter.api.extension.RegisterExtension
    static final KafkaClusterExtension KAFKA = new KafkaClusterExtension(1);
    private static long startNanos;

    @TempDir
    Path dir;

    @BeforeAll
    static void takeSummary() {
        startNanos = System.nanoTime();
        start = CrashSummary.take();
    }

    @AfterAll
    static void reportSummary() {
        if (start != null) {
            CrashSummary.report("ObjectStoreCrashMatrixTest", start, "cells=" + CELLS.size() + " seconds="
                    + (System.nanoTime() - startNanos) / 1_000_000_000L);
        }
    }

    @AfterEach
    void closeHarnesses() {
        CrashHarness.closeAll();
    }

    /** The cells of {@code ops} and the bulk-load cell, per operation, in the order they run. */
    static Map<WriteOp, List<Cell>> cells(List<WriteOp> ops) {
        Map<WriteOp, List<Cell>> out = new LinkedHashMap<>();
        for (WriteOp op : ops) {
            out.put(op, CrashMatrixTest.cells(op));
        }
        out.put(WriteOp.BULK_LOAD, CrashMatrixTest.cells(WriteOp.BULK_LOAD).stream()
                .filter(c -> c.crashAt().equals(LOAD_CELL)).toList());
        return out;
    }

    /** The labels of the cells of {@code ops} ({@link CrashMatrixTest#labels}). */
    static List<String> labels(List<WriteOp> ops) {
        List<String> out = new ArrayList<>();
        cells(ops).forEach((op, cells) -> cells.forEach(c -> out.addAll(CrashMatrixTest.labels(op, c))));
        return out;
    }

    /** A fresh deployment for one graph: a new prefix of the shared S3 server, a new topic on the cluster. */
    private static Deployment.ObjectStore deployment(String graphName) {
        S3ProxyFixture s3 = S3ProxyFixture.shared();
        return new Deployment.ObjectStore(s3.freshUri(), s3.storageOptions(), KAFKA.cluster().newJournal(graphName));
    }

    /**
     * docs/crash-points.md's section on this suite names every cell it runs (cheap: no child JVM), and the cells
     * include every write-path point the main operations reach, after-fork and an open bulk load.
     */
    @Test
    void theDocumentListsEveryObjectStoreCell() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "crash-points.md"));
        int from = doc.indexOf("## On an object store and a Kafka journal");
        assertThat(from).as("docs/crash-points.md has the object-store section").isNotNegative();
        int to = doc.indexOf("\n## ", from + 1);
        String section = doc.substring(from, to < 0 ? doc.length() : to);
        List<String> missing = new ArrayList<>();
        for (String label : labels(ALL_OPS)) {
            if (!section.contains("`" + label + "`")) {
                missing.add(label);
            }
        }
        assertThat(missing).as("object-store cells not listed in docs/crash-points.md's section").isEmpty();
        assertThat(labels(ALL_OPS)).contains("BRANCH_WRITE x after-fork", "BULK_LOAD x " + LOAD_CELL,
                "RECOVERY(BULK_LOAD) x " + CrashMatrixTest.recoveryPointFor(WriteOp.BULK_LOAD, "load-after-batch"));
        for (WriteOp op : ALL_OPS) {
            for (String point : CrashMatrixTest.WRITE_POINTS) {
                assertThat(labels(ALL_OPS)).contains(op + " x " + point);
            }
        }
    }

    /**
     * Every main cell on its operation's own graph (tables on S3Proxy, journal on Kafka): the child halts at the
     * cell's point, a second child halts inside the recovery of a cell that leaves work, the parent's open on the
     * same deployment recovers and every invariant holds.
     */
    @Test
    void everyMainWritePathCellRecoversWithTheTablesOnS3AndTheJournalOnKafka() throws Exception {
        for (Map.Entry<WriteOp, List<Cell>> e : cells(OPS).entrySet()) {
            WriteOp op = e.getKey();
            long t0 = System.nanoTime();
            CrashHarness h = CrashHarness.open(dir.resolve(op.name()), 19_001 + op.ordinal(), deployment(op.name()));
            for (Cell cell : e.getValue()) {
                CELLS.addAll(CrashMatrixTest.runWritePathCell(h, op, cell));
            }
            System.out.println(TAG + " " + op + ": " + e.getValue().size() + " cells in "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms");
        }
        assertThat(CELLS).containsExactlyElementsOf(labels(OPS));
        String onStore = "6-tables-on-object-store";
        assertThat(CrashSummary.take().performed().getOrDefault(onStore, 0L) - start.performed().getOrDefault(onStore, 0L))
                .as("invariant 6 checked in every trial").isGreaterThanOrEqualTo(3L * cells(OPS).values().stream()
                        .mapToInt(List::size).sum());
    }
}
