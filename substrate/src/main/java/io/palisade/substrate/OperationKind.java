package io.palisade.substrate;

import java.util.Locale;

/**
 * The kind of a committed substrate transaction, named after Lance's {@code Operation} variants (the
 * spike's "legacy operations"). {@link #UNKNOWN} stands for any variant this binary does not know;
 * the coordinator must treat it conservatively.
 */
public enum OperationKind {
    APPEND("Append"),
    DELETE("Delete"),
    OVERWRITE("Overwrite"),
    CREATE_INDEX("CreateIndex"),
    REWRITE("Rewrite"),
    MERGE("Merge"),
    PROJECT("Project"),
    RESTORE("Restore"),
    RESERVE_FRAGMENTS("ReserveFragments"),
    UPDATE("Update"),
    DATA_REPLACEMENT("DataReplacement"),
    UPDATE_CONFIG("UpdateConfig"),
    /** MemWAL merged generations (no Java operation class in lance-core 7.0.0). */
    UPDATE_MEM_WAL_STATE("UpdateMemWalState"),
    /** A shallow clone's first version (no Java operation class in lance-core 7.0.0). */
    CLONE("Clone"),
    /** New storage bases (no Java operation class in lance-core 7.0.0). */
    UPDATE_BASES("UpdateBases"),
    UNKNOWN("Unknown");

    private final String lanceName;

    OperationKind(String lanceName) {
        this.lanceName = lanceName;
    }

    /** Lance's name of the operation variant. */
    public String lanceName() {
        return lanceName;
    }

    /** The kind for a Lance operation name; {@link #UNKNOWN} for names this binary does not know. */
    public static OperationKind ofLanceName(String name) {
        if (name == null) {
            return UNKNOWN;
        }
        String n = name.replace("_", "").toLowerCase(Locale.ROOT);
        for (OperationKind k : values()) {
            if (k != UNKNOWN && k.lanceName.toLowerCase(Locale.ROOT).equals(n)) {
                return k;
            }
        }
        return UNKNOWN;
    }
}
