package io.palisade.heads;

import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.TableHead;

import java.util.Objects;

/**
 * An intent recorded and not yet completed, with the phase it reached.
 *
 * <p>Invariants: {@code phase >= TABLE_COMMITTED} iff {@code committedTableBranch != null} (or the head
 * was published without a journaled table commit, as a roll-forward does); {@code phase == HEAD_PUBLISHED}
 * iff {@code publishedHead != null}. Unset sequences and versions are -1.
 *
 * @param recorded             the Phase A payload
 * @param recordedAt           sequence of the {@code IntentRecorded} record
 * @param phase                the phase reached
 * @param committedTableBranch nullable: table branch of the {@code TableCommitted}
 * @param committedVersion     achieved version of the {@code TableCommitted} (-1 when none)
 * @param committedAt          sequence of the {@code TableCommitted} (-1 when none)
 * @param publishedHead        nullable: the head published with the intent's effect
 * @param publishedAt          sequence of that publication (-1 when none)
 */
public record OpenIntent(IntentRecorded recorded, long recordedAt, IntentPhase phase, String committedTableBranch,
                         long committedVersion, long committedAt, TableHead publishedHead, long publishedAt) {
    public OpenIntent {
        Objects.requireNonNull(recorded, "recorded");
        Objects.requireNonNull(phase, "phase");
        if ((phase == IntentPhase.HEAD_PUBLISHED) != (publishedHead != null)) {
            throw new IllegalArgumentException("phase " + phase + " with published head " + publishedHead);
        }
    }

    static OpenIntent recorded(IntentRecorded e, long seq) {
        return new OpenIntent(e, seq, IntentPhase.RECORDED, null, -1, -1, null, -1);
    }

    OpenIntent committed(String tableBranch, long version, long seq) {
        return new OpenIntent(recorded, recordedAt, IntentPhase.TABLE_COMMITTED, tableBranch, version, seq, null, -1);
    }

    OpenIntent published(TableHead head, long seq) {
        return new OpenIntent(recorded, recordedAt, IntentPhase.HEAD_PUBLISHED, committedTableBranch,
                committedVersion, committedAt, head, seq);
    }

    public String intentId() {
        return recorded.intentId();
    }

    public String graphBranch() {
        return recorded.graphBranch();
    }

    public String table() {
        return recorded.table();
    }
}
