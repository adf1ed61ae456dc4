package io.palisade.coordinator;

import io.palisade.coordinator.internal.GraphLayout;
import io.palisade.fencing.KeyConflictException;
import io.palisade.heads.Checkpoints;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.journal.JournalRecord;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The graph's incrementally folded heads equal every replay of its journal: full, checkpoint + tail, reopen. */
class HeadsReplayTest extends GraphTestSupport {
    /** Writes on main and on two branches, deletes, a refused insert, a keyless append and a deleted branch. */
    private void mixedWorkload(Graph g) {
        for (int i = 0; i < 6; i++) {
            try (VectorSchemaRoot rows = Rows.people(allocator, "p" + i, i, "q" + i, 100 + i)) {
                g.insert("main", "person", rows);
            }
        }
        try (VectorSchemaRoot rows = Rows.people(allocator, "p1", 11, "new", 1)) {
            g.upsert("main", "person", rows);
        }
        g.delete("main", "person", List.of("q2", "absent"));
        g.createBranch("dev", "main");
        g.createBranch("tmp", "main");
        try (VectorSchemaRoot rows = Rows.people(allocator, "d1", 1);
             VectorSchemaRoot more = Rows.people(allocator, "p2", 22, "d2", 2);
             VectorSchemaRoot clash = Rows.people(allocator, "p3", 0)) {
            g.insert("dev", "person", rows);
            g.upsert("dev", "person", more);
            assertThatThrownBy(() -> g.insert("dev", "person", clash)).isInstanceOf(KeyConflictException.class);
            g.delete("dev", "person", List.of("p0"));
        }
        try (VectorSchemaRoot rows = Rows.people(allocator, "t1", 1)) {
            g.insert("tmp", "person", rows);
        }
        g.deleteBranch("tmp");
        try (VectorSchemaRoot log = Rows.logLines(allocator, "a", "b")) {
            g.append("main", "log", log);
            g.append("dev", "log", log);
        }
        try (VectorSchemaRoot rows = Rows.people(allocator, "p5", 55)) {
            g.upsert("main", "person", rows);
        }
        g.createBranch("late", "dev");
    }

    @Test
    void fullReplayAndCheckpointPlusTailReplayEqualTheGraphsFinalHeads() throws Exception {
        Path p = dir.resolve("g");
        String digest;
        HeadsState incremental;
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults().withCheckpointEvery(7))) {
            mixedWorkload(g);
            incremental = g.state();
            digest = incremental.digest();
            // the incremental fold equals a fold of the journal up to the same record
            List<JournalRecord> records = Journals.records(g, 0).stream()
                    .filter(r -> r.sequence() <= incremental.lastSequence()).toList();
            assertThat(HeadsState.replay(HeadsState.empty(), records)).isEqualTo(incremental);
        }
        HeadsReplayer replayer = HeadsReplayer.of(p.resolve(GraphLayout.PALISADE));
        HeadsState full = replayer.fullReplay();
        HeadsReplayer.Replay fromCheckpoint = replayer.replay();

        assertThat(full.digest()).isEqualTo(digest);
        assertThat(fromCheckpoint.state().digest()).isEqualTo(digest);
        assertThat(fromCheckpoint.checkpointSequence()).as("started from a checkpoint").isGreaterThanOrEqualTo(0);
        assertThat(fromCheckpoint.skippedCheckpoints()).isEmpty();
        assertThat(fromCheckpoint.state()).isEqualTo(full);
        assertThat(full.branches()).containsOnlyKeys("main", "dev", "late");
        assertThat(full.pin("dev", "person").orElseThrow().owned()).isTrue();
        assertThat(full.pin("late", "person").orElseThrow().owned()).isFalse();

        // an older checkpoint with a longer tail gives the same heads
        List<Path> cps = Checkpoints.of(p.resolve(GraphLayout.PALISADE)).list();
        assertThat(cps).hasSizeGreaterThanOrEqualTo(2);
        Files.delete(cps.get(cps.size() - 1));
        HeadsReplayer.Replay older = HeadsReplayer.of(p.resolve(GraphLayout.PALISADE)).replay();
        assertThat(older.checkpointSequence()).isLessThan(fromCheckpoint.checkpointSequence()).isGreaterThanOrEqualTo(0);
        assertThat(older.recordsReplayed()).isGreaterThan(fromCheckpoint.recordsReplayed());
        assertThat(older.state()).isEqualTo(full);

        // reopening (replay + recovery) publishes the same heads and the same rows
        try (Graph g = Palisade.open(p, Options.defaults())) {
            assertThat(g.state().digest()).isEqualTo(digest);
            assertThat(g.scan("dev", "person")).extracting(r -> r.get("id"))
                    .containsExactlyInAnyOrder("p1", "p2", "p3", "p4", "p5", "q0", "q1", "q3", "q4", "q5", "new", "d1", "d2");
            assertThat(g.scan("main", "person")).extracting(r -> r.get("id"))
                    .containsExactlyInAnyOrder("p0", "p1", "p2", "p3", "p4", "p5", "q0", "q1", "q3", "q4", "q5", "new");
        }
    }

    @Test
    void headsAtAPastSequenceEqualAFoldOfTheJournalUpToIt() {
        Path p = dir.resolve("g");
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults().withCheckpointEvery(5))) {
            mixedWorkload(g);
        }
        List<JournalRecord> records = Journals.records(p, 0);
        HeadsReplayer replayer = HeadsReplayer.of(p.resolve(GraphLayout.PALISADE));
        HeadsState s = HeadsState.empty();
        for (JournalRecord r : records) {
            s = s.apply(r);
            if (r.sequence() % 4 == 0 || r.sequence() == records.size() - 1) {
                assertThat(replayer.headsAt(r.sequence())).as("heads at %d", r.sequence()).isEqualTo(s);
            }
        }
        assertThat(s).isEqualTo(replayer.fullReplay());
    }
}
