package io.palisade.coordinator;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The crash children's command line maps a class-data archive: the training child ran to its end and left one
 * (a training child that fails would leave the children without it, silently slower).
 */
class ChildJvmTest {
    @Test
    void childrenMapTheTrainedArchiveAndRunFromJars() {
        List<String> cmd = ChildJvm.command("256m", null, CreateChild.class, "unused");

        String archive = cmd.stream().filter(a -> a.startsWith("-XX:SharedArchiveFile=")).findFirst()
                .orElseThrow(() -> new AssertionError("no class-data archive in " + cmd));
        Path file = Path.of(archive.substring("-XX:SharedArchiveFile=".length()));
        assertThat(file).isRegularFile();
        assertThat(file.toFile().length()).as("archive size").isGreaterThan(1 << 20);
        String cp = cmd.get(cmd.indexOf("-cp") + 1);
        assertThat(cp.split(java.io.File.pathSeparator)).as("a classpath of jars only")
                .allSatisfy(e -> assertThat(Files.isDirectory(Path.of(e))).as(e).isFalse());
        assertThat(cmd).endsWith(CreateChild.class.getName(), "unused");
    }
}
