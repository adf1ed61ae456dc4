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
 * <p>Arguments: {@code <graph dir> <PROCESS|POWER> <checkpointEvery> <plan>}; the plan is
 * {@link Plan#encode}d. In {@code POWER} mode the child copies the journal directory at every journal
 * sync point it can observe ({@link PowerLoss}), before it acknowledges anything.
 */
public final class CrashWorkload {
    private CrashWorkload() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("chronicle.analytics.disable", "true");
        Path graphDir = Path.of(args[0]);
        boolean power = args[1].equals("POWER");
        int checkpointEvery = Integer.parseInt(args[2]);
        List<Plan.Op> plan = Plan.decode(args.length > 3 ? args[3] : "");
        PrintStream out = new PrintStream(System.out, false);
        PowerLoss snapshots = power ? new PowerLoss(graphDir) : null;
        if (power) {
            PhaseCrashPoints.listener(p -> {
                if (p.equals("after-intent") || p.equals("after-publish")
                        || p.equals(PhaseCrashPoints.CHECKPOINT_AFTER_TEMP) || p.startsWith("recovery-")) {
                    snapshots.snapshot();
                }
            });
        }
        // DURABLE: journal durability POWER_LOSS without the simulated snapshots (a real power cut on LazyFS)
        boolean durable = power || args[1].equals("DURABLE");
        Options options = Options.defaults().withCheckpointEvery(checkpointEvery)
                .withDurability(durable ? Durability.POWER_LOSS : Durability.PROCESS_CRASH);
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.open(graphDir, options)) {
            if (power) {
                snapshots.snapshot();
            }
            out.println("OPENED");
            out.flush();
            for (int i = 0; i < plan.size(); i++) {
                Plan.Op op = plan.get(i);
                try {
                    apply(g, allocator, op);
                } catch (PalisadeException e) {
                    out.println("FAIL " + i + " " + e.getClass().getSimpleName());
                    out.flush();
                    continue;
                }
                if (power) {
                    snapshots.snapshot();
                }
                out.println("ACK " + i);
                out.flush();
            }
        }
        out.println("DONE");
        out.flush();
    }

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
        List<Map<String, Object>> rows = new ArrayList<>();
        idAge.forEach((id, age) -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", id);
            r.put("age", age);
            rows.add(r);
        });
        VectorSchemaRoot root = VectorSchemaRoot.create(g.catalog().require("person").arrowSchema(), allocator);
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
