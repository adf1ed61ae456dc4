package io.palisade.fencing;

import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The exact set of keys one transaction inserts, updates or deletes, together with the field ids of
 * the key it is over (the table's primary key, normally the single field {@code id}).
 *
 * <p>Invariants:
 * <ul>
 *   <li>Exact: the filter stores every key, sorted and distinct. Two filters over disjoint keys never
 *       conflict, at any size; two filters sharing a key always conflict. There are no fingerprints
 *       and no Bloom bits, so there are neither false conflicts nor missed conflicts.</li>
 *   <li>No null keys: building a filter from a null key is a {@link ValidationException}.</li>
 *   <li>Immutable and safe to share between threads.</li>
 *   <li>Filters over different field ids (or of different key types) cannot be compared key by key
 *       and conflict conservatively.</li>
 * </ul>
 * Intersection costs {@code O(n + m)} by a merge walk, or {@code O(min(n, m) log max(n, m))} by binary
 * search when one side is much smaller.
 */
public final class KeyFilter {

    /** How keys are compared: UTF-8 byte order for strings, signed order for integers. */
    public enum KeyType {
        UTF8,
        INT64
    }

    /** What a builder does on a key seen twice. */
    public enum Duplicates {
        /** A key seen twice is a {@link ValidationException} naming the key and its rows. */
        REJECT,
        /** A key seen twice is kept once (set semantics). */
        MERGE
    }

    /** How many overlapping keys a {@link Overlap} names by default. */
    public static final int DEFAULT_SAMPLE = 5;

    private static final int[] NO_INTS = new int[0];

    private final int[] fieldIds;
    private final KeyType type;
    private final long[] longs;   // INT64: ascending, distinct
    private final byte[] bytes;   // UTF8: concatenated keys
    private final int[] offsets;  // UTF8: key i is bytes[offsets[i], offsets[i + 1]); ascending, distinct

    private KeyFilter(int[] fieldIds, KeyType type, long[] longs, byte[] bytes, int[] offsets) {
        this.fieldIds = fieldIds;
        this.type = type;
        this.longs = longs;
        this.bytes = bytes;
        this.offsets = offsets;
    }

    // ------------------------------------------------------------------ construction

    /** An empty filter (a transaction that touches no key). */
    public static KeyFilter empty(int[] fieldIds, KeyType type) {
        int[] f = checkFieldIds(fieldIds);
        return type == KeyType.INT64
                ? new KeyFilter(f, type, new long[0], null, null)
                : new KeyFilter(f, type, null, new byte[0], new int[] {0});
    }

    /** A filter over integer keys; repeated keys are kept once. */
    public static KeyFilter ofLongs(int fieldId, long... keys) {
        return ofLongs(new int[] {fieldId}, keys);
    }

    /** A filter over integer keys; repeated keys are kept once. */
    public static KeyFilter ofLongs(int[] fieldIds, long[] keys) {
        long[] sorted = keys.clone();
        Arrays.sort(sorted);
        return new KeyFilter(checkFieldIds(fieldIds), KeyType.INT64, dedupSorted(sorted), null, null);
    }

    /** A filter over string keys; repeated keys are kept once; a null key is a {@link ValidationException}. */
    public static KeyFilter ofStrings(int fieldId, Collection<String> keys) {
        return ofStrings(new int[] {fieldId}, keys);
    }

    /** A filter over string keys; repeated keys are kept once; a null key is a {@link ValidationException}. */
    public static KeyFilter ofStrings(int[] fieldIds, Collection<String> keys) {
        StringKeys sk = new StringKeys(keys.size());
        int row = 0;
        for (String k : keys) {
            if (k == null) {
                throw new ValidationException("null key at position " + row + " of the key list");
            }
            sk.add(k.getBytes(StandardCharsets.UTF_8));
            row++;
        }
        return sk.build(checkFieldIds(fieldIds), Duplicates.MERGE, "key list");
    }

    /** A filter from the column {@code column} of a batch (Utf8, LargeUtf8, Int32 or Int64). */
    public static KeyFilter fromBatch(VectorSchemaRoot batch, String column, int fieldId, Duplicates duplicates) {
        FieldVector v = batch.getVector(column);
        if (v == null) {
            throw new ValidationException("key column '" + column + "' is missing from the batch; columns are "
                    + batch.getSchema().getFields().stream().map(f -> f.getName()).toList());
        }
        return fromVector(v, new int[] {fieldId}, duplicates);
    }

    /**
     * A filter from an Arrow key vector (Utf8, LargeUtf8, Int32 or Int64). A null key, or with
     * {@link Duplicates#REJECT} a repeated key, is a {@link ValidationException} naming the row.
     */
    public static KeyFilter fromVector(FieldVector v, int[] fieldIds, Duplicates duplicates) {
        int[] f = checkFieldIds(fieldIds);
        String name = v.getName();
        int n = v.getValueCount();
        if (v.getNullCount() > 0) {
            for (int i = 0; i < n; i++) {
                if (v.isNull(i)) {
                    throw new ValidationException("null key in column '" + name + "' at row " + i);
                }
            }
        }
        if (v instanceof VarCharVector vc) {
            StringKeys sk = new StringKeys(n);
            for (int i = 0; i < n; i++) {
                sk.add(vc.get(i));
            }
            return sk.build(f, duplicates, "column '" + name + "'");
        }
        if (v instanceof LargeVarCharVector vc) {
            StringKeys sk = new StringKeys(n);
            for (int i = 0; i < n; i++) {
                sk.add(vc.get(i));
            }
            return sk.build(f, duplicates, "column '" + name + "'");
        }
        if (v instanceof BigIntVector || v instanceof IntVector) {
            BaseIntVector iv = (BaseIntVector) v;
            long[] keys = new long[n];
            for (int i = 0; i < n; i++) {
                keys[i] = iv.getValueAsLong(i);
            }
            return buildLongs(f, keys, duplicates, "column '" + name + "'");
        }
        throw new ValidationException("key column '" + name + "' has type " + v.getField().getType()
                + "; keys must be Utf8, LargeUtf8, Int32 or Int64");
    }

    private static KeyFilter buildLongs(int[] f, long[] keys, Duplicates duplicates, String where) {
        if (duplicates == Duplicates.REJECT) {
            long[] sorted = keys.clone();
            Arrays.sort(sorted);
            for (int i = 1; i < sorted.length; i++) {
                if (sorted[i] == sorted[i - 1]) {
                    long dup = sorted[i];
                    List<Integer> rows = new ArrayList<>();
                    for (int r = 0; r < keys.length && rows.size() < 3; r++) {
                        if (keys[r] == dup) {
                            rows.add(r);
                        }
                    }
                    throw new ValidationException("duplicate key " + dup + " in " + where + " at rows " + rows);
                }
            }
            return new KeyFilter(f, KeyType.INT64, sorted, null, null);
        }
        long[] sorted = keys.clone();
        Arrays.sort(sorted);
        return new KeyFilter(f, KeyType.INT64, dedupSorted(sorted), null, null);
    }

    private static long[] dedupSorted(long[] sorted) {
        if (sorted.length < 2) {
            return sorted;
        }
        int w = 1;
        for (int r = 1; r < sorted.length; r++) {
            if (sorted[r] != sorted[w - 1]) {
                sorted[w++] = sorted[r];
            }
        }
        return w == sorted.length ? sorted : Arrays.copyOf(sorted, w);
    }

    private static int[] checkFieldIds(int[] fieldIds) {
        if (fieldIds == null || fieldIds.length == 0) {
            throw new ValidationException("a key filter needs at least one key field id");
        }
        int[] f = fieldIds.clone();
        Arrays.sort(f);
        for (int i = 0; i < f.length; i++) {
            if (f[i] < 0 || (i > 0 && f[i] == f[i - 1])) {
                throw new ValidationException("key field ids must be distinct and non-negative: " + Arrays.toString(fieldIds));
            }
        }
        return f;
    }

    // ------------------------------------------------------------------ accessors

    public KeyType keyType() {
        return type;
    }

    /** The key's field ids, ascending. */
    public int[] fieldIds() {
        return fieldIds.clone();
    }

    /** Number of distinct keys. */
    public int size() {
        return type == KeyType.INT64 ? longs.length : offsets.length - 1;
    }

    public boolean isEmpty() {
        return size() == 0;
    }

    /** Key {@code i} in ascending order, rendered as text (for messages and JSON). */
    public String keyAt(int i) {
        Objects.checkIndex(i, size());
        return type == KeyType.INT64
                ? Long.toString(longs[i])
                : new String(bytes, offsets[i], offsets[i + 1] - offsets[i], StandardCharsets.UTF_8);
    }

    /** Every key in ascending order, rendered as text. */
    public List<String> keys() {
        List<String> out = new ArrayList<>(size());
        for (int i = 0; i < size(); i++) {
            out.add(keyAt(i));
        }
        return out;
    }

    /** The integer key {@code i} (INT64 filters only). */
    public long longAt(int i) {
        requireType(KeyType.INT64);
        return longs[i];
    }

    public boolean contains(long key) {
        requireType(KeyType.INT64);
        return Arrays.binarySearch(longs, key) >= 0;
    }

    public boolean contains(String key) {
        requireType(KeyType.UTF8);
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return searchUtf8(k, 0, k.length, 0, size()) >= 0;
    }

    /** Whether both filters are over the same key fields and key type, so that keys can be compared. */
    public boolean comparableWith(KeyFilter other) {
        return type == other.type && Arrays.equals(fieldIds, other.fieldIds);
    }

    private void requireType(KeyType t) {
        if (type != t) {
            throw new IllegalStateException("key filter holds " + type + " keys, not " + t);
        }
    }

    // ------------------------------------------------------------------ intersection

    /** Whether the filters conflict: they share a key, or they cannot be compared key by key. */
    public boolean intersects(KeyFilter other) {
        return overlap(other, 0).conflict();
    }

    /** The overlap with {@code other}, naming the first {@link #DEFAULT_SAMPLE} shared keys. */
    public Overlap overlap(KeyFilter other) {
        return overlap(other, DEFAULT_SAMPLE);
    }

    /**
     * The overlap with {@code other}. With {@code sample == 0} it stops at the first shared key and
     * reports a count of 1; otherwise it counts every shared key and names the first {@code sample}.
     */
    public Overlap overlap(KeyFilter other, int sample) {
        if (!Arrays.equals(fieldIds, other.fieldIds)) {
            return Overlap.incomparable("key filters are over different key fields "
                    + Arrays.toString(fieldIds) + " and " + Arrays.toString(other.fieldIds));
        }
        if (type != other.type) {
            return Overlap.incomparable("key filters hold different key types " + type + " and " + other.type);
        }
        KeyFilter small = size() <= other.size() ? this : other;
        KeyFilter large = small == this ? other : this;
        int n = small.size();
        int m = large.size();
        if (n == 0) {
            return Overlap.NONE;
        }
        List<String> names = new ArrayList<>(Math.min(sample, n));
        long count = 0;
        boolean probe = (long) n * (64 - Long.numberOfLeadingZeros(m)) < (long) n + m;
        if (probe) {
            for (int i = 0; i < n; i++) {
                if (large.indexOf(small, i) >= 0) {
                    count++;
                    if (names.size() < sample) {
                        names.add(small.keyAt(i));
                    }
                    if (sample == 0) {
                        break;
                    }
                }
            }
        } else {
            int i = 0;
            int j = 0;
            while (i < n && j < m) {
                int c = small.compareKey(i, large, j);
                if (c < 0) {
                    i++;
                } else if (c > 0) {
                    j++;
                } else {
                    count++;
                    if (names.size() < sample) {
                        names.add(small.keyAt(i));
                    }
                    if (sample == 0) {
                        break;
                    }
                    i++;
                    j++;
                }
            }
        }
        return count == 0 ? Overlap.NONE : new Overlap(Overlap.Kind.SHARED_KEYS, count, List.copyOf(names),
                count + (count == 1 ? " shared key " : " shared keys ") + names);
    }

    private int compareKey(int i, KeyFilter o, int j) {
        if (type == KeyType.INT64) {
            return Long.compare(longs[i], o.longs[j]);
        }
        return Arrays.compareUnsigned(bytes, offsets[i], offsets[i + 1], o.bytes, o.offsets[j], o.offsets[j + 1]);
    }

    private int indexOf(KeyFilter o, int j) {
        if (type == KeyType.INT64) {
            return Arrays.binarySearch(longs, o.longs[j]);
        }
        return searchUtf8(o.bytes, o.offsets[j], o.offsets[j + 1], 0, size());
    }

    private int searchUtf8(byte[] k, int from, int to, int lo, int hi) {
        hi--;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Arrays.compareUnsigned(bytes, offsets[mid], offsets[mid + 1], k, from, to);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    /** The union of two comparable filters (used when a group commit joins several operations). */
    public KeyFilter union(KeyFilter other) {
        if (!comparableWith(other)) {
            throw new IllegalArgumentException("cannot unite key filters over " + Arrays.toString(fieldIds) + "/" + type
                    + " and " + Arrays.toString(other.fieldIds) + "/" + other.type);
        }
        int n = size();
        int m = other.size();
        if (type == KeyType.INT64) {
            long[] out = new long[n + m];
            int i = 0, j = 0, w = 0;
            while (i < n || j < m) {
                if (j >= m || (i < n && longs[i] < other.longs[j])) {
                    out[w++] = longs[i++];
                } else if (i >= n || other.longs[j] < longs[i]) {
                    out[w++] = other.longs[j++];
                } else {
                    out[w++] = longs[i++];
                    j++;
                }
            }
            return new KeyFilter(fieldIds, type, Arrays.copyOf(out, w), null, null);
        }
        byte[] out = new byte[bytes.length + other.bytes.length];
        int[] offs = new int[n + m + 1];
        int i = 0, j = 0, w = 0, pos = 0;
        while (i < n || j < m) {
            KeyFilter src;
            int idx;
            if (j >= m) {
                src = this; idx = i++;
            } else if (i >= n) {
                src = other; idx = j++;
            } else {
                int c = compareKey(i, other, j);
                if (c < 0) {
                    src = this; idx = i++;
                } else if (c > 0) {
                    src = other; idx = j++;
                } else {
                    src = this; idx = i++;
                    j++;
                }
            }
            int len = src.offsets[idx + 1] - src.offsets[idx];
            System.arraycopy(src.bytes, src.offsets[idx], out, pos, len);
            pos += len;
            offs[++w] = pos;
        }
        return new KeyFilter(fieldIds, type, null, Arrays.copyOf(out, pos), Arrays.copyOf(offs, w + 1));
    }

    // ------------------------------------------------------------------ encoding

    /** The compact binary form of {@link KeyFilterDescriptor}. */
    public byte[] encode() {
        int n = size();
        int estimate = KeyFilterDescriptor.HEADER_LENGTH + 4 * fieldIds.length
                + (type == KeyType.INT64 ? 10 * n : bytes.length + 10 * n);
        ByteBuffer buf = ByteBuffer.allocate(estimate).order(ByteOrder.LITTLE_ENDIAN);
        buf.putShort(KeyFilterDescriptor.MAGIC_OFFSET, KeyFilterDescriptor.MAGIC);
        buf.put(KeyFilterDescriptor.VERSION_OFFSET, KeyFilterDescriptor.VERSION);
        buf.put(KeyFilterDescriptor.KEY_TYPE_OFFSET, (byte) type.ordinal());
        buf.putInt(KeyFilterDescriptor.FIELD_COUNT_OFFSET, fieldIds.length);
        buf.putInt(KeyFilterDescriptor.KEY_COUNT_OFFSET, n);
        buf.position(KeyFilterDescriptor.HEADER_LENGTH);
        for (int f : fieldIds) {
            buf.putInt(f);
        }
        if (type == KeyType.INT64) {
            for (int i = 0; i < n; i++) {
                putVarLong(buf, i == 0 ? (longs[0] << 1) ^ (longs[0] >> 63) : longs[i] - longs[i - 1]);
            }
        } else {
            for (int i = 0; i < n; i++) {
                int start = offsets[i];
                int len = offsets[i + 1] - start;
                int shared = 0;
                if (i > 0) {
                    int prev = offsets[i - 1];
                    int max = Math.min(len, start - prev);
                    int mismatch = Arrays.mismatch(bytes, prev, prev + max, bytes, start, start + max);
                    shared = mismatch < 0 ? max : mismatch;
                }
                putVarLong(buf, shared);
                putVarLong(buf, len - shared);
                buf.put(bytes, start + shared, len - shared);
            }
        }
        return Arrays.copyOf(buf.array(), buf.position());
    }

    /** Decodes {@link #encode()}'s output; any malformed input is a {@link ValidationException}. */
    public static KeyFilter decode(byte[] encoded) {
        try {
            return decode0(ByteBuffer.wrap(encoded).order(ByteOrder.LITTLE_ENDIAN));
        } catch (java.nio.BufferUnderflowException | IndexOutOfBoundsException e) {
            throw new ValidationException("corrupt key filter encoding: truncated", e);
        }
    }

    private static KeyFilter decode0(ByteBuffer buf) {
        if (buf.remaining() < KeyFilterDescriptor.HEADER_LENGTH) {
            throw new ValidationException("corrupt key filter encoding: " + buf.remaining() + " bytes, header needs "
                    + KeyFilterDescriptor.HEADER_LENGTH);
        }
        if (buf.getShort(KeyFilterDescriptor.MAGIC_OFFSET) != KeyFilterDescriptor.MAGIC) {
            throw new ValidationException("corrupt key filter encoding: bad magic");
        }
        byte version = buf.get(KeyFilterDescriptor.VERSION_OFFSET);
        if (version != KeyFilterDescriptor.VERSION) {
            throw new ValidationException("key filter encoding version " + version + " is not supported (this build reads "
                    + KeyFilterDescriptor.VERSION + ")");
        }
        int t = buf.get(KeyFilterDescriptor.KEY_TYPE_OFFSET);
        if (t < 0 || t >= KeyType.values().length) {
            throw new ValidationException("corrupt key filter encoding: unknown key type " + t);
        }
        KeyType type = KeyType.values()[t];
        int nf = buf.getInt(KeyFilterDescriptor.FIELD_COUNT_OFFSET);
        int n = buf.getInt(KeyFilterDescriptor.KEY_COUNT_OFFSET);
        if (nf <= 0 || nf > 1024 || n < 0 || n > buf.capacity()) {
            throw new ValidationException("corrupt key filter encoding: " + nf + " fields, " + n + " keys");
        }
        buf.position(KeyFilterDescriptor.HEADER_LENGTH);
        int[] fields = new int[nf];
        for (int i = 0; i < nf; i++) {
            fields[i] = buf.getInt();
            if (fields[i] < 0 || (i > 0 && fields[i] <= fields[i - 1])) {
                throw new ValidationException("corrupt key filter encoding: field ids not ascending");
            }
        }
        KeyFilter out;
        if (type == KeyType.INT64) {
            long[] keys = new long[n];
            for (int i = 0; i < n; i++) {
                long v = getVarLong(buf);
                if (i == 0) {
                    keys[0] = (v >>> 1) ^ -(v & 1);
                } else {
                    // v is the unsigned difference; a zero or wrapping difference breaks the ascending order
                    keys[i] = keys[i - 1] + v;
                    if (keys[i] <= keys[i - 1]) {
                        throw new ValidationException("corrupt key filter encoding: keys not ascending at " + i);
                    }
                }
            }
            out = new KeyFilter(fields, type, keys, null, null);
        } else {
            int[] offs = new int[n + 1];
            byte[] data = new byte[Math.max(16, buf.remaining() * 2)];
            int pos = 0;
            for (int i = 0; i < n; i++) {
                long shared = getVarLong(buf);
                long rest = getVarLong(buf);
                int prevLen = i == 0 ? 0 : offs[i] - offs[i - 1];
                if (shared < 0 || shared > prevLen || rest < 0 || rest > buf.remaining()) {
                    throw new ValidationException("corrupt key filter encoding: bad key lengths at " + i);
                }
                int len = (int) (shared + rest);
                if (pos + len > data.length) {
                    data = Arrays.copyOf(data, Math.max(data.length * 2, pos + len));
                }
                if (shared > 0) {
                    System.arraycopy(data, offs[i - 1], data, pos, (int) shared);
                }
                buf.get(data, pos + (int) shared, (int) rest);
                pos += len;
                offs[i + 1] = pos;
                if (i > 0 && Arrays.compareUnsigned(data, offs[i - 1], offs[i], data, offs[i], offs[i + 1]) >= 0) {
                    throw new ValidationException("corrupt key filter encoding: keys not ascending at " + i);
                }
            }
            out = new KeyFilter(fields, type, null, Arrays.copyOf(data, pos), offs);
        }
        if (buf.hasRemaining()) {
            throw new ValidationException("corrupt key filter encoding: " + buf.remaining() + " trailing bytes");
        }
        return out;
    }

    private static void putVarLong(ByteBuffer buf, long v) {
        while ((v & ~0x7FL) != 0) {
            buf.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        buf.put((byte) v);
    }

    private static long getVarLong(ByteBuffer buf) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = buf.get();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new ValidationException("corrupt key filter encoding: varint too long");
    }

    // ------------------------------------------------------------------ equality

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof KeyFilter k) || type != k.type || !Arrays.equals(fieldIds, k.fieldIds)) {
            return false;
        }
        return type == KeyType.INT64
                ? Arrays.equals(longs, k.longs)
                : Arrays.equals(offsets, k.offsets) && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        int h = 31 * type.hashCode() + Arrays.hashCode(fieldIds);
        return 31 * h + (type == KeyType.INT64 ? Arrays.hashCode(longs) : Arrays.hashCode(bytes));
    }

    @Override
    public String toString() {
        int n = size();
        List<String> head = new ArrayList<>();
        for (int i = 0; i < Math.min(n, DEFAULT_SAMPLE); i++) {
            head.add(keyAt(i));
        }
        return "KeyFilter{fields=" + Arrays.toString(fieldIds) + ", " + type + ", " + n + " keys " + head
                + (n > head.size() ? "..." : "") + "}";
    }

    // ------------------------------------------------------------------ result type

    /**
     * The answer of an intersection: whether two filters conflict, why, how many keys they share and
     * the first few of those keys (for error messages).
     */
    public record Overlap(Kind kind, long count, List<String> sample, String reason) {
        public enum Kind {
            /** No shared key: the filters do not conflict. */
            DISJOINT,
            /** At least one shared key. */
            SHARED_KEYS,
            /** Different key fields or key types: conflict conservatively. */
            INCOMPARABLE
        }

        static final Overlap NONE = new Overlap(Kind.DISJOINT, 0, List.of(), "no shared key");

        static Overlap incomparable(String reason) {
            return new Overlap(Kind.INCOMPARABLE, 0, List.of(), reason);
        }

        public boolean conflict() {
            return kind != Kind.DISJOINT;
        }
    }

    // ------------------------------------------------------------------ string key sorting

    /** Collects UTF-8 keys, then sorts them (index quicksort over byte slices) and checks duplicates. */
    private static final class StringKeys {
        private byte[] data;
        private int[] offs;
        private long[] prefix;
        private int n;
        private int pos;

        StringKeys(int expected) {
            data = new byte[Math.max(16, expected * 12)];
            offs = new int[expected + 1];
            prefix = new long[Math.max(1, expected)];
        }

        void add(byte[] k) {
            if (pos + k.length > data.length) {
                data = Arrays.copyOf(data, Math.max(data.length * 2, pos + k.length));
            }
            if (n + 2 > offs.length) {
                offs = Arrays.copyOf(offs, offs.length * 2 + 2);
            }
            if (n + 1 > prefix.length) {
                prefix = Arrays.copyOf(prefix, prefix.length * 2);
            }
            System.arraycopy(k, 0, data, pos, k.length);
            long p = 0;
            for (int i = 0; i < 8; i++) {
                p = (p << 8) | (i < k.length ? (k[i] & 0xFF) : 0);
            }
            prefix[n] = p;
            pos += k.length;
            offs[++n] = pos;
        }

        KeyFilter build(int[] fieldIds, Duplicates duplicates, String where) {
            int[] idx = new int[n];
            for (int i = 0; i < n; i++) {
                idx[i] = i;
            }
            sort(idx, 0, n - 1);
            byte[] out = new byte[pos];
            int[] outOffs = new int[n + 1];
            int w = 0;
            int p = 0;
            for (int r = 0; r < n; r++) {
                int k = idx[r];
                if (r > 0 && compare(idx[r - 1], k) == 0) {
                    if (duplicates == Duplicates.REJECT) {
                        int a = Math.min(idx[r - 1], k);
                        int b = Math.max(idx[r - 1], k);
                        throw new ValidationException("duplicate key '"
                                + new String(data, offs[k], offs[k + 1] - offs[k], StandardCharsets.UTF_8)
                                + "' in " + where + " at rows " + List.of(a, b));
                    }
                    continue;
                }
                int len = offs[k + 1] - offs[k];
                System.arraycopy(data, offs[k], out, p, len);
                p += len;
                outOffs[++w] = p;
            }
            return new KeyFilter(fieldIds, KeyType.UTF8, null, Arrays.copyOf(out, p), Arrays.copyOf(outOffs, w + 1));
        }

        private int compare(int a, int b) {
            int c = Long.compareUnsigned(prefix[a], prefix[b]);
            if (c != 0) {
                return c;
            }
            return Arrays.compareUnsigned(data, offs[a], offs[a + 1], data, offs[b], offs[b + 1]);
        }

        private void sort(int[] idx, int lo, int hi) {
            while (hi - lo > 16) {
                int mid = (lo + hi) >>> 1;
                if (compare(idx[mid], idx[lo]) < 0) swap(idx, mid, lo);
                if (compare(idx[hi], idx[lo]) < 0) swap(idx, hi, lo);
                if (compare(idx[hi], idx[mid]) < 0) swap(idx, hi, mid);
                int pivot = idx[mid];
                int i = lo;
                int j = hi;
                while (i <= j) {
                    while (compare(idx[i], pivot) < 0) i++;
                    while (compare(idx[j], pivot) > 0) j--;
                    if (i <= j) {
                        swap(idx, i++, j--);
                    }
                }
                if (j - lo < hi - i) {
                    sort(idx, lo, j);
                    lo = i;
                } else {
                    sort(idx, i, hi);
                    hi = j;
                }
            }
            for (int i = lo + 1; i <= hi; i++) {
                int v = idx[i];
                int j = i - 1;
                while (j >= lo && compare(idx[j], v) > 0) {
                    idx[j + 1] = idx[j];
                    j--;
                }
                idx[j + 1] = v;
            }
        }

        private static void swap(int[] a, int i, int j) {
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}
