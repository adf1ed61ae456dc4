package io.palisade.coordinator;

import io.palisade.coordinator.internal.GraphFormat;
import io.palisade.coordinator.internal.GraphLayout;
import io.palisade.coordinator.internal.CrashPoints;
import io.palisade.fencing.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Palisade#create} is atomic: a create killed (SIGKILL-like halt of a child JVM) at any step
 * leaves no graph at the target — opening it says there is none, and creating it again works and removes the
 * abandoned staging directory; killed after the rename, the graph is whole.
 */
class CreateAtomicityTest {

    static int runChild(Path target, String crashAt) throws Exception {
        List<String> cmd = ChildJvm.command("384m", crashAt, CreateChild.class, target.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(target.resolveSibling(target.getFileName() + ".child.log").toFile()).start();
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("child finished").isTrue();
        return p.exitValue();
    }

    private static List<Path> staging(Path target) throws Exception {
        try (Stream<Path> s = Files.list(target.getParent())) {
            return s.filter(p -> p.getFileName().toString().startsWith("." + target.getFileName() + ".creating-")).toList();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"create-after-format", "create-after-catalog", "create-after-intents", "create-after-tables",
            "create-before-rename"})
    void aCreateKilledBeforeItsRenameLeavesNoGraphAndCanBeRepeated(String point, @TempDir Path dir) throws Exception {
        Path target = dir.resolve("g");
        assertThat(runChild(target, point)).as("child halted at " + point).isEqualTo(CrashPoints.HALT_STATUS);
        assertThat(Files.exists(target)).as("nothing at the target").isFalse();
        assertThat(staging(target)).as("the abandoned staging directory").hasSize(1);
        assertThatThrownBy(() -> Palisade.open(target, Options.defaults())).isInstanceOf(ValidationException.class)
                .hasMessageContaining("no graph at");
        try (Graph g = Palisade.create(target, Catalog.fromJson(Rows.CATALOG), Options.defaults())) {
            assertThat(g.state().head("main", "person")).isPresent();
        }
        assertThat(staging(target)).as("removed by the next create").isEmpty();
    }

    @Test
    void aCreateKilledAfterItsRenameLeftAWholeGraph(@TempDir Path dir) throws Exception {
        Path target = dir.resolve("g");
        assertThat(runChild(target, "create-after-rename")).isEqualTo(CrashPoints.HALT_STATUS);
        assertThat(staging(target)).isEmpty();
        try (Graph g = Palisade.open(target, Options.defaults())) {
            assertThat(g.recoveryReport().changedAnything()).isFalse();
            for (Catalog.TableDef t : g.catalog().tables()) {
                assertThat(g.state().head("main", t.name())).as(t.name()).isPresent();
            }
        }
    }

    @Test
    void aCreateThatFailsLeavesNothingAndANonEmptyDirectoryIsRefused(@TempDir Path dir) throws Exception {
        Path busy = dir.resolve("busy");
        Files.createDirectories(busy);
        Files.writeString(busy.resolve("notes.txt"), "mine");
        assertThatThrownBy(() -> Palisade.create(busy, Catalog.fromJson(Rows.CATALOG), Options.defaults()))
                .isInstanceOf(ValidationException.class).hasMessageContaining("not empty");
        assertThat(Files.readString(busy.resolve("notes.txt"))).isEqualTo("mine");
        Path empty = dir.resolve("empty");
        Files.createDirectories(empty);
        try (Graph g = Palisade.create(empty, Catalog.fromJson(Rows.CATALOG), Options.defaults())) {
            assertThat(g.path()).isEqualTo(empty);
        }
        assertThat(staging(empty)).isEmpty();
        try (Stream<Path> s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString()).sorted().toList()).containsExactly("busy", "empty");
        }
    }

    @Test
    void aHalfMadeGraphFromBeforeAtomicCreateIsExplainedAtOpen(@TempDir Path dir) throws Exception {
        // what a failed create left before creation was staged: format, catalog and a journal without the tables
        Path root = dir.resolve("old");
        GraphFormat.write(root, io.palisade.fencing.FormatStamp.FENCING.number());
        new GraphLayout(root).writeCatalog(Catalog.fromJson(Rows.CATALOG));
        io.palisade.journal.Journal.open(new GraphLayout(root).palisade(), io.palisade.journal.JournalOptions.defaults()).close();
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults()))
                .isInstanceOf(io.palisade.fencing.GraphRefusedException.class)
                .hasMessageContaining("is half-made").hasMessageContaining("Delete the directory and create the graph again");
    }
}
