/**
 * The N×N conflict matrix over the action catalog (spike §5) and its rules (spike §6), and
 * {@link io.palisade.fencing.conflict.ConflictResolver}, which judges a transaction only against the transactions
 * that committed after its read version and returns a {@link io.palisade.fencing.conflict.Verdict}: compatible,
 * rebased, retryable conflict or incompatible, naming every {@link io.palisade.fencing.conflict.Conflict}.
 * <p>
 * The invariant is symmetry: cells are declared once per unordered pair and every rule's predicate is symmetric,
 * so whether two transactions may both commit never depends on which committed first (RFC-023 §5.3); key
 * collisions are decided by exact key filters. The matrix and resolver are stateless and every value is
 * immutable, so any thread may use them; {@link io.palisade.fencing.conflict.ConflictMatrixDocument} renders
 * docs/conflict-matrix.md from this code, and a test keeps the two equal.
 */
package io.palisade.fencing.conflict;
