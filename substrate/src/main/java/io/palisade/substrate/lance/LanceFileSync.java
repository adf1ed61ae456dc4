package io.palisade.substrate.lance;

import io.palisade.fencing.CommitStateUnknownException;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.fragment.DataFile;
import org.lance.fragment.DeletionFile;
import org.lance.fragment.DeletionFileType;
import org.lance.index.Index;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Makes what Lance commits wrote durable on a local file system. Lance 7.0.0's local object store never
 * calls fsync (docs/lance-surface.md, "Durability"): a committed version lives in the page cache until
 * the kernel writes it back, and a power cut leaves its files zero-length. Palisade acknowledges a write
 * only after this class has synced, once and in one batch, exactly the files the commit added and the
 * directories that name them.
 *
 * <p>What one version {@code v} of table branch {@code b} adds (layout pinned by
 * {@code LanceFileSyncTest}, which compares it with the files that appear on disk):
 * <pre>
 *   &lt;table&gt;.lance/                     main's directory; branch b's is &lt;table&gt;.lance/tree/b/
 *     _versions/&lt;u64::MAX - v&gt;.manifest   (V2 naming; V1 tables: &lt;v&gt;.manifest)
 *     _versions/latest_version_hint.json
 *     _transactions/&lt;readVersion&gt;-&lt;uuid&gt;.txn
 *     data/&lt;path&gt;                      every data file of a fragment not in the base version
 *     _deletions/&lt;fragment&gt;-&lt;readVersion&gt;-&lt;id&gt;.{arrow|bin}   every deletion file not in the base
 *     _indices/&lt;uuid&gt;/*                every file of an index segment not in the base
 *   &lt;table&gt;.lance/_refs/branches/b.json  a fork's branch record
 * </pre>
 * Files a branch inherits from its parent (a data file with a base id) were made durable by the
 * parent's commits and are skipped. Every directory holding a synced file is synced, and so is each of
 * its ancestors up to the first one whose entry this store already made durable (at most up to the
 * tables root), which covers directories a commit created (a branch's first data file, a new index
 * segment). The fsyncs of one batch are issued concurrently and the batch returns when all are done.
 *
 * <p>Invariant: when {@link #versions} returns, every file that versions {@code (after, upTo]} need and
 * the directory entries naming them are on stable storage. A failure to sync is a
 * {@link CommitStateUnknownException}: the commit is visible to this process but may not survive a power
 * cut, so it must not be acknowledged and the caller must not blindly retry it.
 */
final class LanceFileSync {

    /** Lance's V2 manifest naming: {@code u64::MAX - version}, printed unsigned. */
    private static final String HINT = "latest_version_hint.json";

    /** How one path is made durable: {@link #FSYNC} in production; tests record the calls. */
    @FunctionalInterface
    interface Syncer {
        void sync(Path path, boolean directory) throws IOException;
    }

    /** {@code fsync(2)} of a file or a directory (a directory is opened read-only; Linux syncs its entries). */
    static final Syncer FSYNC = (p, directory) -> {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            ch.force(true);
        }
    };

    /** Threads for one batch's fsyncs: issued together, the file system and the device flush them together. */
    private static final java.util.concurrent.ExecutorService SYNC_THREADS = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "palisade-lance-fsync");
        t.setDaemon(true);
        return t;
    });

    private final Path tablesRoot;
    private final Syncer syncer;
    /**
     * Directories whose own entry in their parent is known durable (the parent was synced after they
     * existed): a new file's directory is always synced, its ancestors only until one of these. Starts
     * empty, so a process's first commit on a table syncs the chain up to the tables root.
     */
    private final Set<Path> entryDurable = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private LanceFileSync(Path tablesRoot, Syncer syncer) {
        this.tablesRoot = tablesRoot;
        this.syncer = syncer;
    }

    /** A syncer for a store rooted at {@code root}, or empty when the root is not on a local file system. */
    static Optional<LanceFileSync> forRoot(String root, Syncer syncer) {
        if (root.startsWith("file://")) {
            return Optional.of(new LanceFileSync(Path.of(java.net.URI.create(root)), syncer));
        }
        if (root.contains("://")) {
            return Optional.empty(); // an object store: a PUT is durable when it returns
        }
        return Optional.of(new LanceFileSync(Path.of(root).toAbsolutePath(), syncer));
    }

    /** The directory of table branch {@code branch}: main's is the table's, a branch's {@code tree/<branch>}. */
    Path branchDir(String table, String branch) {
        Path t = tablesRoot.resolve(table + ".lance");
        return io.palisade.substrate.TableRef.MAIN.equals(branch) ? t : t.resolve("tree").resolve(branch);
    }

    /** A new table: every file and directory under it, the tables root and its parent. */
    void created(String table) {
        Path t = tablesRoot.resolve(table + ".lance");
        Batch batch = new Batch(t);
        try (var walk = Files.walk(t)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                if (Files.isRegularFile(p)) {
                    batch.file(p);
                } else if (Files.isDirectory(p)) {
                    batch.dirs.add(p);
                }
            }
        } catch (IOException e) {
            throw failed(table, "creation", e);
        }
        batch.dirs.add(tablesRoot);
        if (tablesRoot.getParent() != null) {
            batch.dirs.add(tablesRoot.getParent());
        }
        batch.run(table, "creation");
    }

    /**
     * A fork, in one batch: the branch record, the new branch's first version (open in {@code atFork}) and
     * any versions the fork then committed on it up to {@code last} (an index rebuilt on a branch of a
     * branch; {@code last} may be {@code atFork}).
     */
    void forked(String table, String branch, Dataset atFork, Dataset last) {
        Path t = tablesRoot.resolve(table + ".lance");
        long fork = atFork.version();
        Batch batch = last.version() > fork ? collect(table, branch, atFork, last, fork, false) : new Batch(t);
        batch.file(t.resolve("_refs").resolve("branches").resolve(branch + ".json"));
        Path dir = branchDir(table, branch);
        batch.manifest(dir, fork);
        if (last.version() == fork) {
            transactionByListing(batch, dir, fork, fork);
        }
        try {
            batch.run(table, "fork of branch " + branch);
        } catch (UncheckedIOException e) {
            throw failed(table, "fork of branch " + branch, e);
        }
    }

    /**
     * Versions {@code (after, upTo]} of {@code branch}: their manifests and transaction files, the
     * version hint, and every data, deletion and index file that {@code last} (at {@code upTo}) has and
     * {@code base} (at {@code after}, or null for none) has not.
     *
     * <p>{@code readable}: the commit is one whose transaction Lance's JNI can read back (a single
     * Update, Delete, Append, Overwrite, Merge, CreateIndex or UpdateConfig), so its transaction file is
     * named by {@code readTransaction()}. Otherwise (a compaction's ReserveFragments and Rewrite, a
     * restore, several versions, a version found by recovery) the transaction files are found by
     * listing: Lance 7.0.0's {@code readTransaction()} aborts the JVM ("not implemented" panic in
     * {@code convert_to_java_operation}) on the operations it cannot convert, so it is never called on them.
     */
    void versions(String table, String branch, Dataset base, Dataset last, long after, boolean readable) {
        long upTo = last.version();
        if (upTo <= after) {
            return;
        }
        try {
            collect(table, branch, base, last, after, readable && last.version() == after + 1).run(table, "versions (" + after + ", " + upTo + "] of branch " + branch);
        } catch (UncheckedIOException e) {
            throw failed(table, "versions (" + after + ", " + upTo + "] of branch " + branch, e);
        }
    }

    private Batch collect(String table, String branch, Dataset base, Dataset last, long after, boolean readable) {
        long upTo = last.version();
        Path dir = branchDir(table, branch);
        Batch batch = new Batch(tablesRoot.resolve(table + ".lance"));
        for (long v = after + 1; v <= upTo; v++) {
            batch.manifest(dir, v);
        }
        if (readable) {
            transaction(batch, dir, last);
        } else {
            transactionByListing(batch, dir, upTo, after);
        }
        Set<String> baseData = new HashSet<>();
        Set<String> baseDeletions = new HashSet<>();
        Set<UUID> baseIndices = new HashSet<>();
        if (base != null) {
            for (Fragment f : base.getFragments()) {
                FragmentMetadata m = f.metadata();
                m.getFiles().forEach(d -> baseData.add(d.getPath()));
                if (m.getDeletionFile() != null) {
                    baseDeletions.add(deletionName(m.getId(), m.getDeletionFile()));
                }
            }
            base.getIndexes().forEach(i -> baseIndices.add(i.uuid()));
        }
        for (Fragment f : last.getFragments()) {
            FragmentMetadata m = f.metadata();
            for (DataFile d : m.getFiles()) {
                if (d.getBaseId().isEmpty() && !baseData.contains(d.getPath())) {
                    batch.file(dir.resolve("data").resolve(d.getPath()));
                }
            }
            DeletionFile del = m.getDeletionFile();
            if (del != null && del.getBaseId().isEmpty() && !baseDeletions.contains(deletionName(m.getId(), del))) {
                batch.file(dir.resolve("_deletions").resolve(deletionName(m.getId(), del)));
            }
        }
        for (Index i : last.getIndexes()) {
            if (!baseIndices.contains(i.uuid())) {
                batch.indexSegment(dir, i.uuid());
            }
        }
        return batch;
    }

    /** The transaction file of the version open in {@code ds}, named by its read version and uuid. */
    private static void transaction(Batch batch, Path dir, Dataset ds) {
        Optional<Transaction> txn = ds.readTransaction();
        if (txn.isEmpty()) {
            throw new UncheckedIOException(new IOException("version " + ds.version() + " has no transaction file"));
        }
        try (Transaction t = txn.get()) {
            batch.file(dir.resolve("_transactions").resolve(t.readVersion() + "-" + t.uuid() + ".txn"));
            t.operation().release();
        }
    }

    /**
     * Every transaction file staged at a read version in {@code [after, upTo]}: the versions
     * {@code (after, upTo]} were staged at read versions in {@code [after, upTo - 1]} (a rebased commit
     * records the version it finally committed on), a fork's at its own version. A failed attempt's
     * file in that range is synced too (harmless). Costs one listing of the directory.
     */
    private static void transactionByListing(Batch batch, Path dir, long upTo, long after) {
        Path txns = dir.resolve("_transactions");
        try (DirectoryStream<Path> s = Files.newDirectoryStream(txns)) {
            for (Path p : s) {
                String name = p.getFileName().toString();
                int dash = name.indexOf('-');
                if (dash > 0 && name.endsWith(".txn")) {
                    long rv = Long.parseLong(name.substring(0, dash));
                    if (rv >= Math.max(0, after) && rv <= upTo) {
                        batch.file(p);
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new UncheckedIOException(new IOException("cannot list " + txns + ": " + e.getMessage(), e));
        }
    }

    static String deletionName(long fragmentId, DeletionFile d) {
        String ext = d.getFileType() == DeletionFileType.BITMAP ? "bin" : "arrow";
        return fragmentId + "-" + d.getReadVersion() + "-" + Long.toUnsignedString(d.getId()) + "." + ext;
    }

    /** The manifest file of version {@code v} in {@code versionsDir}: V2 naming, else V1. */
    static Path manifest(Path versionsDir, long v) {
        Path v2 = versionsDir.resolve(Long.toUnsignedString(-1L - v) + ".manifest");
        if (Files.exists(v2)) {
            return v2;
        }
        Path v1 = versionsDir.resolve(v + ".manifest");
        return Files.exists(v1) ? v1 : v2;
    }

    private static CommitStateUnknownException failed(String table, String what, Exception e) {
        return new CommitStateUnknownException("table '" + table + "': Lance committed " + what
                + " but its files could not be made durable (" + e.getMessage() + "); the commit is visible but "
                + "may not survive a power cut, so it is not acknowledged", e);
    }

    /** The files and directories of one sync, deduplicated, synced files first, then directories. */
    private final class Batch {
        private final Path tableDir;
        private final Set<Path> files = new LinkedHashSet<>();
        private final Set<Path> dirs = new LinkedHashSet<>();

        Batch(Path tableDir) {
            this.tableDir = tableDir;
        }

        void file(Path p) {
            files.add(p);
            dirs.add(p.getParent());
        }

        void manifest(Path branchDir, long v) {
            Path versions = branchDir.resolve("_versions");
            file(LanceFileSync.manifest(versions, v));
            file(versions.resolve(HINT));
        }

        void indexSegment(Path branchDir, UUID uuid) {
            Path seg = branchDir.resolve("_indices").resolve(uuid.toString());
            if (!Files.isDirectory(seg)) {
                // an index a branch inherited resolves under main's directory
                seg = tableDir.resolve("_indices").resolve(uuid.toString());
            }
            try (DirectoryStream<Path> s = Files.newDirectoryStream(seg)) {
                for (Path p : s) {
                    file(p);
                }
            } catch (NoSuchFileException e) {
                // an index segment with no files of its own (nothing to sync)
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void run(String table, String what) {
            // each directory's entry in its parent, up to the first one known durable (or the tables root)
            Set<Path> chain = new LinkedHashSet<>();
            for (Path d : List.copyOf(dirs)) {
                for (Path x = d; x != null && !x.equals(tablesRoot) && x.startsWith(tablesRoot) && !entryDurable.contains(x);
                     x = x.getParent()) {
                    chain.add(x);
                    dirs.add(x.getParent());
                }
            }
            List<java.util.concurrent.Callable<Void>> tasks = new java.util.ArrayList<>();
            for (Path p : files) {
                tasks.add(() -> sync(p, false));
            }
            for (Path p : dirs) {
                tasks.add(() -> sync(p, true));
            }
            try {
                List<java.util.concurrent.Future<Void>> running = new java.util.ArrayList<>();
                for (int i = 1; i < tasks.size(); i++) {
                    running.add(SYNC_THREADS.submit(tasks.get(i)));
                }
                Exception first = null;
                try {
                    tasks.get(0).call();
                } catch (Exception e) {
                    first = e;
                }
                for (java.util.concurrent.Future<Void> f : running) {
                    try {
                        f.get();
                    } catch (java.util.concurrent.ExecutionException e) {
                        first = first == null && e.getCause() instanceof Exception c ? c : first;
                    }
                }
                if (first != null) {
                    throw first;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw failed(table, what, e);
            } catch (Exception e) {
                throw failed(table, what, e);
            }
            entryDurable.addAll(chain);
        }

        private Void sync(Path p, boolean dir) throws IOException {
            try {
                syncer.sync(p, dir);
            } catch (NoSuchFileException e) {
                if (!p.getFileName().toString().equals(HINT)) {
                    throw e; // the hint is optional (Lance falls back to listing); every other file is required
                }
            }
            return null;
        }
    }
}
