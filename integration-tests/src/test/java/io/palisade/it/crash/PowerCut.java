package io.palisade.it.crash;

/**
 * Where a power-mode child's power fails ({@link CrashWorkload}): at its {@code k}th sync point of any
 * kind ({@code sync:k}), at the {@code nth} time it reaches the named point {@code point}
 * ({@code point:name:nth}), or never ({@code none}: the child runs to its end and the cut comes after
 * its last copy). At the cut the sync point's copy is not taken: the restore goes back to the previous one.
 */
record PowerCut(int sync, String point, int nth) {
    static final PowerCut NONE = new PowerCut(0, null, 0);

    /** The power fails at the kth sync point (1 = the first after the parent's baseline). */
    static PowerCut atSync(int k) {
        if (k < 1) {
            throw new IllegalArgumentException("sync points are numbered from 1: " + k);
        }
        return new PowerCut(k, null, 0);
    }

    /** The power fails at {@code name[:nth]} (a named crash point, or opened/returned/closed). */
    static PowerCut atPoint(String spec) {
        int colon = spec.lastIndexOf(':');
        return colon > 0 ? new PowerCut(0, spec.substring(0, colon), Integer.parseInt(spec.substring(colon + 1)))
                : new PowerCut(0, spec, 1);
    }

    boolean cutsAt(int n, String reached, int hit) {
        return point == null ? n == sync : point.equals(reached) && hit == nth;
    }

    String encode() {
        return point != null ? "point:" + point + ":" + nth : sync > 0 ? "sync:" + sync : "none";
    }

    static PowerCut parse(String s) {
        if (s.equals("none")) {
            return NONE;
        }
        if (s.startsWith("sync:")) {
            return atSync(Integer.parseInt(s.substring(5)));
        }
        if (s.startsWith("point:")) {
            return atPoint(s.substring(6));
        }
        throw new IllegalArgumentException("power cut spec: " + s);
    }

    @Override
    public String toString() {
        return encode();
    }
}
