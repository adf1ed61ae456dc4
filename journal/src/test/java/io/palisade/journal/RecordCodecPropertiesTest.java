package io.palisade.journal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.journal.codec.EventCodec;
import io.palisade.journal.codec.MalformedPayloadException;
import io.palisade.journal.codec.RecordCodec;
import io.palisade.journal.codec.RecordDescriptor;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

class RecordCodecPropertiesTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void everyEventRoundTripsThroughTheRecordFormat() {
        Map<String, Integer> perType = new ConcurrentHashMap<>();
        qt().withExamples(2000).forAll(EventGens.anyRecordedEvent(), longs().all(), longs().all(), longs().all())
                .checkAssert((event, seq, ts, epoch) -> {
                    everyEventRoundTripsThroughTheRecordFormat(event, seq, ts, epoch);
                    perType.merge(JsonRenderer.typeName(event), 1, Integer::sum);
                });
        // coverage: every event type took part, at least 20 times (of about 2000 / 25 each)
        for (String type : ALL_TYPES) {
            assertThat(perType.getOrDefault(type, 0)).as("examples of %s", type).isGreaterThanOrEqualTo(20);
        }
        assertThat(perType.keySet()).containsExactlyInAnyOrderElementsOf(ALL_TYPES);
    }

    private static void everyEventRoundTripsThroughTheRecordFormat(JournalEvent event, long seq, long ts, long epoch) {
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
    }

    private static final List<String> ALL_TYPES = List.of("writer_started", "intent_recorded", "table_committed",
            "head_published", "intent_completed", "graph_branch_created", "graph_branch_deleted", "checkpoint_written",
            "migration_claimed", "migration_unit_planned", "migration_unit_forked", "migration_pk_installed",
            "migration_unit_published", "migration_branch_verified", "migration_stamp_written", "migration_refused",
            "recovery_started", "recovery_finished", "torn_tail_cut", "load_progress", "table_version_set_aside",
            "foreign_commit_found", "duplicates_repaired", "rows_recorded", "fold_planned", "versions_expired",
            "receipts_expired", "catalog_recorded", "rows_released", "transaction_committed",
            "transaction_started", "write_journaled", "write_released");

    @Test
    void everyEventRendersAsOneLineOfJsonWithStableHeaderFields() {
        qt().withExamples(300).forAll(EventGens.anyRecordedEvent())
                .checkAssert(RecordCodecPropertiesTest::everyEventRendersAsOneLineOfJsonWithStableHeaderFields);
    }

    private static void everyEventRendersAsOneLineOfJsonWithStableHeaderFields(JournalEvent event) {
        String json = JsonRenderer.toJson(new JournalRecord(42, 1_700_000_000_123_456_789L, 3, event));
        assertThat(json).doesNotContain("\n");
        JsonNode n;
        try {
            n = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
        assertThat(n.get("seq").asLong()).isEqualTo(42);
        assertThat(n.get("time").asText()).isEqualTo("2023-11-14T22:13:20.123456789Z");
        assertThat(n.get("epoch").asLong()).isEqualTo(3);
        assertThat(n.get("type").asText()).isEqualTo(JsonRenderer.typeName(event)).matches("[a-z_]+");
        n.fieldNames().forEachRemaining(f -> assertThat(f).matches("[a-z][a-z0-9_]*"));
    }

    @Test
    void aPayloadCutShortOrExtendedNeverDecodes() {
        qt().withExamples(200).forAll(EventGens.anyRecordedEvent())
                .checkAssert(RecordCodecPropertiesTest::aPayloadCutShortOrExtendedNeverDecodes);
    }

    private static void aPayloadCutShortOrExtendedNeverDecodes(JournalEvent event) {
        ExpandableArrayBuffer buf = new ExpandableArrayBuffer(64);
        int payload = EventCodec.encode(event, buf, 0);
        if (payload > 0) {
            assertThatThrownBy(() -> EventCodec.decode(EventCodec.typeCode(event), buf, 0, payload - 1))
                    .isInstanceOf(MalformedPayloadException.class);
        }
        assertThatThrownBy(() -> EventCodec.decode(EventCodec.typeCode(event), buf, 0, payload + 1))
                .isInstanceOf(MalformedPayloadException.class);
    }

    @Test
    void typeCodesAreDistinctAndStable() {
        qt().withExamples(50).forAll(EventGens.anyRecordedEvent())
                .checkAssert(RecordCodecPropertiesTest::typeCodesAreDistinctAndStable);
    }

    private static void typeCodesAreDistinctAndStable(JournalEvent event) {
        Set<Short> codes = new HashSet<>();
        for (short c : new short[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
                28, 40, 41, 42, 44, 60}) {
            assertThat(codes.add(c)).isTrue();
        }
        assertThat(codes).contains(EventCodec.typeCode(event));
    }
}
