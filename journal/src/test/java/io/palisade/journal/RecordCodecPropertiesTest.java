package io.palisade.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.journal.codec.EventCodec;
import io.palisade.journal.codec.MalformedPayloadException;
import io.palisade.journal.codec.RecordCodec;
import io.palisade.journal.codec.RecordDescriptor;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.agrona.ExpandableArrayBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecordCodecPropertiesTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Provide
    Arbitrary<JournalEvent> events() {
        return EventArbitraries.anyEvent();
    }

    @Property(tries = 2000)
    void everyEventRoundTripsThroughTheRecordFormat(@ForAll("events") JournalEvent event, @ForAll long seq,
                                                    @ForAll long ts, @ForAll long epoch) {
        RecordCodec codec = new RecordCodec();
        ExpandableArrayBuffer buf = new ExpandableArrayBuffer(64);
        byte[] prev = new byte[32];
        Arrays.fill(prev, (byte) 7);
        int len = codec.encode(event, seq, ts, epoch, prev, buf);
        byte[] bytes = Arrays.copyOf(buf.byteArray(), len);

        assertThat(codec.check(bytes, 0, len)).isNull();
        assertThat(codec.decode(bytes, 0, len)).isEqualTo(event);
        assertThat(RecordCodec.sequence(bytes, 0)).isEqualTo(seq);
        assertThat(RecordCodec.timestamp(bytes, 0)).isEqualTo(ts);
        assertThat(RecordCodec.epoch(bytes, 0)).isEqualTo(epoch);
        assertThat(RecordCodec.previousHashEquals(bytes, 0, prev)).isTrue();
        assertThat(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getShort(RecordDescriptor.TYPE_OFFSET))
                .isEqualTo(EventCodec.typeCode(event));

        Statistics.collect(JsonRenderer.typeName(event));
        Statistics.coverage(checker -> {
            for (String type : ALL_TYPES) {
                checker.check(type).count(c -> c >= 20);
            }
        });
    }

    private static final List<String> ALL_TYPES = List.of("writer_started", "intent_recorded", "table_committed",
            "head_published", "intent_completed", "graph_branch_created", "graph_branch_deleted", "checkpoint_written",
            "migration_claimed", "migration_unit_planned", "migration_unit_forked", "migration_pk_installed",
            "migration_unit_published", "migration_branch_verified", "migration_stamp_written", "migration_refused",
            "recovery_started", "recovery_finished", "torn_tail_cut");

    @Property(tries = 300)
    void everyEventRendersAsOneLineOfJsonWithStableHeaderFields(@ForAll("events") JournalEvent event) throws Exception {
        String json = JsonRenderer.toJson(new JournalRecord(42, 1_700_000_000_123_456_789L, 3, event));
        assertThat(json).doesNotContain("\n");
        JsonNode n = MAPPER.readTree(json);
        assertThat(n.get("seq").asLong()).isEqualTo(42);
        assertThat(n.get("time").asText()).isEqualTo("2023-11-14T22:13:20.123456789Z");
        assertThat(n.get("epoch").asLong()).isEqualTo(3);
        assertThat(n.get("type").asText()).isEqualTo(JsonRenderer.typeName(event)).matches("[a-z_]+");
        n.fieldNames().forEachRemaining(f -> assertThat(f).matches("[a-z][a-z0-9_]*"));
    }

    @Property(tries = 200)
    void aPayloadCutShortOrExtendedNeverDecodes(@ForAll("events") JournalEvent event) {
        ExpandableArrayBuffer buf = new ExpandableArrayBuffer(64);
        int payload = EventCodec.encode(event, buf, 0);
        if (payload > 0) {
            assertThatThrownBy(() -> EventCodec.decode(EventCodec.typeCode(event), buf, 0, payload - 1))
                    .isInstanceOf(MalformedPayloadException.class);
        }
        assertThatThrownBy(() -> EventCodec.decode(EventCodec.typeCode(event), buf, 0, payload + 1))
                .isInstanceOf(MalformedPayloadException.class);
    }

    @Property(tries = 50)
    void typeCodesAreDistinctAndStable(@ForAll("events") JournalEvent event) {
        Set<Short> codes = new HashSet<>();
        for (short c : new short[] {1, 2, 3, 4, 5, 6, 7, 8, 20, 21, 22, 23, 24, 25, 26, 27, 40, 41, 60}) {
            assertThat(codes.add(c)).isTrue();
        }
        assertThat(codes).contains(EventCodec.typeCode(event));
    }
}
