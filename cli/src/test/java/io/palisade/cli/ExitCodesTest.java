package io.palisade.cli;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.JournalCorruptedException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.MergeConflictException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriteConflictException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;

/** The exception taxonomy maps to the documented exit codes (the end-to-end tests cover them through the launcher). */
class ExitCodesTest {

    @Test
    void everyExceptionOfTheTaxonomyHasItsExitCode() {
        assertThat(Main.exitCode(new KeyConflictException("person", List.of("a"), 1, null))).isEqualTo(3);
        assertThat(Main.exitCode(new MergeConflictException("both sides changed", List.of("a")))).isEqualTo(3);
        assertThat(Main.exitCode(new WriteConflictException("retry me"))).isEqualTo(4);
        assertThat(Main.exitCode(new ValidationException("bad"))).isEqualTo(5);
        assertThat(Main.exitCode(new GraphRefusedException("held by another writer"))).isEqualTo(6);
        assertThat(Main.exitCode(new JournalCorruptedException(12, "crc"))).isEqualTo(7);
        assertThat(Main.exitCode(new io.palisade.fencing.TableCorruptedException("person", "main", "main", 3,
                List.of("person.lance/_versions/x.manifest: zero-length"), List.of("i-1"), "manifest zero-length", null)))
                .isEqualTo(7);
        assertThat(Main.exitCode(new io.palisade.fencing.ForeignCommitException(
                io.palisade.fencing.ForeignCommitException.Situation.RACED_WRITE, "person", "main", "main", 4, 6,
                List.of(5L), List.of("i-1"), true, List.of("alice"), "raced"))).isEqualTo(8);
        assertThat(Main.exitCode(new CommitStateUnknownException("unknown", null))).isEqualTo(9);
        assertThat(Main.exitCode(new IllegalStateException("bug"))).isEqualTo(1);
    }

    @Test
    void aWrappedRetryableConflictIsOneLineWithExitFour() {
        PrintStream err = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Main.handle(new CompletionException(new WriteConflictException("too many concurrent writers on person")));
        } finally {
            System.setErr(err);
        }
        assertThat(code).isEqualTo(4);
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(out.strip().split("\n")).hasSize(1);
        assertThat(out).startsWith("palisade: write conflict: ").contains("person").contains("(retryable)");
    }

    @Test
    void usageErrorsExitTwoAndHelpDocumentsEveryExitCode() {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream help = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            assertThat(Main.run("no-such-command")).isEqualTo(2);
            assertThat(Main.run("scan")).isEqualTo(2);
            System.setOut(new PrintStream(help, true, StandardCharsets.UTF_8));
            assertThat(Main.run("--help")).isZero();
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        String text = help.toString(StandardCharsets.UTF_8);
        for (int code = 0; code <= Main.COMMIT_STATE_UNKNOWN; code++) {
            assertThat(text).contains("  " + code + "   ");
        }
    }
}
