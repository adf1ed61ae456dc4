/**
 * The coordinator's engine (DESIGN §3), not an API: {@code Engine} owns one open graph's queue and its single
 * committer; the pipeline stages ({@code Fence}, {@code JournalPhases}, {@code SubstrateCommit}, {@code Publisher},
 * and {@code JournalAck} with the {@code Folder} for journal-ack tables) run a group of writes through Phases A–D;
 * {@code PublishedView} holds what readers see; bulk load, branch merge, PK migration and repair run their own
 * intents here.
 * <p>
 * Invariants: only the committer thread journals and commits to a table (one substrate commit in flight per table;
 * a fold's Lance commit is the one piece it hands to the fold thread); a stage receives a {@code Context}, never the
 * facade, and no class here imports {@code Graph} or {@code Palisade}. Classes are public only where the facade or
 * the coordinator's own tests reach them; {@code cli}, {@code examples} and {@code benchmarks} never import this
 * package (a source guard test keeps it so).
 */
package io.palisade.coordinator.internal;
