/**
 * The graph's append-only journal, Palisade's source of truth (DESIGN §4): the sealed event vocabulary
 * {@link io.palisade.journal.JournalEvent}, the one writer {@link io.palisade.journal.Journal} (on Chronicle Queue
 * under the {@link io.palisade.journal.WriterLease}, or on the Kafka topic a
 * {@link io.palisade.journal.KafkaJournalConfig} names) and the read-only {@link io.palisade.journal.JournalReader},
 * safe beside a live writer in any process.
 * <p>
 * Every record carries a dense sequence, its writer's epoch, the SHA-256 of the record before it and a CRC32C; an
 * append returns only once durable in the requested {@link io.palisade.journal.Durability}, a torn Chronicle tail
 * is cut back and reported, and mid-log corruption, an unknown type code or a newer format version fails with
 * {@link io.palisade.fencing.JournalCorruptedException}, never a skip. The public types are the API; the storage SPI
 * behind them is package-private, the record and payload formats are in the {@code codec} sub-package, appends are
 * serialised by the {@code Journal}, and each cursor belongs to one thread.
 */
package io.palisade.journal;
