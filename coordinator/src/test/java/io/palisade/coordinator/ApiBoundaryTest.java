package io.palisade.coordinator;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Source and signature guards of the coordinator's boundary between its API ({@code io.palisade.coordinator}) and its
 * engine ({@code io.palisade.coordinator.internal}): the modules that stand for an embedder never reach the engine,
 * the engine never reaches back to the facade, and the public package holds only API types whose public signatures
 * name no engine type.
 */
class ApiBoundaryTest {
    private static final String INTERNAL = "io.palisade.coordinator.internal";
    private static final Path API_SOURCES = Path.of("src/main/java/io/palisade/coordinator");
    /** Modules written as an embedder would write them: they use the API only. */
    private static final List<String> EMBEDDERS = List.of("cli", "examples", "benchmarks");
    /** A file of an embedder module that may name the engine, and why. None today. */
    private static final Map<String, String> ALLOWED = Map.of();
    private static final Pattern FACADE = Pattern.compile("\\bio\\.palisade\\.coordinator\\.(Graph|Palisade)\\b");

    @Test
    void theCliTheExamplesAndTheBenchmarksNeverImportTheEngine() {
        Map<String, String> offenders = new TreeMap<>();
        int files = 0;
        for (String module : EMBEDDERS) {
            Path src = Path.of("..", module, "src");
            assertThat(src).as("module %s beside coordinator", module).isDirectory();
            for (Map.Entry<Path, String> e : javaSources(src).entrySet()) {
                files++;
                String name = module + "/" + src.relativize(e.getKey());
                if (e.getValue().contains(INTERNAL) && !ALLOWED.containsKey(name)) {
                    offenders.put(name, firstLineWith(e.getValue(), INTERNAL));
                }
            }
        }
        assertThat(files).isGreaterThan(50);
        assertThat(offenders).as("files of cli, examples or benchmarks that name %s", INTERNAL).isEmpty();
    }

    @Test
    void noEngineClassNamesTheFacade() {
        Map<Path, String> engine = javaSources(API_SOURCES.resolve("internal"));
        assertThat(engine).hasSizeGreaterThan(20);
        Map<String, String> offenders = new TreeMap<>();
        engine.forEach((file, text) -> {
            if (FACADE.matcher(text).find()) {
                offenders.put(file.getFileName().toString(), firstLineMatching(text, FACADE));
            }
        });
        assertThat(offenders).as("engine classes that import or name Graph or Palisade").isEmpty();
    }

    @Test
    void thePublicPackageHoldsOnlyPublicApiTypesWhoseSignaturesNameNoEngineType() throws ClassNotFoundException {
        List<String> notPublic = new ArrayList<>();
        List<String> leaks = new ArrayList<>();
        int types = 0;
        try (Stream<Path> files = list(API_SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String simple = f.getFileName().toString().replace(".java", "");
                if (simple.equals("package-info")) {
                    continue;
                }
                Class<?> c = Class.forName("io.palisade.coordinator." + simple);
                types++;
                if (!Modifier.isPublic(c.getModifiers())) {
                    notPublic.add(simple);
                }
                leaks.addAll(engineTypesIn(c));
                for (Class<?> nested : c.getDeclaredClasses()) {
                    if (Modifier.isPublic(nested.getModifiers())) {
                        leaks.addAll(engineTypesIn(nested));
                    }
                }
            }
        }
        assertThat(types).isGreaterThan(10);
        assertThat(notPublic).as("package-private types in the API package (engine types belong in %s)", INTERNAL)
                .isEmpty();
        assertThat(leaks).as("public members of API types that name an engine type").isEmpty();
    }

    private static List<String> engineTypesIn(Class<?> c) {
        List<String> out = new ArrayList<>();
        for (Method m : c.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic()) {
                List<Type> named = new ArrayList<>(List.of(m.getGenericParameterTypes()));
                named.add(m.getGenericReturnType());
                named.addAll(List.of(m.getGenericExceptionTypes()));
                named.stream().filter(ApiBoundaryTest::isEngineType)
                        .forEach(t -> out.add(c.getSimpleName() + "." + m.getName() + " names " + t.getTypeName()));
            }
        }
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            if (Modifier.isPublic(k.getModifiers())) {
                Stream.of(k.getGenericParameterTypes()).filter(ApiBoundaryTest::isEngineType)
                        .forEach(t -> out.add(c.getSimpleName() + "(...) names " + t.getTypeName()));
            }
        }
        for (Field f : c.getDeclaredFields()) {
            if (Modifier.isPublic(f.getModifiers()) && isEngineType(f.getGenericType())) {
                out.add(c.getSimpleName() + "." + f.getName() + " is " + f.getGenericType().getTypeName());
            }
        }
        return out;
    }

    /** Whether {@code t}, or a type argument of it, is an engine type. */
    private static boolean isEngineType(Type t) {
        return t.getTypeName().contains(INTERNAL + ".");
    }

    private static Map<Path, String> javaSources(Path root) {
        Map<Path, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.filter(x -> x.toString().endsWith(".java")).toList()) {
                out.put(p, Files.readString(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static Stream<Path> list(Path dir) {
        try {
            return Files.list(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String firstLineWith(String text, String needle) {
        return text.lines().filter(l -> l.contains(needle)).findFirst().orElse("").trim();
    }

    private static String firstLineMatching(String text, Pattern p) {
        return text.lines().filter(l -> p.matcher(l).find()).findFirst().orElse("").trim();
    }
}
