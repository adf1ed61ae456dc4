package io.palisade.benchmarks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The journal-ack harness end to end on a small table for a second per phase: every phase runs and prints its table,
 * the writes of each throughput phase (synchronous and with writes in flight) are all answered without a failure, and
 * the counters it prints add up (no speeds are asserted).
 */
class JournalAckHarnessTest {

    @TempDir
    Path dir;

    @Test
    void aSmallRunPrintsEveryPhaseAndItsWritesAllSucceed() throws Exception {
        for (int inFlight : new int[]{1, 3}) {
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            JournalAckHarness.run(new String[]{"--rows", "3000", "--iterations", "6", "--warmup", "2", "--jit-warmup", "20",
                    "--threads", "2", "--seconds", "1", "--table-ack-threads", "2", "--in-flight", String.valueOf(inFlight),
                    "--dir", dir.resolve("run-" + inFlight).toString()}, new PrintStream(printed, true, StandardCharsets.UTF_8));
            List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();

            assertThat(lines).anyMatch(l -> l.startsWith("journal-ack p50 / synced append p50: "));
            assertThat(lines).anyMatch(l -> l.startsWith("back to back: journal-ack p50 / synced append p50: "));
            for (String kind : List.of("upserts of random existing keys", "strict inserts of random new keys")) {
                int header = indexOf(lines, l -> l.startsWith("throughput, 2 writer threads") && l.contains(kind)
                        && l.contains("in flight") == (inFlight > 1));
                String[] row = cells(lines.get(header + 3));
                long writes = Long.parseLong(row[0].replace(",", ""));
                assertThat(writes).as("writes of %s, %d in flight", kind, inFlight).isPositive();
                assertThat(row[2]).as("key conflicts").isEqualTo("0");
                assertThat(row[3]).as("failures").isEqualTo("0");
                String groups = lines.get(header + 4);
                assertThat(groups).startsWith("acknowledgement groups (one journal sync each): ");
                double perSync = Double.parseDouble(groups.replaceAll(".* per s, ([0-9.]+) writes each", "$1"));
                assertThat(perSync).as("writes per sync").isGreaterThanOrEqualTo(1.0);
            }
            int tableAck = indexOf(lines, l -> l.startsWith("table-ack throughput, 2 writer threads"));
            String[] row = cells(lines.get(tableAck + 3));
            assertThat(Long.parseLong(row[0].replace(",", ""))).as("table-ack writes").isPositive();
            assertThat(row[2]).as("table-ack failures").isEqualTo("0");
        }
    }

    @Test
    void anUnknownFlagIsRefusedWithTheUsage() {
        assertThatThrownBy(() -> JournalAckHarness.run(new String[]{"--writers", "4"}, new PrintStream(new ByteArrayOutputStream(),
                true, StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown argument --writers")
                .hasMessageContaining("[--in-flight 1]");
    }

    private static int indexOf(List<String> lines, java.util.function.Predicate<String> p) {
        for (int i = 0; i < lines.size(); i++) {
            if (p.test(lines.get(i))) {
                return i;
            }
        }
        throw new AssertionError("no line matches in:\n" + String.join("\n", lines));
    }

    /** The cells of a Markdown table row, trimmed. */
    private static String[] cells(String row) {
        assertThat(row).startsWith("| ");
        String[] c = row.substring(1, row.length() - 1).split("\\|");
        for (int i = 0; i < c.length; i++) {
            c[i] = c[i].trim();
        }
        return c;
    }
}
