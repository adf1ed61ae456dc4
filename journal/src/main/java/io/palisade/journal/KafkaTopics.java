package io.palisade.journal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this process knows of each Kafka journal topic: a sparse index from sequence to Kafka offset (every
 * {@link #INDEX_EVERY}-th sequence, filled by every stream and by the writer), so positioning reads at most that many
 * records forward; a few idle consumers for reuse; and the offset one past the last record this process committed, so a reader opened after an
 * append returns it (a committed transaction becomes readable under {@code read_committed} only once its marker is
 * written, which the commit does not wait for).
 */
final class KafkaTopics {
    static final long INDEX_EVERY = 256;
    static final int MAX_IDLE = 4;

    private static final Map<String, Topic> TOPICS = new ConcurrentHashMap<>();

    private KafkaTopics() {
    }

    static Topic of(KafkaJournalConfig c) {
        return TOPICS.computeIfAbsent(c.bootstrapServers() + "/" + c.topic(), k -> new Topic());
    }

    static final class Topic {
        /** sequence -> offset of its record, for sequences divisible by INDEX_EVERY. */
        final ConcurrentSkipListMap<Long, Long> offsets = new ConcurrentSkipListMap<>();
        /** One past the offset of the last record this process committed (0 when none). */
        final AtomicLong committedEnd = new AtomicLong();

        void indexed(long sequence, long offset) {
            if (sequence % INDEX_EVERY == 0) {
                offsets.put(sequence, offset);
            }
        }

        void committed(long lastOffset) {
            committedEnd.accumulateAndGet(lastOffset + 1, Math::max);
        }

        /** Idle consumers of this topic (read_committed, no group), reused by streams: creating one costs a round trip. */
        private final java.util.concurrent.ConcurrentLinkedDeque<org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>> idle =
                new java.util.concurrent.ConcurrentLinkedDeque<>();
        private final java.util.concurrent.atomic.AtomicInteger idleCount = new java.util.concurrent.atomic.AtomicInteger();

        org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> borrow(KafkaJournalConfig c) {
            var k = idle.pollFirst();
            if (k != null) {
                idleCount.decrementAndGet();
                return k;
            }
            return new org.apache.kafka.clients.consumer.KafkaConsumer<>(c.consumerProperties());
        }

        /** Keeps at most {@link #MAX_IDLE} idle consumers; closes the rest. */
        void giveBack(org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> k, boolean healthy) {
            if (healthy && idleCount.incrementAndGet() <= MAX_IDLE) {
                idle.addFirst(k);
                return;
            }
            if (healthy) {
                idleCount.decrementAndGet();
            }
            k.close(java.time.Duration.ZERO);
        }
    }
}
