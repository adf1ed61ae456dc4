package io.palisade.substrate.lance;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.TableCorruptedException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.substrate.TableRef;

import java.util.List;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Classifies Lance 7.0.0's exceptions, which are untyped {@code RuntimeException}s and
 * {@code IllegalArgumentException}s whose messages carry the Rust error (pinned by surface guards):
 * <ul>
 *   <li>"Too many concurrent writers" / "Retryable commit conflict": retryable commit conflict;</li>
 *   <li>"Incompatible transaction: This Delete transaction is incompatible with concurrent transaction
 *       Overwrite …": a conflict Lance does not retry; nothing was written, so it is a
 *       {@code WriteConflictException} too (the request may succeed from the newer base);</li>
 *   <li>"Merge insert failed: found matching row with key values: id = ..." : WhenMatched Fail hit;</li>
 *   <li>{@code IllegalArgumentException} "Invalid user input": refused input, nothing written.</li>
 *   <li>"Resources exhausted: Failed to allocate additional … for HashJoinInput …": the write's plan needs
 *       more than Lance's execution memory pool (a merge-insert joins its whole source batch in memory);
 *       it fails while executing, before anything is committed, and the same input fails again, so it is
 *       a {@code ValidationException} that says to write fewer rows per operation.</li>
 * </ul>
 * Lance's natives also throw undeclared checked {@code IOException}s (e.g. "LanceError(IO)"), so
 * every Lance call site catches {@code Exception}, not only {@code RuntimeException}.
 */
final class LanceErrors {

    private static final Pattern MATCHED_KEY = Pattern.compile("found matching row with key values: id = \"?([^\",]*)\"?");

    private LanceErrors() {
    }

    static boolean isRetryableConflict(Throwable e) {
        String m = lower(e);
        return m.contains("too many concurrent writers") || m.contains("retryable commit conflict")
                || m.contains("commit conflict") || m.contains("incompatible transaction");
    }

    static boolean isMatchedFail(Throwable e) {
        return lower(e).contains("found matching row");
    }

    /** The key Lance named in a WhenMatched-Fail error (Lance names only the first match). */
    static Optional<String> matchedKey(Throwable e) {
        Matcher m = MATCHED_KEY.matcher(String.valueOf(e.getMessage()));
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    static boolean isResourcesExhausted(Throwable e) {
        return lower(e).contains("resources exhausted");
    }

    static boolean isUserInput(Throwable e) {
        return e instanceof IllegalArgumentException || lower(e).contains("invalid user input");
    }

    /** Maps a failed commit attempt whose failure is not a key conflict. */
    static PalisadeException commitFailure(String table, String what, Exception e) {
        if (e instanceof PalisadeException p) {
            return p;
        }
        if (isRetryableConflict(e)) {
            return new WriteConflictException(what + " on table '" + table + "' conflicts with a concurrent commit", e);
        }
        if (isUserInput(e)) {
            return new ValidationException(what + " on table '" + table + "' refused by Lance: " + e.getMessage(), e);
        }
        if (isResourcesExhausted(e)) {
            return new ValidationException(what + " on table '" + table + "' needs more memory than Lance's execution "
                    + "pool allows; nothing was committed. Write fewer rows per operation (a bulk load: Graph.load or "
                    + "palisade write --batch-rows). Lance: " + e.getMessage(), e);
        }
        return new CommitStateUnknownException(what + " on table '" + table + "' failed unexpectedly: " + e.getMessage(), e);
    }

    /** Maps a failed read or open. */
    static PalisadeException readFailure(String table, String what, Exception e) {
        if (e instanceof PalisadeException p) {
            return p;
        }
        return new ValidationException(what + " of table '" + table + "' failed: " + e.getMessage(), e);
    }

    /**
     * Maps a failed read or open of the exact state {@code ref}: an I/O failure that says a file is short,
     * empty or gone ("Invalid range 0..0 for object of size 0 bytes", "file size is too small", "Not found"
     * for a file other than the version's manifest, "unexpected end of file") is damage of the table's files,
     * a {@link TableCorruptedException}, never invalid input; anything else as {@link #readFailure(String, String, Exception)}.
     */
    static PalisadeException readFailure(String table, TableRef ref, String what, Exception e) {
        if (e instanceof PalisadeException p) {
            return p;
        }
        if (isFileDamage(e)) {
            return new TableCorruptedException(table, null, ref.branch(), ref.version(), List.of(firstLine(e)), List.of(),
                    what + " failed reading a damaged file", e);
        }
        return readFailure(table, what, e);
    }

    private static final Pattern SOURCE_LOCATION = Pattern.compile(",?\\s*/[^\\s,]+\\.rs:\\d+:\\d+");
    private static final Pattern NO_FIELD = Pattern.compile("No field named ([^ ]+?)\\.? Valid fields are");
    private static final Pattern PARSE = Pattern.compile("sql parser error: ([^)]*)\\)?");
    private static final Pattern LITERAL = Pattern.compile("Received literal \\w+\\((.*?)\\) and could not convert to "
            + "literal of type '(\\w+)'");

    /**
     * Whether {@code e}, thrown by a scan given a filter expression, is the filter's fault: Lance refuses a filter it
     * cannot plan as invalid user input ({@code IllegalArgumentException}) when the scan starts, and fails a batch
     * whose rows the filter cannot be applied to ("Error applying filter expression to batch").
     */
    static boolean isFilterError(Throwable e) {
        return isUserInput(e) || lower(e).contains("error applying filter expression");
    }

    /**
     * The error of a filter expression Lance refused ({@link #isFilterError}), with Lance's reason in plain words: its
     * source locations, error-kind prefixes and the query it wrapped the expression in left out; a missing column
     * names the table's columns ({@code columns}), not Lance's hidden row columns.
     */
    static io.palisade.substrate.InvalidFilterException invalidFilter(String table, String expression,
                                                                     List<String> columns, Throwable e) {
        String m = SOURCE_LOCATION.matcher(String.valueOf(e.getMessage())).replaceAll("");
        m = m.replaceAll("\\s+", " ").strip();
        String reason;
        Matcher field = NO_FIELD.matcher(m);
        Matcher parse = PARSE.matcher(m);
        Matcher literal = LITERAL.matcher(m);
        if (field.find()) {
            reason = "the table has no column " + field.group(1).replace("\"", "") + " (its columns are "
                    + String.join(", ", columns) + ")";
        } else if (parse.find()) {
            reason = "it does not parse (" + parse.group(1).strip() + ")";
        } else if (literal.find()) {
            reason = "the value " + literal.group(1) + " cannot be compared with a column of type " + literal.group(2);
        } else if (m.contains("does not return a boolean")) {
            reason = "it is not a condition: it does not evaluate to true or false";
        } else if (m.contains("Error applying filter expression to batch: ")) {
            reason = "it failed on the table's rows: " + m.substring(m.indexOf("Error applying filter expression to batch: ")
                    + "Error applying filter expression to batch: ".length()).replaceFirst("[}]+$", "");
        } else {
            reason = m.replace("Invalid user input: ", "").replace("Error during planning: ", "")
                    .replace("Error resolving filter expression " + expression + ": ", "")
                    .replace("Error optimizing sql filter: " + expression + " ", "");
        }
        return new io.palisade.substrate.InvalidFilterException(table, expression, reason.strip());
    }

    /** A torn manifest found before Lance was given it. */
    static TableCorruptedException damaged(String table, TableRef ref, String file) {
        return new TableCorruptedException(table, null, ref.branch(), ref.version(), List.of(file), List.of(),
                "its manifest is torn", null);
    }

    static boolean isFileDamage(Throwable e) {
        String m = lower(e);
        if (m.contains("invalid range") || m.contains("object of size 0") || m.contains("file size is too small")
                || m.contains("unexpected end of file") || m.contains("unexpected eof")) {
            return true;
        }
        // a missing version's manifest is an unknown version (invalid input); any other missing file is damage
        return (m.contains("not found") || m.contains("no such file")) && !m.contains(".manifest");
    }

    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static String lower(Throwable e) {
        return String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    }
}
