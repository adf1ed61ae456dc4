package io.palisade.journal;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.wire.Wire;
import net.openhft.posix.MAdviseFlag;
import net.openhft.posix.PosixAPI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the kernel from reading around the journal's mapped cycle file: {@code madvise(MADV_RANDOM)} on each mapping
 * the appender writes through, as soon as it has written through it.
 *
 * <p><b>Why.</b> Chronicle writes the journal through a shared mapping of its cycle file, and a {@code POWER_LOSS}
 * append ends with an msync of the pages its records touched. Linux fills a mapping's missing pages by read-around,
 * in page-cache folios whose order grows round by round (to 2 MiB where the file system caches files in large folios:
 * XFS, and ext4 in recent 6.x kernels; this project's machines run 6.18 on ext4; the window is the disk's
 * {@code read_ahead_kb}), and it dirties and writes back a folio whole. Without the advice, once the
 * first ~40 MiB of a cycle file had ramped the order up, each sync of a group of ~15 KiB of records dirtied and wrote
 * its 2 MiB folio: 135 times the bytes, and 0.6 ms a sync instead of 0.2 ms. With it each missing page comes in
 * alone (a hole of the sparse file: zero-filled, no read), so a sync writes the pages the group touched
 * (docs/benchmarks.md, "The journal's syncs wrote whole large folios").
 *
 * <p>Chronicle maps a new cycle file, or the next chunk of one, inside the append that first needs it, so the advice
 * comes one append after the mapping: those first pages come in at read-around's lowest order, which the measurement
 * above shows as no change in the bytes a sync writes across chunk boundaries.
 *
 * <p>The advice changes what the kernel reads ahead, never what a read or a sync returns. Where the kernel refuses
 * it the journal logs it once and goes on as before, advising each later mapping again; where there is no native
 * {@code madvise} to call it stops trying. Used under the journal's append serialisation, like the appender.
 */
final class MappingAdvice {
    private static final Logger LOG = LoggerFactory.getLogger(MappingAdvice.class);

    /** The mapping last advised: the appender writes through one mapping at a time. */
    private BytesStore<?, ?> advised;
    /** No native {@code madvise} to call here: the advice is not tried again. */
    private boolean unavailable;
    private boolean warned;

    /** Advises the mapping the appender now writes through, unless it already was. Cheap when it was. */
    void adviseCurrent(ExcerptAppender appender) {
        if (unavailable) {
            return;
        }
        Wire wire = appender.wire();
        if (wire == null) {
            return;
        }
        BytesStore<?, ?> store = wire.bytes().bytesStore();
        if (store == advised || !(store instanceof MappedBytesStore mapping)) {
            return;
        }
        advised = store;
        // the store's offsets are the file's: it maps [start, realCapacity) at the address of start
        long address = mapping.addressForRead(mapping.start());
        long length = mapping.realCapacity() - mapping.start();
        try {
            PosixAPI posix = PosixAPI.posix();
            if (posix.madvise(address, length, MAdviseFlag.MADV_RANDOM) != 0) {
                refused("errno " + posix.lastError() + " for " + length + " bytes from file offset " + mapping.start());
            }
        } catch (RuntimeException | LinkageError e) {
            unavailable = true;
            refused(e.toString());
        }
    }

    /** Logged once per journal; each later mapping is advised again. */
    private void refused(String why) {
        if (!warned) {
            warned = true;
            LOG.warn("journal: the kernel did not take the journal mapping's random-access advice ({}); its syncs may "
                    + "write back more than the records they cover", why);
        }
    }
}
