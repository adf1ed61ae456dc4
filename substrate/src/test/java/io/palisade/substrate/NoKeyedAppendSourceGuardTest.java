package io.palisade.substrate;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Source guard (RFC-023 §5.1, §11.2): Lance Append can only be issued by the keyless handle. Any
 * other main source file of this module that mentions an Append construct fails the build.
 */
class NoKeyedAppendSourceGuardTest {

    private static final List<String> APPEND_CONSTRUCTS = List.of(
            "Append.builder(", "WriteMode.APPEND", "commitAppend(", "FragmentOperation.Append");
    private static final String ALLOWED = "LanceKeylessTable.java";

    @Test
    void onlyTheKeylessHandleIssuesLanceAppend() throws IOException {
        Path main = Path.of("src/main/java");
        assertThat(main).isDirectory();
        Map<Path, String> sources;
        try (Stream<Path> files = Files.walk(main)) {
            sources = files.filter(p -> p.toString().endsWith(".java"))
                    .collect(java.util.stream.Collectors.toMap(p -> p, NoKeyedAppendSourceGuardTest::read));
        }
        assertThat(sources).isNotEmpty();
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

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
