package io.palisade.heads;

/** How far an open intent got through the write pipeline (DESIGN §3). Declaration order is phase order. */
public enum IntentPhase {
    /** Phase A: {@code IntentRecorded} journaled, no substrate commit seen. */
    RECORDED(1),
    /** Phase B: a {@code TableCommitted} naming the intent was journaled. */
    TABLE_COMMITTED(2),
    /** Phase C: the head transition carrying the intent's effect was published. */
    HEAD_PUBLISHED(3);

    private final int code;

    IntentPhase(int code) {
        this.code = code;
    }

    /** Stable code used in checkpoints. */
    public int code() {
        return code;
    }

    static IntentPhase ofCode(int code) {
        for (IntentPhase p : values()) {
            if (p.code == code) {
                return p;
            }
        }
        return null;
    }
}
