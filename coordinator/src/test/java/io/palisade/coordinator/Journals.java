package io.palisade.coordinator;

import io.palisade.coordinator.internal.GraphLayout;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.substrate.TableRef;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Test helpers over a graph's journal and its committer. */
final class Journals {
    private Journals() {
    }

    /** One past the last record of the graph's journal. */
    static long end(Graph g) {
        return JournalReader.open(g.path().resolve(GraphLayout.PALISADE)).endSequence();
    }

    /** Every record from {@code from} to the current end. */
    static List<JournalRecord> records(Graph g, long from) {
        return records(g.path(), from);
    }

    static List<JournalRecord> records(java.nio.file.Path graph, long from) {
        try (JournalCursor c = JournalReader.open(graph.resolve(GraphLayout.PALISADE)).read(from)) {
            return c.drain();
        }
    }

    static List<JournalEvent> events(Graph g, long from) {
        return records(g, from).stream().map(JournalRecord::event).toList();
    }

    static long intentsRecorded(List<JournalEvent> events) {
        return events.stream().filter(e -> e instanceof IntentRecorded).count();
    }

    static long committedCompletions(List<JournalEvent> events) {
        return events.stream().filter(e -> e instanceof IntentCompleted c && c.outcome() == IntentOutcome.COMMITTED).count();
    }

    /** The newest physical (Lance) version of a table branch, whatever the heads say. */
    static long physicalVersion(Graph g, String table, String tableBranch) {
        return g.engine().context().store().latest(table, tableBranch).version();
    }

    static long physicalVersion(Graph g, String table) {
        return physicalVersion(g, table, TableRef.MAIN);
    }

    /**
     * Holds the graph's committer inside a control task until closed, so that every write submitted
     * meanwhile is drained by the committer at once and grouped deterministically.
     */
    static final class CommitterGate implements AutoCloseable {
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final Thread holder;

        CommitterGate(Graph g) {
            holder = new Thread(() -> g.engine().onCommitter(() -> {
                entered.countDown();
                release.await();
                return null;
            }), "committer-gate");
            holder.start();
            try {
                if (!entered.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the committer never ran the gate");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            release.countDown();
            try {
                holder.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
