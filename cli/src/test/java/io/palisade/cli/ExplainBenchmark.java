package io.palisade.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The command time of {@code explain --key} on the incident journal (docs/benchmarks.md "explain"): builds or reuses
 * {@link IncidentJournals#of} the requested size, then runs {@code explain GRAPH --key K --table person} in this JVM
 * (JVM start excluded) once cold (class loading and Lance's native library included) and {@code runs} times warm, on
 * the busiest key, and prints each time in milliseconds. {@code ExplainBenchmark [events] [runs]}.
 */
public final class ExplainBenchmark {
    private ExplainBenchmark() {
    }

    public static void main(String[] args) {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : IncidentJournals.DEFAULT_EVENTS;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        IncidentJournals.Incident i = IncidentJournals.of(events);
        String g = i.graph().toString();
        long t0 = System.nanoTime();
        IncidentModel model = ExplainCommand.model(i.graph());
        double modelMs = (System.nanoTime() - t0) / 1e6;
        String key = null;
        int most = -1;
        for (int k = 0; k < IncidentJournals.KEYS; k++) {
            int n = model.intentsOf("person", "e" + k).size();
            if (n > most) {
                most = n;
                key = "e" + k;
            }
        }
        List<Double> ms = new ArrayList<>();
        for (int r = 0; r <= runs; r++) {
            PrintStream out = System.out;
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            long s = System.nanoTime();
            int code;
            try {
                System.setOut(new PrintStream(sink, true, StandardCharsets.UTF_8));
                code = Main.run(new String[] {"explain", g, "--key", key, "--table", "person"});
            } finally {
                System.setOut(out);
            }
            ms.add((System.nanoTime() - s) / 1e6);
            if (code != 0) {
                throw new IllegalStateException("explain exited " + code);
            }
            if (r == 0) {
                System.out.println("output lines: " + sink.toString(StandardCharsets.UTF_8).lines().count());
            }
        }
        List<String> modelWarm = new ArrayList<>();
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int r = 0; r < runs; r++) {
            long s = System.nanoTime();
            long c = cpu.getCurrentThreadCpuTime();
            ExplainCommand.model(i.graph());
            modelWarm.add(String.format(Locale.ROOT, "%.0f (cpu %.0f)", (System.nanoTime() - s) / 1e6,
                    (cpu.getCurrentThreadCpuTime() - c) / 1e6));
        }
        List<String> cmdCpu = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            PrintStream out = System.out;
            long s = System.nanoTime();
            long c = cpu.getCurrentThreadCpuTime();
            try {
                System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
                Main.run(new String[] {"explain", g, "--key", key, "--table", "person"});
            } finally {
                System.setOut(out);
            }
            cmdCpu.add(String.format(Locale.ROOT, "%.0f (cpu %.0f)", (System.nanoTime() - s) / 1e6,
                    (cpu.getCurrentThreadCpuTime() - c) / 1e6));
        }
        System.out.println("model warm ms: " + modelWarm + "; explain --key warm ms: " + cmdCpu);
        System.out.printf(Locale.ROOT, "journal %d records; key %s of person: %d intents; model (first, cold) %.0f ms%n",
                model.records(), key, most, modelMs);
        System.out.printf(Locale.ROOT, "explain --key: cold %.0f ms; warm %s ms%n", ms.get(0),
                ms.subList(1, ms.size()).stream().map(d -> String.format(Locale.ROOT, "%.0f", d)).toList());
    }
}
