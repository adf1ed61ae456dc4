package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.FoldMark;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.VersionExpiredException;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableSnapshot;
import io.palisade.substrate.TableStore;
import org.apache.arrow.memory.BufferAllocator;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads of one open graph's tables: a table's rows at a published head, with its journal-ack tail laid over them
 * (docs/journal-ack.md "Reads"), now or as of a journal sequence, and lookups by key. Any thread; a read takes the
 * head and the tail of one journal position from the {@link PublishedView} and then reads Lance outside its lock.
 */
public final class Reads {
    private final PublishedView view;
    private final TableStore store;
    private final BufferAllocator allocator;
    private final GraphLayout layout;

    Reads(PublishedView view, TableStore store, BufferAllocator allocator, GraphLayout layout) {
        this.view = view;
        this.store = store;
        this.allocator = allocator;
        this.layout = layout;
    }

    /** Every row of {@code table} at its published head on {@code branch}. */
    public List<Map<String, Object>> scan(String branch, String table) {
        PublishedView.Snapshot s = view.read(branch, table);
        TableHead head = s.state().head(branch, table).orElseThrow(
                () -> new ValidationException("table '" + table + "' has no head on branch '" + branch + "'"));
        return UnfoldedWrites.overlay(scan(table, head), s.tail(), allocator);
    }

    /** Every row of {@code table} on {@code branch} as of journal sequence {@code seq} (unfolded writes included). */
    public List<Map<String, Object>> scanAt(String branch, String table, long seq) {
        HeadsState at = HeadsReplayer.of(layout.palisade()).headsAt(seq);
        TableHead head = at.head(branch, table).orElseThrow(
                () -> new ValidationException("table '" + table + "' had no head on branch '" + branch + "' at sequence " + seq));
        UnfoldedWrites tail = rebuildUnfolded(layout.palisade(), view.catalog(), at, seq);
        Optional<UnfoldedWrites.Entry> released = tail.firstReleased(branch, table);
        if (released.isPresent()) {
            java.util.OptionalLong below;
            try (io.palisade.journal.JournalReader r = io.palisade.journal.JournalReader.open(layout.palisade())) {
                below = r.rowsReleasedBelow();
            }
            throw new io.palisade.fencing.VersionExpiredException("table '" + table + "' on branch '" + branch
                    + "' at sequence " + seq + " held journal-ack writes not folded yet (the oldest acknowledged at "
                    + "sequence " + released.get().acknowledgedAt + "), and the journal has released their rows since "
                    + "they were folded" + (below.isPresent() ? " (rows are released below sequence "
                    + below.getAsLong() + ", once older than the retention window of "
                    + view.options().retention().window().toMinutes() + " min)" : "")
                    + "; read a point after the fold that took them (docs/journal.md \"Row release\")", -1);
        }
        return UnfoldedWrites.overlay(scan(table, head), tail.newest(branch, table), allocator);
    }

    /**
     * The rows of a keyed table with the given ids at its published head on {@code branch}, by id; an id with no row
     * is absent from the map. A lookup through the table's {@code id} predicate, not a scan of the table.
     */
    public Map<String, Map<String, Object>> get(String branch, String table, Collection<String> keys) {
        Catalog.TableDef def = view.catalog().require(table);
        if (!def.kind().keyed()) {
            throw new ValidationException("table '" + table + "' is append-only: get by key needs a keyed table");
        }
        PublishedView.Snapshot s = view.read(branch, table);
        TableHead head = s.state().head(branch, table).orElseThrow(
                () -> new ValidationException("table '" + table + "' has no head on branch '" + branch + "'"));
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        if (keys.isEmpty()) {
            return out;
        }
        List<String> fromTable = new ArrayList<>();
        for (String k : new LinkedHashSet<>(keys)) {
            Optional<UnfoldedWrites.Answer> a = UnfoldedWrites.answer(s.tail(), k, allocator);
            if (a.isEmpty()) {
                fromTable.add(k);
            } else if (a.get() instanceof UnfoldedWrites.Answer.Present p) {
                out.put(k, p.row());
            }
        }
        if (fromTable.isEmpty()) {
            return out;
        }
        try (TableSnapshot t = store.openKeyed(table, new TableRef(head.tableBranch(), head.version()))) {
            for (Map<String, Object> r : t.rowsWithKeys(BatchValidation.keyFilter(def, fromTable))) {
                out.put(String.valueOf(r.get("id")), r);
            }
        }
        return out;
    }

    /** Every row of {@code table} at an exact head (for merges and tools). */
    List<Map<String, Object>> scan(String branch, String table, TableHead head) {
        return scan(table, head);
    }

    private List<Map<String, Object>> scan(String table, TableHead head) {
        TableRef ref = new TableRef(head.tableBranch(), head.version());
        try (TableSnapshot t = view.catalog().require(table).kind().keyed() ? store.openKeyed(table, ref)
                : store.openKeyless(table, ref)) {
            return t.scan();
        } catch (VersionExpiredException e) {
            throw new VersionExpiredException(e.getMessage() + " (version retention " + view.options().retention().describe()
                    + "); read a newer point", e.oldestKept());
        } catch (PalisadeException e) {
            // a fork point below the bound keeps its manifest but not every file: unreadable, yet retention's doing
            Optional<Removal> removed = removedByRetention(layout.palisade(), store, table, ref);
            if (removed.isEmpty()) {
                throw e;
            }
            throw removed.get().error(table, ref, e);
        }
    }

    /**
     * A table version version retention removed: the oldest version of its table branch kept after it, and the rule of
     * the newest {@code versions_expired} record of that table branch (null when none named it).
     */
    public record Removal(long oldestKept, String rule) {
        /** The error a read of {@code ref} gets: exit 2, naming the rule and the oldest version kept. */
        public VersionExpiredException error(String table, TableRef ref, Exception cause) {
            VersionExpiredException x = new VersionExpiredException("table '" + table + "' no longer has the files of "
                    + "version " + ref.version() + " of its branch " + ref.branch() + ": version retention removed them ("
                    + (rule == null ? "its bound passed the version" : rule) + "), and the oldest version kept after it is "
                    + oldestKept + "; read a newer point", oldestKept);
            x.initCause(cause);
            return x;
        }
    }

    /**
     * When retention removed {@code ref}, the oldest version kept after it; empty when {@code ref} was not retention's
     * to remove. Retention removed it when it is missing and a newer version of its table branch is kept, or when it
     * lies below a journaled {@code versions_expired} bound of its table branch: Lance keeps the manifest of a version
     * another table branch was forked from, but only the files that branch still names, so such a version is listed
     * and yet unreadable once the bound has passed it.
     */
    public static Optional<Removal> removedByRetention(Path palisadeDir, TableStore store, String table, TableRef ref) {
        List<io.palisade.substrate.VersionInfo> kept;
        try {
            kept = store.listVersions(table, ref.branch());
        } catch (PalisadeException e) {
            return Optional.empty();
        }
        long bound = 0;
        String rule = null;
        try (JournalReader reader = JournalReader.open(palisadeDir);
             JournalCursor c = reader.readAvailable(0)) {
            for (JournalRecord r = c.poll(); r != null; r = c.poll()) {
                if (r.event() instanceof JournalEvent.VersionsExpired e && e.table().equals(table)
                        && e.tableBranch().equals(ref.branch()) && e.beforeVersion() >= bound) {
                    bound = e.beforeVersion();
                    rule = e.rule();
                }
            }
        }
        long b = bound;
        if (ref.version() >= b && kept.stream().anyMatch(v -> v.ref().version() == ref.version())) {
            return Optional.empty();
        }
        String r = rule;
        return kept.stream().mapToLong(v -> v.ref().version()).filter(v -> v > ref.version() && v >= b).boxed()
                .findFirst().map(v -> new Removal(v, r));
    }

    /**
     * The unfolded writes as of {@code through}, rebuilt from the journal: every table of {@code at} with unfolded
     * writes names the sequence of its oldest one's intent, and the records from there on are applied.
     */
    static UnfoldedWrites rebuildUnfolded(Path palisadeDir, Catalog catalog, HeadsState at, long through) {
        UnfoldedWrites out = new UnfoldedWrites();
        long from = oldestUnfolded(at);
        if (from == Long.MAX_VALUE) {
            return out;
        }
        try (JournalReader reader = JournalReader.open(palisadeDir);
             JournalCursor c = reader.read(from)) {
            for (JournalRecord r = c.poll(); r != null && r.sequence() <= through; r = c.poll()) {
                out.apply(r);
            }
        }
        return out;
    }

    /** The oldest sequence any table's unfolded writes start at in {@code at}, or {@link Long#MAX_VALUE}. */
    static long oldestUnfolded(HeadsState at) {
        long from = Long.MAX_VALUE;
        for (String b : at.branches().keySet()) {
            for (FoldMark m : at.unfoldedTables(b).values()) {
                from = Math.min(from, m.oldestSequence());
            }
        }
        return from;
    }
}
