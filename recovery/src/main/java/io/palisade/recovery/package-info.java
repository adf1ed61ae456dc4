/**
 * Recovery after a crash (DESIGN §5): {@link io.palisade.recovery.Recovery} classifies every intent without a
 * completion from the journal and the tables' evidence (aborted, rolled forward or committed), sets torn versions
 * above a published head aside, journals each decision, and refuses the graph with a
 * {@link io.palisade.fencing.ForeignCommitException} when a table version no journaled intent explains, unless the
 * operator adopts it and {@link io.palisade.recovery.Adoption} finds that the adopted image keeps the key contract.
 * <p>
 * Recovery is idempotent and crash-safe: killed at any point, a re-run decides exactly what is still open and
 * converges to the same heads, and {@link io.palisade.recovery.Recovery#plan} decides the same without writing
 * anything. A run appends through the writer's {@code Journal}, so it runs only in the process that holds the graph
 * for writing; {@link io.palisade.recovery.ForeignVersions} and {@link io.palisade.recovery.PublishedHeads} find
 * pending foreign versions and damaged published heads read-only, so the reading tools can report them while a
 * writer runs.
 */
package io.palisade.recovery;
