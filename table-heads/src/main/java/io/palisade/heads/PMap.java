package io.palisade.heads;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * A small persistent (immutable, structure-sharing) hash map: a hash array mapped trie of 32-way
 * bitmap nodes with collision nodes for equal hashes. {@link #put} and {@link #remove} return a new map
 * and copy only the O(log32 n) nodes on the path to the key, so folding a long journal stays linear.
 *
 * <p>Invariants: keys and values are non-null; {@link #size} is the number of entries; a bitmap node
 * holds {@code 2 * bitCount(bitmap)} slots, each pair either (key, value) or (null, child node);
 * a collision node holds at least one pair, all with the same hash. Iteration order is unspecified:
 * callers needing a canonical order use {@link #sortedEntries}.
 */
final class PMap<K, V> {
    private static final PMap<?, ?> EMPTY = new PMap<>(null, 0);

    private final Object root; // BitmapNode, or null when empty
    private final int size;

    private PMap(Object root, int size) {
        this.root = root;
        this.size = size;
    }

    @SuppressWarnings("unchecked")
    static <K, V> PMap<K, V> empty() {
        return (PMap<K, V>) EMPTY;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    private static int hash(Object key) {
        int h = key.hashCode();
        return h ^ (h >>> 16);
    }

    @SuppressWarnings("unchecked")
    V get(K key) {
        Objects.requireNonNull(key, "key");
        if (root == null) {
            return null;
        }
        int h = hash(key);
        Object node = root;
        int shift = 0;
        while (true) {
            if (node instanceof BitmapNode b) {
                int bit = 1 << ((h >>> shift) & 31);
                if ((b.bitmap & bit) == 0) {
                    return null;
                }
                int i = 2 * Integer.bitCount(b.bitmap & (bit - 1));
                Object k = b.slots[i];
                Object v = b.slots[i + 1];
                if (k == null) {
                    node = v;
                    shift += 5;
                    continue;
                }
                return key.equals(k) ? (V) v : null;
            }
            CollisionNode c = (CollisionNode) node;
            if (c.hash != h) {
                return null;
            }
            for (int i = 0; i < c.slots.length; i += 2) {
                if (key.equals(c.slots[i])) {
                    return (V) c.slots[i + 1];
                }
            }
            return null;
        }
    }

    boolean containsKey(K key) {
        return get(key) != null;
    }

    PMap<K, V> put(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        boolean[] added = new boolean[1];
        Object r = root == null ? BitmapNode.EMPTY : root;
        Object n = put(r, 0, hash(key), key, value, added);
        if (n == root) {
            return this;
        }
        return new PMap<>(n, added[0] ? size + 1 : size);
    }

    PMap<K, V> remove(K key) {
        Objects.requireNonNull(key, "key");
        if (root == null) {
            return this;
        }
        Object n = remove(root, 0, hash(key), key);
        if (n == root) {
            return this;
        }
        return n == null ? empty() : new PMap<>(n, size - 1);
    }

    /** This map without the entries {@code drop} accepts (this map itself when it accepts none). */
    PMap<K, V> removeIf(java.util.function.BiPredicate<? super K, ? super V> drop) {
        List<K> gone = new ArrayList<>();
        forEach((k, v) -> {
            if (drop.test(k, v)) {
                gone.add(k);
            }
        });
        PMap<K, V> out = this;
        for (K k : gone) {
            out = out.remove(k);
        }
        return out;
    }

    void forEach(BiConsumer<? super K, ? super V> action) {
        if (root != null) {
            each(root, action);
        }
    }

    /** The entries sorted by key. */
    List<Map.Entry<K, V>> sortedEntries(Comparator<? super K> order) {
        List<Map.Entry<K, V>> out = new ArrayList<>(size);
        forEach((k, v) -> out.add(Map.entry(k, v)));
        out.sort(Map.Entry.comparingByKey(order));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static <K, V> void each(Object node, BiConsumer<? super K, ? super V> action) {
        Object[] s = node instanceof BitmapNode b ? b.slots : ((CollisionNode) node).slots;
        for (int i = 0; i < s.length; i += 2) {
            if (s[i] == null) {
                each(s[i + 1], action);
            } else {
                action.accept((K) s[i], (V) s[i + 1]);
            }
        }
    }

    private static Object put(Object node, int shift, int h, Object key, Object value, boolean[] added) {
        if (node instanceof BitmapNode b) {
            int bit = 1 << ((h >>> shift) & 31);
            int i = 2 * Integer.bitCount(b.bitmap & (bit - 1));
            if ((b.bitmap & bit) == 0) {
                added[0] = true;
                Object[] s = new Object[b.slots.length + 2];
                System.arraycopy(b.slots, 0, s, 0, i);
                s[i] = key;
                s[i + 1] = value;
                System.arraycopy(b.slots, i, s, i + 2, b.slots.length - i);
                return new BitmapNode(b.bitmap | bit, s);
            }
            Object k = b.slots[i];
            Object v = b.slots[i + 1];
            if (k == null) {
                Object child = put(v, shift + 5, h, key, value, added);
                return child == v ? b : b.with(i + 1, null, child);
            }
            if (key.equals(k)) {
                return v.equals(value) ? b : b.with(i + 1, k, value);
            }
            added[0] = true;
            return b.with(i + 1, null, pair(shift + 5, k, v, hash(k), key, value, h));
        }
        CollisionNode c = (CollisionNode) node;
        if (c.hash == h) {
            for (int i = 0; i < c.slots.length; i += 2) {
                if (key.equals(c.slots[i])) {
                    if (c.slots[i + 1].equals(value)) {
                        return c;
                    }
                    Object[] s = c.slots.clone();
                    s[i + 1] = value;
                    return new CollisionNode(h, s);
                }
            }
            added[0] = true;
            Object[] s = new Object[c.slots.length + 2];
            System.arraycopy(c.slots, 0, s, 0, c.slots.length);
            s[c.slots.length] = key;
            s[c.slots.length + 1] = value;
            return new CollisionNode(h, s);
        }
        // different hash below a collision node: nest the collision node in a bitmap node
        BitmapNode nest = new BitmapNode(1 << ((c.hash >>> shift) & 31), new Object[] {null, c});
        return put(nest, shift, h, key, value, added);
    }

    private static Object pair(int shift, Object k1, Object v1, int h1, Object k2, Object v2, int h2) {
        if (h1 == h2) {
            return new CollisionNode(h1, new Object[] {k1, v1, k2, v2});
        }
        boolean[] ignored = new boolean[1];
        Object n = put(BitmapNode.EMPTY, shift, h1, k1, v1, ignored);
        return put(n, shift, h2, k2, v2, ignored);
    }

    /** The node without {@code key}: the same node when absent, {@code null} when it becomes empty. */
    private static Object remove(Object node, int shift, int h, Object key) {
        if (node instanceof BitmapNode b) {
            int bit = 1 << ((h >>> shift) & 31);
            if ((b.bitmap & bit) == 0) {
                return b;
            }
            int i = 2 * Integer.bitCount(b.bitmap & (bit - 1));
            Object k = b.slots[i];
            Object v = b.slots[i + 1];
            if (k == null) {
                Object child = remove(v, shift + 5, h, key);
                if (child == v) {
                    return b;
                }
                if (child != null) {
                    return b.with(i + 1, null, child);
                }
            } else if (!key.equals(k)) {
                return b;
            }
            if (b.bitmap == bit) {
                return null;
            }
            Object[] s = new Object[b.slots.length - 2];
            System.arraycopy(b.slots, 0, s, 0, i);
            System.arraycopy(b.slots, i + 2, s, i, b.slots.length - i - 2);
            return new BitmapNode(b.bitmap & ~bit, s);
        }
        CollisionNode c = (CollisionNode) node;
        if (c.hash != h) {
            return c;
        }
        for (int i = 0; i < c.slots.length; i += 2) {
            if (key.equals(c.slots[i])) {
                if (c.slots.length == 2) {
                    return null;
                }
                Object[] s = new Object[c.slots.length - 2];
                System.arraycopy(c.slots, 0, s, 0, i);
                System.arraycopy(c.slots, i + 2, s, i, c.slots.length - i - 2);
                return new CollisionNode(h, s);
            }
        }
        return c;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PMap<?, ?> other) || other.size != size) {
            return false;
        }
        boolean[] same = {true};
        forEach((k, v) -> {
            if (same[0]) {
                @SuppressWarnings("unchecked")
                Object ov = ((PMap<Object, Object>) other).get(k);
                same[0] = v.equals(ov);
            }
        });
        return same[0];
    }

    @Override
    public int hashCode() {
        int[] h = {0};
        forEach((k, v) -> h[0] += k.hashCode() ^ v.hashCode());
        return h[0];
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        forEach((k, v) -> sb.append(sb.length() > 1 ? ", " : "").append(k).append('=').append(v));
        return sb.append('}').toString();
    }

    private static final class BitmapNode {
        static final BitmapNode EMPTY = new BitmapNode(0, new Object[0]);

        final int bitmap;
        final Object[] slots;

        BitmapNode(int bitmap, Object[] slots) {
            this.bitmap = bitmap;
            this.slots = slots;
        }

        BitmapNode with(int valueSlot, Object key, Object value) {
            Object[] s = slots.clone();
            s[valueSlot - 1] = key;
            s[valueSlot] = value;
            return new BitmapNode(bitmap, s);
        }
    }

    private static final class CollisionNode {
        final int hash;
        final Object[] slots;

        CollisionNode(int hash, Object[] slots) {
            this.hash = hash;
            this.slots = slots;
        }
    }
}
