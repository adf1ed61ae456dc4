package io.palisade.journal;

import java.util.Objects;

/**
 * What recovery found for one open intent or migration unit, and what it did (DESIGN §5).
 *
 * @param subjectId the intent id or migration unit id
 * @param kind      the classification
 * @param table     the table concerned
 * @param detail    human-readable evidence (versions seen, expected base)
 */
public record RecoveryClassification(String subjectId, Kind kind, String table, String detail) {

    /** DESIGN §5's table, one constant per row. Stable wire codes. */
    public enum Kind {
        /** No substrate effect: completed as ABORTED. */
        NO_EFFECT_ABORTED(1),
        /** Effect present, head not published: published and completed as ROLLED_FORWARD. */
        EFFECT_ROLLED_FORWARD(2),
        /** Head published, completion missing: completed as COMMITTED. */
        PUBLISHED_COMPLETED(3),
        /** A table version no journaled intent explains: the graph is refused for writes. */
        FOREIGN_COMMIT(4),
        /** An open migration unit resumed forward. */
        MIGRATION_RESUMED(5),
        /** An unfinished bulk load with committed batches: restored to its start version, completed ROLLED_BACK. */
        LOAD_ROLLED_BACK(6),
        /**
         * A table version above the published head torn by a power cut (manifest zero-length or
         * undecodable, a file it names missing or short): set aside ({@code TableVersionSetAside}); its
         * open intents, never acknowledged, completed as ABORTED.
         */
        TORN_VERSION_SET_ASIDE(7);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        /** The constant for a wire code, or {@code null} when this build does not know it. */
        public static Kind ofCode(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return null;
        }
    }

    public RecoveryClassification {
        Objects.requireNonNull(subjectId, "subjectId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(detail, "detail");
    }
}
