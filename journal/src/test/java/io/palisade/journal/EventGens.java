package io.palisade.journal;

import io.palisade.fencing.KeyFilter;
import io.palisade.journal.JournalEvent.CheckpointWritten;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.MigrationBranchVerified;
import io.palisade.journal.JournalEvent.MigrationClaimed;
import io.palisade.journal.JournalEvent.MigrationPkInstalled;
import io.palisade.journal.JournalEvent.MigrationRefused;
import io.palisade.journal.JournalEvent.MigrationStampWritten;
import io.palisade.journal.JournalEvent.MigrationUnitForked;
import io.palisade.journal.JournalEvent.MigrationUnitPlanned;
import io.palisade.journal.JournalEvent.MigrationUnitPublished;
import io.palisade.journal.JournalEvent.RecoveryFinished;
import io.palisade.journal.JournalEvent.RecoveryStarted;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalEvent.LoadProgress;
import io.palisade.journal.JournalEvent.TornTailCut;
import io.palisade.journal.JournalEvent.WriterStarted;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.ArrayList;
import java.util.List;

import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * QuickTheories generators for every event type of the vocabulary (formerly jqwik's {@code EventArbitraries}):
 * same value ranges, sizes, null rates and equal weights per event type.
 *
 * <p>Records with more components than {@link Gen#zip} takes are built by a {@code Gen} lambda that draws
 * each component from the same randomness source, so shrinking still works component by component.
 */
final class EventGens {
    private EventGens() {
    }

    // ------------------------------------------------------------------ combinators QuickTheories lacks

    /** Each of {@code gens} with equal probability. */
    static <T> Gen<T> oneOf(List<Gen<T>> gens) {
        List<Pair<Integer, Gen<T>>> weighted = new ArrayList<>();
        gens.forEach(g -> weighted.add(Pair.of(1, g)));
        return Generate.frequency(weighted);
    }

    /** {@code null} {@code percentNull}% of the time (jqwik's {@code injectNull}). */
    static <T> Gen<T> nullable(Gen<T> gen, int percentNull) {
        return gen.toOptionals(percentNull).map(o -> o.orElse(null));
    }

    // ------------------------------------------------------------------ building blocks

    /**
     * 0 to 24 chars, each any UTF-16 char but a surrogate, a noncharacter or a private-use char (jqwik's
     * default character set for {@code strings()}; the codec stores UTF-8, where a lone surrogate has no encoding).
     */
    static Gen<String> text() {
        return textOfMaxLength(24);
    }

    static Gen<String> textOfMaxLength(int maxLength) {
        return lists().of(CHARS).ofSizeBetween(0, maxLength).map(cs -> {
            StringBuilder sb = new StringBuilder(cs.size());
            cs.forEach(sb::append);
            return sb.toString();
        });
    }

    /** [0, 0xFFFF] minus the surrogate block D800-DFFF, the private-use block E000-F8FF and FDD0-FDEF, FFFE, FFFF. */
    private static final Gen<Character> CHARS = integers().between(0, 0xD7FF + (0xFDCF - 0xF8FF) + (0xFFFD - 0xFDEF))
            .map(i -> {
                int c = i;
                if (c >= 0xD800) {
                    c += 0xF900 - 0xD800; // skip surrogates and private use
                }
                if (c >= 0xFDD0) {
                    c += 0xFDF0 - 0xFDD0; // skip the noncharacters FDD0-FDEF
                }
                return (char) c;
            });

    static Gen<String> nullableText() {
        return nullable(text(), 20);
    }

    static Gen<Long> anyLong() {
        return longs().all();
    }

    static Gen<Long> naturals() {
        return longs().between(0, Long.MAX_VALUE);
    }

    static Gen<Integer> anyInt() {
        return integers().all();
    }

    static Gen<Boolean> bools() {
        return booleans().all();
    }

    static Gen<List<String>> texts() {
        return lists().of(text()).ofSizeBetween(0, 6);
    }

    static Gen<TableHead> head() {
        return text().zip(naturals(), anyLong(), naturals(), TableHead::new);
    }

    static Gen<HeadTransition> transition() {
        return text().zip(text(), nullable(head(), 30), head(), HeadTransition::new);
    }

    static Gen<ExpectedBase> base() {
        return text().zip(anyLong(), anyLong(), anyLong(), ExpectedBase::new);
    }

    static Gen<KeyFilter> keyFilter() {
        Gen<KeyFilter> strings = lists().of(textOfMaxLength(12)).ofSizeBetween(0, 20)
                .map(keys -> KeyFilter.ofStrings(0, keys));
        Gen<KeyFilter> ints = lists().of(anyLong()).ofSizeBetween(0, 20)
                .map(keys -> KeyFilter.ofLongs(new int[] {0, 3}, keys.stream().mapToLong(Long::longValue).toArray()));
        return oneOf(List.of(strings, ints));
    }

    // ------------------------------------------------------------------ one generator per event type

    static Gen<JournalEvent> writerStarted() {
        Gen<Long> epoch = naturals();
        Gen<String> owner = text();
        Gen<Long> pid = naturals();
        Gen<String> host = text();
        Gen<String> version = text();
        Gen<Integer> stamp = anyInt();
        return in -> new WriterStarted(epoch.generate(in), owner.generate(in), pid.generate(in), host.generate(in),
                version.generate(in), stamp.generate(in));
    }

    static Gen<JournalEvent> intentRecorded() {
        Gen<String> id = text();
        Gen<String> idem = nullableText();
        Gen<LogicalOperation> op = arbitrary().enumValues(LogicalOperation.class);
        Gen<String> graphBranch = text();
        Gen<String> table = text();
        Gen<ExpectedBase> base = base();
        Gen<byte[]> actions = Generate.byteArrays(integers().between(0, 64),
                Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0));
        Gen<KeyFilter> keyFilter = nullable(keyFilter(), 30);
        Gen<HeadTransition> transition = transition();
        Gen<String> digest = nullableText();
        return in -> new IntentRecorded(id.generate(in), idem.generate(in), op.generate(in), graphBranch.generate(in),
                table.generate(in), base.generate(in), actions.generate(in), keyFilter.generate(in),
                transition.generate(in), digest.generate(in));
    }

    static Gen<JournalEvent> tableCommitted() {
        Gen<List<String>> ids = texts();
        Gen<String> graphBranch = text();
        Gen<String> table = text();
        Gen<String> tableBranch = text();
        Gen<Long> version = naturals();
        return in -> new TableCommitted(ids.generate(in), graphBranch.generate(in), table.generate(in),
                tableBranch.generate(in), version.generate(in));
    }

    static Gen<JournalEvent> headPublished() {
        return lists().of(transition()).ofSizeBetween(0, 5).map(HeadPublished::new);
    }

    static Gen<JournalEvent> intentCompleted() {
        return text().zip(arbitrary().enumValues(IntentOutcome.class), text(), nullableText(), texts(),
                IntentCompleted::new);
    }

    static Gen<JournalEvent> branchCreated() {
        return text().zip(text(), anyLong(), GraphBranchCreated::new);
    }

    static Gen<JournalEvent> branchDeleted() {
        return text().map(GraphBranchDeleted::new);
    }

    static Gen<JournalEvent> checkpoint() {
        return anyLong().zip(text(), text(), CheckpointWritten::new);
    }

    static Gen<JournalEvent> migrationClaimed() {
        return text().zip(text(), anyInt(), anyInt(), MigrationClaimed::new);
    }

    static Gen<JournalEvent> unitPlanned() {
        Gen<String> migration = text();
        Gen<String> unit = text();
        Gen<String> graphBranch = text();
        Gen<String> table = text();
        Gen<String> pinnedBranch = text();
        Gen<Long> pinnedVersion = anyLong();
        Gen<Boolean> flag = bools();
        return in -> new MigrationUnitPlanned(migration.generate(in), unit.generate(in), graphBranch.generate(in),
                table.generate(in), pinnedBranch.generate(in), pinnedVersion.generate(in), flag.generate(in));
    }

    static Gen<JournalEvent> unitForked() {
        return text().zip(text(), text(), anyLong(), anyLong(), MigrationUnitForked::new);
    }

    static Gen<JournalEvent> pkInstalled() {
        Gen<String> migration = text();
        Gen<String> unit = text();
        Gen<String> table = text();
        Gen<String> tableBranch = text();
        Gen<Long> version = anyLong();
        Gen<Boolean> alreadyPresent = bools();
        return in -> new MigrationPkInstalled(migration.generate(in), unit.generate(in), table.generate(in),
                tableBranch.generate(in), version.generate(in), alreadyPresent.generate(in));
    }

    static Gen<JournalEvent> unitPublished() {
        return text().zip(text(), transition(), text(), MigrationUnitPublished::new);
    }

    static Gen<JournalEvent> branchVerified() {
        return text().zip(text(), text(), MigrationBranchVerified::new);
    }

    static Gen<JournalEvent> stampWritten() {
        return text().zip(anyInt(), MigrationStampWritten::new);
    }

    static Gen<JournalEvent> migrationRefused() {
        return text().zip(text(), nullableText(), nullableText(), texts(), MigrationRefused::new);
    }

    static Gen<JournalEvent> recoveryStarted() {
        return text().zip(anyLong(), anyLong(), RecoveryStarted::new);
    }

    static Gen<JournalEvent> recoveryFinished() {
        Gen<RecoveryClassification> c = text().zip(arbitrary().enumValues(RecoveryClassification.Kind.class), text(),
                text(), RecoveryClassification::new);
        return text().zip(lists().of(c).ofSizeBetween(0, 5), text(), RecoveryFinished::new);
    }

    static Gen<JournalEvent> tornTailCut() {
        return anyLong().zip(anyLong(), anyLong(), text(), TornTailCut::new);
    }

    static Gen<JournalEvent> loadProgress() {
        Gen<String> id = text();
        Gen<Integer> batch = integers().between(-1, Integer.MAX_VALUE);
        Gen<String> tableBranch = text();
        Gen<Long> version = naturals();
        Gen<Long> rows = naturals();
        Gen<KeyFilter> keys = nullable(keyFilter(), 30);
        return in -> new LoadProgress(id.generate(in), batch.generate(in), tableBranch.generate(in),
                version.generate(in), rows.generate(in), keys.generate(in));
    }

    static Gen<JournalEvent> tableVersionSetAside() {
        Gen<String> t = text();
        Gen<Long> version = naturals();
        Gen<List<String>> ts = texts();
        return in -> new JournalEvent.TableVersionSetAside(t.generate(in), t.generate(in), t.generate(in), t.generate(in),
                version.generate(in), ts.generate(in), ts.generate(in), ts.generate(in), t.generate(in), t.generate(in));
    }

    static Gen<JournalEvent> foreignCommitFound() {
        Gen<String> t = text();
        Gen<Long> version = naturals();
        Gen<List<String>> ts = texts();
        Gen<Boolean> flag = booleans().all();
        return in -> new JournalEvent.ForeignCommitFound(ts.generate(in), t.generate(in), t.generate(in), t.generate(in),
                version.generate(in), version.generate(in), List.of(version.generate(in), version.generate(in)),
                flag.generate(in), ts.generate(in), t.generate(in));
    }
    static Gen<JournalEvent> duplicatesRepaired() {
        Gen<String> t = text();
        Gen<Long> version = naturals();
        Gen<Boolean> flag = bools();
        Gen<List<Long>> versions = lists().of(naturals()).ofSizeBetween(0, 3);
        Gen<RemovedRow> row = in -> new RemovedRow(
                t.generate(in), version.generate(in), version.generate(in), t.generate(in));
        Gen<List<RemovedRow>> rows = lists().of(row).ofSizeBetween(0, 3);
        return in -> new JournalEvent.DuplicatesRepaired(t.generate(in), t.generate(in), t.generate(in), t.generate(in),
                version.generate(in), versions.generate(in), t.generate(in), flag.generate(in), rows.generate(in));
    }

    static Gen<JournalEvent> rowsRecorded() {
        Gen<String> t = text();
        Gen<Integer> count = integers().between(0, 1000);
        Gen<List<Integer>> bytes = lists().of(integers().between(-128, 127)).ofSizeBetween(0, 64);
        return in -> {
            List<Integer> b = bytes.generate(in);
            byte[] rows = new byte[b.size()];
            for (int i = 0; i < rows.length; i++) {
                rows[i] = b.get(i).byteValue();
            }
            return new JournalEvent.RowsRecorded(t.generate(in), t.generate(in), t.generate(in), count.generate(in), rows);
        };
    }

    static Gen<JournalEvent> foldPlanned() {
        Gen<String> t = text();
        Gen<Long> seq = naturals();
        Gen<Integer> writes = integers().between(1, 100_000);
        Gen<Boolean> flag = bools();
        Gen<KeyFilter> keys = keyFilter();
        return in -> new JournalEvent.FoldPlanned(t.generate(in), t.generate(in), t.generate(in), seq.generate(in),
                writes.generate(in), flag.generate(in) ? keys.generate(in) : null);
    }

    static Gen<JournalEvent> versionsExpired() {
        Gen<String> t = text();
        Gen<Long> v = longs().between(1, Long.MAX_VALUE);
        return in -> new JournalEvent.VersionsExpired(t.generate(in), t.generate(in), v.generate(in), t.generate(in));
    }

    static Gen<JournalEvent> receiptsExpired() {
        Gen<String> t = text();
        Gen<Long> s = longs().between(0, Long.MAX_VALUE);
        return in -> new JournalEvent.ReceiptsExpired(s.generate(in), t.generate(in));
    }

    static Gen<JournalEvent> catalogRecorded() {
        Gen<String> t = text();
        return in -> JournalEvent.CatalogRecorded.of(t.generate(in), t.generate(in));
    }

    static Gen<JournalEvent> transactionCommitted() {
        Gen<String> t = text();
        Gen<Integer> parts = integers().between(1, 5);
        return in -> {
            int n = parts.generate(in);
            java.util.LinkedHashSet<String> ids = new java.util.LinkedHashSet<>();
            for (int i = 0; i < n; i++) {
                ids.add("i-" + i + "-" + t.generate(in));
            }
            return new JournalEvent.TransactionCommitted(t.generate(in), t.generate(in), List.copyOf(ids));
        };
    }

    static Gen<JournalEvent> transactionStarted() {
        Gen<JournalEvent> committed = transactionCommitted();
        return in -> {
            JournalEvent.TransactionCommitted c = (JournalEvent.TransactionCommitted) committed.generate(in);
            return new JournalEvent.TransactionStarted(c.transactionId(), c.graphBranch(), c.intentIds());
        };
    }

    static Gen<JournalEvent> rowsReleased() {
        Gen<String> t = text();
        Gen<Integer> count = integers().between(0, 1000);
        Gen<Long> bytes = longs().between(0, Integer.MAX_VALUE);
        Gen<List<Integer>> hash = lists().of(integers().between(-128, 127)).ofSize(32);
        return in -> {
            List<Integer> h = hash.generate(in);
            byte[] b = new byte[32];
            for (int i = 0; i < 32; i++) {
                b[i] = h.get(i).byteValue();
            }
            return new JournalEvent.RowsReleased(t.generate(in), t.generate(in), t.generate(in), count.generate(in),
                    bytes.generate(in), b);
        };
    }

    static Gen<JournalEvent> writeJournaled() {
        Gen<JournalEvent> intent = intentRecorded();
        Gen<JournalEvent> rows = rowsRecorded();
        return in -> {
            JournalEvent.RowsRecorded r = (JournalEvent.RowsRecorded) rows.generate(in);
            return new JournalEvent.WriteJournaled((IntentRecorded) intent.generate(in), r.rowCount(), r.rows());
        };
    }

    static Gen<JournalEvent> writeReleased() {
        Gen<JournalEvent> intent = intentRecorded();
        Gen<JournalEvent> released = rowsReleased();
        return in -> {
            JournalEvent.RowsReleased r = (JournalEvent.RowsReleased) released.generate(in);
            return new JournalEvent.WriteReleased((IntentRecorded) intent.generate(in), r.rowCount(), r.rowsBytes(),
                    r.recordHash());
        };
    }

    /**
     * Every event type a record can hold, equally likely: the appendable ones and the released forms
     * ({@code rows_released}, {@code write_released}).
     */
    static Gen<JournalEvent> anyRecordedEvent() {
        return oneOf(List.of(anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(),
                anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(),
                anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(),
                anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), anyEvent(), rowsReleased(),
                writeReleased()));
    }

    /** Every event type a writer appends, equally likely ({@code rows_released} is written by the row release only). */
    static Gen<JournalEvent> anyEvent() {
        return oneOf(List.of(writerStarted(), intentRecorded(), tableCommitted(), headPublished(),
                intentCompleted(), branchCreated(), branchDeleted(), checkpoint(), migrationClaimed(), unitPlanned(),
                unitForked(), pkInstalled(), unitPublished(), branchVerified(), stampWritten(), migrationRefused(),
                recoveryStarted(), recoveryFinished(), tornTailCut(), loadProgress(), tableVersionSetAside(),
                foreignCommitFound(), duplicatesRepaired(), rowsRecorded(), foldPlanned(), versionsExpired(),
                receiptsExpired(), catalogRecorded(), transactionCommitted(),
                transactionStarted(), writeJournaled()));
    }
}
