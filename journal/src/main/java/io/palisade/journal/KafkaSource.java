package io.palisade.journal;

import io.palisade.journal.codec.RecordCodec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.List;

/** Reads a graph's Kafka journal topic; every stream owns its consumer. */
final class KafkaSource implements RecordSource {
    private final KafkaJournalConfig config;
    private final KafkaTopics.Topic known;

    private KafkaSource(KafkaJournalConfig config) {
        this.config = config;
        this.known = KafkaTopics.of(config);
    }

    static KafkaSource of(KafkaJournalConfig config) {
        return new KafkaSource(config);
    }

    @Override
    public RecordStream open(long fromSequence, boolean follow) {
        return new KafkaRecordStream(config, known, fromSequence, follow);
    }

    /**
     * The sequence after the last committed record that passes its check, found by reading backwards from the end in
     * growing windows (offsets are sparse: transaction markers and aborted records hold offsets too).
     */
    @Override
    public long endSequence() {
        TopicPartition tp = new TopicPartition(config.topic(), 0);
        RecordCodec codec = new RecordCodec();
        KafkaConsumer<byte[], byte[]> c = known.borrow(config);
        boolean healthy = false;
        try {
            c.assign(List.of(tp));
            long end = Math.max(c.endOffsets(List.of(tp)).getOrDefault(tp, 0L), known.committedEnd.get());
            long begin = c.beginningOffsets(List.of(tp)).getOrDefault(tp, 0L);
            long deadline = System.nanoTime() + KafkaRecordStream.READ_DEADLINE.toNanos();
            for (long window = 16; ; window *= 4) {
                long start = Math.max(begin, end - window);
                c.seek(tp, start);
                long last = -1;
                while (c.position(tp) < end) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200)).records(tp)) {
                        if (r.offset() < end && r.value() != null && codec.check(r.value(), 0, r.value().length) == null) {
                            last = RecordCodec.sequence(r.value(), 0);
                        }
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new io.palisade.fencing.CommitStateUnknownException("journal topic " + config.topic()
                                + ": committed records up to offset " + end + " are not readable", null);
                    }
                }
                if (last >= 0 || start == begin) {
                    healthy = true;
                    return last + 1;
                }
            }
        } finally {
            known.giveBack(c, healthy);
        }
    }

    @Override
    public String describe() {
        return "Kafka topic " + config.topic() + " at " + config.bootstrapServers();
    }
}
