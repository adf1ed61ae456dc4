package io.palisade.heads;

import io.palisade.fencing.KeyFilter;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.CheckpointWritten;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.MigrationClaimed;
import io.palisade.journal.JournalEvent.MigrationPkInstalled;
import io.palisade.journal.JournalEvent.MigrationStampWritten;
import io.palisade.journal.JournalEvent.MigrationUnitForked;
import io.palisade.journal.JournalEvent.MigrationUnitPlanned;
import io.palisade.journal.JournalEvent.MigrationUnitPublished;
import io.palisade.journal.JournalEvent.RecoveryFinished;
import io.palisade.journal.JournalEvent.RecoveryStarted;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalEvent.TornTailCut;
import io.palisade.journal.JournalEvent.WriterStarted;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.TableHead;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * Generates consistent random journals and keeps an independent model of what the heads must be:
 * branch creates (lazy) and deletes, intents recorded → committed → published → completed (some
 * aborted or failed, some rolled forward without a table commit), idempotency keys (fresh or reusing
 * the key of a failed intent), writer restarts, checkpoints and recovery markers, and PK migrations
 * (claim, plan, fork, install, publish, stamp). At most one intent or migration unit is in flight per
 * (branch, table), as the coordinator guarantees.
 */
final class Scenario {
    static final String[] TABLES = {"person", "knows", "city", "log"};

    record ModelPin(TableHead head, String inheritedFrom) {
    }

    private record ModelIntent(String id, String branch, String table, String key, HeadTransition intended,
                               int phase, boolean viaCommit) {
        ModelIntent at(int p, boolean commit) {
            return new ModelIntent(id, branch, table, key, intended, p, commit);
        }
    }

    private record ModelUnit(String id, String branch, String table, boolean lazy, int phase) {
    }

    /** A coordinator has few writes in flight and users few branches; keeps the fold's scans realistic. */
    private static final int MAX_IN_FLIGHT = 8;
    private static final int MAX_BRANCHES = 12;

    private final Random rnd;
    private final boolean realJournal;
    private final List<JournalEvent> events = new ArrayList<>();
    private long nextSeq;
    private long epoch = 1;
    private int counter;

    final Map<String, Map<String, ModelPin>> heads = new TreeMap<>();
    final Map<String, ModelIntent> open = new LinkedHashMap<>();
    final Map<String, String> receipts = new HashMap<>(); // key -> intent, while not expired
    private final Map<String, Long> receiptSequences = new HashMap<>(); // key -> completion sequence
    private final List<String> failedKeys = new ArrayList<>();
    private final Set<String> busy = new HashSet<>();
    private String migration;
    private final Map<String, ModelUnit> units = new LinkedHashMap<>();
    int stamp = 1;

    /**
     * @param firstSequence the sequence the first generated event will get
     * @param realJournal   true when the events go through a real {@code Journal} (which writes its own
     *                      WriterStarted and TornTailCut records)
     */
    Scenario(long seed, long firstSequence, boolean realJournal) {
        this.rnd = new Random(seed);
        this.nextSeq = firstSequence;
        this.realJournal = realJournal;
        heads.put(HeadsState.MAIN, new TreeMap<>());
    }

    /** A fresh in-memory journal: WriterStarted at 0, then {@code steps} generated events. */
    static List<JournalRecord> records(long seed, int steps) {
        Scenario s = inMemory(seed);
        s.generate(steps);
        return s.toRecords(0);
    }

    /** An in-memory journal starting with WriterStarted at sequence 0. */
    static Scenario inMemory(long seed) {
        Scenario s = new Scenario(seed, 0, false);
        s.emit(new WriterStarted(1, "owner", 42, "host", "test", 1));
        return s;
    }

    List<JournalRecord> toRecords(long firstSequence) {
        List<JournalRecord> out = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            out.add(new JournalRecord(firstSequence + i, 1_000_000L * (firstSequence + i), 1, events.get(i)));
        }
        return out;
    }

    List<JournalEvent> events() {
        return events;
    }

    /** Generates events and returns those generated by this call. */
    List<JournalEvent> generate(int steps) {
        int before = events.size();
        for (int i = 0; i < steps; i++) {
            step();
        }
        return new ArrayList<>(events.subList(before, events.size()));
    }

    /** Tells the model the next event gets this sequence (a real journal appended records of its own). */
    void resync(long next) {
        nextSeq = next;
    }

    private void emit(JournalEvent e) {
        events.add(e);
        nextSeq++;
    }

    private void step() {
        int dice = rnd.nextInt(100);
        if (dice < 12) {
            if (heads.size() < MAX_BRANCHES) {
                createBranch();
            } else {
                deleteBranch();
            }
        } else if (dice < 16) {
            deleteBranch();
        } else if (dice < 42) {
            if (open.size() < MAX_IN_FLIGHT) {
                recordIntent();
            } else {
                advanceIntent();
            }
        } else if (dice < 85) {
            advanceIntent();
        } else if (dice < 93) {
            migrationStep();
        } else if (!realJournal) {
            noise();
        } else {
            advanceIntent();
        }
    }

    private <T> T pick(List<T> list) {
        return list.get(rnd.nextInt(list.size()));
    }

    private String id(String prefix) {
        return prefix + (counter++);
    }

    private void createBranch() {
        String parent = pick(new ArrayList<>(heads.keySet()));
        String name = id("b");
        Map<String, ModelPin> child = new TreeMap<>();
        heads.get(parent).forEach((t, p) -> child.put(t, new ModelPin(p.head(), parent)));
        heads.put(name, child);
        emit(new GraphBranchCreated(name, parent, nextSeq - 1));
    }

    private void deleteBranch() {
        List<String> candidates = new ArrayList<>();
        for (String b : heads.keySet()) {
            if (!b.equals(HeadsState.MAIN) && busy.stream().noneMatch(s -> s.startsWith(b + "/"))) {
                candidates.add(b);
            }
        }
        if (candidates.isEmpty()) {
            return;
        }
        String b = pick(candidates);
        heads.remove(b);
        emit(new GraphBranchDeleted(b));
    }

    /** The head a write on (branch, table) publishes next: a fork for an inherited pin, the next version otherwise. */
    private TableHead nextHead(String branch, ModelPin cur) {
        if (cur == null) {
            return new TableHead("tb-" + branch, 1, 1, 0);
        }
        TableHead h = cur.head();
        if (cur.inheritedFrom() != null) {
            return new TableHead("tb-" + branch, h.version() + 1, h.schemaId(), h.incarnation());
        }
        int kind = rnd.nextInt(10);
        if (kind == 0) { // recreated table: new incarnation, versions restart
            return new TableHead(h.tableBranch(), 1, h.schemaId() + 1, h.incarnation() + 1);
        }
        return new TableHead(h.tableBranch(), h.version() + 1 + rnd.nextInt(2), h.schemaId() + (kind == 1 ? 1 : 0),
                h.incarnation());
    }

    private void recordIntent() {
        String branch = pick(new ArrayList<>(heads.keySet()));
        String table = TABLES[rnd.nextInt(TABLES.length)];
        if (busy.contains(branch + "/" + table)) {
            return;
        }
        ModelPin cur = heads.get(branch).get(table);
        TableHead to = nextHead(branch, cur);
        TableHead from = cur == null ? null : cur.head();
        String key = null;
        int k = rnd.nextInt(10);
        if (k < 3) {
            key = id("key");
        } else if (k < 5 && !failedKeys.isEmpty()) {
            key = failedKeys.remove(rnd.nextInt(failedKeys.size()));
        }
        String intentId = id("i");
        HeadTransition t = new HeadTransition(branch, table, from, to);
        ExpectedBase base = from == null ? new ExpectedBase("tb-" + branch, 0, 0, nextSeq - 1)
                : new ExpectedBase(from.tableBranch(), from.version(), from.schemaId(), nextSeq - 1);
        KeyFilter filter = rnd.nextBoolean() ? KeyFilter.ofStrings(0, List.of("id-" + intentId, "id-x" + counter)) : null;
        LogicalOperation op = pick(List.of(LogicalOperation.INSERT, LogicalOperation.UPSERT, LogicalOperation.DELETE));
        emit(new IntentRecorded(intentId, key, op, branch, table, base, new byte[] {1, 2, (byte) counter}, filter, t));
        open.put(intentId, new ModelIntent(intentId, branch, table, key, t, 1, false));
        busy.add(branch + "/" + table);
    }

    private void advanceIntent() {
        if (open.isEmpty()) {
            recordIntent();
            return;
        }
        ModelIntent i = pick(new ArrayList<>(open.values()));
        switch (i.phase()) {
            case 1 -> {
                int d = rnd.nextInt(20);
                if (d < 14) {
                    emit(new TableCommitted(List.of(i.id()), i.branch(), i.table(), i.intended().to().tableBranch(),
                            i.intended().to().version()));
                    open.put(i.id(), i.at(2, true));
                } else if (d < 17) {
                    IntentOutcome o = pick(List.of(IntentOutcome.ABORTED, IntentOutcome.KEY_CONFLICT,
                            IntentOutcome.WRITE_CONFLICT, IntentOutcome.VALIDATION_FAILED));
                    emit(new IntentCompleted(i.id(), o, "failed", null, List.of()));
                    finish(i, false);
                } else {
                    publish(i);
                    open.put(i.id(), i.at(3, false));
                }
            }
            case 2 -> {
                publish(i);
                open.put(i.id(), i.at(3, true));
            }
            default -> {
                emit(new IntentCompleted(i.id(), i.viaCommit() ? IntentOutcome.COMMITTED : IntentOutcome.ROLLED_FORWARD,
                        "", null, List.of()));
                finish(i, true);
            }
        }
    }

    private void publish(ModelIntent i) {
        emit(new HeadPublished(List.of(i.intended())));
        heads.get(i.branch()).put(i.table(), new ModelPin(i.intended().to(), null));
    }

    private void finish(ModelIntent i, boolean applied) {
        open.remove(i.id());
        busy.remove(i.branch() + "/" + i.table());
        if (i.key() != null) {
            if (applied) {
                receipts.put(i.key(), i.id());
                receiptSequences.put(i.key(), nextSeq - 1); // its IntentCompleted was the last record emitted
            } else {
                failedKeys.add(i.key());
            }
        }
    }

    private void migrationStep() {
        if (migration == null) {
            migration = id("m");
            emit(new MigrationClaimed(migration, "token-" + migration, stamp, stamp + 1));
            return;
        }
        if (!units.isEmpty() && rnd.nextInt(3) > 0) {
            ModelUnit u = pick(new ArrayList<>(units.values()));
            ModelPin cur = heads.get(u.branch()).get(u.table());
            switch (u.phase()) {
                case 1 -> {
                    if (u.lazy()) {
                        emit(new MigrationUnitForked(migration, u.id(), "tb-" + u.branch(), cur.head().version(),
                                cur.head().version() + 1));
                        units.put(u.id(), new ModelUnit(u.id(), u.branch(), u.table(), true, 2));
                    } else {
                        emit(new MigrationPkInstalled(migration, u.id(), u.table(), cur.head().tableBranch(),
                                cur.head().version() + 1, false));
                        units.put(u.id(), new ModelUnit(u.id(), u.branch(), u.table(), false, 3));
                    }
                }
                case 2 -> {
                    emit(new MigrationPkInstalled(migration, u.id(), u.table(), "tb-" + u.branch(),
                            cur.head().version() + 2, false));
                    units.put(u.id(), new ModelUnit(u.id(), u.branch(), u.table(), true, 3));
                }
                default -> {
                    TableHead h = cur.head();
                    TableHead to = u.lazy() ? new TableHead("tb-" + u.branch(), h.version() + 2, h.schemaId(), h.incarnation())
                            : new TableHead(h.tableBranch(), h.version() + 1, h.schemaId(), h.incarnation());
                    HeadTransition t = new HeadTransition(u.branch(), u.table(), h, to);
                    emit(new MigrationUnitPublished(migration, u.id(), t, "digest-" + u.id()));
                    heads.get(u.branch()).put(u.table(), new ModelPin(to, null));
                    units.remove(u.id());
                    busy.remove(u.branch() + "/" + u.table());
                }
            }
            return;
        }
        if (units.isEmpty() && rnd.nextInt(4) == 0) {
            stamp++;
            emit(new MigrationStampWritten(migration, stamp));
            migration = null;
            return;
        }
        String branch = pick(new ArrayList<>(heads.keySet()));
        List<String> tables = new ArrayList<>(heads.get(branch).keySet());
        tables.removeIf(t -> busy.contains(branch + "/" + t));
        if (tables.isEmpty()) {
            return;
        }
        String table = pick(tables);
        ModelPin cur = heads.get(branch).get(table);
        String unit = id("u");
        emit(new MigrationUnitPlanned(migration, unit, branch, table, cur.head().tableBranch(), cur.head().version(),
                cur.inheritedFrom() != null));
        units.put(unit, new ModelUnit(unit, branch, table, cur.inheritedFrom() != null, 1));
        busy.add(branch + "/" + table);
    }

    /** The expiry bound of the last ReceiptsExpired emitted (it never goes back). */
    private long receiptsBound = -1;

    private void noise() {
        switch (rnd.nextInt(5)) {
            case 0 -> emit(new WriterStarted(++epoch, "owner", 42, "host", "test", stamp));
            case 3 -> {
                receiptsBound = Math.max(receiptsBound, nextSeq - 1 - rnd.nextInt(50));
                if (receiptsBound >= 0) {
                    emit(new io.palisade.journal.JournalEvent.ReceiptsExpired(receiptsBound, "test window"));
                    receiptSequences.entrySet().removeIf(e -> e.getValue() <= receiptsBound
                            && receipts.remove(e.getKey()) != null);
                }
            }
            case 1 -> emit(new CheckpointWritten(nextSeq - 1, "heads-" + (nextSeq - 1) + ".ckpt", "not-checked"));
            case 2 -> {
                String r = id("r");
                emit(new RecoveryStarted(r, -1, nextSeq - 1));
                emit(new RecoveryFinished(r, List.of(), "d"));
            }
            default -> emit(new TornTailCut(epoch, nextSeq - 1, 1, "test"));
        }
    }

    /** The model's pins, in the shape of {@link HeadsState#pins(String)} for every live branch. */
    Map<String, Map<String, ModelPin>> expectedHeads() {
        return heads;
    }

    /** Asserts-free comparison helper: the state's pins rendered like the model's. */
    static Map<String, Map<String, ModelPin>> actualHeads(HeadsState s) {
        Map<String, Map<String, ModelPin>> out = new TreeMap<>();
        for (String b : s.branches().keySet()) {
            Map<String, ModelPin> m = new TreeMap<>();
            s.pins(b).forEach((t, p) -> m.put(t, new ModelPin(p.head(), p.inheritedFrom())));
            out.put(b, m);
        }
        return out;
    }

    Set<String> openIntentIds() {
        return open.keySet();
    }
}
