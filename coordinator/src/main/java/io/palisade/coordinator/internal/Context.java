package io.palisade.coordinator.internal;

import io.palisade.coordinator.Options;
import io.palisade.journal.Journal;
import io.palisade.substrate.TableStore;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What a pipeline stage of one open graph may use: its files, options, journal, table store and allocator, the
 * published view it reads and journals through, reads of its tables, its meters, the tables refused this session
 * and the table-branch plumbing. Stages receive this, never the graph or its engine.
 *
 * @param steppedCommitter whether the committer is stepped by the caller (the deterministic simulation): then a
 *                         fold's Lance commit runs inline instead of on the fold thread
 */
public record Context(GraphLayout layout, Options options, Journal journal, TableStore store, BufferAllocator allocator,
                      PublishedView view, Reads reads, Meters meters, TableRefusals refusals,
                      TableBranches branches, boolean steppedCommitter) {
}
