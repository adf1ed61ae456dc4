package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.LoadMode;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.fencing.PalisadeException;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.Durability;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The crash suite's workload child: opens a graph (running recovery), performs a plan of writes through
 * the public API one after the other and prints {@code ACK <n>} (flushed) only after write {@code n}
 * returned its receipt, {@code FAIL <n> <type>} when it failed with a typed error. The parent kills it
 * (SIGKILL) or it halts itself at {@code -Dpalisade.crash.at}.
 *
 * <p>Arguments: {@code <graph dir> <PROCESS|POWER> <checkpointEvery> <plan> [<cut>]}; the plan is
 * {@link Plan#encode}d. In {@code POWER} mode the child copies the whole graph directory at every sync
 * point it reaches ({@link PowerLoss}) — every named crash point, the return of the open, of every write
 * (before its ACK) and of the close — and prints {@code SYNC <n> <point>} after copy n is in place. The
 * cut ({@link PowerCut}) names the sync point at which the power fails: there the child prints
 * {@code CUT <n> <point>} and halts with {@link PhaseCrashPoints#HALT_STATUS} <em>instead of</em> copying,
 * so the parent's restore goes back to copy n-1 and everything done since is lost.
 *
 * <p>The graph directory is the only location argument: a graph whose tables are on an object store records its
 * {@code s3://} URI, and one whose journal is on Kafka its topic, under {@code _palisade/}; the storage options come
 * from the child's environment ({@code PALISADE_STORAGE_<KEY>}, set by the harness's {@link Deployment}).
 */
public final class CrashWorkload {
    /** {@code -Dpalisade.crash.holdAfterAcks=n}: after its n-th ACK the child prints HELD and waits for a line on stdin. */
    private static final int HOLD_AFTER_ACKS = Integer.getInteger("palisade.crash.holdAfterAcks", -1);

    private CrashWorkload() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("chronicle.analytics.disable", "true");
        Path graphDir = Path.of(args[0]);
        boolean power = args[1].equals("POWER");
        int checkpointEvery = Integer.parseInt(args[2]);
        List<Plan.Op> plan = Plan.decode(args.length > 3 ? args[3] : "");
        PrintStream out = new PrintStream(System.out, false);
        SyncPoints sync = power ? new SyncPoints(new PowerLoss(graphDir), PowerCut.parse(args.length > 4 ? args[4] : "none"), out)
                : null;
        if (power) {
            // every named point, on whichever thread reaches it (the committer, or the opener for recovery)
            PhaseCrashPoints.listener(sync::reached);
        }
        // DURABLE: journal durability POWER_LOSS without the simulated snapshots (a real power cut on LazyFS)
        boolean durable = power || args[1].equals("DURABLE");
        Options options = childOptions(checkpointEvery, durable);
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.open(graphDir, options)) {
            if (power) {
                sync.reached("opened");
            }
            out.println("OPENED");
            out.flush();
            for (int i = 0; i < plan.size(); i++) {
                Plan.Op op = plan.get(i);
                try {
                    apply(g, allocator, op);
                } catch (PalisadeException e) {
                    if (power) {
                        sync.reached("returned"); // a failed write may have journaled its outcome
                    }
                    out.println("FAIL " + i + " " + e.getClass().getSimpleName());
                    out.flush();
                    continue;
                }
                if (power) {
                    sync.reached("returned");
                }
                out.println("ACK " + i);
                out.flush();
                if (i + 1 == HOLD_AFTER_ACKS) {
                    // the parent arms a fault while this child waits, then releases it with one line on stdin
                    out.println("HELD");
                    out.flush();
                    new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
                            java.nio.charset.StandardCharsets.UTF_8)).readLine();
                }
            }
        }
        if (power) {
            sync.reached("closed"); // the close's checkpoint and its CheckpointWritten
        }
        out.println("DONE");
        out.flush();
    }

    /**
     * The sync points of one power-mode child, numbered from 1 in the order reached (the parent's
     * baseline copy is number 0). Serialised: the workload is sequential, so at most one thread is at a
     * sync point at a time anyway, and the copy completes before that thread goes on.
     */
    private static final class SyncPoints {
        private final PowerLoss snapshots;
        private final PowerCut cut;
        private final PrintStream out;
        private final java.util.Map<String, Integer> hits = new java.util.HashMap<>();
        private int n;

        SyncPoints(PowerLoss snapshots, PowerCut cut, PrintStream out) {
            this.snapshots = snapshots;
            this.cut = cut;
            this.out = out;
        }

        synchronized void reached(String point) {
            n++;
            int hit = hits.merge(point, 1, Integer::sum);
            if (cut.cutsAt(n, point, hit)) {
                out.println("CUT " + n + " " + point);
                out.flush();
                Runtime.getRuntime().halt(PhaseCrashPoints.HALT_STATUS); // before this point's copy exists
            }
            long t0 = System.nanoTime();
            snapshots.snapshot();
            out.println("SYNC " + n + " " + point + " " + (System.nanoTime() - t0) / 1_000_000 + "ms");
            out.flush();
        }
    }

    /**
     * The child's options: {@code checkpointEvery}, the durability, and folds of the journal-ack table after every
     * {@link #FOLD_EVERY} acknowledged writes (no lag bound: where a fold happens depends on the plan, never on the
     * clock, so a named crash point lands in the same operation on every run), so that children die inside folds too.
     */
    static Options childOptions(int checkpointEvery, boolean durable) {
        Options d = Options.defaults();
        return d.withCheckpointEvery(checkpointEvery).withDurability(durable ? Durability.POWER_LOSS : Durability.PROCESS_CRASH)
                .withFolding(3_600_000, FOLD_EVERY, d.maxUnfoldedBytes());
    }

    /** Journal-ack writes per fold in a child (count bound). */
    static final int FOLD_EVERY = 3;

    static void apply(Graph g, BufferAllocator allocator, Plan.Op op) {
        switch (op.kind()) {
            case INSERT -> {
                try (VectorSchemaRoot rows = people(g, allocator, op.rows())) {
                    g.insert(op.branch(), "person", rows);
                }
            }
            case UPSERT -> {
                try (VectorSchemaRoot rows = people(g, allocator, op.rows())) {
                    g.upsert(op.branch(), "person", rows);
                }
            }
            case DELETE -> g.delete(op.branch(), "person", new ArrayList<>(op.rows().keySet()));
            case APPEND -> {
                try (VectorSchemaRoot rows = log(g, allocator, new ArrayList<>(op.rows().keySet()))) {
                    g.append(op.branch(), "log", rows);
                }
            }
            case BRANCH -> g.createBranch(op.branch(), "main");
            case OVERWRITE -> {
                try (VectorSchemaRoot rows = people(g, allocator, op.rows())) {
                    g.overwrite(op.branch(), "person", rows);
                }
            }
            case ADD_COLUMNS -> g.addColumns("person", op.rows().keySet().stream()
                    .map(c -> new Catalog.ColumnDef(c, Catalog.ColumnType.Scalar.INT64, true)).toList());
            case MERGE -> g.merge(op.source(), op.target());
            case MAINTAIN -> {
                // rows name the maintenance: "compact" (fragments of person) or "index" (its id BTREE)
                if (op.rows().containsKey("index")) {
                    g.optimizeIndex(op.branch(), "person");
                } else {
                    g.compact(op.branch(), "person");
                }
            }
            case NOTE_INSERT -> {
                try (VectorSchemaRoot rows = rows(g, "note", allocator, op.rows())) {
                    g.insert("main", "note", rows);
                }
            }
            case NOTE_UPSERT -> {
                try (VectorSchemaRoot rows = rows(g, "note", allocator, op.rows())) {
                    g.upsert("main", "note", rows);
                }
            }
            case NOTE_DELETE -> g.delete("main", "note", new ArrayList<>(op.rows().keySet()));
            case LOAD, LOAD_STRICT -> {
                try (PeopleBatches in = new PeopleBatches(allocator, g.catalog().require("person").arrowSchema(), op.rows(),
                        Plan.LOAD_BATCH_ROWS)) {
                    g.load(op.branch(), "person", in, op.kind() == Plan.Kind.LOAD ? LoadMode.MERGE : LoadMode.APPEND,
                            Plan.LOAD_BATCH_ROWS);
                }
            }
        }
    }

    static VectorSchemaRoot people(Graph g, BufferAllocator allocator, Map<String, Long> idAge) {
        return rows(g, "person", allocator, idAge);
    }

    /** A batch of {@code table} (columns id, age) holding {@code idAge}. */
    static VectorSchemaRoot rows(Graph g, String table, BufferAllocator allocator, Map<String, Long> idAge) {
        List<Map<String, Object>> rows = new ArrayList<>();
        idAge.forEach((id, age) -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", id);
            r.put("age", age);
            rows.add(r);
        });
        VectorSchemaRoot root = VectorSchemaRoot.create(g.catalog().require(table).arrowSchema(), allocator);
        ArrowRows.fill(root, rows);
        return root;
    }

    static VectorSchemaRoot log(Graph g, BufferAllocator allocator, List<String> msgs) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String m : msgs) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("msg", m);
            rows.add(r);
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(g.catalog().require("log").arrowSchema(), allocator);
        ArrowRows.fill(root, rows);
        return root;
    }
}
