package io.palisade.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a directory holds on disk, walked once: regular files and their bytes, the bytes under each top-level entry
 * (a Lance table's {@code _versions}, {@code _indices}, {@code _deletions}, {@code data}, ...; loose top-level files
 * under {@link #TOP_LEVEL_FILES}), and the Lance manifests ({@code *.manifest} files directly in a {@code _versions}
 * directory, one per table version kept).
 *
 * <p>Safe to take while a writer changes the directory: a file or directory that vanishes between listing and
 * reading is skipped, so the figures are of some moment during the walk, not of one instant. A missing root is
 * empty. Sizes are file lengths ({@code BasicFileAttributes.size()}), not allocated blocks; {@link #allocatedBytes}
 * asks the file system for those (a memory-mapped journal's files are sparse: their length is what was reserved).
 */
record DiskUsage(long files, long bytes, long manifests, Map<String, Long> bytesByTop) {
    /** The key of {@link #bytesByTop} for regular files directly in the walked root. */
    static final String TOP_LEVEL_FILES = ".";
    static final String VERSIONS = "_versions";
    static final String MANIFEST_SUFFIX = ".manifest";

    static final DiskUsage EMPTY = new DiskUsage(0, 0, 0, Map.of());

    DiskUsage {
        bytesByTop = Map.copyOf(bytesByTop);
    }

    /** Bytes under the top-level entry {@code name} (0 when it does not exist). */
    long bytesUnder(String name) {
        return bytesByTop.getOrDefault(name, 0L);
    }

    /** Walks {@code root} (see the class comment). */
    static DiskUsage of(Path root) {
        if (!Files.isDirectory(root)) {
            return EMPTY;
        }
        Walker w = new Walker(root);
        try {
            Files.walkFileTree(root, w);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot walk " + root, e);
        }
        return new DiskUsage(w.files, w.bytes, w.manifests, w.byTop);
    }

    /**
     * Bytes the file system has allocated under {@code root}, as GNU {@code du -s -B1} reports them (0 for a missing
     * root, -1 where {@code du} gives no figure). {@code du} may report a file that vanished during its walk and still
     * prints the total; that total is taken.
     */
    static long allocatedBytes(Path root) {
        if (!Files.exists(root)) {
            return 0;
        }
        try {
            Process du = new ProcessBuilder("du", "-s", "-B1", root.toString())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String printed = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            du.waitFor();
            return Long.parseLong(printed.split("\\s+", 2)[0]);
        } catch (IOException | NumberFormatException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static final class Walker extends SimpleFileVisitor<Path> {
        private final Path root;
        private long files;
        private long bytes;
        private long manifests;
        private final Map<String, Long> byTop = new TreeMap<>();

        Walker(Path root) {
            this.root = root;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            if (!attrs.isRegularFile()) {
                return FileVisitResult.CONTINUE;
            }
            files++;
            bytes += attrs.size();
            Path rel = root.relativize(file);
            String top = rel.getNameCount() == 1 ? TOP_LEVEL_FILES : rel.getName(0).toString();
            byTop.merge(top, attrs.size(), Long::sum);
            Path parent = file.getParent();
            if (parent != null && parent.getFileName() != null && VERSIONS.equals(parent.getFileName().toString())
                    && file.getFileName().toString().endsWith(MANIFEST_SUFFIX)) {
                manifests++;
            }
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE; // removed by the writer while we walked
            }
            throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null && !(e instanceof NoSuchFileException)) {
                throw e;
            }
            return FileVisitResult.CONTINUE;
        }
    }
}
