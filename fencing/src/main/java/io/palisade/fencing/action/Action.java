package io.palisade.fencing.action;

/**
 * One catalog action (spike §4, A1–A19) and its five-method contract (spike §7):
 * <ol>
 *   <li>{@link #reads()} and {@link #writes()}: the resources the action depends on and changes; the
 *       driver intersects them with a winner's to decide whether a rule must look at the pair.</li>
 *   <li>{@link #validate}: whether the action can apply to a manifest (throws
 *       {@link io.palisade.fencing.ValidationException} naming what is wrong).</li>
 *   <li>{@link #rebase}: the action rewritten to follow a winning action whose effect it can absorb
 *       (only called by a rule whose resolution is rebase).</li>
 *   <li>{@link #apply}: the manifest after the action.</li>
 * </ol>
 * Masks contain only existing resources: fragments a transaction produces itself are referenced
 * symbolically ({@link FragmentRef.ProducedBy}) and cannot collide with a winner.
 */
public sealed interface Action permits
        AddFragments, RemoveFragments, UpdateDeletionVector, ReplaceFragmentColumns, RewriteFragments,
        AddFields, DropFields, ChangeSchema, UpdateSchemaMetadata, AddIndex, RemoveIndex, RewriteIndex,
        InvalidateIndexCoverage, RebindIndexCoverage, RegisterFragReuse, UpdateConfig, ReserveFragmentIds,
        AddBases, UpdateMergedGenerations {

    ActionKind kind();

    ResourceMask reads();

    ResourceMask writes();

    void validate(Manifest base, TxnContext ctx);

    /** This action rewritten to follow {@code winner}; the default (late-bound payloads) is unchanged. */
    default Action rebase(Action winner) {
        return this;
    }

    Manifest apply(Manifest base, TxnContext ctx);
}
