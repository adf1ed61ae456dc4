/**
 * The coordinator's API, what an embedding writer service uses: {@link io.palisade.coordinator.Palisade} creates and
 * opens a graph (taking its writer lease and running recovery first), {@link io.palisade.coordinator.Graph} writes,
 * reads and branches it, and the values around them ({@link io.palisade.coordinator.Catalog},
 * {@link io.palisade.coordinator.Options}, {@link io.palisade.coordinator.Row}, {@link io.palisade.coordinator.Receipt},
 * {@link io.palisade.coordinator.Metrics}, ...) describe what goes in and comes out; {@code PkMigration} and
 * {@code Repair} are the offline entry points.
 * <p>
 * Promises: a write returns its receipt only once its completion is durable in the journal, and a failure is one of
 * the typed {@code io.palisade.fencing} exceptions (DESIGN §7); every type here is immutable or thread-safe. The
 * engine behind it lives in {@code io.palisade.coordinator.internal}, which no public signature here exposes.
 */
package io.palisade.coordinator;
