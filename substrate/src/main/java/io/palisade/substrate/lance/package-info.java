/**
 * The {@link io.palisade.substrate.TableStore} over Lance ({@code org.lance:lance-core} 7.0.0):
 * {@link io.palisade.substrate.lance.LanceTableStore}, each table a dataset {@code <root>/<table>.lance} and each
 * table branch a Lance branch, on a local directory or an S3-compatible store, which
 * {@link io.palisade.substrate.lance.ConditionalPutProbe} checks honours conditional put before anything is written;
 * {@link io.palisade.substrate.lance.BranchEnvironment} refuses a fork that Lance would send to another store.
 * <p>
 * Merge-inserts run ON exactly {@code id} with no Lance retries and only the keyless handle issues a Lance Append (a
 * source guard test keeps both so); a store built to sync fsyncs what a commit wrote before the commit returns, as
 * Lance's local store never does, and a torn manifest is found by its framing before Lance is handed it. Those three
 * classes are the API (the handles, error classification, payload reading and file sync are package-private), and a
 * store may be used from many threads, each with its own handles.
 */
package io.palisade.substrate.lance;
