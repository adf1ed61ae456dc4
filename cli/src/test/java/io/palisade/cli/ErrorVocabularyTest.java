package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.JournalCorruptedException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.MergeConflictException;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.TableCorruptedException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.heads.CheckpointDamagedException;
import io.palisade.heads.CheckpointException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One vocabulary across Java, JSON and the command line: every {@link PalisadeException} class of the
 * build has exactly one {@link ErrorKind}, named after it, with one exit code; README "Errors: one vocabulary" lists
 * each kind once with that code and names each exception class in its kind's row only; {@code --help} lists each
 * kind under its code; the JSON error and the stderr line carry the kind.
 */
class ErrorVocabularyTest {
    static final ObjectMapper JSON = new ObjectMapper();

    /** One instance of each listed exception, as the code base throws them. */
    static final List<PalisadeException> SAMPLES = List.of(
            new KeyConflictException("person", List.of("a"), 1, null),
            new MergeConflictException("both sides changed", List.of("a")),
            new io.palisade.fencing.EndpointConflictException(io.palisade.fencing.EndpointConflictException.Situation.MISSING_ENDPOINT,
                    "works_at", List.of("zed"), 1, List.of("works_at/e1"), "table 'person'"),
            new io.palisade.fencing.UniqueConflictException("person", "email", "a@x", "alice", "bob"),
            new io.palisade.fencing.VersionExpiredException("table 'person' no longer has version 3", 40),
            new WriteConflictException("retry me"),
            new ValidationException("bad"),
            new io.palisade.fencing.IdempotencyMismatchException("req-1", "i-1"),
            new GraphRefusedException("held by another writer"),
            new JournalCorruptedException(12, "crc"),
            new io.palisade.fencing.CatalogCorruptedException("g/_palisade/catalog.json", 1,
                    List.of("table 'works_at': kind is node, the journal recorded edge")),
            new TableCorruptedException("person", "main", "main", 3, List.of("person.lance/_versions/x.manifest: zero-length"),
                    List.of("i-1"), "manifest zero-length", null),
            new CheckpointDamagedException(Path.of("c.ckpt"), "short file"),
            new CheckpointException("disk full", new IOException("disk full")),
            new ForeignCommitException(ForeignCommitException.Situation.RACED_WRITE, "person", "main", "main", 4, 6,
                    List.of(5L), List.of("i-1"), true, List.of("alice"), "raced"),
            new CommitStateUnknownException("unknown", null));

    /** Every concrete {@link PalisadeException} class in the build's main classes (the modules on this classpath). */
    static Set<Class<?>> palisadeExceptionClasses() throws IOException {
        Set<String> names = new TreeSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            String file = p.getFileName() == null ? "" : p.getFileName().toString();
            if (Files.isDirectory(p) && file.equals("classes") && p.getParent().getFileName().toString().equals("target")) {
                try (Stream<Path> s = Files.walk(p)) {
                    s.filter(f -> f.toString().endsWith(".class")).map(f -> p.relativize(f).toString())
                            .filter(n -> n.startsWith("io/palisade/")).forEach(names::add);
                }
            } else if (file.startsWith("palisade-") && file.endsWith(".jar") && !file.endsWith("-tests.jar")) {
                try (JarFile jar = new JarFile(p.toFile())) {
                    jar.stream().map(JarEntry::getName).filter(n -> n.startsWith("io/palisade/") && n.endsWith(".class"))
                            .forEach(names::add);
                }
            }
        }
        Set<Class<?>> out = new java.util.LinkedHashSet<>();
        for (String n : names) {
            String cls = n.substring(0, n.length() - ".class".length()).replace('/', '.');
            try {
                Class<?> c = Class.forName(cls, false, ErrorVocabularyTest.class.getClassLoader());
                if (PalisadeException.class.isAssignableFrom(c) && !Modifier.isAbstract(c.getModifiers())) {
                    out.add(c);
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // not loadable without an optional dependency: not an exception a caller meets
            }
        }
        return out;
    }

    /** README's table: kind → (exit code, the Java column). */
    record Row(int code, String kind, String java) {
    }

    static Map<String, Row> readmeTable() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        int at = readme.indexOf("## Errors: one vocabulary\n");
        assertThat(at).as("README has the section").isNotNegative();
        String section = readme.substring(at, readme.indexOf("\n## ", at + 10));
        Map<String, Row> rows = new LinkedHashMap<>();
        for (String line : section.lines().toList()) {
            if (!line.startsWith("| ") || line.startsWith("| exit") || line.startsWith("|---")) {
                continue;
            }
            String[] cells = line.split("\\|", -1);
            int code = Integer.parseInt(cells[1].strip());
            String kind = cells[2].strip().replace("`", "");
            if (code == 0) {
                assertThat(kind).as("exit 0 is ok, no error").isEmpty();
                continue;
            }
            assertThat(rows.put(kind, new Row(code, kind, cells[3]))).as("kind %s listed once", kind).isNull();
        }
        return rows;
    }

    private static String snake(String camel) {
        return camel.replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
    }

    @Test
    void eachKindIsNamedAfterItsExceptionAndEachExceptionClassHasExactlyOneKind() throws Exception {
        for (ErrorKind k : ErrorKind.values()) {
            if (k.exception != null) {
                String stem = k.exception.getSimpleName().replaceFirst("Exception$", "");
                assertThat(k.json()).as("kind of %s", k.exception.getSimpleName()).isEqualTo(snake(stem));
                assertThat(ErrorKind.ofClass(k.exception)).isEqualTo(k);
            }
        }
        Set<Class<?>> found = palisadeExceptionClasses();
        assertThat(found).as("the scan finds the taxonomy").contains(KeyConflictException.class, ForeignCommitException.class,
                CheckpointDamagedException.class);
        for (Class<?> c : found) {
            ErrorKind k = ErrorKind.ofClass(c);
            assertThat(k.exception).as("%s has a kind of its own or of a listed parent, not internal_error", c.getName())
                    .isNotNull();
            long listedAncestors = EnumSet.allOf(ErrorKind.class).stream()
                    .filter(x -> x.exception != null && x.exception.isAssignableFrom(c) && x.exception != PalisadeException.class)
                    .filter(x -> EnumSet.allOf(ErrorKind.class).stream().noneMatch(y -> y != x && y.exception != null
                            && x.exception.isAssignableFrom(y.exception) && y.exception.isAssignableFrom(c)))
                    .count();
            assertThat(listedAncestors).as("%s resolves to exactly one most specific kind", c.getName()).isEqualTo(1);
        }
    }

    @Test
    void theReadmeTableListsEveryKindWithItsCodeAndEveryExceptionClassInItsKindsRow() throws Exception {
        Map<String, Row> table = readmeTable();
        assertThat(table.keySet()).as("README kinds").containsExactlyInAnyOrderElementsOf(
                Arrays.stream(ErrorKind.values()).map(ErrorKind::json).toList());
        for (ErrorKind k : ErrorKind.values()) {
            Row r = table.get(k.json());
            assertThat(r.code()).as("exit code of %s", k.json()).isEqualTo(k.code);
            if (k.exception != null) {
                assertThat(r.java()).as("row of %s", k.json()).contains("`" + javaName(k.exception) + "`");
            }
        }
        for (Class<?> c : palisadeExceptionClasses()) {
            List<String> rowsNaming = table.values().stream().filter(r -> r.java().contains("`" + javaName(c) + "`"))
                    .map(Row::kind).toList();
            assertThat(rowsNaming).as("README rows naming %s", c.getName()).containsExactly(ErrorKind.ofClass(c).json());
        }
    }

    /** How the README names a class: simple name in io.palisade.fencing, package-qualified elsewhere. */
    private static String javaName(Class<?> c) {
        return c.getPackageName().equals("io.palisade.fencing") ? c.getSimpleName() : c.getName();
    }

    @Test
    void exitCodesJsonErrorsAndStderrLinesUseTheKind() throws Exception {
        Set<ErrorKind> covered = EnumSet.noneOf(ErrorKind.class);
        for (PalisadeException e : SAMPLES) {
            ErrorKind k = ErrorKind.of(e);
            covered.add(k);
            assertThat(Main.exitCode(e)).as(e.getClass().getSimpleName()).isEqualTo(k.code);
            JsonNode err = JSON.readTree(Main.jsonError(k.code, k, e.getMessage(), e)).get("error");
            assertThat(err.get("code").asInt()).isEqualTo(k.code);
            assertThat(err.get("kind").asText()).isEqualTo(k.json());
            assertThat(err.get("retryable").asBoolean()).isEqualTo(e.retryable());
            String line = stderrOf(e);
            assertThat(line).as("stderr of %s", e.getClass().getSimpleName()).startsWith("palisade: " + k.words() + ": ");
            assertThat(line.strip().split("\n")).hasSize(1);
        }
        assertThat(covered).as("a sample per exception kind")
                .containsAll(EnumSet.complementOf(EnumSet.of(ErrorKind.INTERNAL_ERROR, ErrorKind.USAGE)));
        assertThat(Main.exitCode(new IllegalStateException("bug"))).isEqualTo(ErrorKind.INTERNAL_ERROR.code);
        assertThat(stderrOf(new IllegalStateException("bug"))).startsWith("palisade: internal error: IllegalStateException: bug");
        assertThat(ErrorKind.of(new CliException(Main.INVALID_INPUT, "no rows"))).isEqualTo(ErrorKind.VALIDATION);
        assertThat(ErrorKind.of(new CliException(Main.USAGE, "bad"))).isEqualTo(ErrorKind.USAGE);
        assertThat(ErrorKind.of(new CliException(ErrorKind.TABLE_CORRUPTED, "damaged")).code).isEqualTo(7);
    }

    private static String stderrOf(Throwable e) {
        PrintStream err = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            Main.handle(e);
        } finally {
            System.setErr(err);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpListsEveryKindUnderItsExitCode() {
        PrintStream out = System.out;
        ByteArrayOutputStream help = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(help, true, StandardCharsets.UTF_8));
            assertThat(Main.run("--help")).isZero();
        } finally {
            System.setOut(out);
        }
        String text = help.toString(StandardCharsets.UTF_8);
        String codes = text.substring(text.indexOf("Exit codes"));
        List<String> rows = new ArrayList<>();
        int last = java.util.Arrays.stream(ErrorKind.values()).mapToInt(k -> k.code).max().orElseThrow();
        for (int code = 0; code <= last; code++) {
            int from = codes.indexOf("  " + code + "   ");
            int to = code == last ? codes.indexOf("\n\n", from) : codes.indexOf("  " + (code + 1) + "   ");
            assertThat(from).as("exit %d listed", code).isNotNegative();
            rows.add(codes.substring(from, to < 0 ? codes.length() : to).replaceAll("\\s+", " "));
        }
        for (ErrorKind k : ErrorKind.values()) {
            assertThat(rows.get(k.code)).as("--help row of exit %d names %s", k.code, k.json()).contains(k.json());
        }
    }
}
