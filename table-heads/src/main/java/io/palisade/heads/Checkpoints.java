package io.palisade.heads;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Heads checkpoints in {@code _palisade/checkpoints/heads-<seq>.ckpt} ({@link CheckpointDescriptor} layout).
 *
 * <p>Writing follows the Aeron recipe: write a temporary file in the same directory, fsync it, rename it
 * atomically over the final name, fsync the directory. A crash at any point therefore leaves either the
 * complete new checkpoint or none under the final name (plus perhaps a temporary file, which every later
 * write deletes and every load ignores). Only the newest {@code keep} checkpoints are kept.
 *
 * <p>Loading never trusts a file: {@link #loadNewestValid()} verifies candidates from the newest down,
 * returns the first that verifies and reports every damaged one it skipped on the way.
 *
 * <p><b>Deltas.</b> A checkpoint is either full or a delta over the checkpoint this instance wrote before it
 * ({@link CheckpointCodec#encodeDelta}): the live parts of the state in full, and only the completed intents and
 * receipts gained since the parent, so its cost is bounded by what changed, not by the graph's history. A full
 * checkpoint is written first in each process, whenever the state does not descend from the last one written, and
 * once the deltas written since the last full one add up to its size or number {@link #MAX_CHAIN}: the total bytes
 * written stay linear in the history (each full write is paid for by as many bytes of deltas) and a load reads at
 * most a full checkpoint, {@value #MAX_CHAIN} deltas and about the full one's size again. A delta verifies only with
 * its whole chain; pruning keeps the newest {@code keep} checkpoints and every checkpoint their chains need.
 *
 * <p>Not thread-safe for concurrent writers (the coordinator's committer is the only writer); loads may
 * run concurrently with a write.
 */
public final class Checkpoints {
    private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);

    /** The checkpoint directory inside {@code _palisade/}. */
    public static final String DIRECTORY = "checkpoints";
    /** Checkpoints kept by {@link #of(Path)}. */
    public static final int DEFAULT_KEEP = 3;
    /** The most deltas written over one full checkpoint before the next full one. */
    public static final int MAX_CHAIN = 64;

    /** Writes some bytes of {@code src}; a test seam to simulate a device that stops short. */
    interface Sink {
        int write(FileChannel channel, ByteBuffer src) throws IOException;
    }

    private final Path dir;
    private final int keep;
    private final Sink sink;

    /** The last state this instance wrote durably, null before the first (deltas are written over it). */
    private HeadsState lastWritten;
    /** Bytes of the last full checkpoint, and of the deltas written over it since, and their number. */
    private long fullBytes;
    private long deltaBytes;
    private int chain;

    /**
     * @param dir  the checkpoint directory (created on first write)
     * @param keep how many checkpoints to keep, at least 1
     */
    public Checkpoints(Path dir, int keep) {
        this(dir, keep, FileChannel::write);
    }

    Checkpoints(Path dir, int keep, Sink sink) {
        this.dir = Objects.requireNonNull(dir, "dir");
        if (keep < 1) {
            throw new IllegalArgumentException("keep must be at least 1: " + keep);
        }
        this.keep = keep;
        this.sink = sink;
    }

    /** The checkpoints of the graph whose {@code _palisade/} directory is {@code palisadeDir}, keeping {@value #DEFAULT_KEEP}. */
    public static Checkpoints of(Path palisadeDir) {
        return new Checkpoints(palisadeDir.resolve(DIRECTORY), DEFAULT_KEEP);
    }

    public Path directory() {
        return dir;
    }

    /**
     * A checkpoint durably written: {@code bytes} long, a delta over the checkpoint of {@code parentSequence}, or
     * full ({@code parentSequence} -1).
     */
    public record Written(Path file, long sequence, String headsDigest, long bytes, long parentSequence) {
        public boolean delta() {
            return parentSequence >= 0;
        }
    }

    /** A checkpoint that verified, with the state it holds. */
    public record Loaded(Path file, long sequence, HeadsState state) {
    }

    /** A checkpoint file skipped because it did not verify. */
    public record Skipped(Path file, long sequence, String reason) {
    }

    /**
     * The result of a load: the newest checkpoint that verified (if any) and every damaged checkpoint
     * newer than it, newest first.
     */
    public record LoadResult(Optional<Loaded> checkpoint, List<Skipped> skipped) {
        public LoadResult {
            Objects.requireNonNull(checkpoint, "checkpoint");
            skipped = List.copyOf(skipped);
        }
    }

    /**
     * Writes {@code state} durably as {@code heads-<state.lastSequence()>.ckpt} (replacing a checkpoint of
     * the same sequence), then deletes all but the newest {@code keep}.
     *
     * @throws io.palisade.fencing.ValidationException for the empty state (nothing to checkpoint)
     * @throws CheckpointException on an I/O failure or short write; no file is left under the final name
     */
    public Written write(HeadsState state) {
        if (state.lastSequence() < 0) {
            throw new io.palisade.fencing.ValidationException("the empty heads state has no sequence to checkpoint");
        }
        byte[] image = null;
        long parentSequence = -1;
        if (lastWritten != null && chain < MAX_CHAIN && deltaBytes < fullBytes
                && Files.isRegularFile(dir.resolve(CheckpointDescriptor.fileName(lastWritten.lastSequence())))) {
            image = CheckpointCodec.encodeDelta(state, lastWritten);
            parentSequence = image == null ? -1 : lastWritten.lastSequence();
        }
        if (image == null) {
            image = CheckpointCodec.encode(state);
        }
        Path target = dir.resolve(CheckpointDescriptor.fileName(state.lastSequence()));
        Path temp = dir.resolve(target.getFileName() + CheckpointDescriptor.TEMP_SUFFIX);
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                fsyncDirectory(dir.toAbsolutePath().getParent());
            }
            deleteTemporaries();
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer src = ByteBuffer.wrap(image);
                while (src.hasRemaining()) {
                    int n = sink.write(ch, src);
                    if (n <= 0) {
                        throw new IOException("short write: " + src.position() + " of " + image.length + " bytes");
                    }
                }
                if (ch.size() != image.length) {
                    throw new IOException("short write: file holds " + ch.size() + " of " + image.length + " bytes");
                }
                ch.force(true);
            }
            PhaseCrashPoints.hit(PhaseCrashPoints.CHECKPOINT_AFTER_TEMP);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fsyncDirectory(dir);
            PhaseCrashPoints.hit(PhaseCrashPoints.CHECKPOINT_AFTER_RENAME);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new CheckpointException("checkpoint " + target + " could not be written: " + e.getMessage(), e);
        }
        LOG.debug("checkpoint {} written ({} bytes, {})", target, image.length,
                parentSequence < 0 ? "full" : "a delta over " + parentSequence);
        if (parentSequence < 0) {
            fullBytes = image.length;
            deltaBytes = 0;
            chain = 0;
        } else {
            deltaBytes += image.length;
            chain++;
        }
        lastWritten = state;
        prune();
        return new Written(target, state.lastSequence(), state.digest(), image.length, parentSequence);
    }

    private void deleteTemporaries() throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, CheckpointDescriptor.PREFIX + "*"
                + CheckpointDescriptor.TEMP_SUFFIX)) {
            for (Path p : ds) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Checkpoints kept beyond the newest {@code keep}, by sequence ({@link #keepAlso}). */
    private volatile java.util.Set<Long> alsoKept = java.util.Set.of();

    /**
     * Keeps the checkpoints of these sequences too, whatever their age, from the next write on (the graph's anchors for
     * reading its past: docs/journal.md "File retention"); replaces the previous set.
     */
    public void keepAlso(java.util.Set<Long> sequences) {
        alsoKept = java.util.Set.copyOf(sequences);
    }

    /** Deletes all but the newest {@code keep} checkpoints, those {@link #keepAlso} names, and their delta chains. */
    private void prune() {
        List<Path> all = list();
        if (all.size() <= keep) {
            return;
        }
        try {
            java.util.Set<Long> needed = new java.util.HashSet<>();
            List<Long> roots = new ArrayList<>(alsoKept);
            for (Path p : all.subList(all.size() - keep, all.size())) {
                roots.add(sequenceOf(p));
            }
            for (long root : roots) {
                long seq = root;
                if (!Files.exists(dir.resolve(CheckpointDescriptor.fileName(seq)))) {
                    continue;
                }
                while (seq >= 0 && needed.add(seq)) {
                    seq = parentOf(dir.resolve(CheckpointDescriptor.fileName(seq)));
                }
            }
            boolean deleted = false;
            for (Path p : all.subList(0, all.size() - keep)) {
                if (!needed.contains(sequenceOf(p))) {
                    Files.deleteIfExists(p);
                    deleted = true;
                    LOG.debug("checkpoint {} pruned", p);
                }
            }
            if (!deleted) {
                return;
            }
            fsyncDirectory(dir);
        } catch (IOException e) {
            // the new checkpoint is durable; an old one left behind is harmless and pruned next time
            LOG.warn("pruning old checkpoints in {} failed: {}", dir, e.toString());
        }
    }

    private static void fsyncDirectory(Path d) throws IOException {
        if (d == null) {
            return;
        }
        try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * The covered sequence of the checkpoint {@code file} is a delta over, -1 for a full checkpoint or a file that
     * is missing or too short to tell (reads only the file's first bytes; verifies nothing).
     */
    static long parentOf(Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(CheckpointDescriptor.HEADER_LENGTH + 9);
            while (b.hasRemaining() && ch.read(b) > 0) {
                // read the header and the body's kind and parent
            }
            return CheckpointCodec.parentSequence(java.util.Arrays.copyOf(b.array(), b.position()));
        } catch (IOException e) {
            return -1;
        }
    }

    /** The journal sequence a checkpoint file covers, by its name; -1 when the name is not a checkpoint's. */
    public static long sequenceOf(Path file) {
        return CheckpointDescriptor.sequenceOf(file.getFileName().toString());
    }

    /** How many of the newest checkpoints are always kept: a load falls back through them, newest first. */
    public int keep() {
        return keep;
    }

    /** The checkpoint files (by name; not verified), oldest first. Empty when the directory does not exist. */
    public List<Path> list() {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                if (CheckpointDescriptor.sequenceOf(p.getFileName().toString()) >= 0) {
                    out.add(p);
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new CheckpointException("cannot list checkpoints in " + dir, e);
        }
        out.sort(Comparator.comparingLong(p -> CheckpointDescriptor.sequenceOf(p.getFileName().toString())));
        return out;
    }

    /** The newest checkpoint that verifies, and the damaged newer ones skipped. */
    public LoadResult loadNewestValid() {
        return loadNewestValidAtOrBelow(Long.MAX_VALUE);
    }

    /** The newest checkpoint covering at most {@code sequence} that verifies, and the damaged ones skipped. */
    public LoadResult loadNewestValidAtOrBelow(long sequence) {
        List<Path> all = list();
        List<Skipped> skipped = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0; i--) {
            Path p = all.get(i);
            long seq = CheckpointDescriptor.sequenceOf(p.getFileName().toString());
            if (seq > sequence) {
                continue;
            }
            try {
                HeadsState s = read(p);
                return new LoadResult(Optional.of(new Loaded(p, seq, s)), skipped);
            } catch (CheckpointDamagedException e) {
                LOG.warn("skipping damaged checkpoint {}: {}", p, e.getMessage());
                skipped.add(new Skipped(p, seq, e.getMessage()));
            } catch (CheckpointException e) {
                LOG.warn("skipping unreadable checkpoint {}: {}", p, e.getMessage());
                skipped.add(new Skipped(p, seq, e.getMessage()));
            }
        }
        return new LoadResult(Optional.empty(), skipped);
    }

    /** {@code new Checkpoints(dir, DEFAULT_KEEP).loadNewestValid()}. */
    public static LoadResult loadNewestValid(Path dir) {
        return new Checkpoints(dir, DEFAULT_KEEP).loadNewestValid();
    }

    /**
     * Reads and verifies one checkpoint file.
     *
     * @throws CheckpointDamagedException when it does not verify
     * @throws CheckpointException        when it cannot be read
     */
    public static HeadsState read(Path file) {
        return read(file, MAX_CHAIN + 1);
    }

    /** Reads {@code file}, resolving a delta's parents in the same directory, at most {@code depth} files deep. */
    private static HeadsState read(Path file, int depth) {
        byte[] image;
        try {
            image = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new CheckpointException("cannot read checkpoint " + file, e);
        }
        return CheckpointCodec.decode(image, file, CheckpointDescriptor.sequenceOf(file.getFileName().toString()),
                parentSeq -> {
                    Path parent = file.resolveSibling(CheckpointDescriptor.fileName(parentSeq));
                    if (depth <= 1) {
                        throw new CheckpointDamagedException(file, "its delta chain is longer than " + (MAX_CHAIN + 1)
                                + " checkpoints");
                    }
                    try {
                        return read(parent, depth - 1);
                    } catch (CheckpointDamagedException | CheckpointException e) {
                        throw new CheckpointDamagedException(file, "a delta over " + parent.getFileName()
                                + ", which does not verify: " + e.getMessage(), e);
                    }
                });
    }
}
