package io.palisade.coordinator;

import io.palisade.coordinator.internal.GraphFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * Property: whatever branch tree a pre-fencing binary left (branches of branches, owned and lazy pins,
 * deleted branches), the migration completes, every pin on every live branch ends owned and
 * annotated, and every image's rows are unchanged. Few examples: each builds real Lance tables.
 */
class PkMigrationPropertiesTest {

    @TempDir
    Path dir;

    @Test
    void anyPreFencingBranchTreeMigratesWithRowsUnchanged() {
        AtomicInteger example = new AtomicInteger();
        qt().withExamples(5).withShrinkCycles(2)
                .forAll(lists().of(integers().between(0, 10_000)).ofSizeBetween(1, 7))
                .checkAssert(ops -> migratesCleanly(dir.resolve("g" + example.incrementAndGet()), ops));
    }

    private static void migratesCleanly(Path root, List<Integer> ops) {
        int nextId = 0;
        try (LegacyGraphFixture f = LegacyGraphFixture.create(root, Rows.catalog())) {
            f.insertPeople("main", "p" + nextId++, 1);
            List<String> live = new ArrayList<>(List.of("main"));
            int names = 0;
            for (int op : ops) {
                String on = live.get((op / 3) % live.size());
                switch (op % 3) {
                    case 0 -> {
                        String b = "b" + names++;
                        f.createBranch(b, on);
                        live.add(b);
                    }
                    case 1 -> {
                        if ((op / 7) % 2 == 0) {
                            f.insertPeople(on, "p" + nextId++, op);
                        } else {
                            f.insertKnows(on, "k" + nextId++, "p0", "p0");
                        }
                    }
                    default -> {
                        if (!on.equals("main")) {
                            f.deleteBranch(on);
                            live.remove(on);
                        }
                    }
                }
            }
        }
        Map<String, String> before = LegacyGraphFixture.digests(root);
        MigrationReport r = PkMigration.run(root, MigrationOptions.defaults());
        assertThat(r.status()).as(r.describe()).isEqualTo(MigrationReport.Status.COMPLETED);
        assertThat(r.units()).hasSize(before.size());
        assertThat(LegacyGraphFixture.digests(root)).isEqualTo(before);
        PkMigrationTest.assertEveryPinAnnotatedAndOwned(root);
        assertThat(GraphFormat.read(root)).contains(5);
    }
}
