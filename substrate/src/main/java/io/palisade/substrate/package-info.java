/**
 * The substrate SPI (DESIGN §2): {@link io.palisade.substrate.TableStore} and its table handles, the only way
 * Palisade touches table storage, with one conformance suite that the Lance store ({@code lance} sub-package) and the
 * simulated store of this module's test-jar both pass.
 * <p>
 * The SPI's shape is the write routing and the key contract (RFC-023 §4, §5): a
 * {@link io.palisade.substrate.KeyedTable} takes rows only by merge-insert ON exactly {@code id}, strict insert and
 * upsert kept distinct, and has no append; a {@link io.palisade.substrate.KeylessTable} appends, and no table with a
 * primary key opens as one; a keyed table keeps the schema rules of {@link io.palisade.substrate.KeyedSchemas} from
 * its first version, and no operation removes or changes its primary key. A handle stays at one exact
 * {@link io.palisade.substrate.TableRef}, a committed version never changes, and
 * {@link io.palisade.substrate.CommitDescription} with {@link io.palisade.substrate.CatalogActions} names any
 * committed version, Palisade's or foreign, as catalog actions for the conflict resolver.
 */
package io.palisade.substrate;
