package io.palisade.substrate;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.AddFields;
import io.palisade.fencing.action.AddFragments;
import io.palisade.fencing.action.AddIndex;
import io.palisade.fencing.action.DropFields;
import io.palisade.fencing.action.FragmentRef;
import io.palisade.fencing.action.FragmentTemplate;
import io.palisade.fencing.action.KeyScope;
import io.palisade.fencing.action.RebindIndexCoverage;
import io.palisade.fencing.action.Remap;
import io.palisade.fencing.action.RemoveFragments;
import io.palisade.fencing.action.ReplaceFragmentColumns;
import io.palisade.fencing.action.ReserveFragmentIds;
import io.palisade.fencing.action.RewriteFragments;
import io.palisade.fencing.action.RewriteIndex;
import io.palisade.fencing.action.RowOffsets;
import io.palisade.fencing.action.UpdateConfig;
import io.palisade.fencing.action.UpdateDeletionVector;
import io.palisade.fencing.action.UpdateSchemaMetadata;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The spike's legacy Operation → Action table (§2), applied to a {@link CommitDescription}: names any
 * committed table version, Palisade's or foreign, as catalog actions so that the conflict resolver can
 * judge it like any other commit.
 *
 * <p>The actions are for naming and judging, not for replay: payload detail the substrate does not
 * expose (row counts of new fragments, deletion vectors, index fields and coverage) is left empty, and
 * masks are built from what is known (fragment ids, field ids, keys). A keyed table's added fragments
 * carry the journal's exact key filter when the commit was an intent's, and {@link KeyScope#UNKNOWN}
 * otherwise: an unfiltered add to a keyed table conflicts with every keyed writer.
 *
 * <p>Restore and Clone are top-level transaction kinds, not actions (spike §4 notes); they, and
 * operations this binary cannot name, are a {@link ValidationException}: a commit Palisade cannot name
 * is refused, never guessed.
 */
public final class CatalogActions {

    private CatalogActions() {
    }

    /**
     * @param commit        the committed version's description
     * @param keyedTable    whether the table has the PK (keyed adds need a key scope)
     * @param idFieldId     the PK field id (keyed tables)
     * @param journaledKeys the exact key filter the journal recorded for the commit's intent, if any
     */
    public static List<Action> of(CommitDescription commit, boolean keyedTable, int idFieldId,
                                  Optional<KeyFilter> journaledKeys) {
        List<Action> out = new ArrayList<>();
        KeyScope scope = !keyedTable ? KeyScope.KEYLESS : journaledKeys.<KeyScope>map(KeyScope::exact).orElse(KeyScope.UNKNOWN);
        switch (commit.kind()) {
            case APPEND -> out.add(new AddFragments(templates(commit.fragmentsAdded()), keyedTable ? KeyScope.UNKNOWN : KeyScope.KEYLESS));
            case UPDATE -> {
                removed(commit, out);
                for (long f : commit.fragmentsUpdated()) {
                    out.add(deletion(f, keyedTable ? journaledKeys : Optional.empty()));
                }
                if (!commit.fragmentsAdded().isEmpty()) {
                    Set<Long> sources = new HashSet<>(commit.fragmentsUpdated());
                    sources.addAll(commit.fragmentsRemoved());
                    out.add(new AddFragments(templates(commit.fragmentsAdded()), scope, sources));
                } else if (!commit.fieldsModified().isEmpty()) {
                    for (long f : commit.fragmentsUpdated()) {
                        out.add(columns(f, commit.fieldsModified()));
                    }
                }
            }
            case DELETE -> {
                for (long f : commit.fragmentsUpdated()) {
                    out.add(deletion(f, keyedTable ? journaledKeys : Optional.empty()));
                }
                removed(commit, out);
            }
            case OVERWRITE -> {
                out.add(RemoveFragments.allCurrent());
                out.add(new AddFragments(templates(commit.fragmentsAdded()), scope));
            }
            case MERGE -> out.add(new AddFields(commit.fieldsModified().stream()
                    .map(f -> new AddFields.NewField("field-" + f, true)).toList(), java.util.Map.of()));
            case PROJECT -> out.add(new DropFields(new HashSet<>(commit.fieldsModified())));
            case UPDATE_CONFIG -> {
                if (keyedTable && commit.fieldsModified().contains(idFieldId)) {
                    out.add(UpdateSchemaMetadata.installPrimaryKey(idFieldId));
                } else if (!commit.fieldsModified().isEmpty()) {
                    out.add(new UpdateSchemaMetadata(commit.fieldsModified().stream()
                            .map(f -> UpdateSchemaMetadata.MetadataUpdate.set(f, "unknown", "?")).toList()));
                } else {
                    out.add(new UpdateConfig(List.of(), false));
                }
            }
            case CREATE_INDEX -> {
                for (String name : commit.indicesAdded()) {
                    out.addAll(index(name, commit.indicesRemoved().contains(name), commit.ref(), Set.of(), Set.of()));
                }
            }
            case REWRITE -> out.addAll(rewrite(commit.rewriteGroups().isEmpty()
                    ? List.of(new CommitDescription.RewriteGroup(commit.fragmentsRemoved(), commit.fragmentsAdded().size()))
                    : commit.rewriteGroups(), new HashSet<>(commit.remappedIndexFields())));
            case DATA_REPLACEMENT -> {
                for (long f : commit.fragmentsUpdated()) {
                    out.add(columns(f, commit.fieldsModified()));
                }
            }
            case RESERVE_FRAGMENTS -> out.add(new ReserveFragmentIds(1));
            case RESTORE, UNKNOWN -> throw new ValidationException("version " + commit.ref() + " is a " + commit.kind().lanceName()
                    + " commit, which has no catalog actions: Palisade cannot judge it");
        }
        return out;
    }

    /**
     * A compaction: one {@link RewriteFragments} per group (action i rewrites group i; a group's new
     * fragment count may be 0 when not yet known), then, when indices over {@code remappedIndexFields}
     * are remapped, one {@link RebindIndexCoverage} moving each old fragment's coverage onto its group's
     * first output. Used for committed Rewrite versions and for planned compactions alike.
     */
    public static List<Action> rewrite(List<CommitDescription.RewriteGroup> groups, Set<Integer> remappedIndexFields) {
        List<Action> out = new ArrayList<>();
        List<Remap> remap = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            CommitDescription.RewriteGroup g = groups.get(i);
            out.add(new RewriteFragments(new HashSet<>(g.oldFragments()), templates(g.newFragments()), true));
            for (long old : g.oldFragments()) {
                remap.add(new Remap(old, new FragmentRef.ProducedBy(i, 0)));
            }
        }
        if (!remappedIndexFields.isEmpty() && !remap.isEmpty()) {
            out.add(new RebindIndexCoverage(remap, remappedIndexFields));
        }
        return out;
    }

    /**
     * An index commit: {@link RewriteIndex} of {@code name} when it replaces an index of the same name,
     * else {@link AddIndex}. Index ids are derived from the name (the old one) and from the name and
     * {@code at} (the new one), since the substrate's uuids are not known before the commit.
     */
    public static List<Action> index(String name, boolean rewrite, TableRef at, Set<Long> coverage, Set<Integer> fields) {
        UUID id = uuid(name + "@" + at);
        if (rewrite) {
            return List.of(new RewriteIndex(uuid(name), id, 0, coverage, fields));
        }
        Set<FragmentRef> refs = new HashSet<>();
        coverage.forEach(f -> refs.add(FragmentRef.id(f)));
        return List.of(new AddIndex(id, name, fields, refs, 0, Optional.empty()));
    }

    private static void removed(CommitDescription c, List<Action> out) {
        if (!c.fragmentsRemoved().isEmpty()) {
            out.add(new RemoveFragments(new RemoveFragments.Selector.Ids(new HashSet<>(c.fragmentsRemoved()))));
        }
    }

    private static UpdateDeletionVector deletion(long fragment, Optional<KeyFilter> keys) {
        return new UpdateDeletionVector(FragmentRef.id(fragment), RowOffsets.NONE, Optional.empty(), keys);
    }

    private static ReplaceFragmentColumns columns(long fragment, List<Integer> fields) {
        return new ReplaceFragmentColumns(FragmentRef.id(fragment), new HashSet<>(fields),
                List.of(new io.palisade.fencing.action.DataFile("replaced", new HashSet<>(fields))), Optional.empty());
    }

    private static List<FragmentTemplate> templates(List<Long> added) {
        return templates(added.size());
    }

    private static List<FragmentTemplate> templates(int n) {
        List<FragmentTemplate> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new FragmentTemplate(0, List.of()));
        }
        return out;
    }

    private static UUID uuid(String s) {
        return UUID.nameUUIDFromBytes(s.getBytes(StandardCharsets.UTF_8));
    }
}
