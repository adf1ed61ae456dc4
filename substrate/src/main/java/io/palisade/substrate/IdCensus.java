package io.palisade.substrate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an exact pass over the {@code id} column of one table state found ({@link TableStore#idCensus}):
 * the schema facts the primary-key contract needs and how many ids are null or held more than once.
 * Used before a foreign version is adopted (docs/recovery.md "Foreign commits") and by the repair.
 *
 * @param ref            the state counted
 * @param rows           rows at that state
 * @param primaryKey     the fields marked as the unenforced primary key (empty when none)
 * @param idType         the Arrow type of {@code id} (e.g. {@code Utf8}, {@code Int(64, true)}), null when the state has no {@code id} column
 * @param idNullable     whether {@code id} is nullable in the schema (false when absent)
 * @param nullIds        rows whose {@code id} is null
 * @param duplicatedKeys distinct ids held by more than one row
 * @param extraRows      rows beyond the first of each duplicated id (what a repair would remove)
 * @param sample         up to the asked number of duplicated ids with their row counts, ascending by id
 */
public record IdCensus(TableRef ref, long rows, List<String> primaryKey, String idType, boolean idNullable,
                       long nullIds, long duplicatedKeys, long extraRows, Map<String, Long> sample) {
    public IdCensus {
        Objects.requireNonNull(ref, "ref");
        primaryKey = List.copyOf(primaryKey);
        sample = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(sample));
    }

    /** Whether the state has an {@code id} column at all. */
    public boolean hasId() {
        return idType != null;
    }

    /** No null and no duplicated id. */
    public boolean idsClean() {
        return nullIds == 0 && duplicatedKeys == 0;
    }

    /** The sampled duplicated ids (no counts). */
    public List<String> sampleKeys() {
        return new ArrayList<>(sample.keySet());
    }

    /** The sample for a person: {@code 'alice' (2 rows), 'bob' (3 rows)}, plus "and N more" when cut short. */
    public String describeSample() {
        List<String> parts = new ArrayList<>();
        sample.forEach((k, n) -> parts.add("'" + k + "' (" + n + " rows)"));
        String s = String.join(", ", parts);
        return duplicatedKeys > sample.size() ? s + " and " + (duplicatedKeys - sample.size()) + " more" : s;
    }

    /** Counts ids of one state, as a store's default {@link TableStore#idCensus} does from its rows. */
    public static IdCensus of(TableRef ref, List<String> primaryKey, String idType, boolean idNullable,
                              Iterable<?> ids, int sampleSize) {
        Counter c = new Counter();
        for (Object id : ids) {
            c.add(id);
        }
        return c.census(ref, primaryKey, idType, idNullable, sampleSize);
    }

    /** An exact id counter; feed it every id of a state (null for a null id). */
    public static final class Counter {
        private final Map<Object, long[]> counts = new java.util.HashMap<>();
        private long rows;
        private long nulls;

        public void add(Object id) {
            rows++;
            if (id == null) {
                nulls++;
                return;
            }
            counts.computeIfAbsent(id, k -> new long[1])[0]++;
        }

        public IdCensus census(TableRef ref, List<String> primaryKey, String idType, boolean idNullable, int sampleSize) {
            long dupKeys = 0;
            long extra = 0;
            List<Object> dups = new ArrayList<>();
            for (Map.Entry<Object, long[]> e : counts.entrySet()) {
                if (e.getValue()[0] > 1) {
                    dupKeys++;
                    extra += e.getValue()[0] - 1;
                    dups.add(e.getKey());
                }
            }
            dups.sort((a, b) -> a instanceof Long x && b instanceof Long y ? Long.compare(x, y)
                    : String.valueOf(a).compareTo(String.valueOf(b)));
            Map<String, Long> sample = new LinkedHashMap<>();
            for (Object k : dups.subList(0, Math.min(Math.max(0, sampleSize), dups.size()))) {
                sample.put(String.valueOf(k), counts.get(k)[0]);
            }
            return new IdCensus(ref, rows, primaryKey, idType, idNullable, nulls, dupKeys, extra, sample);
        }
    }
}
