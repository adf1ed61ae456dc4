package io.palisade.heads;

import io.palisade.fencing.PalisadeException;

/**
 * A checkpoint could not be written or the checkpoint directory could not be read (I/O failure, short
 * write). A failed write leaves no file under the final name: at most a temporary file, removed by the
 * next write.
 */
public final class CheckpointException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    public CheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
