package io.palisade.recovery;

import io.palisade.fencing.TableCorruptedException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The check of every published head's files (docs/recovery.md, "Damaged published heads"): each distinct
 * {@code (table, table branch, version)} a graph branch pins must have a manifest that decodes and the
 * files its own commit added present with their recorded sizes ({@link TableStore#damage}). A damaged one
 * held acknowledged rows, so it is corruption: a {@link TableCorruptedException} naming the table, the graph
 * branch, the table branch, the version, the damaged files and the intents whose commit produced it.
 *
 * <p>Cost: one {@link TableStore#damage} per distinct head (the Lance store opens the version and the one
 * before it and stats the files the version added); the journal is read only when damage is found.
 */
public final class PublishedHeads {

    /** How far before a head's publication the journal is searched for the {@code TableCommitted} naming it. */
    static final int INTENT_SEARCH_WINDOW = 4096;

    private PublishedHeads() {
    }

    /**
     * Every damaged published head, one exception per distinct table version, in branch and table order.
     *
     * @param journal opens a reader of the journal, used only when damage is found (to name the intents)
     */
    public static List<TableCorruptedException> damaged(HeadsState state, TableStore store, Supplier<JournalReader> journal) {
        Map<String, Found> heads = new LinkedHashMap<>();
        for (String branch : state.branches().keySet()) {
            for (Map.Entry<String, Pin> e : state.pins(branch).entrySet()) {
                TableHead h = e.getValue().head();
                if (h.version() < 1) {
                    continue;
                }
                String key = e.getKey() + "\u0000" + h.tableBranch() + "\u0000" + h.version();
                Found f = heads.get(key);
                if (f == null || (e.getValue().owned() && !f.pin.owned())) {
                    heads.put(key, new Found(branch, e.getKey(), e.getValue()));
                }
            }
        }
        List<TableCorruptedException> out = new ArrayList<>();
        for (Found f : heads.values()) {
            TableHead h = f.pin.head();
            Optional<DamagedVersion> d = store.damage(f.table, new TableRef(h.tableBranch(), h.version()));
            if (d.isEmpty()) {
                continue;
            }
            List<String> intents;
            try (JournalReader reader = journal.get()) {
                intents = intentsOf(reader, f.graphBranch, f.table, h, f.pin.since());
            }
            out.add(new TableCorruptedException(f.table, f.graphBranch, h.tableBranch(), h.version(), d.get().damaged(),
                    intents, d.get().reason(), null));
        }
        return out;
    }

    /** Throws the first damaged published head's {@link TableCorruptedException}, if any. */
    public static void check(HeadsState state, TableStore store, Supplier<JournalReader> journal) {
        List<TableCorruptedException> damaged = damaged(state, store, journal);
        if (!damaged.isEmpty()) {
            throw damaged.get(0);
        }
    }

    /** The intents whose commit produced the head {@code graphBranch} pins for {@code table} (empty when none is journaled). */
    public static List<String> intentsOf(Supplier<JournalReader> journal, HeadsState state, String graphBranch, String table) {
        Optional<Pin> pin = state.pin(graphBranch, table);
        if (pin.isEmpty()) {
            return List.of();
        }
        try (JournalReader reader = journal.get()) {
            return intentsOf(reader, graphBranch, table, pin.get().head(), pin.get().since());
        }
    }

    /**
     * The intents of the {@code TableCommitted} records that reached {@code head}, searched before its
     * publication (an inherited head was committed by another graph branch, so the graph branch is not matched).
     */
    static List<String> intentsOf(JournalReader reader, String graphBranch, String table, TableHead head, long published) {
        LinkedHashSet<String> ids = new LinkedHashSet<>();
        try (JournalCursor c = reader.readAvailable(Math.max(0, published - INTENT_SEARCH_WINDOW))) {
            for (JournalRecord r = c.poll(); r != null && r.sequence() <= published; r = c.poll()) {
                if (r.event() instanceof TableCommitted tc && tc.table().equals(table)
                        && tc.tableBranch().equals(head.tableBranch()) && tc.achievedVersion() == head.version()) {
                    ids.addAll(tc.intentIds());
                }
            }
        }
        return List.copyOf(ids);
    }

    private record Found(String graphBranch, String table, Pin pin) {
    }
}
