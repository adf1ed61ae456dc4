package io.palisade.it.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The power-loss model (docs/crash-points.md, "The power-loss model"). The durable image of a graph is
 * modelled by complete copies of the WHOLE graph directory — journal, checkpoints, catalog, format stamp
 * and the Lance tables under {@code tables/} — taken at every sync point the child reaches: every named
 * crash point (each follows a journal sync, a Lance commit, a catalog or checkpoint rename, or nothing
 * new since the previous one), the return of {@code Palisade.open}, of every write and of
 * {@code Graph.close}. The process does not go past a sync point until its copy is complete and
 * atomically renamed into place; nothing else writes the graph meanwhile (the workload is sequential and
 * the committer is idle while the caller copies). Each copy is therefore the image a power cut right
 * after that point produces when the kernel had written everything back — a state a real power cut can
 * produce under the product's sync order.
 *
 * <p>A power cut restores the newest complete copy (the graph directory is replaced by it); everything
 * after it — journal records, Lance versions, checkpoints, catalog rewrites — is lost. A copy cut short
 * leaves a {@code tmp-N} directory only, so the newest complete copy is the previous sync point's.
 */
final class PowerLoss {
    private static final String SNAP = "snap-";

    private final Path graph;
    private final Path snapshots;
    private long next;

    PowerLoss(Path graphDir) {
        this.graph = graphDir;
        this.snapshots = snapshotsOf(graphDir);
        try {
            Files.createDirectories(snapshots);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.next = newest(snapshots).map(p -> index(p) + 1).orElse(0L);
    }

    /** Beside the graph (same file system, so the restore is a rename). */
    static Path snapshotsOf(Path graphDir) {
        return graphDir.resolveSibling(graphDir.getFileName() + ".power");
    }

    /**
     * Copies the whole graph directory to a new complete snapshot (a {@code tmp-N} copy, then an atomic
     * rename to {@code snap-N}) and deletes the older ones (a cut restores only the newest). Returns N.
     */
    synchronized long snapshot() {
        long n = next++;
        Path temp = snapshots.resolve("tmp-" + n);
        Path done = snapshots.resolve(SNAP + n);
        copyTree(graph, temp);
        try {
            Files.move(temp, done, StandardCopyOption.ATOMIC_MOVE);
            try (Stream<Path> s = Files.list(snapshots)) {
                for (Path old : s.filter(p -> !p.equals(done)).toList()) {
                    deleteTree(old);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return n;
    }

    /**
     * The power cut: the graph directory becomes the newest complete snapshot; all snapshots are then
     * deleted. Returns the snapshot's number. A power-mode child always has one (the parent takes the
     * baseline before starting it), so none is an error.
     */
    static long restoreNewest(Path graphDir) {
        Path snaps = snapshotsOf(graphDir);
        Path newest = newest(snaps).orElseThrow(() -> new AssertionError("no complete power-loss snapshot in " + snaps));
        long n = index(newest);
        deleteTree(graphDir);
        try {
            Files.move(newest, graphDir, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        deleteTree(snaps);
        return n;
    }

    private static long index(Path snap) {
        return Long.parseLong(snap.getFileName().toString().substring(SNAP.length()));
    }

    private static Optional<Path> newest(Path snaps) {
        if (!Files.isDirectory(snaps)) {
            return Optional.empty();
        }
        try (Stream<Path> s = Files.list(snaps)) {
            return s.filter(p -> p.getFileName().toString().startsWith(SNAP)).max(Comparator.comparingLong(PowerLoss::index));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Copies a directory tree keeping Chronicle's sparse 80 MB cycle files sparse ({@code cp -r --sparse=always});
     * a plain Java copy (correct, larger on disk) only where there is no {@code cp} to run.
     */
    static void copyTree(Path from, Path to) {
        Process p;
        try {
            p = new ProcessBuilder("cp", "-r", "--sparse=always", from.toString(), to.toString())
                    .redirectErrorStream(true).start();
        } catch (IOException noCp) {
            javaCopy(from, to);
            return;
        }
        try {
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException("cp -r " + from + " " + to + " failed (exit " + p.exitValue() + "): " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void javaCopy(Path from, Path to) {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            List<Path> all = s.sorted(Comparator.reverseOrder()).toList();
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
