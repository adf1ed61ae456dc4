package io.palisade.coordinator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A class-data-sharing archive for the child JVMs of one test JVM (crash children, launched commands): a training
 * child, run once before the first real one and part of no trial, dumps the classes it loaded
 * ({@code -XX:ArchiveClassesAtExit}); every real child maps them ({@code -XX:SharedArchiveFile}) instead of loading and
 * verifying them from the jars again, about a second of CPU less per child on this machine (docs/benchmarks.md). Only
 * the start-up changes: the child runs the same code, and a child whose archive cannot be used (the JVM checks the
 * classpath and the jars' sizes and times) loads its classes as before. No real child ever dumps, so a dump can
 * neither fail nor change a trial's exit status. One archive per test JVM and family (its classpath), deleted when
 * the test JVM exits, so a rebuilt jar never meets a stale archive.
 */
public final class ChildCds {
    private final Path archive;
    private final Path dumping;
    private final Path log;
    private final List<String> logOptions;
    private boolean trained;

    /**
     * @param family     a name for children that share a classpath
     * @param logOptions the {@code -Xlog} options of the children (the JVM's own warnings must not reach an output the
     *                   test parses)
     */
    public ChildCds(String family, List<String> logOptions) {
        Path dir = Path.of("target").toAbsolutePath();
        long pid = ProcessHandle.current().pid();
        this.archive = dir.resolve("cds-" + family + "-" + pid + ".jsa");
        this.dumping = dir.resolve("cds-" + family + "-" + pid + ".jsa.dumping");
        this.log = dir.resolve("cds-" + family + "-" + pid + ".log");
        this.logOptions = List.copyOf(logOptions);
        archive.toFile().deleteOnExit();
        dumping.toFile().deleteOnExit();
        log.toFile().deleteOnExit();
    }

    /**
     * The options of the next real child: the archive once trained. The first call runs the training child, the
     * process {@code child} makes from the dump options, to its end; a training child that fails or does not end in
     * ten minutes leaves no archive (the children then start without one).
     */
    public synchronized List<String> options(Function<List<String>, ProcessBuilder> child) {
        if (!trained) {
            trained = true;
            List<String> dump = new ArrayList<>(logOptions);
            dump.add("-XX:ArchiveClassesAtExit=" + dumping);
            try {
                Files.createDirectories(archive.getParent());
                Process p = child.apply(dump).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(log.toFile()).start();
                p.getOutputStream().close();
                if (!p.waitFor(10, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    p.waitFor();
                } else if (p.exitValue() == 0 && Files.isRegularFile(dumping) && Files.size(dumping) > 0) {
                    Files.move(dumping, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                }
                Files.deleteIfExists(dumping);
            } catch (IOException e) {
                // no archive: the children start as they would without one
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<String> out = new ArrayList<>(logOptions);
        if (Files.isRegularFile(archive)) {
            out.add("-XX:SharedArchiveFile=" + archive);
        }
        return out;
    }
}
