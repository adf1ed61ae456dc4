package io.palisade.journal;

import io.palisade.fencing.ValidationException;
import io.palisade.journal.codec.RecordDescriptor;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * Where a graph's journal is when it is on Kafka: {@code <graph>/_palisade/journal.properties}. Without that file
 * the journal is the embedded Chronicle one.
 *
 * <pre>
 * storage=kafka
 * bootstrap.servers=broker1:9092,broker2:9092,broker3:9092
 * topic=palisade-journal-orders-1f2e3d4c
 * replication.factor=3
 * min.insync.replicas=2
 * kafka.&lt;client property&gt;=...      (passed to the producer, consumers and admin client as they are)
 * </pre>
 *
 * <p>Secrets never enter the graph directory: a client property that Kafka's own configuration definitions type as a
 * password ({@code sasl.jaas.config}, {@code ssl.key.password}, {@code ssl.keystore.password}, ...) is refused here, so
 * it is never written to {@code journal.properties} nor printed. Such properties come from the file named by
 * {@value #LOCAL_FILE_VARIABLE} (or the system property {@value #LOCAL_FILE_PROPERTY}), plain Kafka client
 * properties read each time a journal client is made on this machine ({@link #localProperties()}); the graph
 * directory can then be copied to an auditor or another machine without its credentials.
 *
 * Invariants: the topic has one partition and is written only by the transactional producer whose
 * {@code transactional.id} is {@link #transactionalId()} (derived from the topic, so the same on every machine that
 * opens the graph); {@code 1 <= minInsyncReplicas <= replicationFactor}; every entry of {@code bootstrapServers} is
 * {@code host:port}.
 *
 * @param bootstrapServers  Kafka's {@code bootstrap.servers}: {@code host:port} entries, comma-separated (port 1-65535)
 * @param topic             the graph's journal topic (legal Kafka topic name)
 * @param replicationFactor replicas of the topic when Palisade creates it (3 in production, 1 on a one-node cluster)
 * @param minInsyncReplicas the topic's {@code min.insync.replicas} ({@code acks=all} waits for that many)
 * @param clientProperties  extra client properties ({@code security.protocol}, timeouts ...), never a password-typed
 *                          one; they cannot change {@code transactional.id}, {@code acks}, idempotence,
 *                          {@code isolation.level} or topic auto-creation, which fencing and durability rest on
 */
public record KafkaJournalConfig(String bootstrapServers, String topic, int replicationFactor, int minInsyncReplicas,
                                 Map<String, String> clientProperties) {
    /** The file in {@code _palisade/} that puts the journal on Kafka. */
    public static final String FILE = "journal.properties";
    /** Client properties in the file carry this prefix. */
    public static final String CLIENT_PREFIX = "kafka.";
    /** The environment variable naming this machine's file of Kafka client properties kept out of the graph. */
    public static final String LOCAL_FILE_VARIABLE = "PALISADE_KAFKA_FILE";
    /** The system property that names that file (it wins over the variable). */
    public static final String LOCAL_FILE_PROPERTY = "palisade.kafka.file";

    private static final java.util.concurrent.atomic.AtomicLong CLIENTS = new java.util.concurrent.atomic.AtomicLong();
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,200}");

    public KafkaJournalConfig {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(topic, "topic");
        clientProperties = Map.copyOf(clientProperties);
        for (String key : new TreeMap<>(clientProperties).keySet()) {
            if (isSecret(key)) {
                throw new ValidationException("Kafka client property '" + key + "' is a secret and is never written to "
                        + "the graph's " + FILE + "; put it in the file named by " + LOCAL_FILE_VARIABLE
                        + " (Kafka client properties read on this machine at every open; docs/scale-out.md)");
            }
        }
        if (bootstrapServers.isBlank()) {
            throw new ValidationException("the Kafka journal needs bootstrap.servers (host:port,...)");
        }
        for (String server : bootstrapServers.split(",", -1)) {
            checkServer(server.strip(), bootstrapServers);
        }
        if (!TOPIC.matcher(topic).matches()) {
            throw new ValidationException("journal topic '" + topic + "' is not a legal Kafka topic name"
                    + " (letters, digits, '.', '_', '-'; at most 200 characters)");
        }
        if (replicationFactor < 1 || minInsyncReplicas < 1 || minInsyncReplicas > replicationFactor) {
            throw new ValidationException("journal topic replication: need 1 <= min.insync.replicas ("
                    + minInsyncReplicas + ") <= replication.factor (" + replicationFactor + ")");
        }
    }

    /** Kafka's own configuration definitions of its producer, consumer and admin clients, by property name. */
    private static final Map<String, org.apache.kafka.common.config.ConfigDef.ConfigKey> CLIENT_KEYS = clientKeys();

    private static Map<String, org.apache.kafka.common.config.ConfigDef.ConfigKey> clientKeys() {
        Map<String, org.apache.kafka.common.config.ConfigDef.ConfigKey> keys = new TreeMap<>();
        keys.putAll(org.apache.kafka.clients.admin.AdminClientConfig.configDef().configKeys());
        keys.putAll(org.apache.kafka.clients.consumer.ConsumerConfig.configDef().configKeys());
        keys.putAll(org.apache.kafka.clients.producer.ProducerConfig.configDef().configKeys());
        return Map.copyOf(keys);
    }

    /**
     * True when Kafka types the client property {@code key} as a password (its value is a credential), or when the key
     * is a listener- or mechanism-scoped form of one ({@code listener.name.x.scram-sha-256.sasl.jaas.config}).
     */
    public static boolean isSecret(String key) {
        String k = key.strip();
        for (Map.Entry<String, org.apache.kafka.common.config.ConfigDef.ConfigKey> e : CLIENT_KEYS.entrySet()) {
            if (e.getValue().type == org.apache.kafka.common.config.ConfigDef.Type.PASSWORD
                    && (k.equals(e.getKey()) || k.endsWith("." + e.getKey()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * This machine's Kafka client properties kept out of the graph: those of the file named by
     * {@value #LOCAL_FILE_PROPERTY} or {@value #LOCAL_FILE_VARIABLE} (a Java properties file of Kafka client
     * property names, credentials among them), read anew each time a journal client is made; empty without one.
     *
     * @throws ValidationException the named file cannot be read
     */
    public static Map<String, String> localProperties() {
        String name = System.getProperty(LOCAL_FILE_PROPERTY, System.getenv(LOCAL_FILE_VARIABLE));
        if (name == null || name.isBlank()) {
            return Map.of();
        }
        Path f = Path.of(name.strip());
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new ValidationException("cannot read the Kafka client properties file " + f + " ("
                    + LOCAL_FILE_VARIABLE + "): " + e.getMessage(), e);
        }
        Map<String, String> out = new TreeMap<>();
        for (String k : p.stringPropertyNames()) {
            out.put(k.strip(), p.getProperty(k).strip());
        }
        return out;
    }

    /** One entry of {@code bootstrap.servers}: {@code host:port} ({@code [v6 address]:port}), port 1-65535. */
    private static void checkServer(String server, String all) {
        int colon = server.lastIndexOf(':');
        String port = colon < 0 ? "" : server.substring(colon + 1);
        boolean ok = colon > 0 && port.matches("[0-9]{1,5}") && Integer.parseInt(port) >= 1
                && Integer.parseInt(port) <= 65535 && !server.substring(0, colon).isBlank();
        if (!ok) {
            throw new ValidationException("bootstrap.servers '" + all + "': '" + server + "' is not host:port"
                    + " (a list is host:port,host:port,...)");
        }
    }

    /**
     * A new graph's journal on the cluster at {@code bootstrapServers}: a fresh topic named after the graph plus a
     * random suffix (a graph created again under the same name never meets the old journal), replication 3 with
     * {@code min.insync.replicas} 2.
     */
    public static KafkaJournalConfig forNewGraph(String bootstrapServers, String graphName) {
        String base = graphName.replaceAll("[^a-zA-Z0-9._-]", "_");
        if (base.length() > 150) {
            base = base.substring(0, 150);
        }
        byte[] suffix = new byte[4];
        ThreadLocalRandom.current().nextBytes(suffix);
        return new KafkaJournalConfig(bootstrapServers, "palisade-journal-" + base + "-" + HexFormat.of().formatHex(suffix),
                3, 2, Map.of());
    }

    public KafkaJournalConfig withReplication(int factor, int minInsync) {
        return new KafkaJournalConfig(bootstrapServers, topic, factor, minInsync, clientProperties);
    }

    public KafkaJournalConfig withClientProperties(Map<String, String> props) {
        return new KafkaJournalConfig(bootstrapServers, topic, replicationFactor, minInsyncReplicas, props);
    }

    /** The one {@code transactional.id} of the graph's writers: a new writer's start fences the previous one. */
    public String transactionalId() {
        return "palisade-writer." + topic;
    }

    /** The config in {@code palisadeDir/journal.properties}, or empty when the journal is on Chronicle. */
    public static Optional<KafkaJournalConfig> read(Path palisadeDir) {
        Path f = palisadeDir.resolve(FILE);
        if (!Files.isRegularFile(f)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f, e);
        }
        String storage = p.getProperty("storage", "");
        if (!storage.equals("kafka")) {
            throw new ValidationException(f + ": storage=" + storage + " is not a journal storage (only 'kafka';"
                    + " without this file the journal is the embedded Chronicle one)");
        }
        Map<String, String> client = new TreeMap<>();
        for (String k : p.stringPropertyNames()) {
            if (k.startsWith(CLIENT_PREFIX)) {
                client.put(k.substring(CLIENT_PREFIX.length()), p.getProperty(k));
            }
        }
        return Optional.of(new KafkaJournalConfig(required(p, f, "bootstrap.servers"), required(p, f, "topic"),
                integer(p, f, "replication.factor", "3"), integer(p, f, "min.insync.replicas", "2"), client));
    }

    private static String required(Properties p, Path f, String key) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new ValidationException(f + ": " + key + " is missing");
        }
        return v.trim();
    }

    private static int integer(Properties p, Path f, String key, String dflt) {
        String v = p.getProperty(key, dflt).trim();
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new ValidationException(f + ": " + key + "=" + v + " is not a whole number");
        }
    }

    /** Writes {@code palisadeDir/journal.properties} durably (temporary file, fsync, rename, directory fsync). */
    public void write(Path palisadeDir) {
        Path f = palisadeDir.resolve(FILE);
        Path tmp = palisadeDir.resolve(FILE + ".tmp");
        StringBuilder sb = new StringBuilder("# the journal of this graph is on Kafka (docs/journal.md \"Kafka\")\n")
                .append("storage=kafka\n")
                .append("bootstrap.servers=").append(bootstrapServers).append('\n')
                .append("topic=").append(topic).append('\n')
                .append("replication.factor=").append(replicationFactor).append('\n')
                .append("min.insync.replicas=").append(minInsyncReplicas).append('\n');
        new TreeMap<>(clientProperties).forEach((k, v) -> sb.append(CLIENT_PREFIX).append(k).append('=').append(v).append('\n'));
        try {
            Files.createDirectories(palisadeDir);
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                w.write(sb.toString());
            }
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Segments.fsyncDirectory(palisadeDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + f, e);
        }
    }

    /** Largest record the journal writes: a full payload plus header and CRC. */
    static final int MAX_RECORD_BYTES = RecordDescriptor.MAX_PAYLOAD_LENGTH + 4096;

    /**
     * The producer's settings: {@code kafka.*} client properties apply first, this machine's
     * ({@link #localProperties()}) over them, then the ones fencing and durability
     * rest on ({@code transactional.id}, {@code acks=all}, idempotence), which no client property can change.
     */
    Properties producerProperties() {
        Properties p = base();
        p.put("linger.ms", "0");
        p.put("max.request.size", Integer.toString(MAX_RECORD_BYTES + (1 << 20)));
        p.put("buffer.memory", Long.toString(3L * MAX_RECORD_BYTES));
        p.put("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        p.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        p.putAll(clientProperties);
        p.putAll(localProperties());
        p.put("transactional.id", transactionalId());
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        return p;
    }

    /**
     * The consumer's settings: {@code kafka.*} client properties apply first, this machine's
     * ({@link #localProperties()}) over them, then the ones readers and recovery rest
     * on: only committed transactions are read ({@code read_committed}), and a reader never creates the topic.
     */
    Properties consumerProperties() {
        Properties p = base();
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        // a fetch at the end is parked by the broker this long; a reused consumer (KafkaTopics) repositioned by a
        // lookup would otherwise wait out its last parked fetch (default 500 ms) before reading
        p.put("fetch.max.wait.ms", "10");
        p.put("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        p.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        p.putAll(clientProperties);
        p.putAll(localProperties());
        p.put("isolation.level", "read_committed");
        p.put("allow.auto.create.topics", "false");
        return p;
    }

    Properties adminProperties() {
        Properties p = base();
        p.putAll(clientProperties);
        p.putAll(localProperties());
        return p;
    }

    private Properties base() {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers);
        p.put("client.id", "palisade-journal-" + topic + "-" + ProcessHandle.current().pid() + "-" + CLIENTS.incrementAndGet());
        return p;
    }
}
