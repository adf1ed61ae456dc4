package io.palisade.heads;

import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.TableHead;
import io.palisade.journal.codec.EventCodec;
import io.palisade.journal.codec.MalformedPayloadException;
import io.palisade.journal.codec.PayloadReader;
import io.palisade.journal.codec.PayloadWriter;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import static io.palisade.heads.CheckpointDescriptor.BODY_LENGTH_OFFSET;
import static io.palisade.heads.CheckpointDescriptor.FORMAT_VERSION;
import static io.palisade.heads.CheckpointDescriptor.HEADER_LENGTH;
import static io.palisade.heads.CheckpointDescriptor.MAGIC;
import static io.palisade.heads.CheckpointDescriptor.MAGIC_OFFSET;
import static io.palisade.heads.CheckpointDescriptor.RESERVED_OFFSET;
import static io.palisade.heads.CheckpointDescriptor.SEQUENCE_OFFSET;
import static io.palisade.heads.CheckpointDescriptor.TRAILER_LENGTH;
import static io.palisade.heads.CheckpointDescriptor.VERSION_OFFSET;

/**
 * Encodes a {@link HeadsState} as a checkpoint file image ({@link CheckpointDescriptor}) and back.
 * Deterministic: every map is written sorted by key, so equal states give identical bytes. Open
 * intents keep their Phase A payload in the journal's own payload encoding ({@link EventCodec}).
 */
final class CheckpointCodec {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final Comparator<String> BY_NAME = Comparator.naturalOrder();

    private CheckpointCodec() {
    }

    /** Body kind (format 3 and later): the whole state. */
    static final byte FULL = 0;
    /** Body kind (format 3): the state as the changes over a parent checkpoint (see {@link #encodeDelta}). */
    static final byte DELTA = 1;

    /** The complete file image of {@code state} as a full checkpoint, CRC included. */
    static byte[] encode(HeadsState s) {
        return encode(s, null, null, FORMAT_VERSION);
    }

    /**
     * {@link #encode(HeadsState)} in format 4, whose receipts have no request digest: the writer of the previous
     * format, kept so that tests read what older writers left.
     */
    static byte[] encodeFormat4(HeadsState s) {
        return encode(s, null, null, CheckpointDescriptor.FORMAT_VERSION_4);
    }

    /**
     * {@link #encode(HeadsState)} in format 5, which has no recorded catalog: the writer of the previous format, kept so
     * that tests read what older writers left.
     */
    static byte[] encodeFormat5(HeadsState s) {
        return encode(s, null, null, CheckpointDescriptor.FORMAT_VERSION_5);
    }

    /**
     * The file image of {@code s} as a delta over {@code parent}, a checkpoint already written: the live parts of the
     * state (branches, pins, open intents, migrations, fold marks and plans — bounded by what is in flight, not by
     * history) in full, and of the completed intents and receipts only those gained after {@code parent}, in
     * completion order (a decoder adds them to the parent's and then forgets what the state's bounds say it forgot:
     * {@link HeadsState#lastCheckpointSequence}, {@link HeadsState#receiptsExpiredThrough}). Its cost is bounded by
     * what changed since the parent. Null when {@code s} does not descend from {@code parent} in this process, or
     * its completion log no longer reaches back to the parent (then only a full checkpoint is right).
     */
    static byte[] encodeDelta(HeadsState s, HeadsState parent) {
        if (s.lastSequence <= parent.lastSequence || s.lineage == null || s.lineage != parent.lineage
                || s.lastCheckpointSequence > parent.lastSequence) {
            return null; // another lineage, or a CheckpointWritten after the parent dropped log nodes it needs
        }
        java.util.ArrayDeque<HeadsState.Completion> gained = new java.util.ArrayDeque<>();
        for (HeadsState.Completion c = s.log; c != null && c.intent.completedAt() > parent.lastSequence; c = c.next) {
            gained.addFirst(c);
        }
        return encode(s, parent, gained, FORMAT_VERSION);
    }

    private static byte[] encode(HeadsState s, HeadsState parent, java.util.Collection<HeadsState.Completion> gained,
                                 int version) {
        ExpandableArrayBuffer buf = new ExpandableArrayBuffer(4096);
        PayloadWriter w = new PayloadWriter(buf, HEADER_LENGTH);
        if (parent == null) {
            w.putByte(FULL);
        } else {
            w.putByte(DELTA).putLong(parent.lastSequence);
        }
        w.putLong(s.lastSequence).putLong(s.writerEpoch).putInt(s.formatStamp).putLong(s.lastCheckpointSequence)
                .putLong(s.receiptsExpiredThrough).putString(s.openRecovery);

        var branches = s.branches.sortedEntries(BY_NAME);
        w.putInt(branches.size());
        for (Map.Entry<String, GraphBranch> e : branches) {
            GraphBranch b = e.getValue();
            w.putString(b.name()).putString(b.parent()).putLong(b.fromSequence()).putLong(b.createdAt());
        }

        var pins = s.pins.sortedEntries(BY_NAME);
        w.putInt(pins.size());
        for (Map.Entry<String, PMap<String, Pin>> e : pins) {
            var tables = e.getValue().sortedEntries(BY_NAME);
            w.putString(e.getKey()).putInt(tables.size());
            for (Map.Entry<String, Pin> t : tables) {
                Pin p = t.getValue();
                w.putString(t.getKey());
                putHead(w, p.head());
                w.putString(p.inheritedFrom()).putLong(p.since());
            }
        }

        var open = s.open.sortedEntries(BY_NAME);
        w.putInt(open.size());
        ExpandableArrayBuffer payload = new ExpandableArrayBuffer(512);
        for (Map.Entry<String, OpenIntent> e : open) {
            OpenIntent o = e.getValue();
            int n = EventCodec.encode(o.recorded(), payload, 0);
            byte[] bytes = new byte[n];
            payload.getBytes(0, bytes);
            w.putBytes(bytes).putLong(o.recordedAt()).putShort(o.phase().code()).putString(o.committedTableBranch())
                    .putLong(o.committedVersion()).putLong(o.committedAt());
            putNullableHead(w, o.publishedHead());
            w.putLong(o.publishedAt());
        }

        if (gained == null) {
            var completed = s.completed.sortedEntries(BY_NAME);
            w.putInt(completed.size());
            for (Map.Entry<String, CompletedIntent> e : completed) {
                putCompleted(w, e.getValue());
            }
            var receipts = s.receipts.sortedEntries(BY_NAME);
            w.putInt(receipts.size());
            for (Map.Entry<String, IntentReceipt> e : receipts) {
                putReceipt(w, e.getKey(), e.getValue(), version);
            }
        } else {
            w.putInt(gained.size());
            int receipts = 0;
            for (HeadsState.Completion c : gained) {
                putCompleted(w, c.intent);
                receipts += kept(s, c.receipt) ? 1 : 0;
            }
            w.putInt(receipts);
            for (HeadsState.Completion c : gained) {
                if (kept(s, c.receipt)) {
                    putReceipt(w, c.intent.idempotencyKey(), c.receipt, version);
                }
            }
        }

        var migrations = s.migrations.sortedEntries(BY_NAME);
        w.putInt(migrations.size());
        for (Map.Entry<String, MigrationProgress> e : migrations) {
            MigrationProgress m = e.getValue();
            w.putString(m.migrationId()).putString(m.ownerToken()).putInt(m.fromStamp()).putInt(m.toStamp())
                    .putLong(m.claimedAt()).putInt(m.stampWritten()).putString(m.refusedReason());
            w.putInt(m.units().size());
            for (MigrationUnit u : m.units().values()) {
                w.putString(u.unitId()).putString(u.graphBranch()).putString(u.table()).putString(u.pinnedTableBranch())
                        .putLong(u.pinnedVersion()).putBoolean(u.lazyInherited()).putShort(u.phase().code())
                        .putString(u.forkedTableBranch()).putLong(u.installedVersion());
                putNullableHead(w, u.publishedHead());
            }
            w.putInt(m.verifiedBranches().size());
            for (Map.Entry<String, String> v : m.verifiedBranches().entrySet()) {
                w.putString(v.getKey()).putString(v.getValue());
            }
        }

        // format 2: journal-ack fold marks and open fold plans
        var folds = s.folds.sortedEntries(BY_NAME);
        w.putInt(folds.size());
        for (Map.Entry<String, PMap<String, FoldMark>> e : folds) {
            var tables = e.getValue().sortedEntries(BY_NAME);
            w.putString(e.getKey()).putInt(tables.size());
            for (Map.Entry<String, FoldMark> t : tables) {
                FoldMark f = t.getValue();
                w.putString(t.getKey()).putLong(f.foldedThrough()).putLong(f.unfolded()).putLong(f.oldestSequence())
                        .putLong(f.oldestNanos()).putLong(f.newestSequence());
            }
        }
        var plans = s.foldPlans.sortedEntries(BY_NAME);
        w.putInt(plans.size());
        for (Map.Entry<String, JournalEvent.FoldPlanned> e : plans) {
            int n = EventCodec.encode(e.getValue(), payload, 0);
            byte[] bytes = new byte[n];
            payload.getBytes(0, bytes);
            w.putBytes(bytes);
        }
        // format 3: the writes acknowledged after each open fold plan
        var later = s.foldLater.sortedEntries(BY_NAME);
        w.putInt(later.size());
        for (Map.Entry<String, FoldMark> e : later) {
            FoldMark f = e.getValue();
            w.putString(e.getKey()).putLong(f.foldedThrough()).putLong(f.unfolded()).putLong(f.oldestSequence())
                    .putLong(f.oldestNanos()).putLong(f.newestSequence());
        }
        if (version >= FORMAT_VERSION) { // format 6: the catalog last recorded, in full and in deltas alike
            JournaledCatalog c = s.catalog;
            w.putBoolean(c != null);
            if (c != null) {
                w.putLong(c.sequence()).putString(c.digest()).putString(c.catalog()).putString(c.reason())
                        .putString(c.previousDigest());
            }
        }

        int bodyLength = w.position() - HEADER_LENGTH;
        buf.putInt(MAGIC_OFFSET, MAGIC, LE);
        buf.putInt(VERSION_OFFSET, version, LE);
        buf.putLong(SEQUENCE_OFFSET, s.lastSequence, LE);
        buf.putInt(BODY_LENGTH_OFFSET, bodyLength, LE);
        buf.putInt(RESERVED_OFFSET, 0, LE);
        int crcAt = HEADER_LENGTH + bodyLength;
        buf.putInt(crcAt, crc(buf.byteArray(), crcAt), LE); // written last
        byte[] out = new byte[crcAt + TRAILER_LENGTH];
        buf.getBytes(0, out);
        return out;
    }

    /** Whether {@code s} still keeps {@code receipt} (non-null, not expired). */
    private static boolean kept(HeadsState s, IntentReceipt receipt) {
        return receipt != null && receipt.completionSequence() > s.receiptsExpiredThrough;
    }

    private static void putCompleted(PayloadWriter w, CompletedIntent c) {
        w.putString(c.intentId()).putShort(c.outcome().code()).putString(c.graphBranch()).putString(c.table())
                .putString(c.idempotencyKey()).putLong(c.completedAt());
        putNullableHead(w, c.publishedHead());
    }

    private static void putReceipt(PayloadWriter w, String key, IntentReceipt r, int version) {
        w.putString(key).putString(r.intentId()).putLong(r.completionSequence()).putString(r.graphBranch())
                .putString(r.table()).putString(r.tableBranch()).putLong(r.version()).putShort(r.outcome().code())
                .putLong(r.rows());
        if (version >= CheckpointDescriptor.FORMAT_VERSION_5) {
            w.putString(r.requestDigest());
        }
    }

    private static int crc(byte[] b, int length) {
        CRC32C c = new CRC32C();
        c.update(b, 0, length);
        return (int) c.getValue();
    }

    private static void putHead(PayloadWriter w, TableHead h) {
        w.putString(h.tableBranch()).putLong(h.version()).putLong(h.schemaId()).putLong(h.incarnation());
    }

    private static void putNullableHead(PayloadWriter w, TableHead h) {
        w.putBoolean(h != null);
        if (h != null) {
            putHead(w, h);
        }
    }

    /**
     * Verifies and decodes a file image.
     *
     * @param expectedSequence the sequence named by the file name, or -1 not to check it
     * @throws CheckpointDamagedException when the image does not verify or decode
     */
    static HeadsState decode(byte[] image, Path file, long expectedSequence) {
        return decode(image, file, expectedSequence, parent -> {
            throw new CheckpointDamagedException(file, "a delta over checkpoint " + parent + ", read without its chain");
        });
    }

    /** Resolves the parent checkpoint of a delta by its covered sequence (verified, its own chain resolved). */
    interface Parents {
        HeadsState parent(long sequence);
    }

    /**
     * The parent sequence a checkpoint image is a delta over, -1 for a full checkpoint (every format 1 and 2 file),
     * reading only the image's first bytes and verifying nothing else.
     */
    static long parentSequence(byte[] head) {
        if (head.length < HEADER_LENGTH + 9) {
            return -1;
        }
        UnsafeBuffer buf = new UnsafeBuffer(head);
        int version = buf.getInt(VERSION_OFFSET, LE);
        if (buf.getInt(MAGIC_OFFSET, LE) != MAGIC
                || (version != FORMAT_VERSION && version != CheckpointDescriptor.FORMAT_VERSION_5
                    && version != CheckpointDescriptor.FORMAT_VERSION_4 && version != CheckpointDescriptor.FORMAT_VERSION_3)
                || buf.getByte(HEADER_LENGTH) != DELTA) {
            return -1;
        }
        return buf.getLong(HEADER_LENGTH + 1, LE);
    }

    /**
     * Verifies and decodes a file image; a delta's parent comes from {@code parents}.
     *
     * @throws CheckpointDamagedException when the image (or, for a delta, its parent) does not verify or decode
     */
    static HeadsState decode(byte[] image, Path file, long expectedSequence, Parents parents) {
        if (image.length < HEADER_LENGTH + TRAILER_LENGTH) {
            throw new CheckpointDamagedException(file, "short file: " + image.length + " bytes");
        }
        UnsafeBuffer buf = new UnsafeBuffer(image);
        if (buf.getInt(MAGIC_OFFSET, LE) != MAGIC) {
            throw new CheckpointDamagedException(file, "bad magic");
        }
        int version = buf.getInt(VERSION_OFFSET, LE);
        if (version != FORMAT_VERSION && version != CheckpointDescriptor.FORMAT_VERSION_5
                && version != CheckpointDescriptor.FORMAT_VERSION_4 && version != CheckpointDescriptor.FORMAT_VERSION_3 && version != CheckpointDescriptor.FORMAT_VERSION_2 && version != CheckpointDescriptor.FORMAT_VERSION_1) {
            throw new CheckpointDamagedException(file, "unsupported format version " + version);
        }
        int bodyLength = buf.getInt(BODY_LENGTH_OFFSET, LE);
        if (bodyLength < 0 || (long) HEADER_LENGTH + bodyLength + TRAILER_LENGTH != image.length) {
            throw new CheckpointDamagedException(file, "length mismatch: body length " + bodyLength + " in a file of "
                    + image.length + " bytes (short or torn write)");
        }
        int crcAt = HEADER_LENGTH + bodyLength;
        if (buf.getInt(crcAt, LE) != crc(image, crcAt)) {
            throw new CheckpointDamagedException(file, "CRC32C mismatch");
        }
        long seq = buf.getLong(SEQUENCE_OFFSET, LE);
        if (expectedSequence >= 0 && seq != expectedSequence) {
            throw new CheckpointDamagedException(file, "covers sequence " + seq + " but is named for " + expectedSequence);
        }
        if (buf.getInt(RESERVED_OFFSET, LE) != 0) {
            throw new CheckpointDamagedException(file, "reserved header word is not zero");
        }
        HeadsState s;
        try {
            PayloadReader r = new PayloadReader(buf, HEADER_LENGTH, bodyLength);
            HeadsState parent = null;
            if (version >= CheckpointDescriptor.FORMAT_VERSION_3) {
                byte kind = r.getByte();
                if (kind == DELTA) {
                    long parentSeq = r.getLong();
                    if (parentSeq < 0 || parentSeq >= seq) {
                        throw new CheckpointDamagedException(file, "a delta over checkpoint " + parentSeq
                                + ", which does not precede its own sequence " + seq);
                    }
                    parent = parents.parent(parentSeq);
                    if (parent.lastSequence != parentSeq) {
                        throw new CheckpointDamagedException(file, "its parent covers sequence " + parent.lastSequence
                                + ", not " + parentSeq);
                    }
                } else if (kind != FULL) {
                    throw new CheckpointDamagedException(file, "unknown body kind " + kind);
                }
            }
            s = decodeBody(r, version, parent);
            if (r.remaining() != 0) {
                throw new CheckpointDamagedException(file, r.remaining() + " body bytes left over");
            }
        } catch (MalformedPayloadException | IllegalArgumentException | NullPointerException e) {
            throw new CheckpointDamagedException(file, "body does not decode: " + e.getMessage(), e);
        }
        if (s.lastSequence != seq) {
            throw new CheckpointDamagedException(file, "body covers sequence " + s.lastSequence + ", header " + seq);
        }
        if (!s.branches.containsKey(HeadsState.MAIN)) {
            throw new CheckpointDamagedException(file, "no main branch");
        }
        s.pins.forEach((b, p) -> {
            if (!s.branches.containsKey(b) || p.isEmpty()) {
                throw new CheckpointDamagedException(file, "pins of a branch that is not live: " + b);
            }
        });
        return s;
    }

    private static HeadsState decodeBody(PayloadReader r, int version, HeadsState parent) {
        long lastSequence = r.getLong();
        long writerEpoch = r.getLong();
        int formatStamp = r.getInt();
        long lastCheckpoint = r.getLong();
        long receiptsExpiredThrough = version >= CheckpointDescriptor.FORMAT_VERSION_4 ? r.getLong() : -1;
        String openRecovery = r.getNullableString();

        PMap<String, GraphBranch> branches = PMap.empty();
        for (int i = 0, n = r.getCount(); i < n; i++) {
            GraphBranch b = new GraphBranch(r.getString(), r.getNullableString(), r.getLong(), r.getLong());
            branches = putNew(branches, b.name(), b);
        }

        PMap<String, PMap<String, Pin>> pins = PMap.empty();
        for (int i = 0, n = r.getCount(); i < n; i++) {
            String branch = r.getString();
            PMap<String, Pin> tables = PMap.empty();
            for (int j = 0, m = r.getCount(); j < m; j++) {
                String table = r.getString();
                tables = putNew(tables, table, new Pin(getHead(r), r.getNullableString(), r.getLong()));
            }
            pins = putNew(pins, branch, tables);
        }

        PMap<String, OpenIntent> open = PMap.empty();
        for (int i = 0, n = r.getCount(); i < n; i++) {
            byte[] payload = r.getBytes();
            JournalEvent e = EventCodec.decode(EventCodec.INTENT_RECORDED, new UnsafeBuffer(payload), 0, payload.length);
            IntentRecorded rec = (IntentRecorded) e;
            long recordedAt = r.getLong();
            IntentPhase phase = IntentPhase.ofCode(r.getShort());
            if (phase == null) {
                throw new MalformedPayloadException("unknown intent phase");
            }
            OpenIntent o = new OpenIntent(rec, recordedAt, phase, r.getNullableString(), r.getLong(), r.getLong(),
                    getNullableHead(r), r.getLong());
            open = putNew(open, o.intentId(), o);
        }

        // a delta's completed intents and receipts are those gained after its parent, added to what of the parent's
        // this state still keeps: the intents completed after its last checkpoint, the receipts after its expiry bound
        PMap<String, CompletedIntent> completed = parent == null ? PMap.empty()
                : parent.completed.removeIf((id, c) -> c.completedAt() <= lastCheckpoint);
        long after = parent == null ? Long.MIN_VALUE : parent.lastSequence;
        for (int i = 0, n = r.getCount(); i < n; i++) {
            CompletedIntent c = new CompletedIntent(r.getString(), outcome(r.getShort()), r.getString(), r.getString(),
                    r.getNullableString(), r.getLong(), getNullableHead(r));
            if (parent != null && (c.completedAt() <= after || c.completedAt() > lastSequence)) {
                throw new MalformedPayloadException("delta entry for intent " + c.intentId() + " completed at "
                        + c.completedAt() + ", outside (" + after + ", " + lastSequence + "]");
            }
            if (c.completedAt() > lastCheckpoint) { // an older format's full state still lists covered ones
                completed = putNew(completed, c.intentId(), c);
            }
        }

        PMap<String, IntentReceipt> receipts = parent == null ? PMap.empty()
                : parent.receipts.removeIf((key, rc) -> rc.completionSequence() <= receiptsExpiredThrough);
        for (int i = 0, n = r.getCount(); i < n; i++) {
            String key = r.getString();
            IntentReceipt rc = new IntentReceipt(r.getString(), r.getLong(), r.getString(), r.getString(), r.getString(), r.getLong(),
                    outcome(r.getShort()), r.getLong(), version >= CheckpointDescriptor.FORMAT_VERSION_5 ? r.getNullableString() : null);
            if (parent != null && (rc.completionSequence() <= after || rc.completionSequence() > lastSequence)) {
                throw new MalformedPayloadException("delta receipt for key " + key + " issued at "
                        + rc.completionSequence() + ", outside (" + after + ", " + lastSequence + "]");
            }
            if (rc.completionSequence() > receiptsExpiredThrough) {
                receipts = putNew(receipts, key, rc);
            }
        }

        PMap<String, MigrationProgress> migrations = PMap.empty();
        for (int i = 0, n = r.getCount(); i < n; i++) {
            String id = r.getString();
            String owner = r.getString();
            int from = r.getInt();
            int to = r.getInt();
            long claimedAt = r.getLong();
            int stamp = r.getInt();
            String refused = r.getNullableString();
            TreeMap<String, MigrationUnit> units = new TreeMap<>();
            for (int j = 0, m = r.getCount(); j < m; j++) {
                String unitId = r.getString();
                String gb = r.getString();
                String table = r.getString();
                String pinned = r.getString();
                long pinnedVersion = r.getLong();
                boolean lazy = r.getBoolean();
                MigrationUnit.Phase phase = MigrationUnit.Phase.ofCode(r.getShort());
                if (phase == null) {
                    throw new MalformedPayloadException("unknown migration unit phase");
                }
                MigrationUnit u = new MigrationUnit(unitId, gb, table, pinned, pinnedVersion, lazy, phase,
                        r.getNullableString(), r.getLong(), getNullableHead(r));
                if (units.put(unitId, u) != null) {
                    throw new MalformedPayloadException("duplicate unit " + unitId);
                }
            }
            TreeMap<String, String> verified = new TreeMap<>();
            for (int j = 0, m = r.getCount(); j < m; j++) {
                verified.put(r.getString(), r.getString());
            }
            migrations = putNew(migrations, id,
                    new MigrationProgress(id, owner, from, to, claimedAt, units, verified, stamp, refused));
        }
        PMap<String, PMap<String, FoldMark>> folds = PMap.empty();
        PMap<String, JournalEvent.FoldPlanned> plans = PMap.empty();
        if (version >= CheckpointDescriptor.FORMAT_VERSION_2) {
            for (int i = 0, n = r.getCount(); i < n; i++) {
                String branch = r.getString();
                PMap<String, FoldMark> tables = PMap.empty();
                for (int j = 0, m = r.getCount(); j < m; j++) {
                    String table = r.getString();
                    tables = putNew(tables, table, new FoldMark(r.getLong(), r.getLong(), r.getLong(), r.getLong(), r.getLong()));
                }
                folds = putNew(folds, branch, tables);
            }
            for (int i = 0, n = r.getCount(); i < n; i++) {
                byte[] payload = r.getBytes();
                JournalEvent.FoldPlanned p = (JournalEvent.FoldPlanned) EventCodec.decode(EventCodec.FOLD_PLANNED,
                        new UnsafeBuffer(payload), 0, payload.length);
                plans = putNew(plans, p.intentId(), p);
            }
        }
        PMap<String, FoldMark> later = PMap.empty();
        if (version >= CheckpointDescriptor.FORMAT_VERSION_3) {
            for (int i = 0, n = r.getCount(); i < n; i++) {
                String id = r.getString();
                later = putNew(later, id, new FoldMark(r.getLong(), r.getLong(), r.getLong(), r.getLong(), r.getLong()));
                if (!plans.containsKey(id)) {
                    throw new MalformedPayloadException("writes after the plan of fold " + id + ", which is not open");
                }
            }
        }
        JournaledCatalog catalog = null;
        if (version >= FORMAT_VERSION && r.getBoolean()) {
            catalog = new JournaledCatalog(r.getLong(), r.getString(), r.getString(), r.getString(),
                    r.getNullableString());
            if (catalog.sequence() < 0 || catalog.sequence() > lastSequence) {
                throw new MalformedPayloadException("catalog recorded at sequence " + catalog.sequence()
                        + ", outside [0, " + lastSequence + "]");
            }
        }
        return new HeadsState(lastSequence, writerEpoch, formatStamp, lastCheckpoint, receiptsExpiredThrough,
                openRecovery, branches, pins, open, completed, receipts, migrations, folds, plans, later, catalog, null,
                new Object());
    }


    private static <V> PMap<String, V> putNew(PMap<String, V> m, String key, V value) {
        if (m.containsKey(key)) {
            throw new MalformedPayloadException("duplicate key " + key);
        }
        return m.put(key, value);
    }

    private static IntentOutcome outcome(short code) {
        IntentOutcome o = IntentOutcome.ofCode(code);
        if (o == null) {
            throw new MalformedPayloadException("unknown intent outcome " + code);
        }
        return o;
    }

    private static TableHead getHead(PayloadReader r) {
        return new TableHead(r.getString(), r.getLong(), r.getLong(), r.getLong());
    }

    private static TableHead getNullableHead(PayloadReader r) {
        return r.getBoolean() ? getHead(r) : null;
    }
}
