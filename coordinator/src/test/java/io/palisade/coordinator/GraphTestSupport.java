package io.palisade.coordinator;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Per-test fixture of the in-process graph tests: a temporary directory and an Arrow allocator closed after the test. */
abstract class GraphTestSupport {
    @TempDir
    Path dir;
    BufferAllocator allocator;

    @BeforeEach
    void openAllocator() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    /**
     * Runs {@code tasks} on {@code threads} threads, released together by a latch once every one is ready; each task's
     * failure (a Palisade exception, or the cause of a completion exception), or null, in task order.
     */
    static List<Throwable> race(int threads, List<? extends Callable<?>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch ready = new CountDownLatch(tasks.size());
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Throwable>> out = new ArrayList<>();
            for (Callable<?> t : tasks) {
                out.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    try {
                        t.call();
                        return null;
                    } catch (CompletionException e) {
                        return e.getCause();
                    } catch (io.palisade.fencing.PalisadeException e) {
                        return e;
                    }
                }));
            }
            ready.await();
            go.countDown();
            List<Throwable> results = new ArrayList<>();
            for (Future<Throwable> f : out) {
                results.add(f.get(5, TimeUnit.MINUTES));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
