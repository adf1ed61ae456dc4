package io.palisade.cli;

/** An error the command reports as one line with a chosen exit code. */
final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int code;

    CliException(int code, String message) {
        super(message, null, false, false);
        this.code = code;
    }
}
