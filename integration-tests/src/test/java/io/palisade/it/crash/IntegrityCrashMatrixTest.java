package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Row;
import io.palisade.fencing.EndpointConflictException;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.UniqueConflictException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Integrity checks across a crash (docs/integrity.md, docs/crash-points.md), in child JVMs: a child writes persons
 * (unique {@code email}), a company and {@code works_at} edges (src person, dst company), some of which the checks
 * refuse, printing {@code ACK} or {@code REFUSED} after each answer, and halts at a named crash point
 * ({@link CrashPoints#HALT_STATUS}, like SIGKILL). This JVM reopens the graph (recovery runs) and proves: every
 * acknowledged write is present, the write in flight is present or absent whole, no edge names a missing node, no two
 * persons share an email, and the rebuilt checks still refuse what they must.
 */
class IntegrityCrashMatrixTest {
    static String catalog(String ack) {
        return """
                {"tables": [
                  {"name": "person", "kind": "node", "ack": "%1$s", "unique": ["email"], "columns": [
                    {"name": "id", "type": "string"}, {"name": "email", "type": "string", "nullable": true}]},
                  {"name": "company", "kind": "node", "ack": "%1$s", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "works_at", "kind": "edge", "ack": "%1$s", "src": "person", "dst": "company", "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}
                ]}""".formatted(ack);
    }

    static Options options() {
        return Options.defaults().withFolding(3_600_000, 1_000_000, 1L << 40);
    }

    /** One step of the child: its write, and whether the checks refuse it. */
    record Step(String name, boolean refused) {
    }

    static final List<Step> STEPS = List.of(
            new Step("insert persons a(x) b(y)", false),
            new Step("insert company c1", false),
            new Step("insert edge e1 a-c1", false),
            new Step("insert edge e2 z-c1", true),
            new Step("delete person a", true),
            new Step("upsert person b(x)", true),
            new Step("delete edge e1", false),
            new Step("delete person a", false),
            new Step("upsert person b(x)", false),
            new Step("insert edge e3 b-c1", false));

    static void write(Graph g, String step) {
        switch (step) {
            case "insert persons a(x) b(y)" -> g.insert("main", "person", List.of(Row.of("id", "a", "email", "x"), Row.of("id", "b", "email", "y")));
            case "insert company c1" -> g.insert("main", "company", List.of(Row.of("id", "c1")));
            case "insert edge e1 a-c1" -> g.insert("main", "works_at", List.of(Row.of("id", "e1", "src", "a", "dst", "c1")));
            case "insert edge e2 z-c1" -> g.insert("main", "works_at", List.of(Row.of("id", "e2", "src", "z", "dst", "c1")));
            case "delete person a" -> g.delete("main", "person", List.of("a"));
            case "upsert person b(x)" -> g.upsert("main", "person", List.of(Row.of("id", "b", "email", "x")));
            case "delete edge e1" -> g.delete("main", "works_at", List.of("e1"));
            case "insert edge e3 b-c1" -> g.insert("main", "works_at", List.of(Row.of("id", "e3", "src", "b", "dst", "c1")));
            default -> throw new IllegalArgumentException(step);
        }
    }

    /** The graph's rows after the accepted steps among the first {@code n} steps: table → id → row text. */
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
                case "insert persons a(x) b(y)" -> {
                    m.get("person").put("a", "x");
                    m.get("person").put("b", "y");
                }
                case "insert company c1" -> m.get("company").put("c1", "");
                case "insert edge e1 a-c1" -> m.get("works_at").put("e1", "a-c1");
                case "delete edge e1" -> m.get("works_at").remove("e1");
                case "delete person a" -> m.get("person").remove("a");
                case "upsert person b(x)" -> m.get("person").put("b", "x");
                case "insert edge e3 b-c1" -> m.get("works_at").put("e3", "b-c1");
                default -> throw new IllegalArgumentException(s.name());
            }
        }
        return m;
    }

    /** The child JVM: {@code <graph>}; runs {@link #STEPS}, printing each answer. */
    public static final class Child {
        public static void main(String[] args) {
            Graph g = Palisade.open(Path.of(args[0]), options());
            for (Step s : STEPS) {
                try {
                    write(g, s.name());
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

    @ParameterizedTest(name = "{0} at {1}")
    @CsvSource({
            "table, after-intent:3",
            "table, after-substrate-commit:4",
            "table, before-publish:5",
            "table, after-publish:6",
            "table, after-intent:7",
            "journal, after-journal-ack:3",
            "journal, after-journal-ack:5",
            "journal, after-journal-ack:7",
    })
    void aChildKilledMidSequenceLeavesNoDanglingEdgeNoSharedValueAndChecksThatStillHold(String ack, String point)
            throws Exception {
        Path graph = dir.resolve("g");
        try (Graph g = Palisade.create(graph, Catalog.fromJson(catalog(ack)), options())) {
            assertThat(g.catalog().require("works_at").srcTable()).contains("person");
        }
        List<String> lines = runChild(graph, point);
        int answered = 0;
        for (String l : lines) {
            if (l.startsWith("ACK ") || l.startsWith("REFUSED ")) {
                Step s = STEPS.get(answered);
                assertThat(l).as("step %d's answer", answered).isEqualTo((s.refused() ? "REFUSED " : "ACK ") + s.name());
                answered++;
            }
        }
        assertThat(lines).as("the child died at %s", point).doesNotContain("END");
        assertThat(STEPS.get(answered).refused()).as("the write in flight at %s is an accepted one", point).isFalse();

        try (Graph g = Palisade.open(graph, options())) {
            assertThat(g.state().openIntents()).as("no open intent after recovery").isEmpty();
            Map<String, Map<String, String>> now = rows(g);
            // every answered write's effect is there; the one in flight is there whole or not at all
            assertThat(now).as("after recovery from %s", point).isIn(model(answered), model(answered + 1));
            Set<String> emails = new HashSet<>(now.get("person").values());
            assertThat(emails).as("no two persons share an email").hasSameSizeAs(now.get("person").values());
            for (Map.Entry<String, String> e : now.get("works_at").entrySet()) {
                String[] ends = e.getValue().split("-");
                assertThat(now.get("person")).as("edge %s's src", e.getKey()).containsKey(ends[0]);
                assertThat(now.get("company")).as("edge %s's dst", e.getKey()).containsKey(ends[1]);
            }
            // the checks, rebuilt from the recovered state, still refuse
            assertThatThrownBy(() -> g.insert("main", "works_at", List.of(Row.of("id", "e9", "src", "nobody", "dst", "c1"))))
                    .isInstanceOf(PalisadeException.class);
            for (Map.Entry<String, String> e : now.get("works_at").entrySet()) {
                String src = e.getValue().split("-")[0];
                assertThatThrownBy(() -> g.delete("main", "person", List.of(src))).isInstanceOf(EndpointConflictException.class);
            }
            for (Map.Entry<String, String> p : now.get("person").entrySet()) {
                assertThatThrownBy(() -> g.insert("main", "person", List.of(Row.of("id", "new-" + p.getKey(), "email", p.getValue()))))
                        .isInstanceOf(UniqueConflictException.class);
            }
            assertThat(rows(g)).as("the refused writes wrote nothing").isEqualTo(now);
        }
    }

    /** The graph's person, company and works_at rows on main as text (table → id → row), each id once. */
    static Map<String, Map<String, String>> rows(Graph g) {
        Map<String, Map<String, String>> m = new TreeMap<>();
        for (String t : List.of("person", "company", "works_at")) {
            Map<String, String> rows = new TreeMap<>();
            for (Map<String, Object> r : g.scan("main", t)) {
                String id = String.valueOf(r.get("id"));
                String v = switch (t) {
                    case "person" -> String.valueOf(r.get("email"));
                    case "company" -> "";
                    default -> r.get("src") + "-" + r.get("dst");
                };
                assertThat(rows.put(id, v)).as("%s id %s once", t, id).isNull();
            }
            m.put(t, rows);
        }
        return m;
    }

    private List<String> runChild(Path graph, String point) throws Exception {
        return CrashChild.runToHalt(dir, point, Child.class, graph.toString());
    }
}
