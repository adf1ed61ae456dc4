package io.palisade.journal;

/** When an append returns (DESIGN §4). */
public enum Durability {
    /**
     * The record is in the memory-mapped queue file: it survives the writing process being killed
     * (the kernel owns the dirty pages) but not a power cut or kernel crash.
     */
    PROCESS_CRASH,
    /**
     * The record is on stable storage: Chronicle {@code SyncMode.SYNC} and {@code appender.sync()}
     * (msync) before the append returns. A batch append syncs once for all its records.
     */
    POWER_LOSS
}
