/**
 * Pure fencing rules and Palisade's one error taxonomy: the exact {@link io.palisade.fencing.KeyFilter} (every
 * key, sorted and distinct, never a Bloom bitmap, so disjoint key sets never conflict and a shared key always
 * does), the graph {@link io.palisade.fencing.FormatStamp} values (RFC-023 §7), and
 * {@link io.palisade.fencing.PalisadeException} with its subclasses (DESIGN §7), whose class tells a caller what
 * it may do next.
 * <p>
 * Nothing here does I/O or holds shared mutable state: key filters and stamps are immutable and safe to share
 * between threads, and a key filter's binary layout is package-private detail. The action catalog and the
 * conflict resolver built on these rules are in the {@code action} and {@code conflict} sub-packages; which
 * Lance operation writes a table is not decided here but by the substrate's keyed and keyless handles.
 */
package io.palisade.fencing;
