package io.palisade.it.crash;

import org.junit.jupiter.api.Assumptions;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * One LazyFS mount (the FUSE file system of {@code shared/third-party/lazyfs} with its own page cache)
 * for the real power-loss suite ({@link LazyFsPowerLossTest}, docs/crash-points.md "Power loss on
 * LazyFS"): builds it with {@code shared/tools/build-lazyfs.sh}, mounts it in the foreground as a child
 * process of this JVM, injects faults through its FIFO and unmounts it.
 *
 * <ul>
 *   <li>{@link #clearCache()}: {@code lazyfs::clear-cache}, synchronous (waits for {@code finished::clear-cache}
 *       on the completion FIFO): every write not made durable by fsync/fdatasync/msync is gone — a power cut;</li>
 *   <li>{@link #crashAfter(String, String)}: {@code lazyfs::crash::timing=after::op=OP::from_rgx=/::to_rgx=RGX}:
 *       LazyFS SIGKILLs itself right after the first {@code OP} (rename, link) whose destination matches, which
 *       loses its whole cache — a power cut right after that step of a Lance commit;</li>
 *   <li>{@link #remount()}: unmounts (fusermount3 -u, else umount -l, then the process is ended) and mounts again
 *       on the same root, so no kernel page cache of the old mount survives either.</li>
 * </ul>
 *
 * <p>Readiness without timing: LazyFS's fault thread, started by FUSE's init (after the mount exists), opens
 * the completion FIFO for writing, which blocks until this side opens it for reading, so the return of that
 * open is the signal that the mount serves requests. Every blocking step is raced against the LazyFS
 * process's exit and bounded by a timeout, so a dead or wedged mount fails the suite instead of hanging it.
 */
final class LazyFs implements AutoCloseable {
    static final String TAG = "[power-loss]";
    private static final long TIMEOUT_S = 60;

    final Path base;
    final Path root;
    final Path mount;
    private final Path binary;
    private final Path fifo;
    private final Path done;
    private final Path config;
    private final String cacheSize;
    private Process process;
    private BufferedReader doneReader;
    private int mounts;
    private final Thread shutdownHook;

    /** Counters for the summary line. */
    int clearCaches;
    int crashFaultsFired;

    private LazyFs(Path binary, Path base, String cacheSize) throws IOException {
        this.binary = binary;
        this.base = base;
        this.root = base.resolve("root");
        this.mount = base.resolve("mnt");
        this.fifo = base.resolve("faults.fifo");
        this.done = base.resolve("done.fifo");
        this.config = base.resolve("lazyfs.toml");
        this.cacheSize = cacheSize;
        Files.createDirectories(root);
        Files.createDirectories(mount);
        // a JVM that dies without @AfterAll must not leave a mount behind
        this.shutdownHook = new Thread(this::unmountQuietly, "lazyfs-unmount");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    // ------------------------------------------------------------------ availability and build

    /**
     * A suite's mount: LazyFS built ({@link #binaryOrSkip}) and mounted with a {@code -Dpalisade.power.cache} cache
     * (128 MB by default), or the suite skipped loudly when it does not mount.
     */
    static LazyFs mountOrSkip() throws Exception {
        Path binary = binaryOrSkip();
        try {
            return mount(binary, System.getProperty("palisade.power.cache", "128mb"));
        } catch (Exception e) {
            skip("LazyFS did not mount: " + e.getMessage());
            throw e; // not reached: the skip aborts the suite
        }
    }

    /** A suite's directory for child logs and temp files, beside the mount (off it), created. */
    Path workDir() throws IOException {
        return Files.createDirectories(base.resolve("work"));
    }

    /** Prints the loud skip line and aborts the calling test (class) through JUnit's assumptions. */
    static void skip(String reason) {
        String line = TAG + " SKIPPED: " + reason;
        System.out.println(line);
        System.err.println(line);
        Assumptions.abort(line);
    }

    /**
     * The LazyFS binary, built when needed; skips (loudly) when this JVM is not root, {@code /dev/fuse} is
     * missing, {@code shared/tools/build-lazyfs.sh} is not found above the module directory, or the build fails.
     * {@code -Dpalisade.lazyfs.bin=PATH} uses a prebuilt binary.
     */
    static Path binaryOrSkip() throws Exception {
        long uid = ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        if (uid != 0) {
            skip("not root (uid " + uid + "): LazyFS needs root (FUSE mount, apt build deps)");
        }
        if (!Files.exists(Path.of("/dev/fuse"))) {
            skip("no /dev/fuse on this machine");
        }
        if (!Files.isExecutable(Path.of("/usr/bin/fusermount3")) && !Files.isExecutable(Path.of("/bin/fusermount3"))) {
            // build-lazyfs.sh installs fuse3 when it is missing; checked again after the build
            System.out.println(TAG + " fusermount3 not installed yet; build-lazyfs.sh installs fuse3");
        }
        String prebuilt = System.getProperty("palisade.lazyfs.bin");
        if (prebuilt != null && !prebuilt.isBlank()) {
            Path p = Path.of(prebuilt);
            if (!Files.isExecutable(p)) {
                skip("-Dpalisade.lazyfs.bin=" + prebuilt + " is not an executable file");
            }
            return p;
        }
        Path script = null;
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path s = d.resolve("shared/tools/build-lazyfs.sh");
            if (Files.isRegularFile(s)) {
                script = s;
                break;
            }
        }
        if (script == null) {
            skip("shared/tools/build-lazyfs.sh not found in " + Path.of("").toAbsolutePath() + " or any parent");
        }
        Path src = script.getParent().resolve("../third-party/lazyfs").normalize();
        if (!Files.isDirectory(src)) {
            skip("LazyFS sources not found at " + src);
        }
        // keyed by the script and the sources' file names, sizes and times: a rebuild only when they change
        Path out = Path.of(System.getProperty("java.io.tmpdir"), "palisade-lazyfs-build-" + sourceKey(script, src));
        Path log = Path.of(out + ".log");
        long t0 = System.nanoTime();
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), out.toString());
        pb.redirectError(log.toFile());
        Process p = pb.start();
        String last = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.isBlank()) {
                    last = line.trim();
                }
            }
        }
        if (!p.waitFor(20, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            skip("build-lazyfs.sh did not finish within 20 minutes (log: " + log + ")");
        }
        if (p.exitValue() != 0 || last == null || !Files.isExecutable(Path.of(last))) {
            skip("build-lazyfs.sh failed (exit " + p.exitValue() + ", last line " + last + "); log " + log + ":\n"
                    + tail(log, 15));
        }
        if (!Files.isExecutable(Path.of("/usr/bin/fusermount3")) && !Files.isExecutable(Path.of("/bin/fusermount3"))) {
            skip("fusermount3 is missing after the build (package fuse3)");
        }
        System.out.printf("%s LazyFS binary %s (build step %.1f s)%n", TAG, last, (System.nanoTime() - t0) / 1e9);
        return Path.of(last);
    }

    private static String sourceKey(Path script, Path src) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        md.update(Files.readAllBytes(script));
        try (Stream<Path> s = Files.walk(src)) {
            for (Path f : s.filter(Files::isRegularFile).sorted().toList()) {
                md.update((src.relativize(f) + ":" + Files.size(f) + ":" + Files.getLastModifiedTime(f).toMillis() + "\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
        }
        return HexFormat.of().formatHex(md.digest(), 0, 6);
    }

    private static String tail(Path f, int n) {
        try {
            List<String> l = Files.readAllLines(f);
            return String.join("\n", l.subList(Math.max(0, l.size() - n), l.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    // ------------------------------------------------------------------ mount

    /**
     * Mounts LazyFS with a {@code cacheSize} cache (e.g. "64mb") under a fresh directory in {@code /dev/shm}
     * when it exists (else {@code java.io.tmpdir}; {@code -Dpalisade.lazyfs.base=DIR} chooses). The backing
     * directory stands for the disk: what LazyFS has written back survives a cut, what its cache holds does
     * not, wherever the backing lives; a RAM-backed one only makes write-back (and Chronicle's 80 MB
     * zero-filled cycle file per writer session) cheap.
     */
    static LazyFs mount(Path binary, String cacheSize) throws Exception {
        String prefix = "palisade-lazyfs-" + ProcessHandle.current().pid() + "-";
        String chosen = System.getProperty("palisade.lazyfs.base");
        Path shm = Path.of("/dev/shm");
        Path base = chosen != null ? Files.createTempDirectory(Files.createDirectories(Path.of(chosen)), prefix)
                : Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, prefix)
                : Files.createTempDirectory(prefix);
        LazyFs fs = new LazyFs(binary, base, cacheSize);
        fs.mount0();
        return fs;
    }

    private void mount0() throws Exception {
        // both FIFOs made here (LazyFS accepts existing ones), so the open below needs no wait for their creation
        for (Path f : List.of(fifo, done)) {
            if (!Files.exists(f) && run("mkfifo", f.toString()) != 0) {
                throw new IllegalStateException("mkfifo " + f + " failed");
            }
        }
        mounts++;
        Path log = base.resolve("lazyfs-" + mounts + ".log");
        Files.writeString(config, """
                [faults]
                fifo_path="%s"
                fifo_path_completed="%s"
                [cache]
                apply_eviction=%s
                [cache.simple]
                custom_size="%s"
                blocks_per_page=1
                [filesystem]
                log_all_operations=false
                logfile="%s"
                """.formatted(fifo, done, Boolean.parseBoolean(System.getProperty("palisade.power.eviction", "true")),
                cacheSize, log));
        ProcessBuilder pb = new ProcessBuilder(binary.toString(), mount.toString(), "--config-path", config.toString(),
                "-o", "modules=subdir", "-o", "subdir=" + root, "-f");
        pb.redirectErrorStream(true);
        pb.redirectOutput(base.resolve("lazyfs-" + mounts + ".out").toFile());
        process = pb.start();
        // the fault thread (started by FUSE init, i.e. once the mount exists) creates both FIFOs, then opens the
        // completion FIFO for writing; our open for reading returns when it has: the mount is ready
        CompletableFuture<BufferedReader> open = CompletableFuture.supplyAsync(() -> {
            try {
                return Files.newBufferedReader(done, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        Object first = CompletableFuture.anyOf(open, process.onExit()).get(TIMEOUT_S, TimeUnit.SECONDS);
        if (first instanceof Process || !open.isDone()) {
            open.cancel(true);
            throw new IllegalStateException("LazyFS exited while mounting (exit " + process.exitValue() + "): "
                    + tail(base.resolve("lazyfs-" + mounts + ".out"), 20));
        }
        doneReader = open.get();
        // fuse_main mounts before it calls init, which starts the fault thread: the mount exists by now
        if (!mounted()) {
            throw new IllegalStateException("LazyFS fault thread runs but " + mount + " is not in /proc/self/mountinfo");
        }
    }

    /** Whether {@link #mount} is a mount point of a LazyFS file system now. */
    boolean mounted() throws IOException {
        String m = " " + mount + " ";
        for (String l : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            if (l.contains(m) && l.contains("fuse.lazyfs")) {
                return true;
            }
        }
        return false;
    }

    /** Completes when the LazyFS process exits (a crash fault fired, or it was unmounted). */
    CompletableFuture<Process> exited() {
        return process.onExit();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The LazyFS process's state, for messages: "running" or its exit status (139 = segfault). */
    String state() {
        return process.isAlive() ? "running" : "exited with status " + process.exitValue();
    }

    /**
     * Whether the LazyFS process ended by a signal other than the SIGKILL of its own crash fault or of an unmount
     * (139 = segfault, 134 = abort): a defect of the test file system, not a finding about the code under test.
     */
    boolean crashedByItself() {
        if (process.isAlive()) {
            return false;
        }
        int status = process.exitValue();
        return status > 128 && status != 128 + 9;
    }

    /** The last lines LazyFS printed on the current mount, for messages. */
    String outputTail(int lines) {
        return tail(base.resolve("lazyfs-" + mounts + ".out"), lines);
    }

    // ------------------------------------------------------------------ faults

    private void command(String cmd) throws Exception {
        if (!process.isAlive()) {
            throw new IllegalStateException("LazyFS is not running (" + state() + "); cannot send " + cmd);
        }
        // LazyFS holds its FIFO open read-write, so this open does not block while it runs; one command per
        // write(2): LazyFS reads one chunk per command
        CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
            try (OutputStream o = Files.newOutputStream(fifo, StandardOpenOption.WRITE)) {
                o.write((cmd + "\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        w.get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /** A power cut of everything unsynced; returns when LazyFS has dropped its cache. */
    void clearCache() throws Exception {
        command("lazyfs::clear-cache");
        CompletableFuture<String> ack = CompletableFuture.supplyAsync(() -> {
            try {
                return doneReader.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        Object first = CompletableFuture.anyOf(ack, process.onExit()).get(TIMEOUT_S, TimeUnit.SECONDS);
        if (!"finished::clear-cache".equals(ack.isDone() ? ack.get() : first)) {
            throw new IllegalStateException("LazyFS did not confirm clear-cache (got " + first + ")");
        }
        clearCaches++;
    }

    /**
     * Arms a crash fault: LazyFS kills itself (losing every unsynced write) right after the next {@code op}
     * ({@code rename} or {@code link}) whose destination path matches {@code toRegex} (an ECMAScript regex,
     * matched as {@code .*toRegex.*}). {@code from_rgx=/} is needed: LazyFS only checks {@code to_rgx} of a
     * two-path op when a from pattern that does not match the text "none" is given.
     */
    void crashAfter(String op, String toRegex) throws Exception {
        command("lazyfs::crash::timing=after::op=" + op + "::from_rgx=/::to_rgx=" + toRegex);
    }

    /** Unmounts and mounts again on the same root (also after LazyFS killed itself). */
    void remount() throws Exception {
        unmount();
        mount0();
    }

    private void unmount() throws Exception {
        if (doneReader != null) {
            try {
                doneReader.close();
            } catch (IOException ignored) {
                // the writer side is gone
            }
            doneReader = null;
        }
        boolean clean = true;
        if (mounted() && run("fusermount3", "-u", mount.toString()) != 0) {
            // busy (a handle still open) or a dead connection: detach lazily, then end the process below
            clean = false;
            System.err.println(TAG + " fusermount3 -u " + mount + " failed; umount -l");
            run("umount", "-l", mount.toString());
        }
        if (process != null && process.isAlive()) {
            // after a clean unmount LazyFS exits by itself; after a lazy one it would serve the old handles for
            // as long as they live, so it is ended (our own child, by its handle)
            if (!clean || !process.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(TIMEOUT_S, TimeUnit.SECONDS);
            }
        }
        if (mounted()) {
            throw new IllegalStateException(mount + " is still mounted after fusermount3 -u / umount -l");
        }
    }

    private void unmountQuietly() {
        try {
            unmount();
        } catch (Exception e) {
            System.err.println(TAG + " could not unmount " + mount + ": " + e);
        }
    }

    private static int run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }

    // ------------------------------------------------------------------ helpers for trials

    /**
     * fsyncs every file and directory under {@code dir} (through the mount): makes a trial's setup durable, as
     * if the machine had been idle long enough for write-back, so the cut tests only the trial's own window.
     */
    static void syncTree(Path dir) throws IOException {
        List<Path> all;
        try (Stream<Path> s = Files.walk(dir)) {
            all = new ArrayList<>(s.toList());
        }
        java.util.Collections.reverse(all); // files before their directories
        for (Path p : all) {
            if (Files.isRegularFile(p)) {
                try (FileChannel c = FileChannel.open(p, StandardOpenOption.WRITE)) {
                    c.force(true);
                }
            } else if (Files.isDirectory(p)) {
                try (FileChannel c = FileChannel.open(p, StandardOpenOption.READ)) {
                    c.force(true);
                } catch (IOException ignored) {
                    // a directory fsync is not supported by every file system; LazyFS keeps no directory state
                }
            }
        }
    }

    /** Files of size 0 under {@code dir}, relative to it (what a cut leaves of an unsynced Lance file). */
    static List<String> emptyFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> {
                try {
                    return Files.size(p) == 0 && !p.getFileName().toString().endsWith(".lock");
                } catch (IOException e) {
                    return false;
                }
            }).map(p -> dir.relativize(p).toString()).sorted().toList();
        } catch (IOException e) {
            return List.of("(cannot list: " + e + ")");
        }
    }

    @Override
    public void close() throws Exception {
        try {
            unmount();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
        }
    }

    static <T> T await(CompletableFuture<T> f, String what) throws Exception {
        try {
            return f.get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            throw new IllegalStateException(what + ": " + e, e);
        }
    }
}
