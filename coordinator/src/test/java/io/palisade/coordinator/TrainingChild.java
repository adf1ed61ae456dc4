package io.palisade.coordinator;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.nio.file.Path;

/**
 * The class-data archive's training child ({@link ChildCds}, {@link ChildJvm}): in the scratch directory
 * {@code args[0]} it runs what this module's crash children run — a graph create, writes, a bulk load, a reopen
 * (recovery) and a primary-key migration of a legacy graph — and exits 0, so the classes they load are archived.
 * It is part of no test: a training child that fails only leaves the children without an archive.
 */
public final class TrainingChild {
    private TrainingChild() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("chronicle.analytics.disable", "true");
        Path dir = Path.of(args[0]);
        Path graph = dir.resolve("g");
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.create(graph, Rows.catalog(), Options.defaults())) {
            try (var rows = Rows.people(allocator, "t1", 1L, "t2", 2L)) {
                g.insert("main", "person", rows);
            }
            try (var rows = Rows.people(allocator, "t1", 3L)) {
                g.upsert("main", "person", rows);
            }
        }
        BulkLoadChild.main(new String[] {graph.toString(), "20", "10"});
        PkMigration.run(LegacyGraphFixture.standard(dir.resolve("legacy")), MigrationOptions.defaults());
        System.exit(0);
    }
}
