package io.palisade.journal;

import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.codec.MalformedPayloadException;
import io.palisade.journal.codec.RecordCodec;
import io.palisade.journal.codec.RecordDescriptor;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VersioningTest {

    private static byte[] record(RecordCodec codec) {
        ExpandableArrayBuffer buf = new ExpandableArrayBuffer(64);
        int len = codec.encode(new GraphBranchDeleted("b"), 0, 0, 1, new byte[32], buf);
        return Arrays.copyOf(buf.byteArray(), len);
    }

    /** Re-seals a modified record with a valid CRC, as a newer writer would have written it. */
    private static void reseal(byte[] b) {
        CRC32C crc = new CRC32C();
        crc.update(b, 0, b.length - 4);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length - 4, (int) crc.getValue());
    }

    @Test
    void anUnknownTypeCodeIsRefusedLoudlyNotSkipped() {
        RecordCodec codec = new RecordCodec();
        byte[] b = record(codec);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putShort(RecordDescriptor.TYPE_OFFSET, (short) 999);
        reseal(b);
        assertThat(codec.check(b, 0, b.length)).isNull();
        assertThatThrownBy(() -> codec.decode(b, 0, b.length))
                .isInstanceOf(MalformedPayloadException.class)
                .hasMessageContaining("type code 999 is unknown");
    }

    @Test
    void aNewerFormatVersionIsRefusedLoudlyNotSkipped() {
        RecordCodec codec = new RecordCodec();
        byte[] b = record(codec);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putShort(RecordDescriptor.VERSION_OFFSET, (short) 2);
        reseal(b);
        assertThatThrownBy(() -> codec.decode(b, 0, b.length))
                .isInstanceOf(MalformedPayloadException.class)
                .hasMessageContaining("format version 2");
    }

    @Test
    void unknownEnumCodesInsideAPayloadAreRefused() {
        RecordCodec codec = new RecordCodec();
        ExpandableArrayBuffer buf = new ExpandableArrayBuffer(64);
        int len = codec.encode(new JournalEvent.IntentCompleted("i", IntentOutcome.ABORTED, "r", null,
                java.util.List.of()), 0, 0, 1, new byte[32], buf);
        byte[] b = Arrays.copyOf(buf.byteArray(), len);
        // outcome code follows the intent id string (4-byte length + 1 byte)
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putShort(RecordDescriptor.HEADER_LENGTH + 5, (short) 77);
        reseal(b);
        assertThatThrownBy(() -> codec.decode(b, 0, b.length))
                .isInstanceOf(MalformedPayloadException.class)
                .hasMessageContaining("outcome");
    }
}
