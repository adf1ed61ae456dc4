package io.palisade.fencing;

/**
 * The graph was closed before this operation ran: it did nothing, and was not journaled. What was queued when
 * {@code close} began fails with it (a write a caller submitted, and the automatic maintenance the coordinator had
 * queued, which is then dropped quietly: it comes due again after the next open).
 */
public class GraphClosedException extends GraphRefusedException {
    private static final long serialVersionUID = 1L;

    public GraphClosedException(String message) {
        super(message);
    }
}
