package io.palisade.journal;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The row release killed in a child JVM at each of its points, on each of the files it rewrites: the journal still
 * verifies end to end, holds every record it held (each write's rows whole or released, never neither), and the next
 * writer's release finishes the work and removes what the killed one left.
 */
class RowReleaseCrashTest {
    @TempDir
    Path tmp;

    private static List<String> runChild(Path palisade, String heap, String... args) throws Exception {
        List<String> cmd = ChildJava.command();
        cmd.add(heap);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ReleaseChild.class.getName());
        cmd.add(palisade.toString());
        cmd.addAll(List.of(args));
        Process child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                out.add(line);
            }
        }
        assertThat(child.waitFor(300, TimeUnit.SECONDS)).isTrue();
        out.add("EXIT " + child.exitValue());
        return out;
    }

    @org.junit.jupiter.api.Test
    void aReleaseStreamsAFileFarLargerThanTheHeap() throws Exception {
        Path palisade = tmp.resolve("_palisade");
        // three closed files of 1,200 writes of 64 KiB rows each (75 MiB per file) released in a 48 MiB heap
        List<String> out = runChild(palisade, "-Xmx48m", "none", "1", "1200");
        assertThat(out).as("child output").contains("RELEASED 3600", "EXIT 0");
        try (JournalReader r = JournalReader.open(palisade)) {
            assertThat(r.verify().ok()).isTrue();
        }
    }

    @ParameterizedTest(name = "killed at {0}:{1}")
    @CsvSource({"before-replace, 1", "before-replace, 3", "after-replace, 1", "after-replace, 2"})
    void aReleaseKilledAtAnyPointLosesNothingAndTheNextRunFinishesIt(String point, int nth) throws Exception {
        Path palisade = tmp.resolve("_palisade");
        List<String> out = runChild(palisade, "-Xmx256m", point, Integer.toString(nth));
        assertThat(out).as("child output").contains("EXIT " + ReleaseChild.HALT_STATUS);
        assertThat(out).noneMatch(line -> line.startsWith("RELEASED"));
        long end = Long.parseLong(out.get(0).substring("WRITTEN ".length()));

        int released = 0;
        int recorded = 0;
        try (JournalReader r = JournalReader.open(palisade)) {
            VerificationReport v = r.verify();
            assertThat(v.ok()).as("verify: %s", v.problem()).isTrue();
            assertThat(v.records()).isEqualTo(end);
            try (JournalCursor c = r.read(0)) {
                for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                    if (rec.event() instanceof JournalEvent.RowsReleased) {
                        released++;
                    } else if (rec.event() instanceof JournalEvent.RowsRecorded) {
                        recorded++;
                    }
                }
            }
        }
        // every write is there, its rows whole or released; a file is released whole or not at all
        assertThat(released + recorded).isEqualTo(12);
        assertThat(released % 3).isZero();
        int filesDone = point.equals("after-replace") ? nth : nth - 1;
        assertThat(released).isEqualTo(3 * filesDone);

        try (Journal j = Journal.open(palisade, JournalOptions.defaults().withClock(new StepClock()))) {
            RowReleaseReport report = j.releaseRows(j.endSequence());
            // the killed writer's open file is closed now: everything is released
            assertThat(report.records()).isEqualTo(12 - released);
            assertThat(palisade.resolve(Journal.DIRECTORY).resolve(RowRelease.WORK_DIR)).doesNotExist();
            VerificationReport v = j.reader().verify();
            assertThat(v.ok()).as("verify: %s", v.problem()).isTrue();
        }
    }

    @ParameterizedTest(name = "killed at {0}:{1}")
    @CsvSource({"archive-before-log, 1", "archive-before-log, 3", "archive-after-log, 1", "archive-after-log, 2",
            "archive-after-delete, 1", "archive-after-delete, 3"})
    void aFileRetentionKilledAtAnyPointKeepsTheChainWholeAndTheNextRunFinishesIt(String point, int nth)
            throws Exception {
        Path palisade = tmp.resolve("_palisade");
        List<String> out = runChild(palisade, "-Xmx256m", point, Integer.toString(nth));
        assertThat(out).as("child output").contains("RELEASED 9", "EXIT " + ReleaseChild.HALT_STATUS);
        assertThat(out).noneMatch(line -> line.startsWith("ARCHIVED"));
        long end = Long.parseLong(out.get(0).substring("WRITTEN ".length()));

        int left = point.equals("archive-before-log") ? nth - 1 : nth;
        try (JournalReader r = JournalReader.open(palisade)) {
            // a file the log names is out of the local journal, whether or not it was deleted and the listing refreshed
            assertThat(r.archivedFiles()).hasSize(left);
            VerificationReport v = r.verify();
            assertThat(v.ok()).as("verify: %s", v.problem()).isTrue();
            assertThat(v.verifiedFrom() + v.records()).isEqualTo(end);
            assertThat(v.archivedFiles()).isEqualTo(left);
            try (JournalCursor c = r.read(r.firstSequence())) {
                assertThat(c.drain()).hasSize((int) (end - r.firstSequence()));
            }
        }

        try (Journal j = Journal.open(palisade, JournalOptions.defaults().withClock(new StepClock()))) {
            j.releaseRows(j.endSequence());
            ArchiveReport report = j.archiveFiles(Long.MAX_VALUE, 0, null);
            // the killed writer's three closed files and its open one (closed now) have all left, and its segment
            assertThat(j.reader().archivedFiles()).hasSize(4);
            assertThat(report.files()).isEqualTo(4 - left);
            assertThat(Segments.ready(palisade.resolve(Journal.DIRECTORY))).hasSize(1);
            VerificationReport v = j.reader().verify();
            assertThat(v.ok()).as("verify: %s", v.problem()).isTrue();
            assertThat(v.verifiedFrom()).isEqualTo(end);
        }
    }

}
