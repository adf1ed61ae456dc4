package io.palisade.fencing;

/** The graph may not be opened or written as asked: unknown format stamp, foreign commit, lease held elsewhere. */
public class GraphRefusedException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    public GraphRefusedException(String message) {
        super(message);
    }

    public GraphRefusedException(String message, Throwable cause) {
        super(message, cause);
    }
}
