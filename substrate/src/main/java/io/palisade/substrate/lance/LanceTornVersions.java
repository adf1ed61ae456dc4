package io.palisade.substrate.lance;

import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.OperationKind;
import io.palisade.substrate.TableRef;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ReadOptions;
import org.lance.Ref;
import org.lance.Transaction;
import org.lance.fragment.DataFile;
import org.lance.fragment.DeletionFile;
import org.lance.fragment.DeletionFileType;
import org.lance.index.Index;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds table versions whose files a power cut tore, and sets them aside (docs/recovery.md, "Torn
 * commits"). Local directories only: a commit to an object store is a set of atomic PUTs, so its versions
 * cannot be torn this way, and every method returns nothing for such a store.
 *
 * <p>Lance 7.0.0's layout, pinned by {@code LanceTornVersionsTest}: a table branch's directory is the
 * dataset directory for {@code main} and {@code <dataset>/tree/<branch>} for a branch; it holds
 * {@code _versions/<u64::MAX - version>.manifest} (older tables: {@code <version>.manifest}),
 * {@code _versions/latest_version_hint.json}, {@code _transactions/<readVersion>-<uuid>.txn},
 * {@code data/*.lance}, {@code _deletions/<fragment>-<readVersion>-<id>.arrow|bin} and
 * {@code _indices/<uuid>/*}. A manifest file ends with a 16-byte footer: the offset of the manifest
 * message (u64, little-endian), the format version (2 × u16) and the magic {@code LANC}; at that offset, a
 * u32 length and the protobuf message, which ends where the footer starts.
 *
 * <p>A manifest is checked by its framing before Lance is given it: handed a manifest cut in the middle,
 * Lance 7.0.0 aborts the whole JVM (a Rust panic across JNI), so a torn manifest must never reach it.
 * A version missing from the listing, or a data file missing, is detected on disk; Lance reports neither
 * until a scan reads it.
 */
final class LanceTornVersions {
    /** Name of Lance's MemWAL system index: its details live in the manifest, it has no files under {@code _indices}. */
    static final String MEM_WAL_INDEX = "__lance_mem_wal";


    private static final Logger LOG = LoggerFactory.getLogger(LanceTornVersions.class);
    static final String VERSIONS = "_versions";
    static final String HINT = "latest_version_hint.json";
    private static final int FOOTER = 16;
    private static final byte[] MAGIC = "LANC".getBytes(StandardCharsets.US_ASCII);
    private static final Pattern MANIFEST = Pattern.compile("([0-9]+)\\.manifest");
    private static final Pattern HINT_VERSION = Pattern.compile("\\{\\s*\"version\"\\s*:\\s*([0-9]+)\\s*}\\s*");
    /** The constructor signature Lance 7.0.0's JNI wrongly asks for when reading a Rewrite that remapped indices. */
    private static final String REWRITTEN_INDEX_JNI_SIGNATURE = "(Ljava/util/UUID;Ljava/util/UUID;Ljava/lang/String;[BII)V";

    private final LanceTableStore store;

    LanceTornVersions(LanceTableStore store) {
        this.store = store;
    }

    // ------------------------------------------------------------------ layout

    /** The local directory of the dataset, or empty when it lives on an object store. */
    Optional<Path> datasetDir(String table) {
        String uri = store.uri(table);
        if (uri.startsWith("file:")) {
            return Optional.of(Paths.get(URI.create(uri)));
        }
        if (uri.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
            return Optional.empty();
        }
        return Optional.of(Paths.get(uri).toAbsolutePath());
    }

    /** The local directory of a table branch, or empty on an object store. */
    Optional<Path> branchDir(String table, String branch) {
        return datasetDir(table).map(d -> TableRef.MAIN.equals(branch) ? d : d.resolve("tree").resolve(branch));
    }

    /** Every manifest file of a branch directory, by version. */
    static TreeMap<Long, Path> manifests(Path branchDir) {
        TreeMap<Long, Path> out = new TreeMap<>();
        Path versions = branchDir.resolve(VERSIONS);
        if (!Files.isDirectory(versions)) {
            return out;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(versions, "*.manifest")) {
            for (Path p : s) {
                Matcher m = MANIFEST.matcher(p.getFileName().toString());
                if (!m.matches() || m.group(1).length() > 20) {
                    continue;
                }
                long n = Long.parseUnsignedLong(m.group(1));
                // V2 naming: u64::MAX - version (always above i64::MAX); V1 naming: the version itself
                long version = Long.compareUnsigned(n, Long.MAX_VALUE) > 0 ? ~n : n;
                out.put(version, p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + versions, e);
        }
        return out;
    }

    /** What is wrong with a manifest file's framing, or null when it is well framed. */
    static String manifestProblem(Path manifest) {
        try (FileChannel ch = FileChannel.open(manifest, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size == 0) {
                return "zero-length";
            }
            if (size < FOOTER + 4) {
                return "only " + size + " bytes, shorter than a manifest's footer";
            }
            ByteBuffer footer = ByteBuffer.allocate(FOOTER).order(ByteOrder.LITTLE_ENDIAN);
            readFully(ch, footer, size - FOOTER);
            byte[] magic = new byte[4];
            footer.position(12);
            footer.get(magic);
            if (!java.util.Arrays.equals(magic, MAGIC)) {
                return "no Lance footer at its end (" + size + " bytes; torn or overwritten)";
            }
            long pos = footer.getLong(0);
            if (pos < 0 || pos > size - FOOTER - 4) {
                return "its footer points at offset " + pos + ", past its " + size + " bytes";
            }
            ByteBuffer len = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            readFully(ch, len, pos);
            long end = pos + 4 + Integer.toUnsignedLong(len.getInt(0));
            if (end != size - FOOTER) {
                return "its manifest message ends at offset " + end + ", not at its footer (" + (size - FOOTER) + ")";
            }
            return null;
        } catch (NoSuchFileException e) {
            return "missing";
        } catch (IOException e) {
            return "unreadable (" + e.getMessage() + ")";
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b, at + b.position()) < 0) {
                throw new IOException("unexpected end of file");
            }
        }
    }

    /** The version a hint names; -1 when it is undecodable; {@code Long.MIN_VALUE} when there is no hint. */
    static long hintVersion(Path branchDir) {
        Path hint = branchDir.resolve(VERSIONS).resolve(HINT);
        try {
            Matcher m = HINT_VERSION.matcher(Files.readString(hint, StandardCharsets.UTF_8));
            return m.matches() ? Long.parseLong(m.group(1)) : -1;
        } catch (NoSuchFileException e) {
            return Long.MIN_VALUE;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    // ------------------------------------------------------------------ finding

    /** See {@link io.palisade.substrate.TableStore#tornVersions}. */
    List<DamagedVersion> tornVersions(String table, String branch, long afterVersion) {
        Optional<Path> dir = branchDir(table, branch);
        if (dir.isEmpty() || !Files.isDirectory(dir.get().resolve(VERSIONS))) {
            return List.of();
        }
        TreeMap<Long, Path> manifests = manifests(dir.get());
        // only a suffix of the branch can be torn: walk down from the newest version
        List<DamagedVersion> torn = new ArrayList<>();
        for (Map.Entry<Long, Path> e : manifests.descendingMap().entrySet()) {
            if (e.getKey() <= afterVersion) {
                break;
            }
            Optional<DamagedVersion> d = check(table, branch, e.getKey(), dir.get(), manifests);
            if (d.isEmpty()) {
                break;
            }
            torn.add(0, d.get());
        }
        return torn;
    }

    /** See {@link io.palisade.substrate.TableStore#damage}. */
    Optional<DamagedVersion> damage(String table, TableRef ref) {
        Optional<Path> dir = branchDir(table, ref.branch());
        if (dir.isEmpty()) {
            return Optional.empty();
        }
        TreeMap<Long, Path> manifests = manifests(dir.get());
        if (!manifests.containsKey(ref.version())) {
            Path expected = dir.get().resolve(VERSIONS).resolve(Long.toUnsignedString(~ref.version()) + ".manifest");
            return Optional.of(new DamagedVersion(ref, List.of(expected + ": missing"), List.of(), "manifest missing"));
        }
        return check(table, ref.branch(), ref.version(), dir.get(), manifests);
    }

    /** Guards Lance against a torn manifest (it aborts the JVM on some); null when the manifest looks sound or is not local. */
    String guard(String table, TableRef ref) {
        Optional<Path> dir = branchDir(table, ref.branch());
        if (dir.isEmpty()) {
            return null;
        }
        Path manifest = manifests(dir.get()).get(ref.version());
        if (manifest == null) {
            return null; // Lance reports a missing version itself
        }
        String problem = manifestProblem(manifest);
        return problem == null ? null : manifest + ": " + problem;
    }

    private Optional<DamagedVersion> check(String table, String branch, long version, Path dir,
                                           TreeMap<Long, Path> manifests) {
        TableRef ref = new TableRef(branch, version);
        Path manifest = manifests.get(version);
        String problem = manifestProblem(manifest);
        if (problem != null) {
            return Optional.of(damaged(ref, dir, List.of(manifest + ": " + problem), "manifest " + problem, manifests));
        }
        List<String> damaged = new ArrayList<>();
        try (Dataset ds = open(table, branch, version, manifests)) {
            Snapshot prev = previous(table, branch, version, manifests);
            for (Fragment f : ds.getFragments()) {
                FragmentMetadata m = f.metadata();
                for (DataFile df : m.getFiles()) {
                    if (df.getBaseId().isPresent() || prev.dataFiles.contains(df.getPath())) {
                        continue; // inherited from another branch, or not added by this version
                    }
                    checkFile(dir.resolve("data").resolve(df.getPath()), df.getFileSizeBytes(), damaged);
                }
                DeletionFile del = m.getDeletionFile();
                if (del != null && del.getBaseId().isEmpty()) {
                    String name = deletionFileName(m.getId(), del);
                    if (!prev.deletionFiles.contains(name)) {
                        checkFile(dir.resolve("_deletions").resolve(name), null, damaged);
                    }
                }
            }
            for (Index i : ds.getIndexes()) {
                if (i.baseId().isPresent() || prev.indices.contains(i.uuid().toString())) {
                    continue;
                }
                Path idx = dir.resolve("_indices").resolve(i.uuid().toString());
                if (i.fields().isEmpty() && !Files.isDirectory(idx)) {
                    // a system index with its state in the manifest: Lance's MemWAL index (a fold's merged generation)
                    // always, the fragment-reuse index of a deferred compaction while its details are small
                    continue;
                }
                if (!Files.isDirectory(idx)) {
                    damaged.add(idx + ": missing (index '" + i.name() + "')");
                    continue;
                }
                try (DirectoryStream<Path> s = Files.newDirectoryStream(idx)) {
                    for (Path p : s) {
                        checkFile(p, null, damaged);
                    }
                }
            }
            try {
                // lance-core 7.0.0's readTransaction() aborts the JVM on the kinds its JNI cannot convert (the Clone
                // of a table branch's fork version, a compaction's ReserveFragments): those are only peeked at
                Optional<OperationKind> kind = LanceCommitPayloads.peekKind(dir, manifest);
                if (kind.isEmpty() || LanceCommitPayloads.JNI_READABLE.contains(kind.get())) {
                    Optional<Transaction> t = ds.readTransaction();
                    t.ifPresent(Transaction::close);
                }
            } catch (RuntimeException e) {
                if (!String.valueOf(e.getMessage()).contains(REWRITTEN_INDEX_JNI_SIGNATURE)) {
                    damaged.add(dir.resolve("_transactions") + ": the transaction of version " + version
                            + " does not read (" + firstLine(e) + ")" + zeroLengthTransactions(dir));
                }
            }
        } catch (IOException e) {
            damaged.add(dir + ": unreadable (" + e.getMessage() + ")");
        } catch (RuntimeException e) { // Lance's natives also throw undeclared IOExceptions
            return Optional.of(damaged(ref, dir, List.of(manifest + ": does not decode (" + firstLine(e) + ")"),
                    "manifest does not decode", manifests));
        } catch (Exception e) {
            return Optional.of(damaged(ref, dir, List.of(manifest + ": does not decode (" + firstLine(e) + ")"),
                    "manifest does not decode", manifests));
        }
        if (damaged.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(damaged(ref, dir, damaged, damaged.size() == 1 ? "a file it added is damaged"
                : damaged.size() + " files it added are damaged", manifests));
    }

    /** Lance's {@code _deletions/<fragment>-<read version>-<id>.<arrow|bin>}; the numbers are u64. */
    static String deletionFileName(long fragmentId, DeletionFile del) {
        return Long.toUnsignedString(fragmentId) + "-" + Long.toUnsignedString(del.getReadVersion()) + "-"
                + Long.toUnsignedString(del.getId()) + "." + (del.getFileType() == DeletionFileType.BITMAP ? "bin" : "arrow");
    }

    private static String zeroLengthTransactions(Path dir) {
        List<String> zero = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir.resolve("_transactions"), "*.txn")) {
            for (Path p : s) {
                if (Files.size(p) == 0) {
                    zero.add(p.getFileName().toString());
                }
            }
        } catch (IOException e) {
            return "";
        }
        return zero.isEmpty() ? "" : "; zero-length: " + String.join(", ", zero.stream().sorted().toList());
    }

    private static DamagedVersion damaged(TableRef ref, Path dir, List<String> damaged, String reason,
                                          TreeMap<Long, Path> manifests) {
        List<String> setAside = new ArrayList<>();
        setAside.add(manifests.get(ref.version()).toString());
        long hint = hintVersion(dir);
        if (hint != Long.MIN_VALUE && (hint == -1 || hint >= ref.version())) {
            setAside.add(dir.resolve(VERSIONS).resolve(HINT).toString());
        }
        return new DamagedVersion(ref, damaged, setAside, reason);
    }

    private static void checkFile(Path p, Long recordedSize, List<String> damaged) throws IOException {
        if (!Files.exists(p)) {
            damaged.add(p + ": missing");
            return;
        }
        long size = Files.size(p);
        if (size == 0) {
            damaged.add(p + ": zero-length");
        } else if (recordedSize != null && recordedSize > 0 && size < recordedSize) {
            damaged.add(p + ": " + size + " bytes, the manifest records " + recordedSize);
        }
    }

    /** What the version before {@code version} already had (empty when there is none, or it cannot be read). */
    private Snapshot previous(String table, String branch, long version, TreeMap<Long, Path> manifests) {
        Map.Entry<Long, Path> before = manifests.lowerEntry(version);
        Snapshot s = new Snapshot();
        if (before == null || manifestProblem(before.getValue()) != null) {
            return s;
        }
        try (Dataset ds = open(table, branch, before.getKey(), manifests)) {
            for (Fragment f : ds.getFragments()) {
                FragmentMetadata m = f.metadata();
                m.getFiles().forEach(df -> s.dataFiles.add(df.getPath()));
                DeletionFile del = m.getDeletionFile();
                if (del != null) {
                    s.deletionFiles.add(deletionFileName(m.getId(), del));
                }
            }
            ds.getIndexes().forEach(i -> s.indices.add(i.uuid().toString()));
        } catch (Exception e) {
            LOG.debug("version {} of {} branch {} unreadable; checking every file of version {}", before.getKey(),
                    table, branch, version, e);
        }
        return s;
    }

    private static final class Snapshot {
        final Set<String> dataFiles = new HashSet<>();
        final Set<String> deletionFiles = new HashSet<>();
        final Set<String> indices = new HashSet<>();
    }

    /**
     * Opens exactly {@code branch@version} without reading the branch's (or main's) latest manifest, which may
     * be the torn one: main by version; a branch through main's oldest well-framed version.
     */
    private Dataset open(String table, String branch, long version, TreeMap<Long, Path> manifests) {
        String uri = store.uri(table);
        ReadOptions.Builder b = new ReadOptions.Builder().setStorageOptions(store.storageOptions());
        if (TableRef.MAIN.equals(branch)) {
            return Dataset.open().allocator(store.allocator()).uri(uri).readOptions(b.setVersion(version).build()).build();
        }
        TreeMap<Long, Path> main = manifests(datasetDir(table).orElseThrow());
        long anchor = main.entrySet().stream().filter(e -> manifestProblem(e.getValue()) == null)
                .mapToLong(Map.Entry::getKey).findFirst().orElseThrow(() ->
                        new IllegalStateException("no readable version of main in " + uri));
        try (Dataset root = Dataset.open().allocator(store.allocator()).uri(uri)
                .readOptions(b.setVersion(anchor).build()).build()) {
            return root.checkout(Ref.ofBranch(branch, version));
        }
    }

    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    // ------------------------------------------------------------------ setting aside

    /** See {@link io.palisade.substrate.TableStore#setAside}. */
    List<String> setAside(String table, DamagedVersion version, Path destination) {
        Optional<Path> dir = branchDir(table, version.ref().branch());
        if (dir.isEmpty() || version.setAside().isEmpty()) {
            return List.of();
        }
        List<String> moved = new ArrayList<>();
        try {
            Files.createDirectories(destination);
            for (String f : version.setAside()) {
                Path from = Paths.get(f);
                if (!from.startsWith(dir.get()) || !Files.exists(from)) {
                    continue; // not this branch's, or already moved by an earlier (killed) run
                }
                Path to = destination.resolve(from.getFileName());
                try {
                    Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
                    syncFile(to);
                    Files.delete(from);
                }
                moved.add(f);
            }
            syncDir(destination);
            syncDir(destination.getParent());
            syncDir(dir.get().resolve(VERSIONS));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move " + version.setAside() + " of table '" + table + "' to "
                    + destination, e);
        }
        LOG.warn("table {} {}: torn version set aside ({}): moved {} to {}", table, version.ref(), version.reason(),
                moved, destination);
        return moved;
    }

    private static void syncFile(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    static void syncDir(Path dir) {
        if (dir == null) {
            return;
        }
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            LOG.debug("cannot sync directory {} (not supported here)", dir, e);
        }
    }
}
