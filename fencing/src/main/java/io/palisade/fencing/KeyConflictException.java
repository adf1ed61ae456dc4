package io.palisade.fencing;

import java.util.List;
import java.util.Optional;

/**
 * A strict insert met a key that already exists at its base or that a concurrent winner inserted
 * (RFC-023 §6: both cases normalise to this one exception, for the whole operation). Never retried
 * automatically and never turned into an update.
 */
public class KeyConflictException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final List<String> keys;
    private final long conflictingKeyCount;
    private final String winningIntent;

    /**
     * @param table                the table written
     * @param keys                 the first few conflicting keys, rendered as text
     * @param conflictingKeyCount  how many keys conflict in all (at least {@code keys.size()})
     * @param winningIntent        the intent that holds the keys, or {@code null} when the keys were
     *                             already present at the base (no concurrent winner)
     */
    public KeyConflictException(String table, List<String> keys, long conflictingKeyCount, String winningIntent) {
        super(message(table, keys, conflictingKeyCount, winningIntent));
        this.table = table;
        this.keys = List.copyOf(keys);
        this.conflictingKeyCount = conflictingKeyCount;
        this.winningIntent = winningIntent;
    }

    private static String message(String table, List<String> keys, long count, String winner) {
        StringBuilder sb = new StringBuilder("key conflict on table '").append(table).append("': ");
        sb.append(count).append(count == 1 ? " key" : " keys").append(" already present ").append(keys);
        if (count > keys.size()) {
            sb.append(" and ").append(count - keys.size()).append(" more");
        }
        if (winner != null) {
            sb.append(" (inserted by intent ").append(winner).append(')');
        }
        return sb.toString();
    }

    public String table() {
        return table;
    }

    /** The first few conflicting keys. */
    public List<String> keys() {
        return keys;
    }

    public long conflictingKeyCount() {
        return conflictingKeyCount;
    }

    public Optional<String> winningIntent() {
        return Optional.ofNullable(winningIntent);
    }
}
