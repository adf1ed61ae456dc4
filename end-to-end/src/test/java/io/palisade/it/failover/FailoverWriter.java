package io.palisade.it.failover;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.fencing.WriterFencedException;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writer A of the failover test, a child JVM: opens the graph (its tables on an object store, its journal on Kafka)
 * with the storage options it is given, prints {@code OPENED}, then
 * inserts person rows {@code <prefix>-0, <prefix>-1, ...} (age = the index), two per write, printing
 * {@code ACK <index>} after each acknowledged write. Standard input steers it: {@code PAUSE} makes it finish its
 * current write and print {@code PAUSED}; {@code WRITE} makes it try one more write; {@code HOLD <point>} (once paused)
 * makes it try one more write that stops at the named crash point (docs/crash-points.md, through the crash points'
 * listener seam, {@code PhaseCrashPoints.listener}) on the thread that reaches it, prints {@code HELD <point>} and
 * waits there until {@code RELEASE}. A write that fails with the typed
 * fenced error prints {@code FENCED} and the child exits with status 3; any other failure prints {@code FAILED <error>}
 * and exits with status 4.
 *
 * <p>Arguments: graph directory, id prefix, then the Lance storage options as {@code key=value} (none for tables on
 * local disk).
 */
public final class FailoverWriter {
    static final int ROWS_PER_WRITE = 2;

    private FailoverWriter() {
    }

    public static void main(String[] args) throws Exception {
        Path graph = Path.of(args[0]);
        String prefix = args[1];
        Map<String, String> storageOptions = new LinkedHashMap<>();
        for (int a = 2; a < args.length; a++) {
            int eq = args[a].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("storage option '" + args[a] + "' is not key=value");
            }
            storageOptions.put(args[a].substring(0, eq), args[a].substring(eq + 1));
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Object lock = new Object();
        boolean[] paused = {false};
        int[] extra = {0};
        java.util.concurrent.atomic.AtomicReference<String> holdAt = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        io.palisade.heads.PhaseCrashPoints.listener(point -> {
            String armed = holdAt.get();
            if (point.equals(armed) && holdAt.compareAndSet(armed, null)) { // the next hit of the point only
                out.println("HELD " + point);
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while held at " + point, e);
                }
            }
        });
        Thread commands = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    synchronized (lock) {
                        if (line.equals("PAUSE")) {
                            paused[0] = true;
                        } else if (line.equals("WRITE")) {
                            extra[0]++;
                        } else if (line.startsWith("HOLD ")) {
                            holdAt.set(line.substring("HOLD ".length()));
                            extra[0]++;
                        } else if (line.equals("RELEASE")) {
                            release.countDown();
                        }
                        lock.notifyAll();
                    }
                }
            } catch (java.io.IOException e) {
                // the parent went away
            }
        });
        commands.setDaemon(true);
        commands.start();
        try (BufferAllocator allocator = new RootAllocator(); Graph g = Palisade.open(graph, Options.defaults(), storageOptions)) {
            out.println("OPENED");
            boolean announcedPause = false;
            for (int i = 0; ; i++) {
                synchronized (lock) {
                    while (paused[0] && extra[0] == 0) {
                        if (!announcedPause) {
                            out.println("PAUSED");
                            announcedPause = true;
                        }
                        lock.wait();
                    }
                    if (paused[0]) {
                        extra[0]--;
                    }
                }
                List<Map<String, Object>> rows = new ArrayList<>();
                for (int k = 0; k < ROWS_PER_WRITE; k++) {
                    Map<String, Object> r = new LinkedHashMap<>();
                    r.put("id", prefix + "-" + (i * ROWS_PER_WRITE + k));
                    r.put("age", (long) (i * ROWS_PER_WRITE + k));
                    rows.add(r);
                }
                try (VectorSchemaRoot root = VectorSchemaRoot.create(g.catalog().require("person").arrowSchema(), allocator)) {
                    ArrowRows.fill(root, rows);
                    g.insert("main", "person", root);
                } catch (WriterFencedException e) {
                    out.println("FENCED");
                    out.flush();
                    Runtime.getRuntime().halt(3);
                } catch (RuntimeException e) {
                    out.println("FAILED " + e.getClass().getSimpleName() + ": " + e.getMessage());
                    out.flush();
                    Runtime.getRuntime().halt(4);
                }
                out.println("ACK " + i);
            }
        }
    }
}
