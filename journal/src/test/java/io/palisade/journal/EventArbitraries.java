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
import io.palisade.journal.JournalEvent.TornTailCut;
import io.palisade.journal.JournalEvent.WriterStarted;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.List;

/** jqwik generators for every event type of the vocabulary. */
final class EventArbitraries {
    private EventArbitraries() {
    }

    static Arbitrary<String> text() {
        return Arbitraries.strings().ofMaxLength(24); // any code point, including empty strings
    }

    static Arbitrary<String> nullableText() {
        return text().injectNull(0.2);
    }

    static Arbitrary<Long> longs() {
        return Arbitraries.longs();
    }

    static Arbitrary<Long> naturals() {
        return Arbitraries.longs().greaterOrEqual(0);
    }

    static Arbitrary<List<String>> texts() {
        return text().list().ofMaxSize(6);
    }

    static Arbitrary<TableHead> head() {
        return Combinators.combine(text(), naturals(), longs(), naturals()).as(TableHead::new);
    }

    static Arbitrary<HeadTransition> transition() {
        return Combinators.combine(text(), text(), head().injectNull(0.3), head()).as(HeadTransition::new);
    }

    static Arbitrary<ExpectedBase> base() {
        return Combinators.combine(text(), longs(), longs(), longs()).as(ExpectedBase::new);
    }

    static Arbitrary<KeyFilter> keyFilter() {
        Arbitrary<KeyFilter> strings = Arbitraries.strings().ofMaxLength(12).list().ofMaxSize(20)
                .map(keys -> KeyFilter.ofStrings(0, keys));
        Arbitrary<KeyFilter> ints = Arbitraries.longs().array(long[].class).ofMaxSize(20)
                .map(keys -> KeyFilter.ofLongs(new int[] {0, 3}, keys));
        return Arbitraries.oneOf(strings, ints);
    }

    static Arbitrary<JournalEvent> writerStarted() {
        return Combinators.combine(naturals(), text(), naturals(), text(), text(), Arbitraries.integers())
                .as(WriterStarted::new);
    }

    static Arbitrary<JournalEvent> intentRecorded() {
        Arbitrary<byte[]> actions = Arbitraries.bytes().array(byte[].class).ofMaxSize(64);
        return Combinators.combine(text(), nullableText(), Arbitraries.of(LogicalOperation.class), text(), text(),
                        base(), actions, keyFilter().injectNull(0.3))
                .flatAs((id, idem, op, gb, table, base, acts, kf) -> transition()
                        .map(t -> new IntentRecorded(id, idem, op, gb, table, base, acts, kf, t)));
    }

    static Arbitrary<JournalEvent> tableCommitted() {
        return Combinators.combine(texts(), text(), text(), text(), naturals()).as(TableCommitted::new);
    }

    static Arbitrary<JournalEvent> headPublished() {
        return transition().list().ofMaxSize(5).map(HeadPublished::new);
    }

    static Arbitrary<JournalEvent> intentCompleted() {
        return Combinators.combine(text(), Arbitraries.of(IntentOutcome.class), text(), nullableText(), texts())
                .as(IntentCompleted::new);
    }

    static Arbitrary<JournalEvent> branchCreated() {
        return Combinators.combine(text(), text(), longs()).as(GraphBranchCreated::new);
    }

    static Arbitrary<JournalEvent> branchDeleted() {
        return text().map(GraphBranchDeleted::new);
    }

    static Arbitrary<JournalEvent> checkpoint() {
        return Combinators.combine(longs(), text(), text()).as(CheckpointWritten::new);
    }

    static Arbitrary<JournalEvent> migrationClaimed() {
        return Combinators.combine(text(), text(), Arbitraries.integers(), Arbitraries.integers())
                .as(MigrationClaimed::new);
    }

    static Arbitrary<JournalEvent> unitPlanned() {
        return Combinators.combine(text(), text(), text(), text(), text(), longs(), Arbitraries.of(true, false))
                .as(MigrationUnitPlanned::new);
    }

    static Arbitrary<JournalEvent> unitForked() {
        return Combinators.combine(text(), text(), text(), longs(), longs()).as(MigrationUnitForked::new);
    }

    static Arbitrary<JournalEvent> pkInstalled() {
        return Combinators.combine(text(), text(), text(), text(), longs(), Arbitraries.of(true, false))
                .as(MigrationPkInstalled::new);
    }

    static Arbitrary<JournalEvent> unitPublished() {
        return Combinators.combine(text(), text(), transition(), text()).as(MigrationUnitPublished::new);
    }

    static Arbitrary<JournalEvent> branchVerified() {
        return Combinators.combine(text(), text(), text()).as(MigrationBranchVerified::new);
    }

    static Arbitrary<JournalEvent> stampWritten() {
        return Combinators.combine(text(), Arbitraries.integers()).as(MigrationStampWritten::new);
    }

    static Arbitrary<JournalEvent> migrationRefused() {
        return Combinators.combine(text(), text(), nullableText(), nullableText(), texts()).as(MigrationRefused::new);
    }

    static Arbitrary<JournalEvent> recoveryStarted() {
        return Combinators.combine(text(), longs(), longs()).as(RecoveryStarted::new);
    }

    static Arbitrary<JournalEvent> recoveryFinished() {
        Arbitrary<RecoveryClassification> c = Combinators.combine(text(),
                Arbitraries.of(RecoveryClassification.Kind.class), text(), text()).as(RecoveryClassification::new);
        return Combinators.combine(text(), c.list().ofMaxSize(5), text()).as(RecoveryFinished::new);
    }

    static Arbitrary<JournalEvent> tornTailCut() {
        return Combinators.combine(longs(), longs(), longs(), text()).as(TornTailCut::new);
    }

    /** Every event type, equally likely. */
    static Arbitrary<JournalEvent> anyEvent() {
        return Arbitraries.oneOf(List.of(writerStarted(), intentRecorded(), tableCommitted(), headPublished(),
                intentCompleted(), branchCreated(), branchDeleted(), checkpoint(), migrationClaimed(), unitPlanned(),
                unitForked(), pkInstalled(), unitPublished(), branchVerified(), stampWritten(), migrationRefused(),
                recoveryStarted(), recoveryFinished(), tornTailCut())).withoutEdgeCases();
    }
}
