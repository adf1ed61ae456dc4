package io.palisade.coordinator;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/coordinator.md's "Metrics" table names every meter a graph's binder registers, with its type and tags. */
class MetricsDocsTest extends GraphTestSupport {
    private static final Pattern ROW = Pattern.compile("^\\| `(palisade\\.[a-z0-9_.]+)` \\| ([a-z]+) \\|([^|]*)\\|",
            Pattern.MULTILINE);
    /** A tag key in the tags column: {@code `key`: `value`, `value`}. */
    private static final Pattern TAG_KEY = Pattern.compile("`([a-z_]+)`:");

    /**
     * Name to "type: tag keys besides graph", of the meters in {@code registry}; not the gauges in which this registry
     * shows the timers' percentiles ({@code <timer>.percentile}, tagged {@code phi}).
     */
    private static Map<String, String> registered(SimpleMeterRegistry registry) {
        Map<String, String> out = new TreeMap<>();
        for (Meter m : registry.getMeters()) {
            if (m.getId().getName().endsWith(".percentile") && m.getId().getTag("phi") != null) {
                continue;
            }
            TreeSet<String> keys = new TreeSet<>();
            for (Tag t : m.getId().getTags()) {
                keys.add(t.getKey());
            }
            assertThat(keys.remove("graph")).as("%s has the graph tag", m.getId()).isTrue();
            String described = m.getId().getType().name().toLowerCase(Locale.ROOT) + ": " + keys;
            assertThat(out.merge(m.getId().getName(), described, (a, b) -> a.equals(b) ? a : a + " / " + b))
                    .as("every meter named %s has one type and one set of tag keys", m.getId().getName())
                    .isEqualTo(described);
        }
        return out;
    }

    /** Name to "type: tag keys", of the rows of the "Metrics" section's table. */
    private static Map<String, String> documented() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "coordinator.md"));
        int start = doc.indexOf("\n## Metrics\n");
        assertThat(start).as("docs/coordinator.md has a Metrics section").isPositive();
        int end = doc.indexOf("\n## ", start + 1);
        String section = doc.substring(start, end < 0 ? doc.length() : end);
        Map<String, String> out = new TreeMap<>();
        Matcher row = ROW.matcher(section);
        while (row.find()) {
            TreeSet<String> keys = new TreeSet<>();
            Matcher key = TAG_KEY.matcher(row.group(3));
            while (key.find()) {
                keys.add(key.group(1));
            }
            assertThat(out.put(row.group(1), row.group(2) + ": " + keys)).as("%s listed once", row.group(1)).isNull();
        }
        return out;
    }

    @Test
    void theMetricsSectionListsEveryMeterTheBinderRegistersAndNoOther() throws IOException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Map<String, String> registered;
        Catalog catalog = Catalog.fromJson(MetricsMetersTest.CATALOG);
        try (Graph g = Palisade.create(dir.resolve("g"), catalog, Options.defaults())) {
            g.metrics().bindTo(registry);
            registered = registered(registry);
        }
        assertThat(registered).hasSizeGreaterThan(25);
        assertThat(documented()).isEqualTo(registered);
    }
}
