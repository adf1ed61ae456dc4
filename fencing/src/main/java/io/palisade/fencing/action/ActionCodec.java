package io.palisade.fencing.action;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Binary encoding of an action list (what an intent journals as its transaction's actions).
 *
 * <pre>
 *  +---------+-----------------+----------------------------------------------+
 *  | version | action count    | actions: (tag = ActionKind.number, payload)* |
 *  | 1 byte  | varint          |                                              |
 *  +---------+-----------------+----------------------------------------------+
 * </pre>
 * Payload fields are written in record-component order: integers as (zig-zag) varints, strings as
 * varint length + UTF-8, sets sorted (so the encoding of equal actions is byte-identical, which the
 * journal's hash chain relies on), optionals as a presence byte, key filters as varint length +
 * {@link KeyFilter#encode()}. A decoder refuses an unknown version or tag loudly
 * ({@link ValidationException}); it never skips what it does not know.
 */
public final class ActionCodec {
    public static final byte VERSION = 1;

    private ActionCodec() {
    }

    public static byte[] encode(List<Action> actions) {
        Out o = new Out();
        o.buf.write(VERSION);
        o.uvar(actions.size());
        for (Action a : actions) {
            o.uvar(a.kind().number());
            write(o, a);
        }
        return o.buf.toByteArray();
    }

    public static List<Action> decode(byte[] bytes) {
        In in = new In(ByteBuffer.wrap(bytes));
        try {
            byte v = in.b.get();
            if (v != VERSION) {
                throw new ValidationException("action list encoding version " + v + " is not supported (this build reads "
                        + VERSION + ")");
            }
            int n = in.len();
            List<Action> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(read(in, (int) in.uvar()));
            }
            if (in.b.hasRemaining()) {
                throw new ValidationException("action list encoding has " + in.b.remaining() + " trailing bytes");
            }
            return out;
        } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
            throw new ValidationException("corrupt action list encoding: " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------ writing

    private static void write(Out o, Action action) {
        switch (action) {
            case AddFragments a -> {
                o.list(a.fragments(), o::template);
                switch (a.keys()) {
                    case KeyScope.Keyless k -> o.uvar(0);
                    case KeyScope.Exact e -> {
                        o.uvar(1);
                        o.filter(e.filter());
                    }
                    case KeyScope.Unknown u -> o.uvar(2);
                }
                o.longs(a.preservedRowSources());
            }
            case RemoveFragments r -> {
                switch (r.selector()) {
                    case RemoveFragments.Selector.Ids ids -> {
                        o.uvar(0);
                        o.longs(ids.ids());
                    }
                    case RemoveFragments.Selector.AllCurrent all -> o.uvar(1);
                }
            }
            case UpdateDeletionVector u -> {
                o.ref(u.fragment());
                o.rows(u.deleted());
                o.opt(u.affectedRows(), o::rows);
                o.opt(u.affectedKeys(), o::filter);
            }
            case ReplaceFragmentColumns r -> {
                o.ref(r.fragment());
                o.ints(r.fieldIds());
                o.list(r.newFiles(), o::file);
                o.opt(r.updatedRows(), o::rows);
            }
            case RewriteFragments r -> {
                o.longs(r.oldFragmentIds());
                o.list(r.newFragments(), o::template);
                o.bool(r.preservesRowIds());
            }
            case AddFields a -> {
                o.list(a.newFields(), f -> {
                    o.str(f.name());
                    o.bool(f.nullable());
                });
                o.uvar(a.fragmentFiles().size());
                new TreeMap<>(a.fragmentFiles()).forEach((k, v) -> {
                    o.svar(k);
                    o.str(v);
                });
            }
            case DropFields d -> o.ints(d.fieldIds());
            case ChangeSchema c -> o.schema(c.newSchema());
            case UpdateSchemaMetadata u -> o.list(u.updates(), m -> {
                o.svar(m.fieldId());
                o.str(m.key());
                o.opt(m.value(), o::str);
            });
            case AddIndex a -> {
                o.uuid(a.uuid());
                o.str(a.name());
                o.ints(a.fieldIds());
                List<FragmentRef> refs = new ArrayList<>(a.coverage());
                refs.sort((x, y) -> x.toString().compareTo(y.toString()));
                o.list(refs, o::ref);
                o.svar(a.indexVersion());
                o.opt(a.replaces(), o::uuid);
            }
            case RemoveIndex r -> o.uuid(r.indexId());
            case RewriteIndex r -> {
                o.uuid(r.oldId());
                o.uuid(r.newId());
                o.svar(r.newVersion());
                o.longs(r.coverage());
                o.ints(r.fieldIds());
            }
            case InvalidateIndexCoverage i -> {
                o.longs(i.fragmentIds());
                o.ints(i.fieldIds());
            }
            case RebindIndexCoverage r -> {
                o.list(r.remap(), o::remap);
                o.ints(r.preservedFields());
            }
            case RegisterFragReuse r -> {
                o.uuid(r.index());
                o.list(r.entries(), o::remap);
            }
            case UpdateConfig c -> {
                o.list(c.updates(), u -> {
                    o.uvar(u.target().ordinal());
                    o.str(u.key());
                    o.opt(u.value(), o::str);
                });
                o.bool(c.replace());
            }
            case ReserveFragmentIds r -> o.svar(r.count());
            case AddBases b -> o.list(b.newBases(), p -> {
                o.svar(p.id());
                o.str(p.name());
                o.str(p.path());
            });
            case UpdateMergedGenerations g -> {
                o.uvar(g.generations().size());
                new TreeMap<>(g.generations()).forEach((k, v) -> {
                    o.str(k);
                    o.svar(v);
                });
            }
        }
    }

    // ------------------------------------------------------------------ reading

    private static Action read(In in, int tag) {
        ActionKind kind = null;
        for (ActionKind k : ActionKind.values()) {
            if (k.number() == tag) {
                kind = k;
            }
        }
        if (kind == null) {
            throw new ValidationException("unknown action tag " + tag + " (this build knows A1-A"
                    + ActionKind.values().length + "); refusing to skip it");
        }
        return switch (kind) {
            case ADD_FRAGMENTS -> {
                List<FragmentTemplate> t = in.list(in::template);
                int scope = (int) in.uvar();
                KeyScope ks = switch (scope) {
                    case 0 -> KeyScope.KEYLESS;
                    case 1 -> KeyScope.exact(in.filter());
                    case 2 -> KeyScope.UNKNOWN;
                    default -> throw new ValidationException("unknown key scope " + scope);
                };
                yield new AddFragments(t, ks, in.longs());
            }
            case REMOVE_FRAGMENTS -> {
                int sel = (int) in.uvar();
                yield switch (sel) {
                    case 0 -> new RemoveFragments(new RemoveFragments.Selector.Ids(in.longs()));
                    case 1 -> RemoveFragments.allCurrent();
                    default -> throw new ValidationException("unknown fragment selector " + sel);
                };
            }
            case UPDATE_DELETION_VECTOR -> new UpdateDeletionVector(in.ref(), in.rows(), in.opt(in::rows), in.opt(in::filter));
            case REPLACE_FRAGMENT_COLUMNS -> new ReplaceFragmentColumns(in.ref(), in.ints(), in.list(in::file), in.opt(in::rows));
            case REWRITE_FRAGMENTS -> new RewriteFragments(in.longs(), in.list(in::template), in.bool());
            case ADD_FIELDS -> {
                List<AddFields.NewField> f = in.list(() -> new AddFields.NewField(in.str(), in.bool()));
                int n = in.len();
                Map<Long, String> files = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    files.put(in.svar(), in.str());
                }
                yield new AddFields(f, files);
            }
            case DROP_FIELDS -> new DropFields(in.ints());
            case CHANGE_SCHEMA -> new ChangeSchema(in.schema());
            case UPDATE_SCHEMA_METADATA -> new UpdateSchemaMetadata(in.list(
                    () -> new UpdateSchemaMetadata.MetadataUpdate((int) in.svar(), in.str(), in.opt(in::str))));
            case ADD_INDEX -> new AddIndex(in.uuid(), in.str(), in.ints(), new HashSet<>(in.list(in::ref)), (int) in.svar(),
                    in.opt(in::uuid));
            case REMOVE_INDEX -> new RemoveIndex(in.uuid());
            case REWRITE_INDEX -> new RewriteIndex(in.uuid(), in.uuid(), (int) in.svar(), in.longs(), in.ints());
            case INVALIDATE_INDEX_COVERAGE -> new InvalidateIndexCoverage(in.longs(), in.ints());
            case REBIND_INDEX_COVERAGE -> new RebindIndexCoverage(in.list(in::remap), in.ints());
            case REGISTER_FRAG_REUSE -> new RegisterFragReuse(in.uuid(), in.list(in::remap));
            case UPDATE_CONFIG -> new UpdateConfig(in.list(() -> {
                int t = (int) in.uvar();
                if (t < 0 || t >= UpdateConfig.Target.values().length) {
                    throw new ValidationException("unknown config target " + t);
                }
                return new UpdateConfig.ConfigUpdate(UpdateConfig.Target.values()[t], in.str(), in.opt(in::str));
            }), in.bool());
            case RESERVE_FRAGMENT_IDS -> new ReserveFragmentIds((int) in.svar());
            case ADD_BASES -> new AddBases(in.list(() -> new BasePath((int) in.svar(), in.str(), in.str())));
            case UPDATE_MERGED_GENERATIONS -> {
                int n = in.len();
                Map<String, Long> g = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    g.put(in.str(), in.svar());
                }
                yield new UpdateMergedGenerations(g);
            }
        };
    }

    // ------------------------------------------------------------------ primitives

    private static final class Out {
        final ByteArrayOutputStream buf = new ByteArrayOutputStream();

        void uvar(long v) {
            while ((v & ~0x7FL) != 0) {
                buf.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            buf.write((int) v);
        }

        void svar(long v) {
            uvar((v << 1) ^ (v >> 63));
        }

        void bool(boolean v) {
            buf.write(v ? 1 : 0);
        }

        void str(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            uvar(b.length);
            buf.writeBytes(b);
        }

        void uuid(UUID u) {
            svar(u.getMostSignificantBits());
            svar(u.getLeastSignificantBits());
        }

        void longs(Set<Long> s) {
            uvar(s.size());
            new TreeSet<>(s).forEach(this::svar);
        }

        void ints(Set<Integer> s) {
            uvar(s.size());
            new TreeSet<>(s).forEach(this::svar);
        }

        <T> void list(List<T> l, java.util.function.Consumer<T> w) {
            uvar(l.size());
            l.forEach(w);
        }

        <T> void opt(Optional<T> v, java.util.function.Consumer<T> w) {
            bool(v.isPresent());
            v.ifPresent(w);
        }

        void filter(KeyFilter f) {
            byte[] b = f.encode();
            uvar(b.length);
            buf.writeBytes(b);
        }

        void rows(RowOffsets r) {
            int[] a = r.toArray();
            uvar(a.length);
            for (int x : a) {
                uvar(x);
            }
        }

        void ref(FragmentRef r) {
            switch (r) {
                case FragmentRef.Id id -> {
                    uvar(0);
                    svar(id.id());
                }
                case FragmentRef.ProducedBy p -> {
                    uvar(1);
                    uvar(p.action());
                    uvar(p.output());
                }
            }
        }

        void file(DataFile f) {
            str(f.path());
            ints(f.fieldIds());
        }

        void template(FragmentTemplate t) {
            svar(t.physicalRows());
            list(t.files(), this::file);
        }

        void remap(Remap r) {
            svar(r.oldFragment());
            ref(r.newFragment());
        }

        void schema(Schema s) {
            list(s.fields(), f -> {
                svar(f.id());
                str(f.name());
                bool(f.nullable());
                svar(f.parentId());
                map(f.metadata());
            });
            map(s.metadata());
        }

        void map(Map<String, String> m) {
            uvar(m.size());
            new TreeMap<>(m).forEach((k, v) -> {
                str(k);
                str(v);
            });
        }
    }

    private static final class In {
        final ByteBuffer b;

        In(ByteBuffer b) {
            this.b = b;
        }

        long uvar() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                byte x = b.get();
                v |= (long) (x & 0x7F) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw new ValidationException("corrupt action list encoding: varint too long");
        }

        int len() {
            long n = uvar();
            if (n < 0 || n > b.remaining()) {
                throw new ValidationException("corrupt action list encoding: length " + n + " exceeds "
                        + b.remaining() + " remaining bytes");
            }
            return (int) n;
        }

        long svar() {
            long v = uvar();
            return (v >>> 1) ^ -(v & 1);
        }

        boolean bool() {
            byte x = b.get();
            if (x != 0 && x != 1) {
                throw new ValidationException("corrupt action list encoding: boolean byte " + x);
            }
            return x == 1;
        }

        String str() {
            byte[] x = new byte[len()];
            b.get(x);
            return new String(x, StandardCharsets.UTF_8);
        }

        UUID uuid() {
            return new UUID(svar(), svar());
        }

        Set<Long> longs() {
            int n = len();
            Set<Long> s = new HashSet<>();
            for (int i = 0; i < n; i++) {
                s.add(svar());
            }
            return s;
        }

        Set<Integer> ints() {
            int n = len();
            Set<Integer> s = new HashSet<>();
            for (int i = 0; i < n; i++) {
                s.add((int) svar());
            }
            return s;
        }

        <T> List<T> list(java.util.function.Supplier<T> r) {
            int n = len();
            List<T> l = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                l.add(r.get());
            }
            return l;
        }

        <T> Optional<T> opt(java.util.function.Supplier<T> r) {
            return bool() ? Optional.of(r.get()) : Optional.empty();
        }

        KeyFilter filter() {
            byte[] x = new byte[len()];
            b.get(x);
            return KeyFilter.decode(x);
        }

        RowOffsets rows() {
            int n = len();
            int[] a = new int[n];
            for (int i = 0; i < n; i++) {
                long v = uvar();
                if (v > Integer.MAX_VALUE) {
                    throw new ValidationException("corrupt action list encoding: row offset " + v);
                }
                a[i] = (int) v;
            }
            return RowOffsets.of(a);
        }

        FragmentRef ref() {
            int t = (int) uvar();
            return switch (t) {
                case 0 -> new FragmentRef.Id(svar());
                case 1 -> new FragmentRef.ProducedBy((int) uvar(), (int) uvar());
                default -> throw new ValidationException("unknown fragment reference kind " + t);
            };
        }

        DataFile file() {
            return new DataFile(str(), ints());
        }

        FragmentTemplate template() {
            return new FragmentTemplate(svar(), list(this::file));
        }

        Remap remap() {
            return new Remap(svar(), ref());
        }

        Schema schema() {
            List<Field> fields = list(() -> new Field((int) svar(), str(), bool(), (int) svar(), map()));
            return new Schema(fields, map());
        }

        Map<String, String> map() {
            int n = len();
            Map<String, String> m = new HashMap<>();
            for (int i = 0; i < n; i++) {
                m.put(str(), str());
            }
            return m;
        }
    }
}
