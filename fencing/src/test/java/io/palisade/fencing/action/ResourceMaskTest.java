package io.palisade.fencing.action;

import io.palisade.fencing.KeyFilter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.palisade.fencing.action.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link Scope} intersection and {@link ResourceMask} contacts. */
class ResourceMaskTest {

    private static Scope ids(String... ids) {
        return new Scope.Ids(Set.of(ids));
    }

    @Test
    void wildcardIdCoversEveryIdWithItsPrefix() {
        assertThat(ids("12:*").intersect(ids("12:3"))).isPresent();
        assertThat(ids("12:3").intersect(ids("12:*"))).isPresent();
        assertThat(ids("12:*").intersect(ids("13:3"))).isEmpty();
        assertThat(ids("13:3").intersect(ids("12:*"))).isEmpty();
        // the prefix ends at the colon: fragment 1 does not cover fragment 12
        assertThat(ids("1:*").intersect(ids("12:3"))).isEmpty();
        assertThat(ids("12:*").intersect(ids("12:*"))).isPresent();
        assertThat(ids("12:*").intersect(ids("1:*", "13:*"))).isEmpty();
    }

    @Test
    void sharedIdsAreNamed() {
        Optional<Scope.Shared> s = ids("1", "2", "3").intersect(ids("3", "2", "9"));
        assertThat(s).isPresent();
        assertThat(s.get().sample()).containsExactly("2", "3");
        assertThat(s.get().description()).startsWith("2 shared");
        assertThat(ids("1").intersect(ids("2"))).isEmpty();
    }

    @Test
    void allAgainstEmptyIdsIsDisjoint() {
        Scope empty = new Scope.Ids(Set.of());
        assertThat(Scope.ALL.intersect(empty)).isEmpty();
        assertThat(empty.intersect(Scope.ALL)).isEmpty();
        assertThat(Scope.ALL.intersect(ids("7"))).isPresent();
        assertThat(ids("7").intersect(Scope.ALL)).isPresent();
        assertThat(Scope.ALL.intersect(Scope.ALL)).isPresent();
    }

    @Test
    void keysAgainstKeysUseExactOverlap() {
        Scope a = new Scope.Keys(keys(1, 2, 3));
        Scope b = new Scope.Keys(keys(4, 5));
        Scope c = new Scope.Keys(keys(3, 4));
        assertThat(a.intersect(b)).isEmpty();
        assertThat(b.intersect(a)).isEmpty();
        assertThat(a.intersect(c)).hasValueSatisfying(s -> assertThat(s.sample()).containsExactly("3"));
        assertThat(c.intersect(b)).hasValueSatisfying(s -> assertThat(s.sample()).containsExactly("4"));
        // filters over different key fields conflict conservatively
        assertThat(a.intersect(new Scope.Keys(KeyFilter.ofLongs(NAME, 9)))).isPresent();
    }

    @Test
    void keysAgainstAllConflictUnlessEmpty() {
        Scope some = new Scope.Keys(keys(1));
        Scope none = new Scope.Keys(KeyFilter.empty(new int[] {ID}, KeyFilter.KeyType.INT64));
        assertThat(some.intersect(Scope.ALL)).isPresent();
        assertThat(Scope.ALL.intersect(some)).isPresent();
        assertThat(none.intersect(Scope.ALL)).isEmpty();
        assertThat(Scope.ALL.intersect(none)).isEmpty();
        assertThat(none.isEmpty()).isTrue();
    }

    @Test
    void keysAgainstIdsAreIncomparableAndShareConservatively() {
        assertThat(new Scope.Keys(keys(1)).intersect(ids("1"))).hasValueSatisfying(
                s -> assertThat(s.description()).isEqualTo("incomparable scopes"));
        assertThat(ids("1").intersect(new Scope.Keys(keys(1)))).isPresent();
    }

    @Test
    void builderDropsEmptyIdSetsAndKeepsTheFirstKeyFilter() {
        ResourceMask m = ResourceMask.builder().ids(ResourceKind.FRAGMENTS, List.of())
                .keys(keys(1)).keys(keys(2)).id(ResourceKind.INDICES, 5).build();
        assertThat(m.kinds()).containsExactlyInAnyOrder(ResourceKind.KEYS, ResourceKind.INDICES);
        assertThat(m.scope(ResourceKind.KEYS)).contains(new Scope.Keys(keys(1)));
        assertThat(m.scope(ResourceKind.INDICES)).contains(new Scope.Ids(Set.of("5")));
        assertThat(ResourceMask.builder().all(ResourceKind.FRAGMENTS).id(ResourceKind.FRAGMENTS, 1).build()
                .scope(ResourceKind.FRAGMENTS)).contains(Scope.ALL);
        assertThat(ResourceMask.builder().build()).isEqualTo(ResourceMask.NONE);
    }

    @Test
    void overlapOfAKindMissingFromOneMaskIsEmpty() {
        ResourceMask a = ResourceMask.builder().id(ResourceKind.CONFIG, "k").build();
        ResourceMask b = ResourceMask.builder().id(ResourceKind.TABLE_METADATA, "k").build();
        assertThat(a.overlap(b, ResourceKind.CONFIG)).isEmpty();
        assertThat(a.overlap(a, ResourceKind.CONFIG)).isPresent();
    }

    @Test
    void contactsIgnoreWriteWriteOnCommutingKinds() {
        // two fenced inserts over disjoint keys both append to the fragment list and bump the counters
        assertThat(ResourceMask.contacts(insert(1, 2), insert(3, 4))).isEmpty();
        assertThat(ResourceMask.contacts(new ReserveFragmentIds(1), new ReserveFragmentIds(2))).isEmpty();
        InvalidateIndexCoverage inv = new InvalidateIndexCoverage(Set.of(1L), Set.of(NAME));
        assertThat(ResourceMask.contacts(inv, inv)).isEmpty();
    }

    @Test
    void contactsReportWriteWriteOnNonCommutingKinds() {
        List<ResourceMask.Contact> c = ResourceMask.contacts(insert(1, 2), insert(2, 3));
        assertThat(c).singleElement().satisfies(x -> {
            assertThat(x.kind()).isEqualTo(ResourceKind.KEYS);
            assertThat(x.how()).isEqualTo("write/write");
            assertThat(x.shared().sample()).containsExactly("2");
        });
        UpdateConfig setK = new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "k", "1")), false);
        UpdateConfig setOther = new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "j", "1")), false);
        assertThat(ResourceMask.contacts(setK, setK)).extracting(ResourceMask.Contact::kind).containsExactly(ResourceKind.CONFIG);
        assertThat(ResourceMask.contacts(setK, setOther)).isEmpty();
    }

    @Test
    void contactsReportReadWriteInBothDirections() {
        RemoveFragments overwrite = RemoveFragments.allCurrent();
        AddFragments add = insert(1);
        // the overwrite reads the fragment list the insert appends to
        assertThat(ResourceMask.contacts(overwrite, add)).extracting(ResourceMask.Contact::kind, ResourceMask.Contact::how)
                .contains(org.assertj.core.groups.Tuple.tuple(ResourceKind.FRAGMENT_LIST, "read/write"));
        assertThat(ResourceMask.contacts(add, overwrite)).extracting(ResourceMask.Contact::kind, ResourceMask.Contact::how)
                .contains(org.assertj.core.groups.Tuple.tuple(ResourceKind.FRAGMENT_LIST, "write/read"));
        assertThat(ResourceMask.contacts(overwrite, add)).hasSameSizeAs(ResourceMask.contacts(add, overwrite));
    }

    @Test
    void addFieldsReadsTheWholeFragmentListAppendsWrite() {
        AddFields required = new AddFields(List.of(new AddFields.NewField("email", false)), Map.of());
        assertThat(ResourceMask.contacts(required, append(1))).extracting(ResourceMask.Contact::kind)
                .contains(ResourceKind.FRAGMENT_LIST);
        assertThat(ResourceMask.contacts(append(1), required)).extracting(ResourceMask.Contact::kind)
                .contains(ResourceKind.FRAGMENT_LIST);
        // two producers only append: their fragment-list writes commute
        assertThat(ResourceMask.contacts(append(1), new RewriteFragments(Set.of(0L), List.of(template(1)), false)))
                .extracting(ResourceMask.Contact::kind).doesNotContain(ResourceKind.FRAGMENT_LIST);
    }

    @Test
    void contactsAreSymmetricForEveryPairOfCatalogActions() {
        List<Action> samples = new java.util.ArrayList<>(ActionCatalogTest.oneOfEachKind());
        samples.add(RemoveFragments.allCurrent());
        samples.add(new AddFragments(List.of(template(1)), KeyScope.UNKNOWN));
        samples.add(append(1));
        samples.add(insert(100));
        samples.add(new UpdateConfig(List.of(), true));
        samples.add(new AddFields(List.of(new AddFields.NewField("x", false)), Map.of()));
        for (Action a : samples) {
            for (Action b : samples) {
                List<String> ab = ResourceMask.contacts(a, b).stream().map(c -> c.kind() + " " + c.how()).sorted().toList();
                List<String> ba = ResourceMask.contacts(b, a).stream()
                        .map(c -> c.kind() + " " + switch (c.how()) {
                            case "write/read" -> "read/write";
                            case "read/write" -> "write/read";
                            default -> c.how();
                        }).sorted().toList();
                assertThat(ab).as("contacts of %s and %s", a.kind(), b.kind()).isEqualTo(ba);
            }
        }
    }

    @Test
    void deletionOnAnotherFragmentHasNoContact() {
        assertThat(ResourceMask.contacts(delete(0, RowOffsets.of(1)), delete(1, RowOffsets.of(1)))).isEmpty();
        assertThat(ResourceMask.contacts(delete(0, RowOffsets.of(1)), delete(0, RowOffsets.of(2))))
                .extracting(ResourceMask.Contact::kind).contains(ResourceKind.DELETIONS);
    }

    @Test
    void wildcardFragReuseReadsMeetCoverageWritesOfThatFragment() {
        RegisterFragReuse reuse = new RegisterFragReuse(uuid(1), List.of(new Remap(3, new FragmentRef.Id(9))));
        AddIndex coversThree = index(uuid(2), "i", Set.of(NAME), Fixtures.ids(3));
        AddIndex coversFour = index(uuid(2), "i", Set.of(NAME), Fixtures.ids(4));
        assertThat(ResourceMask.contacts(reuse, coversThree)).extracting(ResourceMask.Contact::kind)
                .contains(ResourceKind.INDEX_COVERAGE);
        assertThat(ResourceMask.contacts(reuse, coversFour)).isEmpty();
    }
}
