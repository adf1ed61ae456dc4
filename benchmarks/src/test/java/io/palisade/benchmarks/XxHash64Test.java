package io.palisade.benchmarks;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class XxHash64Test {

    private static long h(String s) {
        return XxHash64.hash(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void referenceVectorsWithSeedZero() {
        assertThat(h("")).isEqualTo(0xEF46DB3751D8E999L);   // = 17241709254077376921, upstream test_hash_bytes
        assertThat(h("a")).isEqualTo(0xD24EC4F1A98C6E5BL);
        assertThat(h("abc")).isEqualTo(0x44BC2CF5AD770999L);
        // 39 bytes: one 32-byte stripe, then a 4-byte and three 1-byte tail steps
        assertThat(h("Nobody inspects the spammish repetition")).isEqualTo(0xFBCEA83C8A378BF1L);
    }

    @Test
    void hashLongIsTheHashOfItsEightLittleEndianBytes() {
        SplittableRandom rnd = new SplittableRandom(11);
        for (int i = 0; i < 1000; i++) {
            long v = rnd.nextLong();
            byte[] le = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
            assertThat(XxHash64.hashLong(v)).isEqualTo(XxHash64.hash(le));
        }
    }
}
