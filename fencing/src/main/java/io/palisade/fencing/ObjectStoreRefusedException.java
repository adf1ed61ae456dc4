package io.palisade.fencing;

/**
 * The object store that holds (or would hold) a graph's tables is refused: it does not honour a conditional put (a
 * second create-if-absent of the same key is not refused), on which every Lance commit's exclusivity rests, or it could
 * not be probed for that at all. Nothing was written to the graph.
 */
public class ObjectStoreRefusedException extends GraphRefusedException {
    private static final long serialVersionUID = 1L;

    public ObjectStoreRefusedException(String message) {
        super(message);
    }

    public ObjectStoreRefusedException(String message, Throwable cause) {
        super(message, cause);
    }
}
