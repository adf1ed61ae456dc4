/**
 * The state of a graph as a pure replay of its journal (DESIGN §2 {@code table-heads}):
 * {@link io.palisade.heads.HeadsState} holds per (graph branch, table) the published head as a
 * {@link io.palisade.heads.Pin}, owned or lazily inherited, with the live branches, open and completed intents,
 * idempotency receipts and migration and fold progress, and refuses a record that cannot follow it with an
 * {@link io.palisade.heads.IllegalTransitionException}.
 * <p>
 * {@link io.palisade.heads.HeadsReplayer} rebuilds the state from the newest checkpoint that verifies plus the
 * journal tail, and the result always equals a full replay; {@link io.palisade.heads.Checkpoints} writes by
 * write-temp, fsync, rename, fsync-directory, so a crash leaves a whole checkpoint or none, and never loads a file it
 * has not verified. States and their records are immutable and may be shared between threads; checkpoints have one
 * writer (the committer) and loads may run beside it.
 */
package io.palisade.heads;
