package io.palisade.coordinator.internal;


import io.palisade.fencing.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The staging directory of one {@code Palisade.create}: a graph is built complete under
 * {@code <parent>/.<name>.creating-<pid>-<uuid>} and renamed to {@code <parent>/<name>} in one {@code rename(2)}, so
 * no reader or later create ever sees half a graph at the target (docs/coordinator.md "Creating a graph").
 *
 * <p>Invariants: the target is absent or an empty directory when the staging begins (a non-empty directory that
 * holds no graph is refused: it is someone's data); the staging directory is on the target's file system (same
 * parent), so the rename is atomic; the parent directory is fsynced after the rename, so the name survives a power
 * cut. A staging directory left by a killed create is removed by the next create of the same target once the
 * process named in it is gone; one whose process is alive is left alone (a concurrent create: one of the two
 * renames fails).
 */
public final class StagedCreate {
    private static final Logger LOG = LoggerFactory.getLogger(StagedCreate.class);
    private static final String MARK = ".creating-";

    private final Path target;
    private final Path staging;

    private StagedCreate(Path target, Path staging) {
        this.target = target;
        this.staging = staging;
    }

    /** Checks the target and makes a fresh staging directory beside it. */
    public static StagedCreate begin(Path target) {
        Path parent = target.getParent();
        if (parent == null) {
            throw new ValidationException("cannot create a graph at the file system root " + target);
        }
        try {
            if (Files.exists(target) && !Files.isDirectory(target)) {
                throw new ValidationException("cannot create a graph at " + target + ": a file of that name exists");
            }
            if (Files.isDirectory(target)) {
                try (Stream<Path> s = Files.list(target)) {
                    if (s.findAny().isPresent()) {
                        throw new ValidationException("cannot create a graph at " + target + ": the directory exists, "
                                + "is not empty and holds no graph; choose a new or empty directory");
                    }
                }
            }
            Files.createDirectories(parent);
            removeAbandoned(parent, target.getFileName().toString());
            Path staging = parent.resolve("." + target.getFileName() + MARK + ProcessHandle.current().pid() + "-"
                    + UUID.randomUUID());
            Files.createDirectory(staging);
            return new StagedCreate(target, staging);
        } catch (IOException e) {
            throw new ValidationException("cannot create a graph at " + target + ": " + e.getMessage(), e);
        }
    }

    public Path staging() {
        return staging;
    }

    /** Renames the complete graph into place and makes the new name durable. */
    public void commit() {
        try {
            if (Files.isDirectory(target)) {
                Files.delete(target); // empty (checked at begin): rename(2) onto it would also do, Java's move does not
            }
            // the staged graph's own directory entries (tables/, _palisade/, the format file) are durable before the
            // rename publishes them; the files below were synced by the steps that wrote them
            for (Path d : List.of(staging.resolve("tables"), staging.resolve(GraphLayout.PALISADE), staging)) {
                if (Files.isDirectory(d)) {
                    try (FileChannel dir = FileChannel.open(d, StandardOpenOption.READ)) {
                        dir.force(true);
                    }
                }
            }
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            try (FileChannel dir = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
                dir.force(true);
            }
        } catch (DirectoryNotEmptyException | java.nio.file.FileAlreadyExistsException e) {
            throw new ValidationException("cannot create a graph at " + target + ": something was created there while "
                    + "the graph was built (another create?); nothing was changed at " + target, e);
        } catch (AtomicMoveNotSupportedException e) {
            throw new ValidationException("cannot create a graph at " + target + ": the file system cannot rename "
                    + "the staging directory " + staging + " into place atomically", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rename the new graph " + staging + " to " + target, e);
        }
    }

    /** After a failed build: removes the staging directory (a failure to do so is added to {@code cause}). */
    public void abandon(RuntimeException cause) {
        try {
            deleteTree(staging);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }

    /** Removes staging directories of {@code name} whose creating process is gone. */
    private static void removeAbandoned(Path parent, String name) throws IOException {
        String prefix = "." + name + MARK;
        List<Path> leftovers;
        try (Stream<Path> s = Files.list(parent)) {
            leftovers = s.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
        for (Path p : leftovers) {
            String rest = p.getFileName().toString().substring(prefix.length());
            int dash = rest.indexOf('-');
            long pid;
            try {
                pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
            } catch (NumberFormatException e) {
                continue; // not ours
            }
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                continue;
            }
            LOG.warn("removing {}: the staging directory of a create of {} whose process ({}) is gone", p,
                    parent.resolve(name), pid);
            deleteTree(p);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
