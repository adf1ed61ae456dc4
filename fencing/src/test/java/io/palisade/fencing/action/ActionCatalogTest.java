package io.palisade.fencing.action;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.palisade.fencing.action.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

/** The catalog as a whole: all nineteen actions, in one transaction, within their kind footprints. */
class ActionCatalogTest {

    /** The base {@link #oneOfEachKind()} applies to. */
    static Manifest catalogBase() {
        return keyedWith(3, 2).apply(List.of(
                index(uuid(1), "by_name", Set.of(NAME), ids(0, 1)),
                new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "k", "v")), false)));
    }

    /** One valid transaction holding every catalog action once (valid on {@link #catalogBase()}). */
    static List<Action> oneOfEachKind() {
        FragmentRef compacted = new FragmentRef.ProducedBy(3, 0);
        List<Field> changed = new ArrayList<>(KEYED.fields());
        changed.add(Field.of(4, "score", true));
        return List.of(
                insert(100, 101),                                                               // 0  A1 -> fragment 2
                delete(0, RowOffsets.of(1)),                                                    // 1  A3
                new ReplaceFragmentColumns(new FragmentRef.Id(1), Set.of(AGE), List.of(file(AGE)), Optional.empty()), // 2 A4
                new RewriteFragments(Set.of(0L), List.of(template(2)), true),                   // 3  A5 -> fragment 3
                new RebindIndexCoverage(List.of(new Remap(0, compacted)), Set.of(NAME)),        // 4  A14
                new RegisterFragReuse(uuid(9), List.of(new Remap(0, compacted))),               // 5  A15
                new InvalidateIndexCoverage(Set.of(1L), Set.of(NAME)),                          // 6  A13
                index(uuid(2), "by_age", Set.of(AGE), Set.of(new FragmentRef.ProducedBy(0, 0))), // 7 A10
                new RewriteIndex(uuid(2), uuid(3), 2, Set.of(2L), Set.of(AGE)),                 // 8  A12
                new RemoveIndex(uuid(3)),                                                       // 9  A11
                new AddFields(List.of(new AddFields.NewField("email", true)), Map.of()),        // 10 A6 -> field 3
                new DropFields(Set.of(3)),                                                      // 11 A7
                new ChangeSchema(new Schema(changed, Map.of())),                                // 12 A8
                new UpdateSchemaMetadata(List.of(UpdateSchemaMetadata.MetadataUpdate.set(-1, "owner", "team"))), // 13 A9
                RemoveFragments.ids(1L),                                                        // 14 A2
                new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "k2", "v2")), false), // 15 A16
                new ReserveFragmentIds(3),                                                      // 16 A17
                new AddBases(List.of(new BasePath(1, "cold", "s3://cold"))),                    // 17 A18
                new UpdateMergedGenerations(Map.of("shard-0", 4L)));                            // 18 A19
    }

    @Test
    void sampleTransactionCoversEveryCatalogActionOnce() {
        List<ActionKind> kinds = oneOfEachKind().stream().map(Action::kind).toList();
        assertThat(kinds).hasSize(19).doesNotHaveDuplicates();
        assertThat(EnumSet.copyOf(kinds)).isEqualTo(EnumSet.allOf(ActionKind.class));
    }

    @Test
    void wholeCatalogAppliesAsOneTransaction() {
        Manifest m = catalogBase().apply(oneOfEachKind());
        assertThat(m.version()).isEqualTo(catalogBase().version() + 1);
        assertThat(m.fragmentIds()).containsExactly(2L, 3L);
        assertThat(m.fragment(3).orElseThrow().physicalRows()).isEqualTo(2);
        assertThat(m.indices().keySet()).containsExactly(uuid(1));
        assertThat(m.indices().get(uuid(1)).fragmentBitmap()).containsExactly(3L);
        assertThat(m.fragReuse()).isPresent();
        assertThat(m.schema().field("score")).isPresent();
        assertThat(m.schema().field("email")).isEmpty();
        assertThat(m.schema().metadata()).containsEntry("owner", "team");
        assertThat(m.config()).containsEntry("k", "v").containsEntry("k2", "v2");
        assertThat(m.nextFragmentId()).isEqualTo(7);
        assertThat(m.bases()).extracting(BasePath::name).containsExactly("cold");
        assertThat(m.mergedGenerations()).containsEntry("shard-0", 4L);
    }

    @Test
    void catalogNumbersAndLabelsFollowTheSpike() {
        ActionKind[] all = ActionKind.values();
        assertThat(all).hasSize(19);
        for (int i = 0; i < all.length; i++) {
            assertThat(all[i].number()).isEqualTo(i + 1);
            assertThat(all[i].code()).isEqualTo("A" + (i + 1));
        }
        assertThat(Arrays.stream(all).map(ActionKind::label)).doesNotHaveDuplicates();
        for (Action a : oneOfEachKind()) {
            assertThat(a.kind().label()).isEqualTo(a.getClass().getSimpleName());
        }
    }

    @Test
    void everyPayloadMaskStaysWithinItsKindFootprint() {
        List<Action> samples = new ArrayList<>(oneOfEachKind());
        samples.add(RemoveFragments.allCurrent());
        samples.add(new AddFragments(List.of(template(1)), KeyScope.UNKNOWN, Set.of(0L)));
        samples.add(append(2));
        samples.add(new UpdateDeletionVector(new FragmentRef.Id(0), RowOffsets.of(0), Optional.of(RowOffsets.of(0)),
                Optional.of(keys(0))));
        samples.add(new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.TABLE_METADATA, "t", "1")), true));
        samples.add(UpdateSchemaMetadata.installPrimaryKey(ID));
        samples.add(new AddIndex(uuid(5), "x", Set.of(NAME), ids(0), 1, Optional.of(uuid(1))));
        for (Action a : samples) {
            assertThat(a.kind().readKinds()).as("reads of %s", a).containsAll(a.reads().kinds());
            assertThat(a.kind().writeKinds()).as("writes of %s", a).containsAll(a.writes().kinds());
        }
    }
}
