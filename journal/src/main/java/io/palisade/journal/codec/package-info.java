/**
 * The journal's byte formats, version 1: {@link io.palisade.journal.codec.RecordDescriptor}'s record layout (the
 * CRC32C over header and payload written last, the chain hashing the whole record),
 * {@link io.palisade.journal.codec.RecordCodec}'s framing and checks, and
 * {@link io.palisade.journal.codec.EventCodec}'s hand-written payload codec, whose type codes are stable and never
 * reused.
 * <p>
 * Decoding is exact: a payload must be consumed to its last byte, and one that passes its CRC but does not decode
 * is a {@link io.palisade.journal.codec.MalformedPayloadException}, which the journal rethrows as a
 * {@link io.palisade.fencing.JournalCorruptedException} naming the sequence. An implementation detail of the
 * journal, public only so that table-heads' checkpoints can reuse the payload encoding and the benchmarks can frame
 * records; record codecs and payload readers and writers are not thread-safe (one per thread).
 */
package io.palisade.journal.codec;
