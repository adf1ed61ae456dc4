package io.palisade.fencing;

/**
 * This writer was fenced: another writer opened the graph's journal after it (on the Kafka journal, a newer
 * transactional producer of the graph's {@code transactional.id}). Nothing this writer appended after the takeover
 * is part of the journal, and none of its later operations can succeed: close it; the graph is the new writer's.
 * A {@link GraphRefusedException}: the graph may no longer be written by this writer.
 */
public class WriterFencedException extends GraphRefusedException {
    private static final long serialVersionUID = 1L;

    public WriterFencedException(String message, Throwable cause) {
        super(message, cause);
    }
}
