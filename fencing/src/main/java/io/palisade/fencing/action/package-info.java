/**
 * The action catalog A1–A19 (spike §4) over a small immutable model of a Lance table manifest
 * ({@link io.palisade.fencing.action.Manifest}): every {@link io.palisade.fencing.action.Action} is an immutable
 * record with the spike §7 contract (reads, writes, validate, rebase, apply), and
 * {@link io.palisade.fencing.action.ActionCodec} is the encoding an intent journals, byte-identical for equal
 * actions.
 * <p>
 * The catalog keeps the key contract: an {@link io.palisade.fencing.action.AddFragments} carries its
 * transaction's exact key filter as a {@link io.palisade.fencing.action.KeyScope}, and a keyless scope is invalid
 * on a keyed table, so a keyed Append cannot be expressed; {@code validate} refuses any action that would drop,
 * change or unmark an installed primary key (RFC-023 §9). Everything is pure; only
 * {@link io.palisade.fencing.action.TxnContext} and {@link io.palisade.fencing.action.ResourceMask.Builder} are
 * mutable, each used by one thread for one transaction or mask.
 */
package io.palisade.fencing.action;
