package io.palisade.substrate.lance;

import io.palisade.fencing.KeyFilter;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.InvalidFilterException;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.ScanSpec;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Lance's streaming read with a filter expression: of the table, of rows staged outside it, and a refused filter. */
class LanceFilteredScanTest {
    private static final Schema NODE = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("name", ArrowType.Utf8.INSTANCE), Field.nullable("score", new ArrowType.Int(64, true))));

    @TempDir
    Path dir;
    private BufferAllocator allocator;
    private LanceTableStore store;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        store = new LanceTableStore(dir.resolve("tables").toString());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        store.close();
        allocator.close();
    }

    private VectorSchemaRoot rows(int from, int to) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = from; i < to; i++) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", "k" + i);
            r.put("name", i % 2 == 0 ? "even" : "odd");
            r.put("score", (long) i);
            rows.add(r);
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(NODE, allocator);
        open.add(root);
        ArrowRows.fill(root, rows);
        return root;
    }

    private KeyedTable table(int n) {
        KeyedTable t = store.createKeyed("t", TableKind.NODE, NODE);
        open.add(t);
        TableRef v = t.insert(rows(0, n), MergePath.V2_FENCED).ref();
        KeyedTable at = store.openKeyed("t", v);
        open.add(at);
        return at;
    }

    private static List<String> ids(KeyedTable t, ScanSpec spec) {
        List<String> out = new ArrayList<>();
        t.scan(spec, r -> out.add((String) r.get("id")));
        return out;
    }

    @Test
    void aFilterSelectsTheRowsItMatchesWithKeysAndALimitOnTop() {
        KeyedTable t = table(20);
        assertThat(ids(t, ScanSpec.all().withFilter("score >= 15").withBatchRows(3)))
                .containsExactlyInAnyOrder("k15", "k16", "k17", "k18", "k19");
        assertThat(ids(t, ScanSpec.all().withFilter("name = 'odd' AND score < 6")))
                .containsExactlyInAnyOrder("k1", "k3", "k5");
        KeyFilter keys = KeyFilter.ofStrings(t.idFieldId(), List.of("k2", "k3", "k4", "nope"));
        assertThat(ids(t, ScanSpec.all().withKeys(keys).withFilter("name = 'even'"))).containsExactlyInAnyOrder("k2", "k4");
        List<String> limited = ids(t, ScanSpec.all().withFilter("name = 'even'").withLimit(4).withBatchRows(1));
        assertThat(limited).hasSize(4).allSatisfy(id -> assertThat(Integer.parseInt(id.substring(1)) % 2).isZero());
    }

    @Test
    void rowsStagedOutsideTheTableAreFilteredByTheSameEngineAndTheStagingIsRemoved() throws Exception {
        KeyedTable t = table(3);
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        long before = staged(tmp);
        List<String> got = new ArrayList<>();
        t.scanRows(rows(100, 110), ScanSpec.all().withFilter("score > 104 AND name = 'odd'"), r -> got.add((String) r.get("id")));
        assertThat(got).containsExactly("k105", "k107", "k109");
        assertThat(staged(tmp)).as("the temporary dataset is removed").isEqualTo(before);
        assertThatThrownBy(() -> t.scanRows(rows(0, 2), ScanSpec.all().withFilter("score >"), r -> true))
                .isInstanceOf(InvalidFilterException.class);
        assertThat(staged(tmp)).isEqualTo(before);
    }

    private static long staged(Path tmp) throws Exception {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith("palisade-rows-")).count();
        }
    }

    @Test
    void aFilterLanceCannotEvaluateIsAnInvalidFilterInPlainWords() {
        KeyedTable t = table(5);
        String[][] cases = {
                {"score >", "does not parse"},
                {"nosuch = 1", "the table has no column nosuch (its columns are id, name, score)"},
                {"score = 'x'", "cannot be compared with a column of type Int64"},
                {"1", "not a condition"},
                {"CAST(name AS BIGINT) > 1", "failed on the table's rows"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> ids(t, ScanSpec.all().withFilter(c[0]))).as(c[0])
                    .isInstanceOfSatisfying(InvalidFilterException.class, e -> {
                        assertThat(e.expression()).isEqualTo(c[0]);
                        assertThat(e.getMessage()).contains("'" + c[0] + "'").contains("table 't'");
                        assertThat(e.reason()).contains(c[1]).doesNotContain(".rs:").doesNotContain("Invalid user input")
                                .doesNotContain("Exception").doesNotContain("_rowid").doesNotContain("\n");
                    });
        }
    }
}
