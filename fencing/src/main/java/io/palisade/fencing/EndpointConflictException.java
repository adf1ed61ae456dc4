package io.palisade.fencing;

import java.util.List;

/**
 * A write would leave an edge whose endpoint is not in the graph: an edge written with a {@code src} or {@code dst}
 * its declared node table does not hold ({@link Situation#MISSING_ENDPOINT}), or a node deleted while edges still name
 * it ({@link Situation#NODE_HAS_EDGES}). Judged at commit against the newest committed state, so a concurrent delete
 * of an endpoint and an insert of an edge to it never both commit. Nothing of the write was applied; never retried
 * automatically.
 */
public class EndpointConflictException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    /** Which way the graph would have broken. */
    public enum Situation { MISSING_ENDPOINT, NODE_HAS_EDGES }

    private final Situation situation;
    private final String table;
    private final List<String> keys;
    private final long count;
    private final List<String> edges;

    /**
     * @param situation what would have broken
     * @param table     the table written (the edge table, or the node table of a delete)
     * @param keys      the first few endpoint keys at fault (missing endpoints, or nodes that still have edges)
     * @param count     how many endpoint keys are at fault in all
     * @param edges     for {@link Situation#MISSING_ENDPOINT} the edges naming them; for
     *                  {@link Situation#NODE_HAS_EDGES} the first few edges that still name a deleted node, each as
     *                  {@code table/id}
     * @param detail    where the keys were looked for, in words ("table 'person'")
     */
    public EndpointConflictException(Situation situation, String table, List<String> keys, long count, List<String> edges,
                                     String detail) {
        super(message(situation, table, keys, count, edges, detail));
        this.situation = situation;
        this.table = table;
        this.keys = List.copyOf(keys);
        this.count = count;
        this.edges = List.copyOf(edges);
    }

    private static String message(Situation s, String table, List<String> keys, long count, List<String> edges,
                                  String detail) {
        String more = count > keys.size() ? " and " + (count - keys.size()) + " more" : "";
        return switch (s) {
            case MISSING_ENDPOINT -> "endpoint conflict: table '" + table + "': " + count
                    + (count == 1 ? " endpoint" : " endpoints") + " not in " + detail + ": " + keys + more
                    + " (named by edges " + edges + "); nothing written";
            case NODE_HAS_EDGES -> "endpoint conflict: table '" + table + "': " + count
                    + (count == 1 ? " node still has" : " nodes still have") + " edges: " + keys + more
                    + " (edges " + edges + (detail.isEmpty() ? "" : "; " + detail) + "); delete the edges first, or "
                    + "with the node in one transaction; nothing written";
        };
    }

    public Situation situation() {
        return situation;
    }

    public String table() {
        return table;
    }

    /** The first few endpoint keys at fault. */
    public List<String> keys() {
        return keys;
    }

    /** How many endpoint keys are at fault in all. */
    public long count() {
        return count;
    }

    /** The first few edges involved, each as {@code table/id}. */
    public List<String> edges() {
        return edges;
    }
}
