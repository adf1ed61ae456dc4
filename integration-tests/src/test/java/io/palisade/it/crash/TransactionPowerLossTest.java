package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Palisade;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real power cuts during graph transactions, on LazyFS (docs/transactions.md, docs/crash-points.md "Power loss on
 * LazyFS"): the transaction crash matrix's child ({@link TransactionCrashMatrixTest.Child}, journal durability
 * {@code POWER_LOSS}) writes its 2- and 3-table transactions on a LazyFS mount and halts at a named point inside one
 * of them; then {@code lazyfs::clear-cache} drops everything the child wrote and did not sync (journal pages, Lance
 * data files, manifests of a fold in flight) and the mount is remounted. This JVM then proves the matrix's invariants
 * ({@link TransactionCrashMatrixTest#verifyAfterCrash}): every acknowledged transaction present, the one in flight
 * whole when its commit point was synced and absent otherwise, no duplicate id, no dangling edge, no shared unique
 * value, and the rebuilt checks still refusing what they must.
 *
 * <p>Skips loudly ({@code [power-loss] SKIPPED: reason}) where LazyFS cannot be built or mounted, as the power-loss
 * suite does. A cell under which LazyFS itself crashes runs again on a fresh graph, as that suite's trials do.
 */
class TransactionPowerLossTest {
    private static LazyFs fs;
    private static Path work;

    @BeforeAll
    static void mountLazyFs() throws Exception {
        fs = LazyFs.mountOrSkip();
        work = fs.workDir();
    }

    @AfterAll
    static void unmountLazyFs() throws Exception {
        if (fs != null) {
            fs.close();
            try (Stream<Path> s = Files.walk(fs.base)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /**
     * {@code transaction-torn}: the parts synced, the commit point never written (absent after the cut).
     * {@code after-transaction-commit}: the commit point synced (present). {@code after-fold-commit} in table-ack mode:
     * the fold of a committed transaction's part has made its Lance commit, unsynced, when the power goes (the
     * transaction stays whole: its rows are in the synced journal and the fold is redone).
     */
    @ParameterizedTest(name = "{0}-ack tables, power cut at {1}")
    @CsvSource({
            "table, transaction-torn:3",
            "table, after-fold-commit:6",
            "journal, after-transaction-commit:4",
    })
    void aPowerCutInATransactionLeavesItWholeOrAbsent(String ack, String point) throws Exception {
        for (int attempt = 1; ; attempt++) {
            String name = ack + "-" + point.replace(':', '-') + (attempt == 1 ? "" : "-attempt" + attempt);
            boolean last = attempt == LazyFsPowerLossTest.MAX_ATTEMPTS;
            try {
                cutAndCheck(name, ack, point);
            } catch (Throwable e) {
                if (last || !fs.crashedByItself()) {
                    throw e;
                }
            }
            if (!fs.crashedByItself() || last) {
                assertThat(fs.alive()).as("LazyFS stayed up while the graph was checked (" + fs.state() + ")").isTrue();
                return;
            }
            // LazyFS's own defect, not Palisade's: what the check saw came from a dead mount; the cell runs again,
            // whole, on a fresh graph
            System.out.println(LazyFs.TAG + " LAZYFS CRASHED (" + fs.state() + ") under transaction trial " + name
                    + "; it runs again on a fresh graph:\n" + fs.outputTail(10));
            fs.remount();
        }
    }

    private void cutAndCheck(String name, String ack, String point) throws Exception {
        Path graph = fs.mount.resolve(name).resolve("g");
        Files.createDirectories(graph.getParent());
        try (Graph g = Palisade.create(graph, Catalog.fromJson(IntegrityCrashMatrixTest.catalog(ack)),
                IntegrityCrashMatrixTest.options())) {
            assertThat(g.catalog().require("works_at").srcTable()).contains("person");
        }
        LazyFs.syncTree(graph); // the setup is durable; the cut tests the child's own window
        List<String> lines = CrashChild.runToHalt(Files.createDirectories(work.resolve(name)), point,
                TransactionCrashMatrixTest.Child.class, graph.toString());
        fs.clearCache();
        fs.remount(); // no page cache of the old mount survives the cut
        System.out.println(LazyFs.TAG + " transaction trial " + name + ": child halted after "
                + lines.stream().filter(l -> l.startsWith("ACK ") || l.startsWith("REFUSED ")).count()
                + " answers, then clear-cache and remount");
        TransactionCrashMatrixTest.verifyAfterCrash(graph, point, lines);
    }
}
