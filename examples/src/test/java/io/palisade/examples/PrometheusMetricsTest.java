package io.palisade.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The Prometheus example runs in the test command, and its scrape carries the graph's meters with their values. */
class PrometheusMetricsTest {
    @TempDir
    Path dir;

    /** Each sample line of a Prometheus text scrape: {@code name{labels}} to its value. */
    private static Map<String, Double> samples(String scrape) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : scrape.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                int space = line.lastIndexOf(' ');
                out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            }
        }
        return out;
    }

    @Test
    void theScrapeCarriesTheWritesOfBothPathsTheirLatencyHistogramsAndTheGauges() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            PrometheusMetrics.main(new String[]{dir.resolve("shop").toString()});
        } finally {
            System.setOut(out);
        }
        String scrape = buf.toString(StandardCharsets.UTF_8);
        Map<String, Double> s = samples(scrape);

        assertThat(s).containsEntry("palisade_writes_total{ack=\"table\",graph=\"shop\"}", 10.0)
                .containsEntry("palisade_writes_total{ack=\"journal\",graph=\"shop\"}", 10.0)
                .containsEntry("palisade_commits_total{graph=\"shop\"}", 10.0)
                .containsEntry("palisade_conflicts_total{graph=\"shop\",kind=\"key\"}", 0.0)
                .containsEntry("palisade_write_ack_seconds_count{ack=\"table\",graph=\"shop\"}", 10.0)
                .containsEntry("palisade_write_ack_seconds_count{ack=\"journal\",graph=\"shop\"}", 10.0)
                .containsEntry("palisade_write_ack_seconds_bucket{ack=\"journal\",graph=\"shop\",le=\"+Inf\"}", 10.0)
                .containsEntry("palisade_write_phase_seconds_count{graph=\"shop\",phase=\"intent\"}", 10.0)
                .containsEntry("palisade_write_phase_seconds_count{graph=\"shop\",phase=\"commit\"}", 10.0)
                .containsEntry("palisade_write_group_largest{graph=\"shop\"}", 1.0);
        assertThat(s.get("palisade_write_ack_seconds_sum{ack=\"table\",graph=\"shop\"}")).isPositive();
        assertThat(s.get("palisade_write_ack_seconds_max{ack=\"journal\",graph=\"shop\"}")).isPositive();

        // the histogram: cumulative buckets from 100 microseconds to a minute, then +Inf
        List<Double> buckets = new ArrayList<>();
        s.forEach((k, v) -> {
            if (k.startsWith("palisade_write_ack_seconds_bucket{ack=\"table\",graph=\"shop\"")) {
                buckets.add(v);
            }
        });
        assertThat(buckets).hasSizeGreaterThan(10).isSorted().endsWith(10.0);
        assertThat(s).containsKeys("palisade_write_ack_seconds_bucket{ack=\"table\",graph=\"shop\",le=\"1.0E-4\"}",
                "palisade_write_ack_seconds_bucket{ack=\"table\",graph=\"shop\",le=\"60.0\"}");

        // the journal-ack table's state: its writes unfolded or folded by now, and how far its fold lags
        assertThat(s.get("palisade_unfolded_writes{graph=\"shop\",table=\"visit\"}")).isBetween(0.0, 10.0);
        assertThat(s.get("palisade_fold_lag_seconds{graph=\"shop\",table=\"visit\"}")).isNotNegative();
        assertThat(s.get("palisade_heads_intents{graph=\"shop\",state=\"completed\"}")).isGreaterThanOrEqualTo(20.0);
        assertThat(s.keySet().stream().filter(k -> k.startsWith("palisade_")))
                .hasSizeGreaterThan(100).allMatch(k -> k.contains("graph=\"shop\""));
    }
}
