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
 * The power-loss model (docs/crash-points.md): the journal has no pluggable I/O layer, so the durable
 * image of the journal is modelled by copies of its directory taken at the sync points the workload can
 * observe — right after each synced journal batch returns (the {@code after-intent} and
 * {@code after-publish} crash points follow the Phase A and Phase C/D syncs; {@code checkpoint-after-temp}
 * follows the sync that covers a checkpoint; the recovery points follow recovery's syncs; every
 * acknowledged write, branch creation included). A power cut restores the newest complete copy: every
 * journal write after it — unsynced or mid-batch — is dropped. Lance table files and checkpoint files
 * are kept as they are on disk (Lance's own durability is outside this model).
 */
final class PowerLoss {
    private final Path journal;
    private final Path snapshots;
    private long next;

    PowerLoss(Path graphDir) {
        this.journal = graphDir.resolve("_palisade").resolve("journal");
        this.snapshots = snapshotsOf(graphDir);
        try {
            Files.createDirectories(snapshots);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.next = newest(snapshots).map(p -> Long.parseLong(p.getFileName().toString().substring(5)) + 1).orElse(0L);
    }

    static Path snapshotsOf(Path graphDir) {
        return graphDir.resolveSibling(graphDir.getFileName() + ".power");
    }

    /** Copies the journal directory to a new complete snapshot (temp copy, then an atomic rename). */
    synchronized void snapshot() {
        Path temp = snapshots.resolve("tmp-" + next);
        Path done = snapshots.resolve("snap-" + next);
        copyTree(journal, temp);
        try {
            Files.move(temp, done, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        next++;
    }

    /** The power cut: the journal becomes the newest complete snapshot (if any); snapshots are then cleared. */
    static boolean restoreNewest(Path graphDir) {
        Path snaps = snapshotsOf(graphDir);
        Optional<Path> newest = newest(snaps);
        if (newest.isPresent()) {
            Path journal = graphDir.resolve("_palisade").resolve("journal");
            deleteTree(journal);
            copyTree(newest.get(), journal);
        }
        deleteTree(snaps);
        return newest.isPresent();
    }

    private static Optional<Path> newest(Path snaps) {
        if (!Files.isDirectory(snaps)) {
            return Optional.empty();
        }
        try (Stream<Path> s = Files.list(snaps)) {
            return s.filter(p -> p.getFileName().toString().startsWith("snap-"))
                    .max(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString().substring(5))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Copies a directory tree keeping Chronicle's sparse 80 MB cycle files sparse ({@code cp --sparse=always}). */
    static void copyTree(Path from, Path to) {
        try {
            Process p = new ProcessBuilder("cp", "-r", "--sparse=always", from.toString(), to.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (p.waitFor() == 0) {
                return;
            }
            throw new IOException("cp failed: " + out);
        } catch (IOException e) {
            // no GNU cp: a plain copy (correct, just slower)
            deleteTree(to);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
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
