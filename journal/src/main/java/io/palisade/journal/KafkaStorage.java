package io.palisade.journal;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.WriterFencedException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The journal on Kafka: one single-partition topic per graph, replicated ({@code acks=all} against the topic's
 * {@code min.insync.replicas}), written by a transactional producer with the graph's {@code transactional.id}.
 *
 * <p>Fencing replaces the lease: {@code initTransactions()} bumps the producer epoch of the graph's transactional id,
 * which fences every older producer of it and completes or aborts its open transaction. Only then is the topic read
 * (so every record the previous writer committed is visible) and this session's writer epoch allocated as the last
 * journaled epoch + 1. A fenced producer's next transactional call fails with {@link ProducerFencedException} (idle)
 * or {@link InvalidProducerEpochException} (mid-transaction): both become {@link WriterFencedException}.
 *
 * <p>One {@link #write} is one transaction (group commit): it returns once the commit is acknowledged, i.e. every
 * record is on {@code min.insync.replicas} brokers. Both {@link Durability} modes mean the same here. A transaction
 * that fails and is then aborted is known not to be in the journal (readers read committed transactions only), so the
 * same records are sent again in a new transaction, up to {@link #ATTEMPTS} times in all; a broker that refuses a
 * transaction's state now and then (Kafka's {@code InvalidTxnStateException}) costs a resend, not the writer. A
 * transaction that cannot be aborted may have been committed: {@link CommitStateUnknownException}.
 */
final class KafkaStorage implements JournalStorage {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaStorage.class);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);
    /** Transactions tried per {@link #write}: the first and the resends after an abort. */
    static final int ATTEMPTS = 3;

    private final KafkaJournalConfig config;
    private final KafkaTopics.Topic known;
    private final Producer<byte[], byte[]> producer;
    private final LeaseOwner owner;
    private final LeaseOwner previous;
    private final ChainState scan;

    private KafkaStorage(KafkaJournalConfig config, KafkaTopics.Topic known, Producer<byte[], byte[]> producer,
                         LeaseOwner owner, LeaseOwner previous, ChainState scan) {
        this.config = config;
        this.known = known;
        this.producer = producer;
        this.owner = owner;
        this.previous = previous;
        this.scan = scan;
    }

    /**
     * Creates the topic if absent, fences the previous writer, reads and verifies the whole journal.
     *
     * @throws WriterFencedException  a newer writer started while this one opened
     * @throws GraphRefusedException  Kafka is unreachable, or the topic is not a journal topic (more than one partition)
     */
    static KafkaStorage open(KafkaJournalConfig config, Clock clock) {
        ensureTopic(config);
        KafkaTopics.Topic known = KafkaTopics.of(config);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config.producerProperties());
        try {
            try {
                producer.initTransactions();
            } catch (RuntimeException e) {
                throw mapOpen(config, e);
            }
            ChainState state;
            LeaseOwner previous = null;
            try (KafkaRecordStream s = new KafkaRecordStream(config, known, 0, false)) {
                JournalRecord r;
                while ((r = s.poll()) != null) {
                    if (r.event() instanceof JournalEvent.WriterStarted w) {
                        previous = new LeaseOwner(w.pid(), w.host(), r.time(), w.epoch(), w.ownerToken());
                    }
                }
                state = ChainState.of(s, s.lastEpoch(), s.lastTimestamp());
            }
            long epoch = state.lastEpoch() + 1;
            LeaseOwner owner = new LeaseOwner(ProcessHandle.current().pid(), WriterLease.hostName(), clock.instant(),
                    epoch, UUID.randomUUID().toString());
            if (previous != null) {
                LOG.info("journal topic {}: previous writer epoch {} ({}) fenced; new epoch {}", config.topic(),
                        previous.epoch(), previous.describe(), epoch);
            }
            return new KafkaStorage(config, known, producer, owner, previous, state);
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
    }

    private static RuntimeException mapOpen(KafkaJournalConfig config, RuntimeException e) {
        if (isFenced(e)) {
            return new WriterFencedException("journal topic " + config.topic() + ": a newer writer started while this"
                    + " one was opening", e);
        }
        return new GraphRefusedException("journal topic " + config.topic() + " at " + config.bootstrapServers()
                + " cannot be opened for writing: " + e.getMessage(), e);
    }

    private static void ensureTopic(KafkaJournalConfig config) {
        try (Admin admin = Admin.create(config.adminProperties())) {
            TopicDescription d = null;
            try {
                d = admin.describeTopics(List.of(config.topic())).allTopicNames()
                        .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(config.topic());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
            if (d == null) {
                NewTopic t = new NewTopic(config.topic(), 1, (short) config.replicationFactor()).configs(Map.of(
                        "min.insync.replicas", Integer.toString(config.minInsyncReplicas()),
                        "unclean.leader.election.enable", "false",
                        "retention.ms", "-1",
                        "retention.bytes", "-1",
                        "cleanup.policy", "delete",
                        "max.message.bytes", Integer.toString(KafkaJournalConfig.MAX_RECORD_BYTES + (1 << 20))));
                try {
                    admin.createTopics(List.of(t)).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    LOG.info("journal topic {} created ({} replicas, min.insync.replicas {})", config.topic(),
                            config.replicationFactor(), config.minInsyncReplicas());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            } else if (d.partitions().size() != 1) {
                throw new GraphRefusedException("journal topic " + config.topic() + " has " + d.partitions().size()
                        + " partitions; a journal topic has exactly one");
            } else {
                checkDurability(config, admin);
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw adminFailure(config, "cannot be described or created", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GraphRefusedException("interrupted while opening journal topic " + config.topic(), e);
        }
    }

    /** An admin call that failed, in words: a timeout means no broker answered. */
    private static GraphRefusedException adminFailure(KafkaJournalConfig config, String what, Exception e) {
        Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        String why = c instanceof org.apache.kafka.common.errors.TimeoutException
                || c instanceof java.util.concurrent.TimeoutException
                ? "no broker answered in time (check the bootstrap servers, and that the brokers are up and reachable)"
                : c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
        return new GraphRefusedException("journal topic " + config.topic() + " at " + config.bootstrapServers() + " "
                + what + ": " + why, c);
    }

    /**
     * Before a new graph's journal is opened on {@code config}'s topic: the topic must be absent, or an empty journal
     * topic (one partition, the durability {@link #checkDurability} asks, no record), so that a create never appends to
     * (and never fences the writer of) another graph's journal. Reads only; creates nothing.
     *
     * @throws GraphRefusedException the topic holds records, has more than one partition or weaker durability, or
     *                               Kafka cannot be reached
     */
    static void checkNewTopic(KafkaJournalConfig config) {
        try (Admin admin = Admin.create(config.adminProperties())) {
            TopicDescription d;
            try {
                d = admin.describeTopics(List.of(config.topic())).allTopicNames()
                        .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(config.topic());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    return;
                }
                throw e;
            }
            if (d.partitions().size() != 1) {
                throw new GraphRefusedException("journal topic " + config.topic() + " has " + d.partitions().size()
                        + " partitions; a journal topic has exactly one");
            }
            checkDurability(config, admin);
            org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(config.topic(), 0);
            long end = admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest())).partitionResult(tp)
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).offset();
            if (end > 0) {
                throw new GraphRefusedException("journal topic " + config.topic() + " is not empty (" + end + " offsets"
                        + " written): it is another graph's journal, or one of a create that did not finish; a new graph"
                        + " needs an absent or empty topic (name another one, or leave the name to Palisade)");
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw adminFailure(config, "cannot be described", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GraphRefusedException("interrupted while describing journal topic " + config.topic(), e);
        }
    }

    /**
     * A topic that already exists (made by an operator, or by an earlier open) must keep an acknowledged record on as
     * many brokers as the configuration says: its {@code min.insync.replicas} at least the configured one (what
     * {@code acks=all} waits for) and no unclean leader election (which could elect a replica without it).
     */
    private static void checkDurability(KafkaJournalConfig config, Admin admin)
            throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
        org.apache.kafka.common.config.ConfigResource r = new org.apache.kafka.common.config.ConfigResource(
                org.apache.kafka.common.config.ConfigResource.Type.TOPIC, config.topic());
        org.apache.kafka.clients.admin.Config c = admin.describeConfigs(List.of(r)).all()
                .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(r);
        org.apache.kafka.clients.admin.ConfigEntry isr = c.get("min.insync.replicas");
        int minIsr = isr == null || isr.value() == null ? 1 : Integer.parseInt(isr.value());
        if (minIsr < config.minInsyncReplicas()) {
            throw new GraphRefusedException("journal topic " + config.topic() + " has min.insync.replicas " + minIsr
                    + ", below the configured " + config.minInsyncReplicas() + ": an acknowledged record would be on"
                    + " fewer brokers than configured; raise the topic's min.insync.replicas or lower the graph's");
        }
        org.apache.kafka.clients.admin.ConfigEntry unclean = c.get("unclean.leader.election.enable");
        if (unclean != null && "true".equals(unclean.value())) {
            throw new GraphRefusedException("journal topic " + config.topic() + " allows unclean leader election, which"
                    + " can lose acknowledged records; set unclean.leader.election.enable=false on the topic");
        }
    }

    @Override
    public RowReleaseReport releaseRows(long belowSequence, long olderThanNanos, RowRelease.Hook hook) {
        return new RowReleaseReport(belowSequence, 0, 0, 0, 0, 0, 0,
                List.of("the journal is a Kafka topic: its bytes are bounded by the topic's retention, not released"));
    }

    @Override
    public LeaseOwner owner() {
        return owner;
    }

    @Override
    public Optional<LeaseOwner> previousOwner() {
        return Optional.ofNullable(previous);
    }

    @Override
    public ChainState scan() {
        return scan;
    }

    /** A storage writing through {@code producer}, whose transactions are initialised: the write path without a broker. */
    static KafkaStorage over(KafkaJournalConfig config, Producer<byte[], byte[]> producer, LeaseOwner owner) {
        return new KafkaStorage(config, new KafkaTopics.Topic(), producer, owner, null, null);
    }

    /** One transaction for the whole group, sent again after a failed transaction that was aborted. */
    @Override
    public void write(byte[] bytes, int[] offsets, int n, long firstSequence, Durability durability) {
        String range = firstSequence + ".." + (firstSequence + n - 1);
        for (int attempt = 1; ; attempt++) {
            List<Future<RecordMetadata>> sent = new ArrayList<>(n);
            try {
                producer.beginTransaction();
                for (int i = 0; i < n; i++) {
                    sent.add(producer.send(new ProducerRecord<>(config.topic(), 0, null,
                            Arrays.copyOfRange(bytes, offsets[i], offsets[i + 1]))));
                }
                producer.commitTransaction();
            } catch (RuntimeException e) {
                if (isFenced(e)) {
                    throw fenced(e, range);
                }
                boolean aborted = abort();
                if (aborted && attempt < ATTEMPTS) {
                    LOG.warn("journal topic {}: the transaction of sequences {} failed and was aborted ({}); sending it"
                            + " again (attempt {} of {})", config.topic(), range, e.getMessage(), attempt + 1, ATTEMPTS);
                    continue;
                }
                throw new CommitStateUnknownException("journal topic " + config.topic() + ": the transaction of sequences "
                        + range + (aborted ? " was aborted after " + attempt + " attempts"
                        : " may or may not have been committed") + ": " + e.getMessage(), e);
            }
            indexCommitted(sent, firstSequence, n, range);
            return;
        }
    }

    /** Records the committed sends' offsets; every future is complete, since the commit flushed every send. */
    private void indexCommitted(List<Future<RecordMetadata>> sent, long firstSequence, int n, String range) {
        long lastOffset = -1;
        for (int i = 0; i < n; i++) {
            long offset;
            try {
                offset = sent.get(i).get().offset();
            } catch (ExecutionException e) {
                throw new CommitStateUnknownException("journal topic " + config.topic() + ": the transaction of sequences "
                        + range + " committed, but a send reports a failure: " + e.getCause().getMessage(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommitStateUnknownException("interrupted after the journal commit of sequences " + range, e);
            }
            known.indexed(firstSequence + i, offset);
            lastOffset = offset;
        }
        known.committed(lastOffset);
    }

    private WriterFencedException fenced(RuntimeException e, String range) {
        return new WriterFencedException("journal topic " + config.topic() + ": this writer (epoch " + owner.epoch()
                + ") was fenced by a newer writer of the graph; sequences " + range + " are not part of the journal", e);
    }

    /** Whether the open transaction was aborted; false leaves its outcome unknown. */
    private boolean abort() {
        try {
            producer.abortTransaction();
            return true;
        } catch (RuntimeException ignored) {
            return false;
        }
    }

    static boolean isFenced(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void started() {
        // the topic needs no marker: WriterStarted is committed
    }

    @Override
    public RecordSource source() {
        return KafkaSource.of(config);
    }

    @Override
    public String describe() {
        return "Kafka topic " + config.topic();
    }

    @Override
    public void close(boolean flush) {
        producer.close(flush ? Duration.ofSeconds(10) : Duration.ZERO);
    }
}
