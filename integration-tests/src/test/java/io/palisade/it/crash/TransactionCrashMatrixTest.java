package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Row;
import io.palisade.coordinator.Transaction;
import io.palisade.fencing.EndpointConflictException;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.UniqueConflictException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Graph transactions across a crash (docs/transactions.md, docs/crash-points.md), in child JVMs: a child commits 2- and
 * 3-table transactions of persons (unique {@code email}), companies and {@code works_at} edges, some of which the checks
 * refuse, printing {@code ACK} or {@code REFUSED} after each answer, and halts at a named crash point. This JVM reopens
 * the graph (recovery runs) and proves: every acknowledged transaction is present, the one in flight is present whole
 * when its commit point was durable and absent whole when it was not, no duplicate id, no edge names a missing node,
 * no two persons share an email, and the checks rebuilt from the recovered state still refuse what they must.
 */
class TransactionCrashMatrixTest {

    /** One transaction of the child: its name, and whether the checks refuse it. */
    record Step(String name, boolean refused) {
    }

    static final List<Step> STEPS = List.of(
            new Step("hire a(x) at c1", false),       // person, company, works_at
            new Step("hire b(x) at c1", true),        // email x is a's
            new Step("hire b(y) at c2", false),       // person, company, works_at
            new Step("move e1 to c2, drop c1", false),// works_at, company
            new Step("drop c2", true),                // edges name c2
            new Step("fire b", false),                // works_at, person
            new Step("hire d(y) at c2", false));      // y freed by b's delete

    static void commit(Graph g, String step) {
        Transaction t = g.transaction("main");
        switch (step) {
            case "hire a(x) at c1" -> t.insert("person", List.of(Row.of("id", "a", "email", "x")))
                    .insert("company", List.of(Row.of("id", "c1")))
                    .insert("works_at", List.of(Row.of("id", "e1", "src", "a", "dst", "c1")));
            case "hire b(x) at c1" -> t.insert("person", List.of(Row.of("id", "b", "email", "x")))
                    .insert("works_at", List.of(Row.of("id", "e2", "src", "b", "dst", "c1")));
            case "hire b(y) at c2" -> t.insert("person", List.of(Row.of("id", "b", "email", "y")))
                    .insert("company", List.of(Row.of("id", "c2")))
                    .insert("works_at", List.of(Row.of("id", "e2", "src", "b", "dst", "c2")));
            case "move e1 to c2, drop c1" -> t.upsert("works_at", List.of(Row.of("id", "e1", "src", "a", "dst", "c2")))
                    .delete("company", List.of("c1"));
            case "drop c2" -> t.delete("company", List.of("c2"));
            case "fire b" -> t.delete("works_at", List.of("e2")).delete("person", List.of("b"));
            case "hire d(y) at c2" -> t.insert("person", List.of(Row.of("id", "d", "email", "y")))
                    .insert("works_at", List.of(Row.of("id", "e4", "src", "d", "dst", "c2")));
            default -> throw new IllegalArgumentException(step);
        }
        t.commit();
    }

    /** The graph's rows after the accepted steps among the first {@code n}: table → id → row text. */
    static Map<String, Map<String, String>> model(int n) {
        Map<String, Map<String, String>> m = new TreeMap<>();
        m.put("person", new TreeMap<>());
        m.put("company", new TreeMap<>());
        m.put("works_at", new TreeMap<>());
        for (Step s : STEPS.subList(0, n)) {
            if (s.refused()) {
                continue;
            }
            switch (s.name()) {
                case "hire a(x) at c1" -> {
                    m.get("person").put("a", "x");
                    m.get("company").put("c1", "");
                    m.get("works_at").put("e1", "a-c1");
                }
                case "hire b(y) at c2" -> {
                    m.get("person").put("b", "y");
                    m.get("company").put("c2", "");
                    m.get("works_at").put("e2", "b-c2");
                }
                case "move e1 to c2, drop c1" -> {
                    m.get("works_at").put("e1", "a-c2");
                    m.get("company").remove("c1");
                }
                case "fire b" -> {
                    m.get("works_at").remove("e2");
                    m.get("person").remove("b");
                }
                case "hire d(y) at c2" -> {
                    m.get("person").put("d", "y");
                    m.get("works_at").put("e4", "d-c2");
                }
                default -> throw new IllegalArgumentException(s.name());
            }
        }
        return m;
    }

    /** The child JVM: {@code <graph>}; commits {@link #STEPS}, printing each answer. */
    public static final class Child {
        public static void main(String[] args) {
            Graph g = Palisade.open(Path.of(args[0]), IntegrityCrashMatrixTest.options());
            for (Step s : STEPS) {
                try {
                    commit(g, s.name());
                    System.out.println("ACK " + s.name());
                } catch (EndpointConflictException | UniqueConflictException e) {
                    System.out.println("REFUSED " + s.name());
                }
                System.out.flush();
            }
            g.close();
            System.out.println("END");
            System.out.flush();
        }
    }

    @TempDir
    Path dir;

    /**
     * {@code transaction-torn:n}: the nth transaction to reach the journal is cut after its parts, before its commit
     * point (absent after recovery). Every other point lies after the commit point (present after recovery):
     * {@code after-transaction-commit}, and in table-ack mode the folds of the parts into their tables (three per
     * 3-table transaction, two per 2-table one).
     */
    @ParameterizedTest(name = "{0} at {1}")
    @CsvSource({
            "table, transaction-torn:1",
            "table, transaction-torn:3",
            "table, after-transaction-commit:1",
            "table, after-transaction-commit:4",
            "table, after-fold-intent:2",
            "table, after-fold-commit:6",
            "table, before-fold-publish:7",
            "table, after-fold-publish:8",
            "journal, transaction-torn:2",
            "journal, transaction-torn:5",
            "journal, after-transaction-commit:1",
            "journal, after-transaction-commit:4",
    })
    void aChildKilledInATransactionLeavesItWholeOrAbsent(String ack, String point) throws Exception {
        Path graph = dir.resolve("g");
        try (Graph g = Palisade.create(graph, Catalog.fromJson(IntegrityCrashMatrixTest.catalog(ack)),
                IntegrityCrashMatrixTest.options())) {
            assertThat(g.catalog().require("works_at").srcTable()).contains("person");
        }
        List<String> lines = CrashChild.runToHalt(dir, point, Child.class, graph.toString());
        verifyAfterCrash(graph, point, lines);
    }

    /**
     * The matrix's proof on {@code graph} after its child halted at {@code point}, having printed {@code lines}: every
     * answer as the steps say, the transaction in flight present whole when its commit point was durable (every point
     * but {@code transaction-torn}) and absent whole otherwise, the rows and the rebuilt checks as the model says, and
     * the same after a second open (the first close folded every recovered part).
     */
    static void verifyAfterCrash(Path graph, String point, List<String> lines) {
        int answered = 0;
        for (String l : lines) {
            if (l.startsWith("ACK ") || l.startsWith("REFUSED ")) {
                Step s = STEPS.get(answered);
                assertThat(l).as("step %d's answer", answered).isEqualTo((s.refused() ? "REFUSED " : "ACK ") + s.name());
                answered++;
            }
        }
        assertThat(lines).as("the child died at %s", point).doesNotContain("END");
        assertThat(STEPS.get(answered).refused()).as("the transaction in flight at %s is an accepted one", point)
                .isFalse();
        boolean committed = !point.startsWith("transaction-torn");

        try (Graph g = Palisade.open(graph, IntegrityCrashMatrixTest.options())) {
            assertThat(g.state().openIntents()).as("no open intent after recovery").isEmpty();
            Map<String, Map<String, String>> now = rows(g);
            assertThat(now).as("after recovery from %s", point).isEqualTo(model(committed ? answered + 1 : answered));
            check(g, now);
        }
        // the close folded every recovered part into its table: the tables hold exactly what was read
        try (Graph g = Palisade.open(graph, IntegrityCrashMatrixTest.options())) {
            assertThat(g.state().unfoldedTables("main")).as("unfolded after a close").isEmpty();
            assertThat(rows(g)).as("a second open").isEqualTo(model(committed ? answered + 1 : answered));
        }
    }

    /** No dangling edge, no shared email, and the rebuilt checks refuse what they must (writing nothing). */
    private static void check(Graph g, Map<String, Map<String, String>> now) {
        Set<String> emails = new HashSet<>(now.get("person").values());
        assertThat(emails).as("no two persons share an email").hasSameSizeAs(now.get("person").values());
        for (Map.Entry<String, String> e : now.get("works_at").entrySet()) {
            String[] ends = e.getValue().split("-");
            assertThat(now.get("person")).as("edge %s's src", e.getKey()).containsKey(ends[0]);
            assertThat(now.get("company")).as("edge %s's dst", e.getKey()).containsKey(ends[1]);
        }
        for (Map.Entry<String, String> e : now.get("works_at").entrySet()) {
            String dst = e.getValue().split("-")[1];
            assertThatThrownBy(() -> g.transaction("main").delete("company", List.of(dst)).commit())
                    .isInstanceOf(EndpointConflictException.class);
        }
        for (Map.Entry<String, String> p : now.get("person").entrySet()) {
            assertThatThrownBy(() -> g.transaction("main")
                    .insert("person", List.of(Row.of("id", "new-" + p.getKey(), "email", p.getValue()))).commit())
                    .isInstanceOf(UniqueConflictException.class);
        }
        assertThatThrownBy(() -> g.transaction("main")
                .insert("works_at", List.of(Row.of("id", "e9", "src", "nobody", "dst", "c2"))).commit())
                .isInstanceOf(PalisadeException.class);
        assertThat(rows(g)).as("the refused transactions wrote nothing").isEqualTo(now);
    }

    private static Map<String, Map<String, String>> rows(Graph g) {
        return IntegrityCrashMatrixTest.rows(g);
    }
}
