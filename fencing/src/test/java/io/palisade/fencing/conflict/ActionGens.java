package io.palisade.fencing.conflict;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.action.*;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

/** QuickTheories generators of every catalog action over small universes, so that random pairs often collide. */
public final class ActionGens {
    static final List<UUID> INDEX_IDS = List.of(uuid("i0"), uuid("i1"), uuid("i2"));

    /** {@code Optional.empty()} one time in 20, as before the move to QuickTheories. */
    private static final int PERCENT_EMPTY = 5;

    private ActionGens() {
    }

    static UUID uuid(String s) {
        return UUID.nameUUIDFromBytes(s.getBytes());
    }

    public static Gen<Action> anyAction() {
        return oneOf(List.of(
                addFragments(), removeFragments(), deletionVector(), replaceColumns(), rewrite(), addFields(), dropFields(),
                Generate.<Action>constant(new ChangeSchema(Txns.keyedSchema())), schemaMetadata(), addIndex(), removeIndex(),
                rewriteIndex(), invalidate(), rebind(), fragReuse(), config(), reserve(), bases(), generations()));
    }

    /** 1 to 3 actions, as one transaction. */
    public static Gen<List<Action>> transactions() {
        return lists().of(anyAction()).ofSizeBetween(1, 3);
    }

    // ------------------------------------------------------------------ combinators QuickTheories lacks

    /** Each of {@code gens} with equal probability (without the unchecked generic varargs of {@code Generate.oneOf}). */
    public static <T> Gen<T> oneOf(List<Gen<T>> gens) {
        List<Pair<Integer, Gen<T>>> weighted = new ArrayList<>();
        gens.forEach(g -> weighted.add(Pair.of(1, g)));
        return Generate.frequency(weighted);
    }

    /** Sets of {@code min} to {@code max} elements drawn from {@code elements}: a list of that size, deduplicated. */
    public static <T> Gen<Set<T>> sets(Gen<T> elements, int min, int max) {
        return lists().of(elements).ofSizeBetween(min, max).map(l -> (Set<T>) new LinkedHashSet<>(l));
    }

    @SafeVarargs
    static <T> Gen<T> pick(T... values) {
        return arbitrary().pick(List.of(values));
    }

    static Gen<Boolean> bools() {
        return booleans().all();
    }

    // ------------------------------------------------------------------ building blocks

    static Gen<Set<Long>> fragments() {
        return sets(longs().between(0, 3), 1, 3);
    }

    static Gen<Set<Integer>> fields() {
        return sets(integers().between(0, 2), 1, 3);
    }

    static Gen<KeyFilter> keys() {
        return sets(pick("k0", "k1", "k2", "k3", "k4", "k5"), 1, 3)
                .map(s -> KeyFilter.ofStrings(Txns.ID, s));
    }

    static Gen<RowOffsets> rows() {
        return sets(integers().between(0, 4), 1, 3)
                .map(s -> RowOffsets.of(s.stream().mapToInt(Integer::intValue).toArray()));
    }

    static Gen<FragmentTemplate> template() {
        return fields().map(f -> new FragmentTemplate(3, List.of(new DataFile("t.lance", f))));
    }

    // ------------------------------------------------------------------ one generator per catalog action

    static Gen<Action> addFragments() {
        Gen<KeyScope> scope = oneOf(List.of(Generate.<KeyScope>constant(KeyScope.KEYLESS),
                Generate.<KeyScope>constant(KeyScope.UNKNOWN), keys().map(KeyScope::exact)));
        return lists().of(template()).ofSizeBetween(0, 2)
                .zip(scope, sets(longs().between(0, 3), 0, 2), (t, s, src) -> new AddFragments(t, s, src));
    }

    static Gen<Action> removeFragments() {
        return oneOf(List.of(fragments().<Action>map(f -> new RemoveFragments(new RemoveFragments.Selector.Ids(f))),
                Generate.<Action>constant(RemoveFragments.allCurrent())));
    }

    static Gen<Action> deletionVector() {
        return longs().between(0, 3).zip(rows(), bools(), keys().toOptionals(PERCENT_EMPTY),
                (f, r, known, k) -> new UpdateDeletionVector(FragmentRef.id(f), r,
                        known ? Optional.of(r) : Optional.empty(), k));
    }

    static Gen<Action> replaceColumns() {
        return longs().between(0, 3).zip(fields(), rows().toOptionals(PERCENT_EMPTY),
                (f, fl, r) -> new ReplaceFragmentColumns(FragmentRef.id(f), fl, List.of(new DataFile("c.lance", fl)), r));
    }

    static Gen<Action> rewrite() {
        return fragments().zip(lists().of(template()).ofSizeBetween(1, 2), bools(), RewriteFragments::new);
    }

    static Gen<Action> addFields() {
        return sets(pick("x", "y"), 1, 2).zip(bools(), sets(longs().between(0, 3), 0, 3),
                (names, nullable, frags) -> new AddFields(
                        names.stream().sorted().map(n -> new AddFields.NewField(n, nullable)).toList(),
                        frags.stream().collect(Collectors.toMap(f -> f, f -> "new-" + f + ".lance"))));
    }

    static Gen<Action> dropFields() {
        return fields().map(DropFields::new);
    }

    static Gen<Action> schemaMetadata() {
        Gen<UpdateSchemaMetadata.MetadataUpdate> u = integers().between(-1, 2).zip(
                pick("a", "b", Field.PRIMARY_KEY_METADATA), pick("1", "true").toOptionals(PERCENT_EMPTY),
                UpdateSchemaMetadata.MetadataUpdate::new);
        return lists().of(u).ofSizeBetween(1, 2).map(UpdateSchemaMetadata::new);
    }

    static Gen<Action> addIndex() {
        return arbitrary().pick(INDEX_IDS).zip(pick("n0", "n1"), fields(), fragments(),
                arbitrary().pick(INDEX_IDS).toOptionals(PERCENT_EMPTY),
                (id, name, f, frags, rep) -> new AddIndex(id, name, f,
                        frags.stream().map(FragmentRef::id).collect(Collectors.toSet()), 1, rep));
    }

    static Gen<Action> removeIndex() {
        return arbitrary().pick(INDEX_IDS).map(RemoveIndex::new);
    }

    static Gen<Action> rewriteIndex() {
        return arbitrary().pick(INDEX_IDS).zip(arbitrary().pick(INDEX_IDS), fragments(), fields(),
                (o, n, frags, f) -> new RewriteIndex(o, n, 2, frags, f));
    }

    static Gen<Action> invalidate() {
        return fragments().zip(fields(), InvalidateIndexCoverage::new);
    }

    static Gen<List<Remap>> remaps() {
        Gen<Remap> remap = longs().between(0, 3).zip(longs().between(0, 5), (o, n) -> new Remap(o, FragmentRef.id(n)));
        return lists().of(remap).ofSizeBetween(1, 2);
    }

    static Gen<Action> rebind() {
        return remaps().zip(fields(), RebindIndexCoverage::new);
    }

    static Gen<Action> fragReuse() {
        return arbitrary().pick(INDEX_IDS).zip(remaps(), RegisterFragReuse::new);
    }

    static Gen<Action> config() {
        Gen<UpdateConfig.ConfigUpdate> u = arbitrary().pick(List.of(UpdateConfig.Target.values()))
                .zip(pick("c1", "c2"), pick("v").toOptionals(PERCENT_EMPTY), UpdateConfig.ConfigUpdate::new);
        return lists().of(u).ofSizeBetween(0, 2).zip(bools(), UpdateConfig::new);
    }

    static Gen<Action> reserve() {
        return integers().between(1, 3).map(ReserveFragmentIds::new);
    }

    static Gen<Action> bases() {
        Gen<BasePath> path = integers().between(1, 2).zip(pick("b1", "b2"), pick("/p1", "/p2"), BasePath::new);
        return lists().of(path).ofSizeBetween(1, 2).map(AddBases::new);
    }

    static Gen<Action> generations() {
        Gen<Map.Entry<String, Long>> entry = pick("s1", "s2").zip(longs().between(1, 3), Map::entry);
        return lists().of(entry).ofSizeBetween(1, 2).map(es -> {
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
