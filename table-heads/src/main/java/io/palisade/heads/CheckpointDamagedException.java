package io.palisade.heads;

import io.palisade.fencing.PalisadeException;

import java.nio.file.Path;

/** A checkpoint file that does not verify: short, wrong magic or version, CRC mismatch, or a body that does not decode. */
public final class CheckpointDamagedException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;

    public CheckpointDamagedException(Path file, String reason) {
        super("checkpoint " + file + " is damaged: " + reason);
        this.file = file;
    }

    public CheckpointDamagedException(Path file, String reason, Throwable cause) {
        super("checkpoint " + file + " is damaged: " + reason, cause);
        this.file = file;
    }

    public Path file() {
        return file;
    }
}
