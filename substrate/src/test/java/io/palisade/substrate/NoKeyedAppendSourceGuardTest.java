package io.palisade.substrate;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Source guards of the write routing (RFC-023 §5, §5.1, §11.2): a keyed table is written by
 * merge-insert ON exactly {@code id} and never appended to; Lance Append can only be issued by the
 * keyless handle. Any other main source file of this module that mentions an Append construct, or a
 * merge-insert on another column set, fails the build.
 */
class NoKeyedAppendSourceGuardTest {

    private static final List<String> APPEND_CONSTRUCTS = List.of(
            "Append.builder(", "WriteMode.APPEND", "commitAppend(", "FragmentOperation.Append");
    private static final String ALLOWED = "LanceKeylessTable.java";
    private static final String MERGE_INSERT = "new MergeInsertParams(";
    private static final String MERGE_INSERT_ON_ID = "new MergeInsertParams(List.of(KeyedSchemas.ID))";

    @Test
    void onlyTheKeylessHandleIssuesLanceAppend() throws IOException {
        Map<Path, String> sources = mainSources();
        List<String> offenders = sources.entrySet().stream()
                .filter(e -> !e.getKey().getFileName().toString().equals(ALLOWED))
                .filter(e -> APPEND_CONSTRUCTS.stream().anyMatch(e.getValue()::contains))
                .map(e -> e.getKey().toString()).toList();
        assertThat(offenders).isEmpty();
        assertThat(sources.entrySet()).anySatisfy(e -> {
            assertThat(e.getKey().getFileName().toString()).isEqualTo(ALLOWED);
            assertThat(e.getValue()).contains("Append.builder(");
        });
    }

    @Test
    void everyLanceMergeInsertIsOnExactlyId() throws IOException {
        // any other ON set attaches no key filter, so it has no key fencing (RFC-023 §2.1)
        Map<Path, String> sources = mainSources();
        List<String> offenders = sources.entrySet().stream()
                .filter(e -> count(e.getValue(), MERGE_INSERT) != count(e.getValue(), MERGE_INSERT_ON_ID))
                .map(e -> e.getKey().toString()).toList();
        assertThat(offenders).isEmpty();
        assertThat(sources.values().stream().mapToInt(s -> count(s, MERGE_INSERT_ON_ID)).sum()).isPositive();
    }

    @Test
    void theSpiOffersAppendOnlyOnKeylessTablesAndKeyedWritesOnlyOnKeyedTables() {
        assertThat(methodNames(KeyedTable.class)).contains("insert", "upsert")
                .noneMatch(n -> n.toLowerCase(Locale.ROOT).contains("append"));
        assertThat(methodNames(KeylessTable.class)).contains("append").doesNotContain("insert", "upsert", "fold");
    }

    private static List<String> methodNames(Class<?> handle) {
        return Arrays.stream(handle.getMethods()).map(Method::getName).toList();
    }

    private static int count(String text, String construct) {
        int n = 0;
        for (int i = text.indexOf(construct); i >= 0; i = text.indexOf(construct, i + construct.length())) {
            n++;
        }
        return n;
    }

    private static Map<Path, String> mainSources() throws IOException {
        Path main = Path.of("src/main/java");
        assertThat(main).isDirectory();
        Map<Path, String> sources;
        try (Stream<Path> files = Files.walk(main)) {
            sources = files.filter(p -> p.toString().endsWith(".java"))
                    .collect(java.util.stream.Collectors.toMap(p -> p, NoKeyedAppendSourceGuardTest::read));
        }
        assertThat(sources).isNotEmpty();
        return sources;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
