package io.palisade.fencing.conflict;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.action.*;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/** jqwik generators of every catalog action over small universes, so that random pairs often collide. */
public final class ActionArbitraries {
    static final List<UUID> INDEX_IDS = List.of(uuid("i0"), uuid("i1"), uuid("i2"));

    private ActionArbitraries() {
    }

    static UUID uuid(String s) {
        return UUID.nameUUIDFromBytes(s.getBytes());
    }

    public static Arbitrary<Action> anyAction() {
        return Arbitraries.oneOf(List.of(
                addFragments(), removeFragments(), deletionVector(), replaceColumns(), rewrite(), addFields(), dropFields(),
                Arbitraries.just(new ChangeSchema(Txns.keyedSchema())), schemaMetadata(), addIndex(), removeIndex(),
                rewriteIndex(), invalidate(), rebind(), fragReuse(), config(), reserve(), bases(), generations()));
    }

    /** 1 to 3 actions, as one transaction. */
    public static Arbitrary<List<Action>> transactions() {
        return anyAction().list().ofMinSize(1).ofMaxSize(3);
    }

    static Arbitrary<Set<Long>> fragments() {
        return Arbitraries.longs().between(0, 3).set().ofMinSize(1).ofMaxSize(3);
    }

    static Arbitrary<Set<Integer>> fields() {
        return Arbitraries.integers().between(0, 2).set().ofMinSize(1).ofMaxSize(3);
    }

    static Arbitrary<KeyFilter> keys() {
        return Arbitraries.of("k0", "k1", "k2", "k3", "k4", "k5").set().ofMinSize(1).ofMaxSize(3)
                .map(s -> KeyFilter.ofStrings(Txns.ID, s));
    }

    static Arbitrary<RowOffsets> rows() {
        return Arbitraries.integers().between(0, 4).set().ofMinSize(1).ofMaxSize(3)
                .map(s -> RowOffsets.of(s.stream().mapToInt(Integer::intValue).toArray()));
    }

    static Arbitrary<FragmentTemplate> template() {
        return fields().map(f -> new FragmentTemplate(3, List.of(new DataFile("t.lance", f))));
    }

    static Arbitrary<Action> addFragments() {
        Arbitrary<KeyScope> scope = Arbitraries.oneOf(List.of(Arbitraries.just(KeyScope.KEYLESS),
                Arbitraries.just(KeyScope.UNKNOWN), keys().map(KeyScope::exact)));
        return Combinators.combine(template().list().ofMaxSize(2), scope,
                        Arbitraries.longs().between(0, 3).set().ofMaxSize(2))
                .as((t, s, src) -> new AddFragments(t, s, src));
    }

    static Arbitrary<Action> removeFragments() {
        return Arbitraries.oneOf(List.of(fragments().map(f -> new RemoveFragments(new RemoveFragments.Selector.Ids(f))),
                Arbitraries.just(RemoveFragments.allCurrent())));
    }

    static Arbitrary<Action> deletionVector() {
        return Combinators.combine(Arbitraries.longs().between(0, 3), rows(), Arbitraries.of(true, false),
                        keys().optional())
                .as((f, r, known, k) -> new UpdateDeletionVector(FragmentRef.id(f), r,
                        known ? Optional.of(r) : Optional.empty(), k));
    }

    static Arbitrary<Action> replaceColumns() {
        return Combinators.combine(Arbitraries.longs().between(0, 3), fields(), rows().optional())
                .as((f, fl, r) -> new ReplaceFragmentColumns(FragmentRef.id(f), fl, List.of(new DataFile("c.lance", fl)), r));
    }

    static Arbitrary<Action> rewrite() {
        return Combinators.combine(fragments(), template().list().ofMinSize(1).ofMaxSize(2), Arbitraries.of(true, false))
                .as(RewriteFragments::new);
    }

    static Arbitrary<Action> addFields() {
        return Combinators.combine(Arbitraries.of("x", "y").set().ofMinSize(1), Arbitraries.of(true, false),
                        Arbitraries.longs().between(0, 3).set().ofMaxSize(3))
                .as((names, nullable, frags) -> new AddFields(
                        names.stream().sorted().map(n -> new AddFields.NewField(n, nullable)).toList(),
                        frags.stream().collect(Collectors.toMap(f -> f, f -> "new-" + f + ".lance"))));
    }

    static Arbitrary<Action> dropFields() {
        return fields().map(DropFields::new);
    }

    static Arbitrary<Action> schemaMetadata() {
        Arbitrary<UpdateSchemaMetadata.MetadataUpdate> u = Combinators.combine(Arbitraries.integers().between(-1, 2),
                        Arbitraries.of("a", "b", Field.PRIMARY_KEY_METADATA), Arbitraries.of("1", "true").optional())
                .as(UpdateSchemaMetadata.MetadataUpdate::new);
        return u.list().ofMinSize(1).ofMaxSize(2).map(UpdateSchemaMetadata::new);
    }

    static Arbitrary<Action> addIndex() {
        return Combinators.combine(Arbitraries.of(INDEX_IDS), Arbitraries.of("n0", "n1"), fields(), fragments(),
                        Arbitraries.of(INDEX_IDS).optional())
                .as((id, name, f, frags, rep) -> new AddIndex(id, name, f,
                        frags.stream().map(FragmentRef::id).collect(Collectors.toSet()), 1, rep));
    }

    static Arbitrary<Action> removeIndex() {
        return Arbitraries.of(INDEX_IDS).map(RemoveIndex::new);
    }

    static Arbitrary<Action> rewriteIndex() {
        return Combinators.combine(Arbitraries.of(INDEX_IDS), Arbitraries.of(INDEX_IDS), fragments(), fields())
                .as((o, n, frags, f) -> new RewriteIndex(o, n, 2, frags, f));
    }

    static Arbitrary<Action> invalidate() {
        return Combinators.combine(fragments(), fields()).as(InvalidateIndexCoverage::new);
    }

    static Arbitrary<List<Remap>> remaps() {
        return Combinators.combine(Arbitraries.longs().between(0, 3), Arbitraries.longs().between(0, 5))
                .as((o, n) -> new Remap(o, FragmentRef.id(n))).list().ofMinSize(1).ofMaxSize(2);
    }

    static Arbitrary<Action> rebind() {
        return Combinators.combine(remaps(), fields()).as(RebindIndexCoverage::new);
    }

    static Arbitrary<Action> fragReuse() {
        return Combinators.combine(Arbitraries.of(INDEX_IDS), remaps()).as(RegisterFragReuse::new);
    }

    static Arbitrary<Action> config() {
        Arbitrary<UpdateConfig.ConfigUpdate> u = Combinators.combine(Arbitraries.of(UpdateConfig.Target.values()),
                        Arbitraries.of("c1", "c2"), Arbitraries.of("v").optional())
                .as(UpdateConfig.ConfigUpdate::new);
        return Combinators.combine(u.list().ofMaxSize(2), Arbitraries.of(true, false)).as(UpdateConfig::new);
    }

    static Arbitrary<Action> reserve() {
        return Arbitraries.integers().between(1, 3).map(ReserveFragmentIds::new);
    }

    static Arbitrary<Action> bases() {
        return Combinators.combine(Arbitraries.integers().between(1, 2), Arbitraries.of("b1", "b2"), Arbitraries.of("/p1", "/p2"))
                .as(BasePath::new).list().ofMinSize(1).ofMaxSize(2).map(AddBases::new);
    }

    static Arbitrary<Action> generations() {
        return Combinators.combine(Arbitraries.of("s1", "s2"), Arbitraries.longs().between(1, 3)).as(Map::entry)
                .list().ofMinSize(1).ofMaxSize(2).map(es -> {
                    Map<String, Long> m = new HashMap<>();
                    es.forEach(e -> m.put(e.getKey(), e.getValue()));
                    return new UpdateMergedGenerations(m);
                });
    }

    static List<Action> one(Action a) {
        List<Action> l = new ArrayList<>();
        l.add(a);
        return l;
    }
}
