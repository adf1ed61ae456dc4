package io.palisade.journal;

import io.palisade.journal.codec.RecordDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * A point of the journal's hash chain that an earlier writer verified and made durable: the sequence of a record and
 * its SHA-256. The writer's open verifies the chain from the newest anchor to the end instead of from sequence 0, so
 * an open costs what was appended since the anchor, not the journal's length; the anchor's record must still hash to
 * the anchor's value, else (or when the file is missing, damaged, or names a record the journal no longer holds) the
 * open verifies from sequence 0 as before. A record before the anchor is then not read by the open: corruption there is
 * found by {@code JournalReader.verify()} ({@code palisade audit verify}) and by any reader of that range.
 *
 * <p>File {@code _palisade/journal/chain.anchor} (little-endian), written by the write-temp, fsync, rename,
 * fsync-directory recipe, so it is whole or absent:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     magic "PCHA" (0x41484350)                 |  0
 *  +---------------------------------------------------------------+
 *  |                        format version (1)                     |  4
 *  +---------------------------------------------------------------+
 *  |                      sequence (int64)                         |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |            SHA-256 of the record at sequence (32 bytes)       |  16
 *  |                              ...                              |
 *  +---------------------------------------------------------------+
 *  |                  CRC32C over bytes [0, 48)                    |  48
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * @param sequence the record's sequence
 * @param hash     its SHA-256 (the value the next record's previous-hash field holds)
 */
record ChainAnchor(long sequence, byte[] hash) {
    private static final Logger LOG = LoggerFactory.getLogger(ChainAnchor.class);

    static final String FILE = "chain.anchor";
    static final int MAGIC = 0x41484350;
    static final int VERSION = 1;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int SEQUENCE_OFFSET = 8;
    static final int HASH_OFFSET = 16;
    static final int CRC_OFFSET = HASH_OFFSET + RecordDescriptor.HASH_LENGTH;
    static final int LENGTH = CRC_OFFSET + 4;

    ChainAnchor {
        if (sequence < 0 || hash == null || hash.length != RecordDescriptor.HASH_LENGTH) {
            throw new IllegalArgumentException("an anchor names a sequence >= 0 and a " + RecordDescriptor.HASH_LENGTH
                    + "-byte hash");
        }
        hash = hash.clone();
    }

    /** Whether {@code other} is this anchor's hash. */
    boolean matches(byte[] other) {
        return other != null && Arrays.equals(hash, other);
    }

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC_OFFSET, MAGIC).putInt(VERSION_OFFSET, VERSION).putLong(SEQUENCE_OFFSET, sequence);
        b.put(HASH_OFFSET, hash);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, CRC_OFFSET);
        b.putInt(CRC_OFFSET, (int) crc.getValue());
        return b.array();
    }

    /** The anchor an image holds; empty when it is not exactly one whole, valid anchor. */
    static Optional<ChainAnchor> decode(byte[] image) {
        if (image.length != LENGTH) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        CRC32C crc = new CRC32C();
        crc.update(image, 0, CRC_OFFSET);
        if (b.getInt(MAGIC_OFFSET) != MAGIC || b.getInt(VERSION_OFFSET) != VERSION
                || b.getInt(CRC_OFFSET) != (int) crc.getValue() || b.getLong(SEQUENCE_OFFSET) < 0) {
            return Optional.empty();
        }
        return Optional.of(new ChainAnchor(b.getLong(SEQUENCE_OFFSET),
                Arrays.copyOfRange(image, HASH_OFFSET, HASH_OFFSET + RecordDescriptor.HASH_LENGTH)));
    }

    /** The anchor of the journal in {@code journalDir}; empty (logged) when there is none or it does not verify. */
    static Optional<ChainAnchor> read(Path journalDir) {
        Path f = journalDir.resolve(FILE);
        try {
            Optional<ChainAnchor> a = decode(Files.readAllBytes(f));
            if (a.isEmpty()) {
                LOG.warn("journal {}: the chain anchor {} does not verify; the open verifies the journal from "
                        + "sequence 0", journalDir, f.getFileName());
            }
            return a;
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            LOG.warn("journal {}: the chain anchor cannot be read ({}); the open verifies the journal from sequence 0",
                    journalDir, e.toString());
            return Optional.empty();
        }
    }

    /** Writes this anchor durably over the journal's previous one. */
    void write(Path journalDir) {
        Path tmp = journalDir.resolve(FILE + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer b = ByteBuffer.wrap(encode());
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(tmp, journalDir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Segments.fsyncDirectory(journalDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the chain anchor of journal " + journalDir, e);
        }
    }
}
