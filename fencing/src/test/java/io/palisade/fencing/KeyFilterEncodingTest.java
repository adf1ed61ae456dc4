package io.palisade.fencing;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The binary form of {@link KeyFilterDescriptor}: layout, compactness, and rejection of corrupt input. */
class KeyFilterEncodingTest {

    private static final byte INT64 = 1;
    private static final byte UTF8 = 0;

    /** A hand-made encoding: header, field ids, then raw key bytes. */
    private static final class Bytes {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        static Bytes header(int magic, int version, int type, int fieldCount, int keyCount, int... fields) {
            ByteBuffer b = ByteBuffer.allocate(12 + 4 * fields.length).order(ByteOrder.LITTLE_ENDIAN);
            b.putShort((short) magic).put((byte) version).put((byte) type).putInt(fieldCount).putInt(keyCount);
            for (int f : fields) {
                b.putInt(f);
            }
            Bytes x = new Bytes();
            x.out.writeBytes(b.array());
            return x;
        }

        static Bytes valid(int type, int keyCount, int... fields) {
            return header(0x464B, 1, type, fields.length, keyCount, fields);
        }

        Bytes varint(long v) {
            while ((v & ~0x7FL) != 0) {
                out.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
            return this;
        }

        Bytes zigzag(long v) {
            return varint((v << 1) ^ (v >> 63));
        }

        Bytes key(int shared, String rest) {
            byte[] r = rest.getBytes(StandardCharsets.UTF_8);
            varint(shared).varint(r.length);
            out.writeBytes(r);
            return this;
        }

        Bytes raw(int... bytes) {
            for (int b : bytes) {
                out.write(b);
            }
            return this;
        }

        byte[] get() {
            return out.toByteArray();
        }
    }

    private static void assertRejected(byte[] encoded, String messagePart) {
        assertThatThrownBy(() -> KeyFilter.decode(encoded))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining(messagePart);
    }

    @Test
    void layoutMatchesTheDescriptor() {
        byte[] enc = KeyFilter.ofLongs(new int[] {3, 1}, new long[] {-1, 5}).encode();
        byte[] expected = Bytes.valid(INT64, 2, 1, 3).zigzag(-1).varint(6).get();
        assertThat(enc).isEqualTo(expected);
        assertThat(enc[0]).isEqualTo((byte) 'K');
        assertThat(enc[1]).isEqualTo((byte) 'F');

        byte[] s = KeyFilter.ofStrings(0, List.of("abc", "abd", "b")).encode();
        assertThat(s).isEqualTo(Bytes.valid(UTF8, 3, 0).key(0, "abc").key(2, "d").key(0, "b").get());
    }

    @Test
    void handMadeValidEncodingDecodes() {
        KeyFilter f = KeyFilter.decode(Bytes.valid(UTF8, 2, 0).key(0, "user/1").key(5, "2").get());
        assertThat(f.keys()).containsExactly("user/1", "user/2");
        // Long.MIN_VALUE followed by the unsigned difference 2^64-1 is Long.MAX_VALUE
        KeyFilter g = KeyFilter.decode(Bytes.valid(INT64, 2, 7).zigzag(Long.MIN_VALUE).varint(-1L).get());
        assertThat(g).isEqualTo(KeyFilter.ofLongs(7, Long.MAX_VALUE, Long.MIN_VALUE));
        // a declared key count of 3 with only two keys present is truncation
        assertRejected(Bytes.valid(INT64, 3, 7).zigzag(Long.MIN_VALUE).varint(-1L).get(), "truncated");
    }

    @Test
    void extremeLongKeysRoundTrip() {
        KeyFilter f = KeyFilter.ofLongs(0, Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE);
        assertThat(KeyFilter.decode(f.encode())).isEqualTo(f);
        KeyFilter g = KeyFilter.ofLongs(0, Long.MIN_VALUE, Long.MAX_VALUE);
        assertThat(KeyFilter.decode(g.encode()).keys())
                .containsExactly(String.valueOf(Long.MIN_VALUE), String.valueOf(Long.MAX_VALUE));
    }

    @Test
    void emptyFiltersRoundTrip() {
        for (KeyFilter.KeyType t : KeyFilter.KeyType.values()) {
            KeyFilter e = KeyFilter.empty(new int[] {2, 9}, t);
            byte[] enc = e.encode();
            assertThat(enc).hasSize(12 + 8);
            assertThat(KeyFilter.decode(enc)).isEqualTo(e);
        }
    }

    @Test
    void wrongMagicIsRejected() {
        assertRejected(Bytes.header(0x4B46, 1, INT64, 1, 0, 0).get(), "bad magic");
        byte[] enc = KeyFilter.ofLongs(0, 1).encode();
        enc[0] = 'X';
        assertRejected(enc, "bad magic");
    }

    @Test
    void unknownVersionIsRejected() {
        assertRejected(Bytes.header(0x464B, 2, INT64, 1, 0, 0).get(), "version 2");
        assertRejected(Bytes.header(0x464B, 0, INT64, 1, 0, 0).get(), "version 0");
    }

    @Test
    void unknownKeyTypeIsRejected() {
        assertRejected(Bytes.header(0x464B, 1, 2, 1, 0, 0).get(), "unknown key type 2");
        assertRejected(Bytes.header(0x464B, 1, -1, 1, 0, 0).get(), "unknown key type -1");
    }

    @Test
    void badFieldIdsAreRejected() {
        assertRejected(Bytes.header(0x464B, 1, INT64, 0, 0).get(), "0 fields");
        assertRejected(Bytes.header(0x464B, 1, INT64, -1, 0).get(), "-1 fields");
        assertRejected(Bytes.header(0x464B, 1, INT64, 2, 0, 4, 4).get(), "field ids not ascending");
        assertRejected(Bytes.header(0x464B, 1, INT64, 2, 0, 4, 1).get(), "field ids not ascending");
        assertRejected(Bytes.header(0x464B, 1, INT64, 1, 0, -3).get(), "field ids not ascending");
    }

    @Test
    void impossibleKeyCountIsRejected() {
        assertRejected(Bytes.valid(INT64, -1, 0).get(), "-1 keys");
        assertRejected(Bytes.valid(INT64, Integer.MAX_VALUE, 0).zigzag(1).get(), "keys");
        assertRejected(Bytes.valid(UTF8, Integer.MAX_VALUE, 0).key(0, "a").get(), "keys");
    }

    @Test
    void truncationAtEveryOffsetIsRejected() {
        List<byte[]> encodings = List.of(
                KeyFilter.ofLongs(new int[] {0, 5}, new long[] {Long.MIN_VALUE, -300, 0, 1, 1L << 40, Long.MAX_VALUE}).encode(),
                KeyFilter.ofStrings(0, List.of("", "alpha", "alphabet", "\u00e9t\u00e9", "\uD83D\uDE00z")).encode());
        for (byte[] enc : encodings) {
            for (int len = 0; len < enc.length; len++) {
                byte[] cut = Arrays.copyOf(enc, len);
                assertThatThrownBy(() -> KeyFilter.decode(cut))
                        .as("truncated at %d of %d bytes", len, enc.length)
                        .isExactlyInstanceOf(ValidationException.class);
            }
            assertThatCode(() -> KeyFilter.decode(enc)).doesNotThrowAnyException();
        }
    }

    @Test
    void trailingBytesAreRejected() {
        for (byte[] enc : List.of(KeyFilter.ofLongs(0, 1, 2).encode(), KeyFilter.ofStrings(0, List.of("a")).encode(),
                KeyFilter.empty(new int[] {0}, KeyFilter.KeyType.UTF8).encode())) {
            byte[] longer = Arrays.copyOf(enc, enc.length + 1);
            assertRejected(longer, "trailing");
        }
    }

    @Test
    void repeatedLongKeyIsRejected() {
        assertRejected(Bytes.valid(INT64, 2, 0).zigzag(7).varint(0).get(), "not ascending at 1");
    }

    @Test
    void wrappingLongDifferenceIsRejected() {
        // 5 followed by a difference that wraps past Long.MAX_VALUE back to 4
        assertRejected(Bytes.valid(INT64, 2, 0).zigzag(5).varint(-1L).get(), "not ascending at 1");
        assertRejected(Bytes.valid(INT64, 2, 0).zigzag(Long.MAX_VALUE).varint(1).get(), "not ascending at 1");
    }

    @Test
    void descendingStringKeysAreRejected() {
        assertRejected(Bytes.valid(UTF8, 2, 0).key(0, "b").key(0, "a").get(), "not ascending at 1");
    }

    @Test
    void repeatedStringKeyIsRejected() {
        assertRejected(Bytes.valid(UTF8, 2, 0).key(0, "ab").key(2, "").get(), "not ascending at 1");
        assertRejected(Bytes.valid(UTF8, 2, 0).key(0, "").key(0, "").get(), "not ascending at 1");
    }

    @Test
    void sharedPrefixLongerThanThePreviousKeyIsRejected() {
        assertRejected(Bytes.valid(UTF8, 2, 0).key(0, "ab").key(3, "c").get(), "bad key lengths at 1");
        assertRejected(Bytes.valid(UTF8, 1, 0).key(1, "a").get(), "bad key lengths at 0");
    }

    @Test
    void keyLengthBeyondTheInputIsRejected() {
        assertRejected(Bytes.valid(UTF8, 1, 0).varint(0).varint(100).raw('a', 'b').get(), "bad key lengths at 0");
        assertRejected(Bytes.valid(UTF8, 1, 0).varint(0).varint(-1L).get(), "bad key lengths at 0");
    }

    @Test
    void overlongVarintIsRejected() {
        Bytes b = Bytes.valid(INT64, 1, 0);
        for (int i = 0; i < 11; i++) {
            b.raw(0x80);
        }
        b.raw(0x01);
        assertThatThrownBy(() -> KeyFilter.decode(b.get())).isExactlyInstanceOf(ValidationException.class);
    }

    @Test
    void randomGarbageIsRejectedOnlyWithValidationException() {
        Random rnd = new Random(20261129);
        for (int i = 0; i < 20_000; i++) {
            byte[] junk = new byte[rnd.nextInt(64)];
            rnd.nextBytes(junk);
            if (junk.length >= 4 && rnd.nextBoolean()) {
                junk[0] = 'K';
                junk[1] = 'F';
                junk[2] = 1;
                junk[3] = (byte) rnd.nextInt(2);
            }
            try {
                KeyFilter.decode(junk);
            } catch (ValidationException expected) {
                // the only permitted failure
            }
        }
    }

    @Test
    void sequentialLongKeysEncodeBelowTwoBytesPerKey() {
        KeyFilter f = KeyFilter.ofLongs(0, LongStream.range(0, 100_000).map(i -> 1_000_000_000_000L + i).toArray());
        byte[] enc = f.encode();
        assertThat(enc.length).isLessThan(2 * 100_000);
        assertThat(KeyFilter.decode(enc)).isEqualTo(f);
    }

    @Test
    void sortedUuidLikeKeysWithSharedPrefixesEncodeBelowTheirRawSize() {
        Random rnd = new Random(7);
        List<String> keys = new ArrayList<>();
        long raw = 0;
        for (int i = 0; i < 20_000; i++) {
            String k = "graph/tenant-" + (i % 4) + "/node/" + new UUID(rnd.nextLong(), rnd.nextLong());
            keys.add(k);
            raw += k.getBytes(StandardCharsets.UTF_8).length;
        }
        KeyFilter f = KeyFilter.ofStrings(0, keys);
        byte[] enc = f.encode();
        assertThat((long) enc.length).isLessThan(raw);
        assertThat(KeyFilter.decode(enc)).isEqualTo(f);

        List<String> counters = new ArrayList<>();
        long rawCounters = 0;
        for (int i = 0; i < 50_000; i++) {
            String k = String.format("person-%010d", i);
            counters.add(k);
            rawCounters += k.length();
        }
        byte[] encCounters = KeyFilter.ofStrings(0, counters).encode();
        // front coding stores only the differing tail of consecutive counters
        assertThat((long) encCounters.length).isLessThan(rawCounters / 3);
    }
}
