package io.palisade.cli;

/** An error the command reports as one line with a chosen exit code and its {@link ErrorKind}. */
final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int code;
    final ErrorKind kind;

    /** An error of the kind the exit code names ({@link ErrorKind#ofCode}). */
    CliException(int code, String message) {
        this(ErrorKind.ofCode(code), code, message);
    }

    CliException(ErrorKind kind, String message) {
        this(kind, kind.code, message);
    }

    private CliException(ErrorKind kind, int code, String message) {
        super(message, null, false, false);
        this.code = code;
        this.kind = kind;
    }
}
