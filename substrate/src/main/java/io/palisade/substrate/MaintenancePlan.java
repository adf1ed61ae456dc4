package io.palisade.substrate;

import io.palisade.fencing.action.Action;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A maintenance commit decided before it is made: which fragment groups a compaction rewrites, or
 * which index an optimise builds or rewrites, planned on the exact state {@link #base()} (from
 * {@link TableSnapshot#planCompaction()} / {@link KeyedTable#planIndexOptimize()}) and committed
 * exactly as planned by {@link TableSnapshot#commit(MaintenancePlan)} on a handle at that state.
 *
 * <p>{@link #actions()} names the plan in catalog actions through {@link CatalogActions} (the same
 * mapping that names committed versions), so that the coordinator can journal and judge it before
 * the commit. Invariants: an {@link #isEmpty() empty} plan commits nothing; a non-empty compaction
 * plan has at least one group and its groups are disjoint; the store-private {@link #execution()}
 * token is read only by the store that made the plan.
 */
public final class MaintenancePlan {

    /** What the plan does. */
    public enum Kind {
        /** Rewrites small fragments, group by group (Lance Rewrite); indices over them are remapped. */
        COMPACTION,
        /** Builds the index (Lance CreateIndex adding a name that is absent). */
        INDEX_BUILD,
        /** Brings an existing index up to date (Lance CreateIndex replacing the same name). */
        INDEX_REWRITE
    }

    private final Kind kind;
    private final TableRef base;
    private final List<Set<Long>> groups;
    private final Set<Integer> remappedIndexFields;
    private final String indexName;
    private final Set<Long> indexCoverage;
    private final Set<Integer> indexFields;
    private final boolean empty;
    private final Object execution;
    private final boolean rebuildsIndexFirst;

    private MaintenancePlan(Kind kind, TableRef base, List<Set<Long>> groups, Set<Integer> remappedIndexFields,
                            String indexName, Set<Long> indexCoverage, Set<Integer> indexFields, boolean empty,
                            Object execution, boolean rebuildsIndexFirst) {
        this.kind = Objects.requireNonNull(kind);
        this.base = Objects.requireNonNull(base);
        List<Set<Long>> gs = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (Set<Long> g : groups) {
            if (g.isEmpty()) {
                throw new IllegalArgumentException("a compaction group rewrites at least one fragment");
            }
            for (long f : g) {
                if (!seen.add(f)) {
                    throw new IllegalArgumentException("fragment " + f + " is in two compaction groups");
                }
            }
            gs.add(Set.copyOf(new TreeSet<>(g)));
        }
        this.groups = List.copyOf(gs);
        this.remappedIndexFields = Set.copyOf(remappedIndexFields);
        this.indexName = indexName;
        this.indexCoverage = Set.copyOf(indexCoverage);
        this.indexFields = Set.copyOf(indexFields);
        this.empty = empty;
        this.execution = execution;
        this.rebuildsIndexFirst = rebuildsIndexFirst;
    }

    /**
     * A compaction of {@code groups} (old fragment ids rewritten together; empty: nothing to compact),
     * remapping the coverage of indices over {@code remappedIndexFields}.
     */
    public static MaintenancePlan compaction(TableRef base, List<Set<Long>> groups, Set<Integer> remappedIndexFields,
                                             Object execution) {
        return new MaintenancePlan(Kind.COMPACTION, base, groups, groups.isEmpty() ? Set.of() : remappedIndexFields,
                null, Set.of(), Set.of(), groups.isEmpty(), execution, false);
    }

    /**
     * A compaction of {@code groups} that first rebuilds index {@code indexName} over {@code indexFields} on the
     * table branch (one CreateIndex replacing it and covering {@code coverage}, every fragment of {@code base}), then
     * rewrites the groups and remaps the rebuilt index. For an index whose files a table branch inherited from the
     * version it was forked from: Lance 7.0.0 writes the remapped copy of such an index into the branch's own
     * directory but records it under the base the original came from, where it is never found.
     */
    public static MaintenancePlan compactionRebuildingIndex(TableRef base, List<Set<Long>> groups,
                                                            Set<Integer> remappedIndexFields, String indexName,
                                                            Set<Long> coverage, Set<Integer> indexFields,
                                                            Object execution) {
        if (groups.isEmpty()) {
            return compaction(base, groups, remappedIndexFields, execution);
        }
        return new MaintenancePlan(Kind.COMPACTION, base, groups, remappedIndexFields, Objects.requireNonNull(indexName),
                coverage, indexFields, false, execution, true);
    }

    /** Builds ({@code rewrite == false}) or rewrites index {@code name} over {@code fields}, covering {@code coverage}. */
    public static MaintenancePlan index(TableRef base, boolean rewrite, String name, Set<Long> coverage, Set<Integer> fields) {
        return new MaintenancePlan(rewrite ? Kind.INDEX_REWRITE : Kind.INDEX_BUILD, base, List.of(), Set.of(),
                Objects.requireNonNull(name), coverage, fields, false, null, false);
    }

    /** An index optimise with nothing to do: the index already covers every fragment of {@code base}. */
    public static MaintenancePlan indexUpToDate(TableRef base, String name, Set<Long> coverage, Set<Integer> fields) {
        return new MaintenancePlan(Kind.INDEX_REWRITE, base, List.of(), Set.of(), Objects.requireNonNull(name), coverage,
                fields, true, null, false);
    }

    public Kind kind() {
        return kind;
    }

    /** The exact state the plan was made on. */
    public TableRef base() {
        return base;
    }

    /** Compaction: the fragment groups rewritten together (each ascending), in task order; otherwise empty. */
    public List<Set<Long>> groups() {
        return groups;
    }

    /** Index plans: the index name; a compaction that {@link #rebuildsIndexFirst()}: the index rebuilt; else null. */
    public String indexName() {
        return indexName;
    }

    /** Whether a compaction first rebuilds {@link #indexName()} on its table branch, in a CreateIndex of its own. */
    public boolean rebuildsIndexFirst() {
        return rebuildsIndexFirst;
    }

    /** Index plans, and a compaction that rebuilds an index first: the fragments the index will cover. */
    public Set<Long> indexCoverage() {
        return indexCoverage;
    }

    /** Whether the plan commits nothing (nothing to compact, or the index is up to date). */
    public boolean isEmpty() {
        return empty;
    }

    /** The store's own execution state (e.g. Lance's compaction tasks); only the planning store reads it. */
    public Object execution() {
        return execution;
    }

    /** The plan as catalog actions (empty for an empty plan), named by {@link CatalogActions}. */
    public List<Action> actions() {
        if (empty) {
            return List.of();
        }
        return switch (kind) {
            case COMPACTION -> {
                List<Action> out = new ArrayList<>();
                if (rebuildsIndexFirst) {
                    out.addAll(CatalogActions.index(indexName, true, base, indexCoverage, indexFields));
                }
                out.addAll(CatalogActions.rewrite(groups.stream()
                        .map(g -> new CommitDescription.RewriteGroup(List.copyOf(new TreeSet<>(g)), 0)).toList(),
                        remappedIndexFields));
                yield out;
            }
            case INDEX_BUILD -> CatalogActions.index(indexName, false, base, indexCoverage, indexFields);
            case INDEX_REWRITE -> CatalogActions.index(indexName, true, base, indexCoverage, indexFields);
        };
    }

    /**
     * Why the versions the plan's commit produced ({@code committed}: their descriptions, ascending;
     * empty when nothing was committed) are not this plan, or empty when they are. Compared: a
     * compaction rewrote exactly the planned fragments, in exactly the planned groups when the store
     * could see its groups; an index commit added ({@code INDEX_BUILD}) or replaced
     * ({@code INDEX_REWRITE}) exactly the planned index. Not compared: payload a description cannot
     * carry (new fragment rows, index uuids and coverage, coverage remaps) and fragment-id reservations
     * (Lance reserves the new fragments' ids in separate ReserveFragments versions before a Rewrite
     * that remaps indices; a reservation changes no data and no index). A compaction that
     * {@link #rebuildsIndexFirst()} committed the planned index rebuild first.
     */
    public Optional<String> mismatch(List<CommitDescription> committed) {
        List<CommitDescription> unreserved = committed.stream()
                .filter(c -> c.kind() != OperationKind.RESERVE_FRAGMENTS).toList();
        if (rebuildsIndexFirst && (unreserved.isEmpty() || !rebuilt(unreserved.get(0)))) {
            return Optional.of("planned to rebuild index '" + indexName + "' before the compaction but committed "
                    + (unreserved.isEmpty() ? "nothing" : kinds(unreserved)));
        }
        List<CommitDescription> effective = effective(committed);
        if (empty) {
            return effective.isEmpty() ? Optional.empty() : Optional.of("planned nothing but committed " + kinds(effective));
        }
        if (effective.size() != 1) {
            return Optional.of("planned " + this + " but committed " + (effective.isEmpty() ? "nothing" : kinds(effective)));
        }
        CommitDescription c = effective.get(0);
        return switch (kind) {
            case COMPACTION -> {
                if (c.kind() != OperationKind.REWRITE) {
                    yield Optional.of("planned a compaction but committed " + c.kind().lanceName());
                }
                Set<Long> planned = new TreeSet<>();
                groups.forEach(planned::addAll);
                Set<Long> removed = new TreeSet<>(c.fragmentsRemoved());
                if (!planned.equals(removed)) {
                    yield Optional.of("planned to rewrite fragments " + planned + " but the commit rewrote " + removed);
                }
                Set<Set<Long>> plannedGroups = new HashSet<>(groups);
                Set<Set<Long>> got = new HashSet<>();
                c.rewriteGroups().forEach(g -> got.add(Set.copyOf(g.oldFragments())));
                yield c.rewriteGroups().isEmpty() || plannedGroups.equals(got) ? Optional.<String>empty()
                        : Optional.of("planned groups " + groups + " but the commit rewrote groups " + c.rewriteGroups());
            }
            case INDEX_BUILD, INDEX_REWRITE -> {
                boolean rewrite = kind == Kind.INDEX_REWRITE;
                boolean ok = c.kind() == OperationKind.CREATE_INDEX && c.indicesAdded().equals(List.of(indexName))
                        && c.indicesRemoved().equals(rewrite ? List.of(indexName) : List.of());
                yield ok ? Optional.<String>empty() : Optional.of("planned to " + (rewrite ? "rewrite" : "build") + " index '"
                        + indexName + "' but the commit was " + c.kind().lanceName() + " adding " + c.indicesAdded()
                        + " and removing " + c.indicesRemoved());
            }
        };
    }

    /**
     * The versions of {@code committed} (their descriptions, ascending) that are the plan's effect proper: without
     * Lance's fragment-id reservations and, for a compaction that {@link #rebuildsIndexFirst()}, without the leading
     * rebuild of its index. A maintenance commit has exactly one; more means foreign versions below it.
     */
    public List<CommitDescription> effective(List<CommitDescription> committed) {
        List<CommitDescription> out = new ArrayList<>(committed.stream()
                .filter(c -> c.kind() != OperationKind.RESERVE_FRAGMENTS).toList());
        if (rebuildsIndexFirst && !out.isEmpty() && rebuilt(out.get(0))) {
            out.remove(0);
        }
        return List.copyOf(out);
    }

    /** Whether {@code c} is this plan's rebuild of its index (a CreateIndex replacing exactly that name). */
    private boolean rebuilt(CommitDescription c) {
        return c.kind() == OperationKind.CREATE_INDEX && c.indicesAdded().equals(List.of(indexName))
                && c.indicesRemoved().equals(List.of(indexName));
    }

    private static List<String> kinds(List<CommitDescription> cs) {
        return cs.stream().map(c -> c.kind().lanceName() + "@" + c.ref()).toList();
    }

    @Override
    public String toString() {
        return kind + (empty ? " (nothing to do)" : "") + " at " + base
                + (kind == Kind.COMPACTION ? " groups " + groups + (rebuildsIndexFirst ? " after rebuilding index " + indexName : "")
                : " index " + indexName + " covering " + new TreeSet<>(indexCoverage));
    }
}
