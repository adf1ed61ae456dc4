package io.palisade.cli;

import io.palisade.fencing.CatalogCorruptedException;
import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.EndpointConflictException;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.IdempotencyMismatchException;
import io.palisade.fencing.JournalCorruptedException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.MergeConflictException;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.TableCorruptedException;
import io.palisade.fencing.UniqueConflictException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.VersionExpiredException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.heads.CheckpointDamagedException;
import io.palisade.heads.CheckpointException;

import java.util.Locale;

/**
 * One vocabulary for errors across Java, JSON and the command line (README "Errors: one vocabulary" is this table,
 * and {@code ErrorVocabularyTest} keeps the two equal): every {@link PalisadeException} class has one kind, named
 * after it ({@code KeyConflictException} → {@code key_conflict}); the kind is the {@code kind} of a {@code --json}
 * command's error and, in words, the prefix of the error line on stderr; it has one exit code. A subclass of a listed
 * exception ({@code IllegalTransitionException} of {@code JournalCorruptedException}) has its parent's kind, except
 * where it is listed itself ({@code ForeignCommitException}, a {@code GraphRefusedException}).
 */
public enum ErrorKind {
    INTERNAL_ERROR(Main.INTERNAL, null, ""),
    USAGE(Main.USAGE, null, ""),
    VERSION_EXPIRED(Main.USAGE, VersionExpiredException.class, ""),
    KEY_CONFLICT(Main.KEY_CONFLICT, KeyConflictException.class, ""),
    MERGE_CONFLICT(Main.KEY_CONFLICT, MergeConflictException.class, ""),
    ENDPOINT_CONFLICT(Main.KEY_CONFLICT, EndpointConflictException.class, ""),
    UNIQUE_CONFLICT(Main.KEY_CONFLICT, UniqueConflictException.class, ""),
    WRITE_CONFLICT(Main.WRITE_CONFLICT, WriteConflictException.class, " (retryable)"),
    VALIDATION(Main.INVALID_INPUT, ValidationException.class, " (nothing written)"),
    IDEMPOTENCY_MISMATCH(Main.IDEMPOTENCY_MISMATCH, IdempotencyMismatchException.class, " (nothing written)"),
    GRAPH_REFUSED(Main.REFUSED, GraphRefusedException.class, ""),
    JOURNAL_CORRUPTED(Main.CORRUPTED, JournalCorruptedException.class, ""),
    TABLE_CORRUPTED(Main.CORRUPTED, TableCorruptedException.class, ""),
    CATALOG_CORRUPTED(Main.CORRUPTED, CatalogCorruptedException.class, ""),
    CHECKPOINT_DAMAGED(Main.CORRUPTED, CheckpointDamagedException.class, ""),
    CHECKPOINT(Main.INTERNAL, CheckpointException.class, ""),
    FOREIGN_COMMIT(Main.FOREIGN_COMMIT, ForeignCommitException.class, ""),
    COMMIT_STATE_UNKNOWN(Main.COMMIT_STATE_UNKNOWN, CommitStateUnknownException.class, " (consult the journal before retrying: palisade explain)");

    /** The exit code. */
    public final int code;
    /** The exception this kind names; null for the command line's own kinds ({@code usage}, {@code internal_error}). */
    public final Class<? extends PalisadeException> exception;
    /** What the error line on stderr adds at its end. */
    final String hint;

    ErrorKind(int code, Class<? extends PalisadeException> exception, String hint) {
        this.code = code;
        this.exception = exception;
        this.hint = hint;
    }

    /** The JSON name: {@code key_conflict}. */
    public String json() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The words that start the error line on stderr: {@code key conflict}. */
    public String words() {
        return json().replace('_', ' ');
    }

    /** The kind of the most specific listed exception {@code e} is; {@link #INTERNAL_ERROR} for anything else. */
    public static ErrorKind of(Throwable e) {
        if (e instanceof CliException c) {
            return c.kind;
        }
        return ofClass(e.getClass());
    }

    /** The kind of the most specific listed exception class {@code type} is or extends; {@link #INTERNAL_ERROR} else. */
    public static ErrorKind ofClass(Class<?> type) {
        ErrorKind best = INTERNAL_ERROR;
        for (ErrorKind k : values()) {
            if (k.exception != null && k.exception.isAssignableFrom(type)
                    && (best.exception == null || best.exception.isAssignableFrom(k.exception))) {
                best = k;
            }
        }
        return best;
    }

    /** The kind of a {@link CliException} given only its exit code. */
    static ErrorKind ofCode(int code) {
        return switch (code) {
            case Main.USAGE -> USAGE;
            case Main.KEY_CONFLICT -> KEY_CONFLICT;
            case Main.WRITE_CONFLICT -> WRITE_CONFLICT;
            case Main.INVALID_INPUT -> VALIDATION;
            case Main.REFUSED -> GRAPH_REFUSED;
            case Main.CORRUPTED -> JOURNAL_CORRUPTED;
            case Main.FOREIGN_COMMIT -> FOREIGN_COMMIT;
            default -> INTERNAL_ERROR;
        };
    }
}
