package io.palisade.substrate.lance;

import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.CommitDescription.IndexSegment;
import io.palisade.substrate.CommitDescription.MapRef;
import io.palisade.substrate.CommitDescription.MapTarget;
import io.palisade.substrate.CommitDescription.MapUpdate;
import io.palisade.substrate.CommitDescription.SchemaField;
import io.palisade.substrate.OperationKind;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.fragment.DataFile;
import org.lance.index.Index;
import org.lance.operation.CreateIndex;
import org.lance.operation.DataReplacement;
import org.lance.operation.Operation;
import org.lance.operation.Overwrite;
import org.lance.operation.Rewrite;
import org.lance.operation.Update;
import org.lance.operation.UpdateConfig;
import org.lance.operation.UpdateMap;
import org.lance.schema.LanceField;
import org.lance.schema.LanceSchema;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a committed Lance version's transaction says beyond its fragment sets, read through lance-core
 * 7.0.0 ({@link CommitDescription.Payload}), and the operation kind read from the transaction's own
 * bytes before the Java binding is asked for it.
 *
 * <p>Lance 7.0.0's {@code Dataset.readTransaction()} aborts the JVM (a Rust panic in
 * {@code convert_to_java_operation} that cannot unwind) for operations its JNI does not convert: a
 * compaction's ReserveFragments, and the variants the Java API has no class for (UpdateMemWalState,
 * Clone, UpdateBases). {@link #peekKind} therefore reads the operation's field number from the
 * transaction protobuf (the manifest's {@code transaction_section}, field 21, or the
 * {@code _transactions/} file its {@code transaction_file}, field 12, names: Lance's
 * {@code protos/table.proto} and {@code transaction.proto}), and the store calls
 * {@code readTransaction()} only for {@link #JNI_READABLE} kinds.
 */
final class LanceCommitPayloads {

    /** The kinds whose transaction Lance 7.0.0's JNI converts to a Java operation (pinned by surface guards). */
    static final Set<OperationKind> JNI_READABLE = EnumSet.of(OperationKind.APPEND, OperationKind.DELETE,
            OperationKind.OVERWRITE, OperationKind.CREATE_INDEX, OperationKind.REWRITE, OperationKind.MERGE,
            OperationKind.UPDATE, OperationKind.PROJECT, OperationKind.UPDATE_CONFIG, OperationKind.DATA_REPLACEMENT,
            OperationKind.RESTORE);

    /** Transaction.operation oneof field numbers (transaction.proto): 100 Append … 114 UpdateBases. */
    private static final OperationKind[] BY_FIELD = {
            OperationKind.APPEND, OperationKind.DELETE, OperationKind.OVERWRITE, OperationKind.CREATE_INDEX,
            OperationKind.REWRITE, OperationKind.MERGE, OperationKind.RESTORE, OperationKind.RESERVE_FRAGMENTS,
            OperationKind.UPDATE, OperationKind.PROJECT, OperationKind.UPDATE_CONFIG, OperationKind.DATA_REPLACEMENT,
            OperationKind.UPDATE_MEM_WAL_STATE, OperationKind.CLONE, OperationKind.UPDATE_BASES};

    private static final int FOOTER = 16;

    private LanceCommitPayloads() {
    }

    // ------------------------------------------------------------------ kind from the transaction bytes

    /**
     * The operation kind of the version whose manifest is {@code manifest} in {@code branchDir}, read from
     * the transaction protobuf; empty when the version has no transaction or its bytes cannot be read (the
     * caller then falls back to the binding). {@link OperationKind#UNKNOWN} for a field number this binary
     * does not know.
     */
    static Optional<OperationKind> peekKind(Path branchDir, Path manifest) {
        try {
            byte[] txn = transactionBytes(branchDir, manifest);
            if (txn == null) {
                return Optional.empty();
            }
            Proto p = new Proto(ByteBuffer.wrap(txn));
            while (p.more()) {
                long tag = p.varint();
                int field = (int) (tag >>> 3);
                if (field >= 100 && field < 200 && (tag & 7) == 2) {
                    return Optional.of(field - 100 < BY_FIELD.length ? BY_FIELD[field - 100] : OperationKind.UNKNOWN);
                }
                p.skip((int) (tag & 7));
            }
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static byte[] transactionBytes(Path branchDir, Path manifest) throws IOException {
        try (FileChannel ch = FileChannel.open(manifest, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer footer = read(ch, size - FOOTER, FOOTER);
            long pos = footer.getLong(0);
            int len = read(ch, pos, 4).getInt(0);
            Proto m = new Proto(read(ch, pos + 4, len));
            String file = null;
            long section = -1;
            while (m.more()) {
                long tag = m.varint();
                int field = (int) (tag >>> 3);
                if (field == 12 && (tag & 7) == 2) {
                    file = m.string();
                } else if (field == 21 && (tag & 7) == 0) {
                    section = m.varint();
                } else {
                    m.skip((int) (tag & 7));
                }
            }
            if (section >= 0) {
                int n = read(ch, section, 4).getInt(0);
                return read(ch, section + 4, n).array();
            }
            if (file == null || file.isEmpty()) {
                return null;
            }
            Path txn = branchDir.resolve("_transactions").resolve(file);
            return Files.isRegularFile(txn) ? Files.readAllBytes(txn) : null;
        }
    }

    private static ByteBuffer read(FileChannel ch, long at, int n) throws IOException {
        if (at < 0 || n < 0 || at + n > ch.size()) {
            throw new IOException("range " + at + "+" + n + " outside " + ch.size() + " bytes");
        }
        ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (ch.read(b, at + b.position()) < 0) {
                throw new IOException("unexpected end of file");
            }
        }
        return b;
    }

    /** The few protobuf wire-format reads the peek needs. */
    private static final class Proto {
        private final ByteBuffer b;

        Proto(ByteBuffer b) {
            this.b = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            this.b.position(0);
        }

        boolean more() {
            return b.hasRemaining();
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                byte x = b.get();
                v |= (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw new IllegalStateException("varint too long");
        }

        String string() {
            byte[] x = new byte[(int) varint()];
            b.get(x);
            return new String(x, java.nio.charset.StandardCharsets.UTF_8);
        }

        void skip(int wireType) {
            switch (wireType) {
                case 0 -> varint();
                case 1 -> b.position(b.position() + 8);
                case 2 -> {
                    int n = (int) varint(); // read the length before taking the position
                    b.position(b.position() + n);
                }
                case 5 -> b.position(b.position() + 4);
                default -> throw new IllegalStateException("wire type " + wireType);
            }
        }
    }

    // ------------------------------------------------------------------ payload through the binding

    /**
     * The payload of version {@code now} (previous version {@code prev}, null for the first), from its
     * transaction {@code op} (null when it was not read: {@code notVisible} says why).
     */
    static CommitDescription.Payload payload(OperationKind kind, Operation op, Dataset now, Dataset prev,
                                             List<String> notVisible) {
        List<SchemaField> schema = fields(now.getLanceSchema());
        Set<Integer> before = new HashSet<>();
        if (prev != null) {
            prev.getLanceSchema().fields().forEach(f -> before.add(f.getId()));
        }
        List<SchemaField> added = prev == null ? List.of() : schema.stream().filter(f -> !before.contains(f.id())).toList();
        Map<Long, List<String>> fragmentFiles = new TreeMap<>();
        Map<Long, List<Integer>> replacedFields = new TreeMap<>();
        List<IndexSegment> newIndices = new ArrayList<>();
        List<IndexSegment> removedIndices = new ArrayList<>();
        List<MapUpdate> mapUpdates = new ArrayList<>();
        List<MapRef> replacedMaps = new ArrayList<>();
        Optional<String> updateMode = Optional.empty();
        Optional<java.util.UUID> fragReuse = Optional.empty();
        List<String> hidden = new ArrayList<>(notVisible);
        switch (kind) {
            case MERGE -> {
                Map<Long, Set<String>> old = files(prev);
                for (Fragment f : now.getFragments()) {
                    long id = f.getId();
                    if (!old.containsKey(id)) {
                        continue;
                    }
                    List<String> gained = f.metadata().getFiles().stream().map(DataFile::getPath)
                            .filter(p -> !old.get(id).contains(p)).toList();
                    if (!gained.isEmpty()) {
                        fragmentFiles.put(id, gained);
                    }
                }
            }
            case DATA_REPLACEMENT -> {
                if (op instanceof DataReplacement dr) {
                    for (DataReplacement.DataReplacementGroup g : dr.replacements()) {
                        List<Integer> fs = replacedFields.computeIfAbsent(g.fragmentId(), k -> new ArrayList<>());
                        for (int f : g.replacedFile().getFields()) {
                            if (f >= 0 && !fs.contains(f)) {
                                fs.add(f);
                            }
                        }
                        fragmentFiles.computeIfAbsent(g.fragmentId(), k -> new ArrayList<>()).add(g.replacedFile().getPath());
                    }
                }
            }
            case CREATE_INDEX -> {
                if (op instanceof CreateIndex ci) {
                    List<Long> all = now.getFragments().stream().map(f -> (long) f.getId()).sorted().toList();
                    ci.getNewIndices().forEach(i -> newIndices.add(segment(i, all, hidden)));
                    ci.getRemovedIndices().forEach(i -> removedIndices.add(segment(i, all, hidden)));
                }
            }
            case UPDATE_CONFIG -> {
                if (op instanceof UpdateConfig u) {
                    map(u.configUpdates(), new MapRef(MapTarget.CONFIG, -1), mapUpdates, replacedMaps);
                    map(u.tableMetadataUpdates(), new MapRef(MapTarget.TABLE_METADATA, -1), mapUpdates, replacedMaps);
                    map(u.schemaMetadataUpdates(), new MapRef(MapTarget.SCHEMA_METADATA, -1), mapUpdates, replacedMaps);
                    if (u.fieldMetadataUpdates() != null) {
                        new TreeMap<>(u.fieldMetadataUpdates()).forEach((field, m) ->
                                map(m, new MapRef(MapTarget.FIELD_METADATA, field), mapUpdates, replacedMaps));
                    }
                }
            }
            case OVERWRITE -> {
                if (op instanceof Overwrite o) {
                    o.configUpsertValues().ifPresent(c -> new TreeMap<>(c).forEach((k, v) ->
                            mapUpdates.add(new MapUpdate(new MapRef(MapTarget.CONFIG, -1), k, Optional.ofNullable(v)))));
                }
            }
            case UPDATE -> {
                if (op instanceof Update u) {
                    updateMode = u.updateMode().map(Enum::name);
                }
                hidden.add("Update.inserted_rows_filter, updated_fragment_offsets and merged generations: not in "
                        + "lance-core 7.0.0's Java Update (key filters come from the journal)");
            }
            case REWRITE -> {
                if (op instanceof Rewrite rw) {
                    fragReuse = rw.fragReuseIndex().map(Index::uuid);
                }
            }
            case UPDATE_BASES -> hidden.add("UpdateBases.new_bases: lance-core 7.0.0 has no Java UpdateBases operation");
            case APPEND, DELETE, PROJECT, RESTORE, RESERVE_FRAGMENTS, UPDATE_MEM_WAL_STATE, CLONE, UNKNOWN -> { }
        }
        return new CommitDescription.Payload(schema, added, fragmentFiles, replacedFields, newIndices, removedIndices,
                mapUpdates, replacedMaps, updateMode, fragReuse, List.of(), hidden);
    }

    private static IndexSegment segment(Index i, List<Long> allFragments, List<String> hidden) {
        Optional<List<Long>> coverage = i.fragments().map(l -> l.stream().map(Integer::longValue).sorted().toList());
        if (coverage.isEmpty()) {
            hidden.add("index " + i.name() + " (" + i.uuid() + ") records no fragment bitmap: judged as covering every fragment");
            coverage = Optional.of(allFragments);
        }
        return new IndexSegment(i.uuid(), i.name(), i.fields(), coverage);
    }

    private static void map(UpdateMap m, MapRef ref, List<MapUpdate> updates, List<MapRef> replaced) {
        if (m == null) {
            return;
        }
        if (m.replace()) {
            replaced.add(ref);
        }
        new TreeMap<>(m.updates()).forEach((k, v) -> updates.add(new MapUpdate(ref, k, Optional.ofNullable(v))));
    }

    private static Map<Long, Set<String>> files(Dataset ds) {
        Map<Long, Set<String>> out = new TreeMap<>();
        if (ds != null) {
            for (Fragment f : ds.getFragments()) {
                FragmentMetadata m = f.metadata();
                Set<String> paths = new TreeSet<>();
                m.getFiles().forEach(d -> paths.add(d.getPath()));
                out.put((long) f.getId(), paths);
            }
        }
        return out;
    }

    private static List<SchemaField> fields(LanceSchema s) {
        List<SchemaField> out = new ArrayList<>();
        for (LanceField f : s.fields()) {
            out.add(new SchemaField(f.getId(), f.getName(), f.isNullable(), f.isUnenforcedPrimaryKey()));
        }
        out.sort(java.util.Comparator.comparingInt(SchemaField::id));
        return out;
    }
}
