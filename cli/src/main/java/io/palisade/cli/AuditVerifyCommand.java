package io.palisade.cli;

import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TornTail;
import io.palisade.journal.VerificationReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code palisade audit verify}: checks the whole journal, its checkpoints, the stored catalog and every published
 * table head, and says what it covered; a pinned chain head ({@code --expect-head}) must match. Read-only.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Verify the whole journal, its checkpoints, the stored catalog and every published table head, and say what was checked. Read-only.",
                "Every record's CRC32C, the SHA-256 hash chain, dense sequences and writer epochs are checked from "
                        + "sequence 0; every checkpoint is decoded and compared with the journal folded to its "
                        + "sequence; _palisade/catalog.json must be the catalog the journal recorded (exit 7 names "
                        + "each difference); every published table head's manifest must decode and the files its commit "
                        + "added must be whole, and a table version above a head that no journaled write explains "
                        + "is reported. The output names the records, sequence range, segments and epochs, time span, "
                        + "checkpoints and heads covered, and the chain head.",
                "A hash chain can be recomputed by whoever rewrites the journal, so pin the chain head printed "
                        + "here (--print-head) somewhere the graph's writers cannot change, and give it back with "
                        + "--expect-head: a journal whose record at the pinned sequence has another hash fails. "
                        + "Exit 7 names the first bad sequence, file or the differing head."},
        footer = {"%nExample:%n  palisade audit verify GRAPH --expect-head 299:3f1c...e9"})
final class AuditVerifyCommand implements Callable<Integer>, ReadOnly {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;
    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();
    @Option(names = "--print-head", description = "Print only the chain head to pin, as SEQ:HASH (after verifying).")
    boolean printHead;
    @Option(names = "--expect-head", paramLabel = "[SEQ:]HASH",
            description = "Fail (exit 7) unless the record at SEQ has this hash; without SEQ, unless the "
                    + "journal's last record has it.")
    String expectHead;

    /** What the verification covered. */
    record Scope(long segments, java.util.SortedSet<Long> epochs, Instant first, Instant last,
                 List<java.util.Map<String, Object>> checkpoints, int checkpointProblems,
                 java.util.Map<String, long[]> expiries, long firstLocalSequence) {
    }

    /**
     * Per table branch a published head lies on: the versions it still keeps (which a reader or an auditor can still
     * open) and, when retention removed older ones, the bound and the record that says so.
     */
    static List<java.util.Map<String, Object>> versionsKept(io.palisade.heads.HeadsState state,
                                                            io.palisade.substrate.TableStore store, Scope scope) {
        java.util.SortedSet<String> branches = new java.util.TreeSet<>();
        for (String b : state.branches().keySet()) {
            state.pins(b).forEach((t, p) -> branches.add(t + "/" + p.head().tableBranch()));
        }
        List<java.util.Map<String, Object>> out = new ArrayList<>();
        for (String tb : branches) {
            String table = tb.substring(0, tb.indexOf('/'));
            String tableBranch = tb.substring(tb.indexOf('/') + 1);
            List<Long> versions = store.listVersions(table, tableBranch).stream().map(v -> v.ref().version()).toList();
            java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("table", table);
            m.put("table_branch", tableBranch);
            m.put("versions_kept", versions.size());
            m.put("oldest_version", versions.isEmpty() ? null : versions.getFirst());
            m.put("newest_version", versions.isEmpty() ? null : versions.getLast());
            long[] x = scope == null ? null : scope.expiries().get(tb);
            m.put("removed_below_version", x == null ? null : x[0]);
            m.put("removed_at_seq", x == null ? null : x[1]);
            // removals are read from the local journal: before it, the file retention moved their records out
            m.put("removals_read_from_seq", scope == null ? null : scope.firstLocalSequence());
            out.add(m);
        }
        return out;
    }

    @Override
    public Integer call() {
        OutputFormat.Format format = output.resolve(OutputFormat.Format.table);
        boolean json = format != OutputFormat.Format.table;
        Pin pin = expectHead == null ? null : Pin.parse(expectHead);
        JournalReader reader = Cli.reader(graph);
        VerificationReport r = reader.verify();
        Scope scope = r.ok() ? scope(graph, reader) : null;
        // the table heads' files: every published head's manifest decodes and the files its commit added are whole
        List<io.palisade.fencing.TableCorruptedException> damaged = List.of();
        List<java.util.Map<String, Object>> kept = List.of();
        int headsChecked = 0;
        io.palisade.coordinator.StoredCatalog.Verdict catalog = null;
        io.palisade.fencing.CatalogCorruptedException catalogProblem = null;
        io.palisade.heads.JournaledCatalog recorded = null;
        if (r.ok()) {
            io.palisade.heads.HeadsState state = Cli.currentState(graph);
            recorded = state.catalog().orElse(null);
            try { // catalog.json against the catalog the journal recorded
                catalog = Cli.checkedCatalog(graph, state);
            } catch (io.palisade.fencing.CatalogCorruptedException e) {
                catalogProblem = e;
            }
            headsChecked = publishedHeads(state);
            try (io.palisade.substrate.TableStore store =
                         Cli.tables(graph).open(true)) {
                damaged = io.palisade.recovery.PublishedHeads.damaged(state, store, () -> Cli.reader(graph));
                if (damaged.isEmpty()) { // a damaged head is reported below; its versions cannot be listed
                    kept = versionsKept(state, store, scope);
                }
            }
        }
        // versions no journaled write explains: reported (stderr, --json), not a verification failure
        List<io.palisade.recovery.ForeignVersions.Pending> pending = r.ok() ? Cli.warnForeign(graph) : List.of();
        long headSeq = r.endSequence() - 1;
        String pinProblem = null;
        if (r.ok() && pin != null) {
            pinProblem = pin.check(reader, headSeq, r.lastHash());
        }
        if (printHead && r.ok() && pinProblem == null && damaged.isEmpty() && catalogProblem == null) {
            System.out.println(headSeq + ":" + r.lastHash());
            return Main.OK;
        }
        if (json) {
            java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("ok", r.ok());
            m.put("records", r.records());
            m.put("end_sequence", r.endSequence());
            m.put("chain_head", r.lastHash());
            m.put("chain_head_seq", r.ok() ? headSeq : null);
            m.put("first_bad_sequence", r.firstBadSequence());
            m.put("problem", r.problem());
            m.put("cut_tails", r.cutTails().size());
            m.put("verified_from", r.verifiedFrom());
            m.put("archived_files", r.archivedFiles());
            m.put("archived_copies_verified", r.copiesVerified());
            m.put("archived_copies_missing", r.copiesMissing());
            m.put("archive_location", archiveLocation(reader));
            java.util.Map<String, Object> tail = null;
            if (r.openTail() != null) {
                tail = new java.util.LinkedHashMap<>();
                tail.put("segment_epoch", r.openTail().segmentEpoch());
                tail.put("last_good_sequence", r.openTail().lastGoodSequence());
                tail.put("excerpts", r.openTail().excerpts());
                tail.put("reason", r.openTail().reason());
            }
            m.put("open_tail", tail);
            if (scope != null) {
                m.put("segments", scope.segments());
                m.put("epochs", scope.epochs());
                m.put("first_time", String.valueOf(scope.first()));
                m.put("last_time", String.valueOf(scope.last()));
                m.put("checkpoints", scope.checkpoints());
            }
            m.put("catalog_ok", r.ok() ? catalogProblem == null : null);
            m.put("catalog_standing", catalog == null ? null : catalog.standing().name().toLowerCase(java.util.Locale.ROOT));
            m.put("catalog_recorded_at_seq", recorded == null ? null : recorded.sequence());
            m.put("catalog_digest", recorded == null ? null : recorded.digest());
            m.put("catalog_differences", catalogProblem == null ? List.of() : catalogProblem.differences());
            m.put("heads_checked", r.ok() ? headsChecked : null);
            List<java.util.Map<String, Object>> tables = new java.util.ArrayList<>();
            for (io.palisade.fencing.TableCorruptedException d : damaged) {
                java.util.Map<String, Object> t = new java.util.LinkedHashMap<>();
                t.put("table", d.table());
                t.put("graph_branch", d.graphBranch());
                t.put("table_branch", d.tableBranch());
                t.put("version", d.version());
                t.put("reason", d.reason());
                t.put("files", d.files());
                t.put("intents", d.intentIds());
                tables.add(t);
            }
            m.put("tables_ok", r.ok() ? damaged.isEmpty() : null);
            m.put("table_versions", kept);
            m.put("damaged_tables", tables);
            m.put("foreign_versions", pending.stream().map(Cli::foreignJson).toList());
            m.put("expected_head", expectHead);
            m.put("head_matches", pin == null || !r.ok() ? null : pinProblem == null);
            Cli.printJson(System.out, m);
        } else if (r.ok()) {
            System.out.println("journal verified: " + r.records() + " records, sequences " + r.verifiedFrom() + ".."
                    + headSeq + ", from " + scope.first() + " to " + scope.last());
            System.out.println("  segments: " + scope.segments() + " (writer epochs " + ranges(scope.epochs())
                    + "); every record's CRC32C, the SHA-256 hash chain, dense sequences and epochs checked from "
                    + "sequence " + r.verifiedFrom());
            if (r.archivedFiles() > 0) {
                String where = archiveLocation(reader);
                System.out.println("  archived: sequences 0.." + (r.verifiedFrom() - 1) + " in " + r.archivedFiles()
                        + " file(s) moved out by the journal's file retention ("
                        + (where == null ? "removed without a copy" : "copied to " + where)
                        + "); their chain anchors link end to end and to sequence " + r.verifiedFrom()
                        + (r.copiesVerified() + r.copiesMissing() == 0 ? ""
                        : "; " + r.copiesVerified() + " copies verified, " + r.copiesMissing() + " missing"));
            }
            for (TornTail t : r.cutTails()) {
                System.out.println("  torn tail cut by a later writer: epoch " + t.segmentEpoch() + " after sequence "
                        + t.lastGoodSequence() + " (" + t.excerpts() + " excerpts: " + t.reason() + ")");
            }
            if (r.openTail() != null) {
                System.out.println("  open torn tail after sequence " + r.openTail().lastGoodSequence()
                        + " (the next writer cuts it): " + r.openTail().reason());
            }
            System.out.println("  checkpoints: " + (scope.checkpoints().isEmpty() ? "none written"
                    : scope.checkpoints().size() + " checked (" + String.join("; ", scope.checkpoints().stream()
                    .map(c -> "seq " + c.get("sequence") + " " + c.get("result")).toList()) + ")"));
            System.out.println("  chain head: " + headSeq + ":" + r.lastHash()
                    + (pin == null ? " (pin it; check it later with --expect-head)"
                    : pinProblem == null ? " (the pinned head " + expectHead + " matches)" : ""));
        }
        if (!r.ok()) {
            throw new CliException(Main.CORRUPTED, "verification failed at sequence " + r.firstBadSequence() + ": "
                    + r.problem() + " (" + r.records() + " records verified before it)");
        }
        if (pinProblem != null) {
            throw new CliException(Main.CORRUPTED, "journal verified, but it is not the pinned journal: " + pinProblem);
        }
        if (catalogProblem != null) {
            for (io.palisade.fencing.TableCorruptedException d : damaged) {
                System.err.println("palisade: " + ErrorKind.TABLE_CORRUPTED.words() + ": " + d.getMessage());
            }
            throw new CliException(ErrorKind.CATALOG_CORRUPTED, "journal verified, but " + catalogProblem.getMessage());
        }
        if (!damaged.isEmpty()) {
            for (int i = 1; i < damaged.size(); i++) {
                System.err.println("palisade: " + ErrorKind.TABLE_CORRUPTED.words() + ": " + damaged.get(i).getMessage());
            }
            throw new CliException(ErrorKind.TABLE_CORRUPTED, "journal verified, but " + damaged.size() + " published table "
                    + (damaged.size() == 1 ? "head is" : "heads are") + " damaged: " + damaged.get(0).getMessage());
        }
        if (!json) {
            System.out.println("catalog verified: " + switch (catalog.standing()) {
                case MATCHES -> "catalog.json is the catalog the journal recorded at seq " + recorded.sequence()
                        + " (SHA-256 " + recorded.digest() + ")";
                case BEHIND -> "catalog.json is one change behind the catalog the journal recorded at seq "
                        + recorded.sequence() + " (its rewrite was cut short; the next writer open rewrites it)";
                case UNRECORDED -> "the journal has recorded no catalog yet (a graph created before the record); "
                        + "the next writer open records catalog.json as it is";
            });
            System.out.println("table heads verified: " + headsChecked + " published head(s) checked against the "
                    + "journal: every manifest decodes and the files each commit added are whole; "
                    + (pending.isEmpty() ? "no table version above a head" : pending.size()
                    + " table(s) hold versions no journaled write explains (warned above)"));
            for (java.util.Map<String, Object> k : kept) {
                System.out.println("  table versions that can still be checked: " + k.get("table") + " "
                        + k.get("table_branch") + " v" + k.get("oldest_version") + "..v" + k.get("newest_version") + " ("
                        + k.get("versions_kept") + " kept"
                        + (k.get("removed_below_version") != null ? "; those below v" + k.get("removed_below_version")
                        + " were removed by version retention, journaled at seq " + k.get("removed_at_seq") + ")"
                        : Long.valueOf(0).equals(k.get("removals_read_from_seq")) ? "; none removed)"
                        : "; no removal journaled since seq " + k.get("removals_read_from_seq") + ", where the local "
                        + "journal starts: the file retention moved older records out)"));
            }
        }
        return Main.OK;
    }

    /** One pass over the verified journal: segments, epochs, time span, and every checkpoint against the fold. */
    static Scope scope(Path graph, JournalReader reader) {
        java.util.Map<Long, Path> cps = new java.util.TreeMap<>();
        for (Path p : io.palisade.heads.Checkpoints.of(Cli.palisadeDir(graph)).list()) {
            cps.put(io.palisade.heads.Checkpoints.sequenceOf(p), p);
        }
        List<java.util.Map<String, Object>> checked = new ArrayList<>();
        int problems = 0;
        long segments = 0;
        java.util.SortedSet<Long> epochs = new java.util.TreeSet<>();
        Instant first = null;
        Instant last = null;
        io.palisade.heads.HeadsState s = io.palisade.heads.HeadsState.empty();
        long firstLocal = reader.firstSequence();
        if (firstLocal > 0) {
            // the journal's file retention moved the records before firstLocal out: the fold starts from the oldest
            // checkpoint at or after them, which is the base of the check, not checked itself
            s = null;
            for (java.util.Iterator<java.util.Map.Entry<Long, Path>> it = cps.entrySet().iterator(); it.hasNext(); ) {
                java.util.Map.Entry<Long, Path> e = it.next();
                java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
                m.put("sequence", e.getKey());
                m.put("file", e.getValue().getFileName().toString());
                it.remove();
                if (e.getKey() < firstLocal - 1) {
                    // the writer lets it go at its next checkpoint: no read replays from it any more
                    m.put("ok", true);
                    m.put("result", "not checked: the journal after it was moved out by the file retention");
                    checked.add(m);
                    continue;
                }
                try {
                    s = io.palisade.heads.Checkpoints.read(e.getValue());
                    m.put("ok", true);
                    m.put("result", "the base the later checkpoints are checked from (the journal before it was moved "
                            + "out by the file retention)");
                    checked.add(m);
                    break;
                } catch (RuntimeException ex) {
                    m.put("ok", false);
                    m.put("result", "damaged (" + ex.getMessage() + "; readers skip it)");
                    problems++;
                    checked.add(m);
                }
            }
        }
        java.util.Map<String, long[]> expiries = new java.util.HashMap<>();
        try (JournalCursor c = reader.readAvailable(0)) {
            JournalRecord rec;
            while ((rec = c.poll()) != null) {
                if (rec.event() instanceof io.palisade.journal.JournalEvent.VersionsExpired x) {
                    expiries.merge(x.table() + "/" + x.tableBranch(), new long[] {x.beforeVersion(), rec.sequence()},
                            (a, b) -> b[0] >= a[0] ? b : a);
                }
                if (first == null) {
                    first = rec.time();
                }
                last = rec.time();
                epochs.add(rec.writerEpoch());
                if (rec.event() instanceof io.palisade.journal.JournalEvent.WriterStarted) {
                    segments++;
                }
                if (s == null || rec.sequence() <= s.lastSequence()) {
                    continue; // before the base checkpoint, or no base to fold from
                }
                s = s.apply(rec);
                Path cp = cps.remove(rec.sequence());
                if (cp != null) {
                    java.util.Map<String, Object> m = checkpoint(cp, rec.sequence(), s);
                    problems += m.get("ok").equals(Boolean.TRUE) ? 0 : 1;
                    checked.add(m);
                }
            }
        }
        for (java.util.Map.Entry<Long, Path> e : cps.entrySet()) {
            java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("sequence", e.getKey());
            m.put("file", e.getValue().getFileName().toString());
            m.put("ok", false);
            m.put("result", "covers a sequence the journal does not hold (readers skip it)");
            problems++;
            checked.add(m);
        }
        for (java.util.Map<String, Object> m : checked) {
            if (!Boolean.TRUE.equals(m.get("ok"))) {
                System.err.println("palisade: warning: checkpoint " + m.get("file") + ": " + m.get("result"));
            }
        }
        return new Scope(segments, epochs, first, last, checked, problems, expiries, firstLocal);
    }

    private static java.util.Map<String, Object> checkpoint(Path file, long seq, io.palisade.heads.HeadsState folded) {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("sequence", seq);
        m.put("file", file.getFileName().toString());
        try {
            io.palisade.heads.HeadsState cp = io.palisade.heads.Checkpoints.read(file);
            boolean same = cp.digest().equals(folded.digest());
            m.put("ok", same);
            m.put("result", same ? "decodes and equals the journal folded to it"
                    : "decodes but differs from the journal folded to it (digest " + cp.digest() + ", journal "
                    + folded.digest() + "; readers skip it)");
        } catch (RuntimeException e) {
            m.put("ok", false);
            m.put("result", "damaged (" + e.getMessage() + "; readers skip it)");
        }
        return m;
    }

    private static int publishedHeads(io.palisade.heads.HeadsState s) {
        java.util.Set<String> heads = new java.util.HashSet<>();
        for (String b : s.branches().keySet()) {
            s.pins(b).forEach((t, p) -> heads.add(t + "/" + p.head().tableBranch() + "@" + p.head().version()));
        }
        return heads.size();
    }

    private static String ranges(java.util.SortedSet<Long> epochs) {
        if (epochs.isEmpty()) {
            return "none";
        }
        return epochs.size() > 6 ? epochs.first() + ".." + epochs.last() + ", " + epochs.size() + " in all"
                : String.join(", ", epochs.stream().map(String::valueOf).toList());
    }

    /** A pinned chain head, {@code [SEQ:]HASH}. */
    record Pin(Long sequence, String hash) {
        static Pin parse(String text) {
            String s = text.strip();
            int colon = s.indexOf(':');
            Long seq = null;
            String hash = s;
            if (colon >= 0) {
                try {
                    seq = Long.parseLong(s.substring(0, colon));
                } catch (NumberFormatException e) {
                    seq = -1L;
                }
                hash = s.substring(colon + 1);
                if (seq < 0) {
                    throw new CliException(Main.USAGE, "--expect-head '" + text + "': SEQ must be a sequence (0 or more)");
                }
            }
            if (!hash.matches("(?i)[0-9a-f]{64}")) {
                throw new CliException(Main.USAGE, "--expect-head '" + text + "': the hash is 64 hex digits, as "
                        + "`palisade audit verify GRAPH --print-head` prints it (SEQ:HASH)");
            }
            return new Pin(seq, hash.toLowerCase(java.util.Locale.ROOT));
        }

        /** Null when the journal holds the pinned record; else what differs. */
        String check(JournalReader reader, long headSeq, String headHash) {
            if (sequence == null) {
                return hash.equals(headHash) ? null : "its chain head (sequence " + headSeq + ") is " + headHash
                        + ", the pinned head is " + hash + " (a journal extended since the pin differs too: pin SEQ:HASH)";
            }
            if (sequence > headSeq) {
                return "the pinned sequence " + sequence + " is past its last record " + headSeq
                        + " (the journal was cut back or replaced)";
            }
            if (sequence < reader.firstSequence()) {
                // an archived record: its hash is known when it ends an archived file (the anchor the next file links to)
                java.util.Optional<io.palisade.journal.ArchivedFile> f = reader.archivedFiles().stream()
                        .filter(a -> a.lastSequence() == sequence).findFirst();
                if (f.isEmpty()) {
                    return "the pinned sequence " + sequence + " was moved out of the local journal by its file "
                            + "retention and ends no archived file, so its hash cannot be checked here (pin a "
                            + "sequence at or after " + reader.firstSequence() + ", or verify the archived copies)";
                }
                return f.get().lastHash().equalsIgnoreCase(hash) ? null : "the archived record at sequence " + sequence
                        + " has hash " + f.get().lastHash() + ", the pin says " + hash;
            }
            String at = reader.recordHash(sequence).orElse("(unreadable)");
            return at.equals(hash) ? null : "the record at sequence " + sequence + " has hash " + at + ", the pin says "
                    + hash + ": the journal was rewritten up to there (and its chain recomputed), or it is another graph's";
        }
    }

    /** Where the journal's file retention copied its files (the newest copy's directory); null when none was kept. */
    static String archiveLocation(JournalReader reader) {
        List<io.palisade.journal.ArchivedFile> files = reader.archivedFiles();
        return files.isEmpty() ? null : files.get(files.size() - 1).archiveDirectory();
    }

}
