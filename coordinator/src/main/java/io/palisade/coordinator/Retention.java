package io.palisade.coordinator;

import java.time.Duration;

/**
 * How many old versions of each table branch the graph keeps (Paimon's {@code snapshot.num-retained.min/max} and
 * {@code snapshot.time-retained}, per table branch). A version is removed once it is older than {@code window} or
 * more than {@code maxVersions} versions behind the newest, whichever comes first, except that the newest
 * {@code minVersions} are always kept, and so is every version a graph branch, a lazily inherited pin, a head or an
 * unfinished fold or intent still needs. Removal goes through Lance's cleanup, every {@code expireEvery} commits to a
 * table branch, off the acknowledgement path, and each removal is journaled first ({@code versions_expired}).
 *
 * <p>A read of a point older than what is kept ({@code scan --at}, {@link Graph#scanAt}) is refused, naming the
 * oldest version kept and this rule. The journal's own files leave the local journal once it holds more than
 * {@code journalBytes} (docs/journal.md "File retention").
 *
 * <p>Defaults ({@link #DEFAULTS}): on; at least 16 and at most 256 versions, 10 minutes, checked every 64 commits; a
 * local journal of 64 MiB, older files removed without a copy (their chain anchors kept).
 * Under steady load the count bound is reached first, so table bytes level off within minutes; at one commit a
 * minute a table keeps its last 10 minutes, but never fewer than 16 versions. The journal's byte budget cuts into the
 * window the same way: over 64 MiB, its oldest closed files leave even when younger than the window, so under steady
 * load the local journal levels off at the budget plus its open five-minute file. Below 64 MiB it keeps every file,
 * so a graph written slowly keeps its whole history.
 *
 * @param auto        whether old versions are removed at all (and journal rows released)
 * @param minVersions the newest versions always kept (at least 1: the newest version is never removed)
 * @param maxVersions the most versions kept, whatever their age
 * @param window      versions younger than this are kept (up to {@code maxVersions}); so are the rows the journal holds
 *                    for folded journal-ack writes (docs/journal.md "Row release": older ones are released once a
 *                    checkpoint covers their fold), unless their file leaves under {@code journalBytes}
 * @param expireEvery remove old versions after this many commits to a table branch
 * @param journalBytes the local journal's byte budget: once its files hold more, the oldest closed files no reopen,
 *                    fold, merge or recovery needs leave it, younger than {@code window} or not, their chain anchors kept
 *                    in {@code journal/archive.log} (docs/journal.md "File retention"); {@link Long#MAX_VALUE} keeps
 *                    every file
 * @param journalArchive nullable: a directory each file is copied to before it leaves; null removes it without a copy
 */
public record Retention(boolean auto, int minVersions, int maxVersions, Duration window, int expireEvery,
                        long journalBytes, java.nio.file.Path journalArchive) {

    /** The local journal's default byte budget: 64 MiB. */
    public static final long DEFAULT_JOURNAL_BYTES = 64L << 20;

    /** The defaults described above. */
    public static final Retention DEFAULTS = new Retention(true, 16, 256, Duration.ofMinutes(10), 64,
            DEFAULT_JOURNAL_BYTES, null);

    public Retention {
        if (minVersions < 1 || maxVersions < minVersions || window == null || window.isNegative() || expireEvery < 1
                || journalBytes < 0) {
            throw new IllegalArgumentException("retention: minVersions >= 1, maxVersions >= minVersions, "
                    + "a window >= 0, expireEvery >= 1, a journal byte budget >= 0");
        }
    }

    /** The version rules, with the journal's defaults. */
    public Retention(boolean auto, int minVersions, int maxVersions, Duration window, int expireEvery) {
        this(auto, minVersions, maxVersions, window, expireEvery, DEFAULT_JOURNAL_BYTES, null);
    }

    /** Keeps every version (the behaviour before retention existed). */
    public static Retention keepAll() {
        return DEFAULTS.withAuto(false);
    }

    public Retention withAuto(boolean on) {
        return new Retention(on, minVersions, maxVersions, window, expireEvery, journalBytes, journalArchive);
    }

    public Retention withVersions(int min, int max) {
        return new Retention(auto, min, max, window, expireEvery, journalBytes, journalArchive);
    }

    public Retention withWindow(Duration w) {
        return new Retention(auto, minVersions, maxVersions, w, expireEvery, journalBytes, journalArchive);
    }

    public Retention withExpireEvery(int commits) {
        return new Retention(auto, minVersions, maxVersions, window, commits, journalBytes, journalArchive);
    }

    /**
     * The local journal's byte budget ({@link Long#MAX_VALUE}: keep every file); the oldest closed files beyond it leave
     * once no reopen, fold, merge or recovery needs them, even inside the retention window.
     */
    public Retention withJournalBytes(long bytes) {
        return new Retention(auto, minVersions, maxVersions, window, expireEvery, bytes, journalArchive);
    }

    /** Copies each journal file to {@code dir} before it leaves the local journal (null: no copy). */
    public Retention withJournalArchive(java.nio.file.Path dir) {
        return new Retention(auto, minVersions, maxVersions, window, expireEvery, journalBytes, dir);
    }

    /** The rule in words, for journal records and error messages. */
    public String describe() {
        return "keeps the newest " + minVersions + " to " + maxVersions + " versions of each table branch, and those "
                + "younger than " + window.toMinutes() + " min";
    }
}
