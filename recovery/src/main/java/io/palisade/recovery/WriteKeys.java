package io.palisade.recovery;

import io.palisade.fencing.KeyFilter;
import io.palisade.heads.HeadsState;
import io.palisade.heads.OpenIntent;
import io.palisade.journal.JournalEvent.FoldPlanned;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether one table version can be an open group's commit, judged by the group's keys: after the commit of inserts,
 * upserts and folds every key they wrote is held exactly once, and every key a delete (or a fold's plan) removed is
 * gone. Groups carrying another operation, or no key filter, are judged by their version count only.
 */
final class WriteKeys {
    /** How many keys a finding names at most. */
    private static final int SAMPLE = 20;

    private WriteKeys() {
    }

    /**
     * Why version {@code at} cannot be the commit of the open group (inserts, upserts or deletes with key filters on a
     * keyed table), judged by the group's keys there; empty when it can be (or the group carries no keys).
     */
    static Optional<String> notTheWrites(TableStore store, HeadsState state, List<OpenIntent> group, TableRef at) {
        KeyFilter written = null;
        KeyFilter deleted = null;
        for (OpenIntent o : group) {
            KeyFilter k = o.recorded().keyFilter();
            if (k == null || k.isEmpty()) {
                continue;
            }
            switch (o.recorded().operation()) {
                case INSERT, UPSERT, UPDATE -> written = written == null ? k : written.union(k);
                case DELETE -> deleted = deleted == null ? k : deleted.union(k);
                case FOLD -> {
                    // a fold upserts the newest row of every key of its filter and deletes its plan's deleted keys
                    KeyFilter gone = state.foldPlan(o.intentId()).map(FoldPlanned::deletedKeys).orElse(null);
                    KeyFilter kept = gone == null ? k : without(k, gone);
                    if (kept != null) {
                        written = written == null ? kept : written.union(kept);
                    }
                    if (gone != null) {
                        deleted = deleted == null ? gone : deleted.union(gone);
                    }
                }
                case OVERWRITE, ADD_COLUMNS, INDEX_MAINTENANCE, COMPACTION, CREATE_TABLE, BRANCH_MERGE, MIGRATION_UNIT,
                     REPAIR -> {
                    return Optional.empty(); // judged by its version count only
                }
            }
        }
        if (written == null && deleted == null) {
            return Optional.empty();
        }
        try (KeyedTable t = store.openKeyed(group.get(0).table(), at)) {
            if (written != null) {
                Map<String, Long> counts = t.keyCounts(written);
                List<String> twice = counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                        .sorted().limit(SAMPLE).toList();
                if (!twice.isEmpty()) {
                    return Optional.of("it holds the write's keys " + twice + " more than once");
                }
                if (counts.size() < written.size()) {
                    List<String> missing = written.keys().stream().filter(k -> !counts.containsKey(k)).sorted()
                            .limit(SAMPLE).toList();
                    return Optional.of("it lacks the write's keys " + missing);
                }
            }
            if (deleted != null) {
                Map<String, Long> still = t.keyCounts(deleted);
                if (!still.isEmpty()) {
                    return Optional.of("it still holds the keys the write deleted "
                            + still.keySet().stream().limit(SAMPLE).toList());
                }
            }
        }
        return Optional.empty();
    }

    /** The keys of {@code all} not in {@code minus}, as a filter of the same fields; null when none remain. */
    private static KeyFilter without(KeyFilter all, KeyFilter minus) {
        boolean ints = all.keyType() == KeyFilter.KeyType.INT64;
        List<String> kept = all.keys().stream().filter(x -> ints ? !minus.contains(Long.parseLong(x)) : !minus.contains(x))
                .toList();
        if (kept.isEmpty()) {
            return null;
        }
        if (all.keyType() == KeyFilter.KeyType.INT64) {
            return KeyFilter.ofLongs(all.fieldIds(), kept.stream().mapToLong(Long::parseLong).toArray());
        }
        return KeyFilter.ofStrings(all.fieldIds(), kept);
    }
}
