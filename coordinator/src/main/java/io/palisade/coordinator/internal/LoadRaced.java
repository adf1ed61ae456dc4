package io.palisade.coordinator.internal;

import io.palisade.fencing.KeyFilter;
import io.palisade.substrate.TableRef;

/**
 * A batch (or its index extension) that Lance rebased over a foreign version ({@code committed}), or refused
 * because of one ({@code achieved} is then the table branch's latest version, {@code refusal} Lance's reason).
 */
final class LoadRaced extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient TableRef base;
    final transient TableRef achieved;
    final transient KeyFilter keys;
    final boolean committed;
    final String refusal;

    LoadRaced(TableRef base, TableRef achieved, KeyFilter keys, boolean committed, String refusal) {
        super("batch commit from " + base + (committed ? " reached " : " refused at ") + achieved, null, false, false);
        this.base = base;
        this.achieved = achieved;
        this.keys = keys;
        this.committed = committed;
        this.refusal = refusal;
    }
}
