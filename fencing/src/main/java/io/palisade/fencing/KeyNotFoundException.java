package io.palisade.fencing;

import java.util.List;

/**
 * An update named keys the table does not hold when it commits: an update changes existing rows only, so the whole
 * update is refused and nothing is written (insert or upsert a new row instead). {@link #keys()} are the first few
 * absent keys, {@link #missingKeyCount()} how many there are in all.
 */
public class KeyNotFoundException extends ValidationException {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final List<String> keys;
    private final long missingKeyCount;

    /**
     * @param table           the table updated
     * @param branch          the graph branch updated
     * @param keys            the first few absent keys, rendered as text
     * @param missingKeyCount how many keys are absent in all (at least {@code keys.size()})
     */
    public KeyNotFoundException(String table, String branch, List<String> keys, long missingKeyCount) {
        super("update of table '" + table + "' on branch '" + branch + "': " + missingKeyCount
                + (missingKeyCount == 1 ? " key is" : " keys are") + " not in the table " + keys
                + (missingKeyCount > keys.size() ? " and " + (missingKeyCount - keys.size()) + " more" : "")
                + "; an update changes existing rows only (insert or upsert new ones)");
        this.table = table;
        this.keys = List.copyOf(keys);
        this.missingKeyCount = missingKeyCount;
    }

    public String table() {
        return table;
    }

    /** The first few absent keys. */
    public List<String> keys() {
        return keys;
    }

    public long missingKeyCount() {
        return missingKeyCount;
    }
}
