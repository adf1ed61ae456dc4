/**
 * Runnable examples of services embedding Palisade. {@link io.palisade.examples.WriterService} races two writers
 * on one new key (exactly one wins, the other gets a {@link io.palisade.fencing.KeyConflictException}), reads its own
 * write, and merges a branch back. It uses only Palisade's public API, and its source from the imports on is the
 * README's example verbatim ({@code WriterServiceTest} keeps the two equal; {@code FreshProjectIT} builds and runs it
 * as a new project would). {@link io.palisade.examples.PrometheusMetrics} publishes a graph's meters in a Prometheus
 * registry and prints the scrape ({@code PrometheusMetricsTest} checks its values).
 */
package io.palisade.examples;
