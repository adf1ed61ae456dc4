package io.palisade.fencing.action;

import java.util.Arrays;
import java.util.BitSet;

/** An immutable set of row offsets inside one fragment (a deletion vector, or the rows an action touched). */
public final class RowOffsets {
    public static final RowOffsets NONE = new RowOffsets(new BitSet());

    private final BitSet bits;

    private RowOffsets(BitSet bits) {
        this.bits = bits;
    }

    public static RowOffsets of(int... offsets) {
        BitSet b = new BitSet();
        for (int o : offsets) {
            if (o < 0) {
                throw new IllegalArgumentException("negative row offset " + o);
            }
            b.set(o);
        }
        return new RowOffsets(b);
    }

    public static RowOffsets range(int fromInclusive, int toExclusive) {
        BitSet b = new BitSet();
        b.set(fromInclusive, toExclusive);
        return new RowOffsets(b);
    }

    public int cardinality() {
        return bits.cardinality();
    }

    public boolean isEmpty() {
        return bits.isEmpty();
    }

    public boolean contains(int offset) {
        return bits.get(offset);
    }

    /** One past the largest offset (0 when empty). */
    public int bound() {
        return bits.length();
    }

    public boolean intersects(RowOffsets other) {
        return bits.intersects(other.bits);
    }

    public RowOffsets union(RowOffsets other) {
        BitSet b = (BitSet) bits.clone();
        b.or(other.bits);
        return new RowOffsets(b);
    }

    public int[] toArray() {
        return bits.stream().toArray();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowOffsets r && bits.equals(r.bits);
    }

    @Override
    public int hashCode() {
        return bits.hashCode();
    }

    @Override
    public String toString() {
        int[] a = toArray();
        return a.length <= 8 ? Arrays.toString(a) : "[" + a.length + " rows]";
    }
}
