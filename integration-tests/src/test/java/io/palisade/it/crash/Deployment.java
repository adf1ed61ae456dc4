package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.TableLocation;
import io.palisade.journal.KafkaJournalConfig;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Where a {@link CrashHarness}'s graph keeps its tables and its journal, and how every process that opens it (the
 * harness's own opens in this JVM, and the {@link CrashWorkload} children) reaches them (docs/crash-points.md "On an
 * object store and a Kafka journal").
 *
 * <p>{@link Local}: the tables in {@code <graph>/tables}, the journal on Chronicle under {@code <graph>/_palisade}
 * (what every crash suite used before). {@link ObjectStore}: the tables at an {@code s3://} URI (the graph records
 * only the URI) and the journal on a Kafka topic ({@code _palisade/journal.properties}); the storage options reach
 * this JVM's opens through the Java API and a child through its environment, as {@code PALISADE_STORAGE_<KEY>}
 * (the per-process source docs/scale-out.md names) and the same settings as {@code AWS_*} (Lance 7.0.0's
 * {@code createBranch} reads those), with {@code AWS_EC2_METADATA_DISABLED=true}.
 *
 * <p>Invariant: a child started with {@link #childEnvironment()} opens the graph with the same tables location as this
 * JVM's {@link #open}.
 */
sealed interface Deployment permits Deployment.Local, Deployment.ObjectStore {
    /** Creates the graph at {@code graph} (it must not exist) and returns it open. */
    Graph create(Path graph, Catalog catalog, Options options);

    /** Opens the graph at {@code graph} for writing (recovery runs). */
    Graph open(Path graph, Options options);

    /** The graph's tables as the product locates them (a local directory, or the recorded object-store URI). */
    TableLocation tables(Path graph);

    /** Variables a child's environment gets on top of this JVM's; empty for {@link Local}. */
    Map<String, String> childEnvironment();

    /**
     * A deployment like this one for a scratch graph of the children's class-data archive training (on the same
     * servers, at a location no trial's graph uses).
     */
    Deployment forTraining();

    /** The default: tables on local disk, journal on Chronicle. */
    Deployment LOCAL = new Local();

    record Local() implements Deployment {
        @Override
        public Graph create(Path graph, Catalog catalog, Options options) {
            return Palisade.create(graph, catalog, options);
        }

        @Override
        public Graph open(Path graph, Options options) {
            return Palisade.open(graph, options);
        }

        @Override
        public TableLocation tables(Path graph) {
            return TableLocation.of(graph);
        }

        @Override
        public Map<String, String> childEnvironment() {
            return Map.of();
        }

        @Override
        public Deployment forTraining() {
            return this;
        }
    }

    /**
     * Tables at {@code tablesUri} ({@code s3://bucket/prefix}, fresh: it holds no table yet) opened with
     * {@code storageOptions} (Lance's keys: {@code aws_access_key_id}, {@code aws_endpoint}, ...), the journal on
     * the Kafka topic of {@code journal}.
     */
    record ObjectStore(String tablesUri, Map<String, String> storageOptions, KafkaJournalConfig journal)
            implements Deployment {
        public ObjectStore {
            Objects.requireNonNull(tablesUri, "tablesUri");
            Objects.requireNonNull(journal, "journal");
            if (!tablesUri.startsWith("s3://")) {
                throw new IllegalArgumentException("an object-store deployment needs an s3:// tables URI, not " + tablesUri);
            }
            storageOptions = Map.copyOf(storageOptions);
        }

        @Override
        public Graph create(Path graph, Catalog catalog, Options options) {
            return Palisade.create(graph, catalog, options, tablesUri, storageOptions, journal);
        }

        @Override
        public Graph open(Path graph, Options options) {
            return Palisade.open(graph, options, storageOptions);
        }

        @Override
        public TableLocation tables(Path graph) {
            return TableLocation.of(graph, storageOptions);
        }

        /**
         * Each storage option {@code k=v} as {@code PALISADE_STORAGE_<K>=v} and as {@code AWS_<K>=v} (a key that starts
         * with {@code aws_} keeps its prefix once: {@code aws_endpoint} is {@code AWS_ENDPOINT}, {@code allow_http} is
         * {@code AWS_ALLOW_HTTP}), and {@code AWS_EC2_METADATA_DISABLED=true}.
         */
        @Override
        public Map<String, String> childEnvironment() {
            Map<String, String> env = new LinkedHashMap<>();
            storageOptions.forEach((k, v) -> {
                String key = k.toUpperCase(Locale.ROOT);
                env.put(TableLocation.ENV_PREFIX + key, v);
                env.put(key.startsWith("AWS_") ? key : "AWS_" + key, v);
            });
            env.put("AWS_EC2_METADATA_DISABLED", "true");
            return env;
        }

        /** A sibling prefix of the tables URI and a fresh topic on the same Kafka cluster. */
        @Override
        public Deployment forTraining() {
            return new ObjectStore(tablesUri + "-cds-training", storageOptions, KafkaJournalConfig.forNewGraph(
                    journal.bootstrapServers(), "cds-training").withReplication(journal.replicationFactor(),
                    journal.minInsyncReplicas()));
        }

        /** The URI and the option keys, never their values (credentials). */
        @Override
        public String toString() {
            return "ObjectStore[" + tablesUri + " " + new java.util.TreeSet<>(storageOptions.keySet()) + ", journal topic "
                    + journal.topic() + "]";
        }
    }
}
