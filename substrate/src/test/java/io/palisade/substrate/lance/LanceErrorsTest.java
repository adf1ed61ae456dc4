package io.palisade.substrate.lance;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriteConflictException;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The classification of Lance 7.0.0's untyped failures. The messages are the ones Lance produced on
 * this machine (the memory one: a single strict insert of 500,000 rows with a 128-float embedding into
 * a 1M-row indexed table, `BulkLoadRssHarness child raw … 500000 8192 128 true` under -Xmx1g).
 */
class LanceErrorsTest {

    @Test
    void aPlanThatExceedsLancesMemoryPoolIsAValidationFailureThatCommittedNothing() {
        IOException lance = new IOException("LanceError(IO): Resources exhausted: Failed to allocate additional 251.3 MB "
                + "for HashJoinInput with 0.0 B already allocated for this reservation - 100.0 MB remain available for "
                + "the total pool, /rustc/4a4ef493e3a1488c6e321570238084b38948f6db/library/core/src/task/poll.rs:291:44");
        PalisadeException e = LanceErrors.commitFailure("items", "strict insert", lance);
        assertThat(e).isInstanceOf(ValidationException.class).hasCause(lance);
        assertThat(e.getMessage()).contains("items", "nothing was committed", "fewer rows", "HashJoinInput");
    }

    @Test
    void conflictsAreRetryableAndTheUnknownKeepsLancesMessage() {
        assertThat(LanceErrors.commitFailure("t", "upsert", new RuntimeException("Retryable commit conflict for version 7")))
                .isInstanceOf(WriteConflictException.class);
        assertThat(LanceErrors.commitFailure("t", "upsert", new IllegalArgumentException("Invalid user input: bad")))
                .isInstanceOf(ValidationException.class);
        PalisadeException unknown = LanceErrors.commitFailure("t", "upsert", new IOException("LanceError(IO): disk went away"));
        assertThat(unknown).isInstanceOf(CommitStateUnknownException.class);
        assertThat(unknown.getMessage()).contains("disk went away");
    }
}
