package io.palisade.journal;

import io.palisade.fencing.GraphRefusedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Two JVM processes contend for the writer lease; the holder is killed with SIGKILL mid-append. */
class LeaseProcessTest {

    @TempDir
    Path graph;

    private static List<String> javaCommand(String mode, Path palisade) {
        List<String> cmd = ChildJava.command();
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(LeaseChild.class.getName());
        cmd.add(mode);
        cmd.add(palisade.toString());
        return cmd;
    }

    private static Process start(String mode, Path palisade) throws IOException {
        return new ProcessBuilder(javaCommand(mode, palisade)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    @Test
    void secondProcessIsRefusedAndTheNextTakesOverWithAHigherEpochAfterTheHolderIsKilled() throws Exception {
        Path palisade = graph.resolve("_palisade");
        Process holder = start("hold", palisade);
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        String held = out.readLine();
        assertThat(held).startsWith("HELD ");
        long holderEpoch = Long.parseLong(held.split(" ")[1]);
        long holderPid = Long.parseLong(held.split(" ")[2]);
        assertThat(holderPid).isEqualTo(holder.pid());

        AtomicLong lastAck = new AtomicLong(-1);
        Thread acks = new Thread(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("ACK ")) {
                        lastAck.set(Long.parseLong(line.substring(4)));
                    }
                }
            } catch (IOException ignored) {
                // the holder was killed
            }
        });
        acks.start();

        // A second process is refused, naming the live holder.
        Process contender = start("try", palisade);
        String refused = new String(contender.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(contender.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(contender.exitValue()).isEqualTo(3);
        assertThat(refused).startsWith("REFUSED ").contains("pid " + holderPid).contains("host ").contains("since ");
        // ...and so is this process.
        assertThatThrownBy(() -> Journal.open(palisade, JournalOptions.defaults()))
                .isInstanceOf(GraphRefusedException.class).hasMessageContaining("pid " + holderPid);

        // Let the holder append for a while, then kill -9 it mid-append.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (lastAck.get() < 2000 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        holder.destroyForcibly(); // SIGKILL
        assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        acks.join();
        long acknowledged = lastAck.get();
        assertThat(acknowledged).isGreaterThan(100);

        // The next process takes over cleanly, with a higher epoch, keeping every acknowledged record.
        Process next = start("try", palisade);
        String opened = new String(next.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(next.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(next.exitValue()).isZero();
        assertThat(opened).startsWith("OPENED ");
        long nextEpoch = Long.parseLong(opened.substring(7));
        assertThat(nextEpoch).isGreaterThan(holderEpoch);

        try (Journal j = Journal.open(palisade, JournalOptions.defaults())) {
            assertThat(j.epoch()).isGreaterThan(nextEpoch);
            assertThat(j.endSequence()).isGreaterThan(acknowledged + 2);
            try (JournalCursor c = j.reader().read(0)) {
                List<JournalRecord> all = c.drain();
                assertThat(all.get((int) acknowledged).writerEpoch()).isEqualTo(holderEpoch);
                assertThat(all).extracting(JournalRecord::writerEpoch).isSorted();
            }
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }
}
