package io.palisade.examples;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Row;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A writer service that publishes its graph's meters to Prometheus: it binds the graph's {@code Metrics} (a Micrometer
 * {@code MeterBinder}) in a {@link PrometheusMeterRegistry}, writes to a table acknowledged after its table commit and
 * to a journal-ack table, and prints the scrape a Prometheus server would read from the service's metrics endpoint.
 * Run it with the JVM options of Palisade's README ("JVM flags"); its argument is the graph's directory (default: a
 * new temporary directory), whose name is the meters' {@code graph} tag.
 */
public final class PrometheusMetrics {
    private PrometheusMetrics() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("palisade-example").resolve("graph");
        Catalog catalog = Catalog.fromJson("""
                {"tables": [
                  {"name": "person", "kind": "node", "columns": [
                    {"name": "id", "type": "string"}, {"name": "age", "type": "int64", "nullable": true}]},
                  {"name": "visit", "kind": "node", "ack": "journal", "columns": [
                    {"name": "id", "type": "string"}, {"name": "page", "type": "string", "nullable": true}]}]}
                """);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (Graph g = Palisade.create(dir, catalog, Options.defaults())) {
            g.metrics().bindTo(registry); // meters palisade_*, tagged graph="<the directory's name>"
            for (int i = 0; i < 10; i++) {
                g.upsert("main", "person", List.of(Row.of("id", "p" + i, "age", 20 + i)));
                g.upsert("main", "visit", List.of(Row.of("id", "v" + i, "page", "/home")));
            }
            System.out.print(registry.scrape()); // what the service's metrics endpoint answers
        }
    }
}
