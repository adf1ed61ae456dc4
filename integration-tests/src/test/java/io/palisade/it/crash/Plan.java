package io.palisade.it.crash;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A workload plan the parent writes and the child performs, with a plain text encoding for the command line. */
final class Plan {
    /**
     * {@code MAINTAIN}: compaction or index refresh of {@code person} (rows: key "compact" or "index"); no data change.
     * {@code NOTE_INSERT}, {@code NOTE_UPSERT}, {@code NOTE_DELETE}: a strict insert of new keys, an upsert, a delete of
     * {@code note} on main, the journal-acknowledged table (docs/journal-ack.md): acknowledged once journaled, folded
     * into Lance later.
     */
    enum Kind { INSERT, UPSERT, DELETE, APPEND, BRANCH, OVERWRITE, ADD_COLUMNS, MERGE, LOAD, LOAD_STRICT, MAINTAIN,
        NOTE_INSERT, NOTE_UPSERT, NOTE_DELETE }

    /** Rows per substrate batch of a bulk load ({@link Kind#LOAD}, {@link Kind#LOAD_STRICT}). */
    static final int LOAD_BATCH_ROWS = 2;

    /**
     * One write. {@code rows}: id → age for insert/upsert and for overwrite (the table's whole new
     * contents on {@code branch}); the keys alone for delete; the messages (keys) for append; the new
     * column names (keys; nullable int64) for add columns ({@code branch} is main); empty for branch
     * create ({@code branch} is the new branch) and for merge ({@code branch} is
     * {@code source>target}, see {@link #source()} and {@link #target()}); id → age in load order for a
     * bulk load (upsert mode for {@code LOAD}, strict mode for {@code LOAD_STRICT}, which fails whole
     * when a key is already present).
     */
    record Op(Kind kind, String branch, Map<String, Long> rows) {
        Op {
            rows = new LinkedHashMap<>(rows);
        }

        /** A merge's source branch. */
        String source() {
            return branch.substring(0, branch.indexOf('>'));
        }

        /** A merge's target branch. */
        String target() {
            return branch.substring(branch.indexOf('>') + 1);
        }

        @Override
        public String toString() {
            return kind + " " + branch + " " + rows;
        }
    }

    private Plan() {
    }

    static String encode(List<Op> ops) {
        StringBuilder b = new StringBuilder();
        for (Op op : ops) {
            if (!b.isEmpty()) {
                b.append(';');
            }
            b.append(op.kind()).append('|').append(op.branch()).append('|');
            boolean first = true;
            for (Map.Entry<String, Long> e : op.rows().entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                b.append(e.getKey()).append('=').append(e.getValue());
            }
        }
        return b.toString();
    }

    static List<Op> decode(String s) {
        List<Op> ops = new ArrayList<>();
        if (s.isBlank()) {
            return ops;
        }
        for (String part : s.split(";")) {
            String[] f = part.split("\\|", -1);
            Map<String, Long> rows = new LinkedHashMap<>();
            if (!f[2].isEmpty()) {
                for (String kv : f[2].split(",")) {
                    int eq = kv.indexOf('=');
                    rows.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
                }
            }
            ops.add(new Op(Kind.valueOf(f[0]), f[1], rows));
        }
        return ops;
    }
}
