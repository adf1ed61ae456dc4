package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Options;
import io.palisade.fencing.FormatStamp;
import io.palisade.heads.HeadsState;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.KafkaJournalConfig;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.TableHead;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * Writes a new graph's files: the format stamp (born at the fencing format, RFC-023 §7.2), the catalog, the journal
 * (Chronicle, or the Kafka topic it records; its first batch records the catalog) and every table, each created as a
 * journaled intent. It writes into the
 * staging directory of a create, which is renamed into place only once everything is there (docs/crash-points.md
 * {@code create-*}).
 */
public final class GraphBuilder {
    private GraphBuilder() {
    }

    /** Writes a complete graph at {@code root} (the staging directory of a create), its journal and tables closed. */
    public static void build(Path root, Catalog catalog, Options options, Optional<KafkaJournalConfig> kafkaJournal,
                             Function<Path, TableStore> stores) {
        GraphLayout layout = new GraphLayout(root);
        GraphFormat.write(root, FormatStamp.FENCING.number()); // RFC-023 §7.2: born at the fencing format
        CrashPoints.hit("create-after-format");
        layout.writeCatalog(catalog);
        CrashPoints.hit("create-after-catalog");
        kafkaJournal.ifPresent(k -> k.write(layout.palisade()));
        Journal journal = Journal.openNew(layout.palisade(), journalOptions(options));
        TableStore store = stores.apply(layout.tables());
        try {
            List<JournalEvent> events = new ArrayList<>();
            events.add(CatalogRecords.record(catalog, "graph created"));
            for (Catalog.TableDef t : catalog.tables()) {
                String intent = "i-" + UUID.randomUUID();
                TableHead to = new TableHead(TableRef.MAIN, 1, 0, 0);
                events.add(new IntentRecorded(intent, null, LogicalOperation.CREATE_TABLE, HeadsState.MAIN, t.name(),
                        new ExpectedBase(TableRef.MAIN, 0, 0, journal.endSequence()), io.palisade.fencing.action.ActionCodec
                        .encode(List.of()), null, new HeadTransition(HeadsState.MAIN, t.name(), null, to)));
            }
            journal.appendBatch(events, options.durability());
            CrashPoints.hit("create-after-intents");
            List<JournalEvent> done = new ArrayList<>();
            for (int i = 0; i < catalog.tables().size(); i++) {
                Catalog.TableDef t = catalog.tables().get(i);
                String intent = ((IntentRecorded) events.get(i + 1)).intentId(); // after the catalog's record
                if (t.kind().keyed()) {
                    store.createKeyed(t.name(), t.kind() == Catalog.Kind.NODE ? TableKind.NODE : TableKind.EDGE, t.arrowSchema());
                    if (options.indexedMerge()) {
                        try (KeyedTable k = store.openKeyed(t.name(), store.latest(t.name(), TableRef.MAIN))) {
                            k.createIdIndex();
                        }
                    }
                } else {
                    store.createKeyless(t.name(), t.arrowSchema());
                }
                TableRef ref = store.latest(t.name(), TableRef.MAIN);
                TableHead to = new TableHead(ref.branch(), ref.version(), 0, 0);
                done.add(new TableCommitted(List.of(intent), HeadsState.MAIN, t.name(), ref.branch(), ref.version()));
                done.add(new HeadPublished(List.of(new HeadTransition(HeadsState.MAIN, t.name(), null, to))));
                done.add(new IntentCompleted(intent, IntentOutcome.COMMITTED, "", null, List.of()));
            }
            CrashPoints.hit("create-after-tables");
            journal.appendBatch(done, options.durability());
        } catch (RuntimeException e) {
            journal.close();
            store.close();
            throw e;
        }
        journal.close();
        store.close();
    }

    /** The journal options of a writer of this build at {@code options}' durability. */
    public static JournalOptions journalOptions(Options options) {
        return JournalOptions.defaults().withDefaultDurability(options.durability()).withBinaryVersion(BinaryVersion.VERSION)
                .withFormatStamp(FormatStamp.FENCING.number()).withPrepareAhead(options.prepareJournalAhead());
    }
}
