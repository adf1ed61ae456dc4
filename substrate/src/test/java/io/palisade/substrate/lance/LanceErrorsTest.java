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

    @Test
    void readsOfShortOrMissingFilesAreTableCorruptionNotInvalidInput() {
        io.palisade.substrate.TableRef v5 = io.palisade.substrate.TableRef.main(5);
        IOException empty = new IOException("LanceError(IO): Generic memory error: Invalid range 0..0 for object of size "
                + "0 bytes, /workspace/rust/lance/src/dataset.rs:624:26");
        PalisadeException e = LanceErrors.readFailure("person", v5, "open at main@5", empty);
        assertThat(e).isInstanceOf(io.palisade.fencing.TableCorruptedException.class).hasCause(empty);
        assertThat(e.getMessage()).contains("person", "version 5", "Invalid range 0..0");
        assertThat(LanceErrors.readFailure("person", v5, "open", new IOException("LanceError(IO): file size is too small, "
                + "/workspace/rust/lance-io/src/utils.rs:88:20"))).isInstanceOf(io.palisade.fencing.TableCorruptedException.class);
        assertThat(LanceErrors.readFailure("person", v5, "scan", new IOException("LanceError(IO): Not found: "
                + "tmp/g/person.lance/data/0101.lance"))).isInstanceOf(io.palisade.fencing.TableCorruptedException.class);
        // a version that does not exist is still a wrong request
        assertThat(LanceErrors.readFailure("person", v5, "open", new IOException("Dataset at path tmp/g/person.lance/"
                + "_versions/5.manifest was not found: Not found: tmp/g/person.lance/_versions/5.manifest")))
                .isInstanceOf(ValidationException.class);
        assertThat(LanceErrors.readFailure("person", v5, "open", new RuntimeException("schema mismatch")))
                .isInstanceOf(ValidationException.class);
    }
}
