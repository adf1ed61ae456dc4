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

    /**
     * Lance's fragment-reuse system index: a compaction that defers its index remap registers it, and the
     * compaction plan that {@link #defersIndexRemap() defers} drops it again once the id index is rebuilt.
     */
    public static final String FRAG_REUSE_INDEX = "__lance_frag_reuse";

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
    private final boolean defersIndexRemap;
    private final boolean dropsFragReuse;

    private MaintenancePlan(Kind kind, TableRef base, List<Set<Long>> groups, Set<Integer> remappedIndexFields,
                            String indexName, Set<Long> indexCoverage, Set<Integer> indexFields, boolean empty,
                            Object execution, boolean rebuildsIndexFirst, boolean defersIndexRemap) {
        this(kind, base, groups, remappedIndexFields, indexName, indexCoverage, indexFields, empty, execution,
                rebuildsIndexFirst, defersIndexRemap, defersIndexRemap);
    }

    private MaintenancePlan(Kind kind, TableRef base, List<Set<Long>> groups, Set<Integer> remappedIndexFields,
                            String indexName, Set<Long> indexCoverage, Set<Integer> indexFields, boolean empty,
                            Object execution, boolean rebuildsIndexFirst, boolean defersIndexRemap,
                            boolean dropsFragReuse) {
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
        this.defersIndexRemap = defersIndexRemap;
        this.dropsFragReuse = dropsFragReuse;
    }

    /**
     * A compaction of {@code groups} (old fragment ids rewritten together; empty: nothing to compact),
     * remapping the coverage of indices over {@code remappedIndexFields}.
     */
    public static MaintenancePlan compaction(TableRef base, List<Set<Long>> groups, Set<Integer> remappedIndexFields,
                                             Object execution) {
        return new MaintenancePlan(Kind.COMPACTION, base, groups, groups.isEmpty() ? Set.of() : remappedIndexFields,
                null, Set.of(), Set.of(), groups.isEmpty(), execution, false, false);
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
                coverage, indexFields, false, execution, true, false);
    }

    /**
     * A compaction of {@code groups} that leaves every index's coverage as it is (Lance's deferred remap: the commit
     * registers a fragment-reuse index that maps the rewritten rows' old addresses to their new ones), then rebuilds
     * index {@code indexName} over {@code indexFields} from the compacted rows (one CreateIndex replacing it, covering
     * {@code coverage}: the fragments of {@code base} no group rewrites, and the groups' outputs), then drops the
     * fragment-reuse index ({@link #FRAG_REUSE_INDEX}, one CreateIndex removing only it), which no index needs any
     * more. Without an index to rebuild ({@code indexName} null) it drops the fragment-reuse index straight after the
     * Rewrite.
     *
     * <p>For a table carrying a field-less system index, such as the journal-ack fold watermark's: Lance 7.0.0
     * remaps every index at a compaction commit that does not defer, and aborts the process on such an index. The
     * rebuild is a full one ({@code optimize} keeps the old addresses it finds and relies on the fragment-reuse index
     * to translate them, so dropping that index after an optimise would lose rows' addresses).
     */
    public static MaintenancePlan compactionDeferringRemap(TableRef base, List<Set<Long>> groups, String indexName,
                                                           Set<Long> coverage, Set<Integer> indexFields, Object execution) {
        if (groups.isEmpty()) {
            return compaction(base, groups, Set.of(), execution);
        }
        return new MaintenancePlan(Kind.COMPACTION, base, groups, Set.of(), indexName, coverage, indexFields, false,
                execution, false, true);
    }

    /** Builds ({@code rewrite == false}) or rewrites index {@code name} over {@code fields}, covering {@code coverage}. */
    public static MaintenancePlan index(TableRef base, boolean rewrite, String name, Set<Long> coverage, Set<Integer> fields) {
        return new MaintenancePlan(rewrite ? Kind.INDEX_REWRITE : Kind.INDEX_BUILD, base, List.of(), Set.of(),
                Objects.requireNonNull(name), coverage, fields, false, null, false, false);
    }

    /**
     * A full rebuild of index {@code name} over {@code fields} from the rows of {@code base} (one CreateIndex replacing
     * it, covering {@code coverage}), then the drop of the fragment-reuse index a compaction left ({@link
     * #FRAG_REUSE_INDEX}, one CreateIndex removing only it). An index refresh takes this form while that index is
     * there: Lance 7.0.0's optimise of an index over it leaves addresses that a later merge misreads.
     */
    public static MaintenancePlan indexRebuildDroppingFragReuse(TableRef base, String name, Set<Long> coverage,
                                                                Set<Integer> fields) {
        return new MaintenancePlan(Kind.INDEX_REWRITE, base, List.of(), Set.of(), Objects.requireNonNull(name), coverage,
                fields, false, null, false, false, true);
    }

    /** An index optimise with nothing to do: the index already covers every fragment of {@code base}. */
    public static MaintenancePlan indexUpToDate(TableRef base, String name, Set<Long> coverage, Set<Integer> fields) {
        return new MaintenancePlan(Kind.INDEX_REWRITE, base, List.of(), Set.of(), Objects.requireNonNull(name), coverage,
                fields, true, null, false, false);
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

    /**
     * Whether a compaction defers Lance's index remap, then rebuilds {@link #indexName()} (when not null) and drops
     * the fragment-reuse index, each in a version of its own after the Rewrite.
     */
    public boolean defersIndexRemap() {
        return defersIndexRemap;
    }

    /**
     * Whether the plan ends by dropping the fragment-reuse index ({@link #FRAG_REUSE_INDEX}) after a full rebuild of
     * {@link #indexName()}: a compaction that {@link #defersIndexRemap() defers}, and an index refresh over a
     * fragment-reuse index an interrupted compaction left.
     */
    public boolean dropsFragReuse() {
        return dropsFragReuse;
    }

    /** Index plans, and a compaction that rebuilds an index: the fragments the index will cover. */
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
                if (defersIndexRemap && indexName != null) {
                    // the fragment-reuse index the Rewrite registers and the plan drops again is Lance's bookkeeping
                    // inside this one plan (lance-core 7.0.0's Java Rewrite does not show it): no action names it
                    out.addAll(CatalogActions.index(indexName, true, base, indexCoverage, indexFields));
                }
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
        if (defersIndexRemap) {
            Optional<String> trailing = trailingMismatch(unreserved);
            if (trailing.isPresent()) {
                return trailing;
            }
        } else if (dropsFragReuse && unreserved.size() > 1 && !(unreserved.size() == 2 && dropsFragReuse(unreserved.get(1)))) {
            return Optional.of("planned to rebuild index '" + indexName + "' and drop '" + FRAG_REUSE_INDEX
                    + "' but committed " + kinds(unreserved));
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
        if (dropsFragReuse && !out.isEmpty() && dropsFragReuse(out.get(out.size() - 1))) {
            out.remove(out.size() - 1);
        }
        if (defersIndexRemap) {
            if (indexName != null && !out.isEmpty() && rebuilt(out.get(out.size() - 1))) {
                out.remove(out.size() - 1);
            }
        }
        return List.copyOf(out);
    }

    /**
     * A deferring compaction's versions after its Rewrite, when they are not the planned ones: the rebuild of its
     * index (when it has one), then the drop of the fragment-reuse index. A commit that stopped after the Rewrite or
     * after the rebuild (a crash) leaves a table that reads correctly: the fragment-reuse index still translates the
     * old addresses, and the next deferring compaction drops it.
     */
    private Optional<String> trailingMismatch(List<CommitDescription> unreserved) {
        int rewrite = -1;
        for (int i = 0; i < unreserved.size(); i++) {
            if (unreserved.get(i).kind() == OperationKind.REWRITE) {
                rewrite = i;
            }
        }
        if (rewrite < 0) {
            return Optional.empty(); // nothing rewritten: judged by the compaction's own comparison
        }
        List<CommitDescription> after = unreserved.subList(rewrite + 1, unreserved.size());
        List<String> expected = new ArrayList<>();
        if (indexName != null) {
            expected.add("rebuild of index '" + indexName + "'");
        }
        expected.add("drop of '" + FRAG_REUSE_INDEX + "'");
        int i = 0;
        if (indexName != null && i < after.size() && rebuilt(after.get(i))) {
            i++;
        }
        if (i < after.size() && dropsFragReuse(after.get(i))) {
            i++;
        }
        return i == after.size() ? Optional.empty() : Optional.of("planned the compaction's Rewrite, then " + expected
                + ", but after the Rewrite committed " + kinds(after));
    }

    /** Whether {@code c} only drops Lance's fragment-reuse index. */
    private static boolean dropsFragReuse(CommitDescription c) {
        return c.kind() == OperationKind.CREATE_INDEX && c.indicesAdded().isEmpty()
                && c.indicesRemoved().equals(List.of(FRAG_REUSE_INDEX));
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
                        + (defersIndexRemap ? " deferring the index remap" + (indexName == null ? "" : ", then rebuilding index "
                        + indexName) : "")
                : " index " + indexName + " covering " + new TreeSet<>(indexCoverage)
                        + (dropsFragReuse ? " rebuilt, then dropping " + FRAG_REUSE_INDEX : ""));
    }
}
