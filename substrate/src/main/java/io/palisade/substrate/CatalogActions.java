package io.palisade.substrate;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.AddFields;
import io.palisade.fencing.action.AddFragments;
import io.palisade.fencing.action.AddBases;
import io.palisade.fencing.action.AddIndex;
import io.palisade.fencing.action.BasePath;
import io.palisade.fencing.action.ChangeSchema;
import io.palisade.fencing.action.Field;
import io.palisade.fencing.action.RegisterFragReuse;
import io.palisade.fencing.action.RemoveIndex;
import io.palisade.fencing.action.Schema;
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
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The spike's legacy Operation → Action table (§2), applied to a {@link CommitDescription}: names any
 * committed table version, Palisade's or foreign, as catalog actions so that the conflict resolver can
 * judge it like any other commit.
 *
 * <p>The actions are for naming and judging, not for replay: they carry what the description's
 * {@link CommitDescription.Payload} records (config and metadata keys, new fields and a Merge's data
 * files, replaced fields, index fields and coverage, bases); detail no store sees (row counts of new
 * fragments, deletion vectors) is left empty, and masks are built from what is known (fragment ids,
 * field ids, keys). Parts the Lance binding does not expose are judged conservatively: an Update whose
 * mode is unknown moves rows, a replaced metadata map is a schema change, an UpdateBases whose bases
 * are not visible is refused. A keyed table's added fragments
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
        CommitDescription.Payload p = commit.payload();
        KeyScope scope = !keyedTable ? KeyScope.KEYLESS : journaledKeys.<KeyScope>map(KeyScope::exact).orElse(KeyScope.UNKNOWN);
        switch (commit.kind()) {
            case APPEND -> out.add(new AddFragments(templates(commit.fragmentsAdded()), keyedTable ? KeyScope.UNKNOWN : KeyScope.KEYLESS));
            case UPDATE -> {
                removed(commit, out);
                for (long f : commit.fragmentsUpdated()) {
                    out.add(deletion(f, keyedTable ? journaledKeys : Optional.empty()));
                }
                boolean inPlace = p.updateMode().filter("RewriteColumns"::equals).isPresent();
                if (inPlace && !commit.fieldsModified().isEmpty()) {
                    // columns rewritten in place: the updated fragments keep their rows; new fragments hold inserts
                    for (long f : commit.fragmentsUpdated()) {
                        out.add(columns(f, commit.fieldsModified()));
                    }
                }
                if (!commit.fragmentsAdded().isEmpty()) {
                    Set<Long> sources = new HashSet<>();
                    if (!inPlace) { // rows moved out of the updated and removed fragments (or the mode is unknown)
                        sources.addAll(commit.fragmentsUpdated());
                        sources.addAll(commit.fragmentsRemoved());
                    }
                    out.add(new AddFragments(templates(commit.fragmentsAdded()), scope, sources));
                } else if (!inPlace && !commit.fieldsModified().isEmpty()) {
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
                if (!p.schema().isEmpty()) {
                    out.add(new ChangeSchema(schema(p.schema())));
                }
                out.add(new AddFragments(templates(commit.fragmentsAdded()), scope));
                List<UpdateConfig.ConfigUpdate> config = configUpdates(p.mapUpdates());
                if (!config.isEmpty()) {
                    out.add(new UpdateConfig(config, false));
                }
            }
            case MERGE -> {
                // a Merge's fragment list replaces the table's: fragments it leaves out are removed
                removed(commit, out);
                List<AddFields.NewField> fields = p.schema().isEmpty() && p.fieldsAdded().isEmpty()
                        ? commit.fieldsModified().stream().map(f -> new AddFields.NewField("field-" + f, true)).toList()
                        : p.fieldsAdded().stream().map(f -> new AddFields.NewField(f.name(), f.nullable())).toList();
                Map<Long, String> files = new TreeMap<>();
                p.fragmentFiles().forEach((frag, paths) -> files.put(frag, String.join(",", paths)));
                out.add(new AddFields(fields, files));
            }
            case PROJECT -> out.add(new DropFields(new HashSet<>(commit.fieldsModified())));
            case UPDATE_CONFIG -> {
                if (p.mapUpdates().isEmpty() && p.replacedMaps().isEmpty()) {
                    // a store that records no payload: what the schema diff shows
                    if (keyedTable && commit.fieldsModified().contains(idFieldId)) {
                        out.add(UpdateSchemaMetadata.installPrimaryKey(idFieldId));
                    } else if (!commit.fieldsModified().isEmpty()) {
                        out.add(new UpdateSchemaMetadata(commit.fieldsModified().stream()
                                .map(f -> UpdateSchemaMetadata.MetadataUpdate.set(f, "unknown", "?")).toList()));
                    } else {
                        out.add(new UpdateConfig(List.of(), false));
                    }
                } else {
                    config(commit, out);
                }
            }
            case CREATE_INDEX -> {
                if (p.newIndices().isEmpty() && p.removedIndices().isEmpty()) {
                    for (String name : commit.indicesAdded()) {
                        out.addAll(index(name, commit.indicesRemoved().contains(name), commit.ref(), Set.of(), Set.of()));
                    }
                } else {
                    indices(p, out);
                }
            }
            case REWRITE -> {
                out.addAll(rewrite(commit.rewriteGroups().isEmpty()
                        ? List.of(new CommitDescription.RewriteGroup(commit.fragmentsRemoved(), commit.fragmentsAdded().size()))
                        : commit.rewriteGroups(), new HashSet<>(commit.remappedIndexFields())));
                p.fragReuseIndex().ifPresent(id -> {
                    List<Remap> remap = new ArrayList<>();
                    commit.fragmentsRemoved().forEach(old -> remap.add(new Remap(old, new FragmentRef.ProducedBy(0, 0))));
                    out.add(new RegisterFragReuse(id, remap));
                });
            }
            case DATA_REPLACEMENT -> {
                if (p.replacedFields().isEmpty()) {
                    for (long f : commit.fragmentsUpdated()) {
                        out.add(columns(f, commit.fieldsModified()));
                    }
                } else {
                    p.replacedFields().forEach((f, fields) -> out.add(columns(f, fields)));
                }
            }
            case RESERVE_FRAGMENTS -> out.add(new ReserveFragmentIds(1));
            case UPDATE_BASES -> {
                if (p.newBases().isEmpty()) {
                    throw new ValidationException("version " + commit.ref() + " is an UpdateBases commit whose bases are not "
                            + "visible (" + String.join("; ", p.notVisible()) + "): Palisade cannot judge it");
                }
                out.add(new AddBases(p.newBases().stream()
                        .map(b -> new BasePath(b.id(), b.name().orElse(null), b.path())).toList()));
            }
            case RESTORE, CLONE, UPDATE_MEM_WAL_STATE, UNKNOWN -> throw new ValidationException("version " + commit.ref()
                    + " is a " + commit.kind().lanceName() + " commit, which has no catalog actions Palisade can derive"
                    + (p.notVisible().isEmpty() ? "" : " (" + String.join("; ", p.notVisible()) + ")")
                    + ": Palisade cannot judge it");
        }
        return out;
    }

    /** An UpdateConfig version's keys: config and table metadata → UpdateConfig; schema and field metadata → UpdateSchemaMetadata. */
    private static void config(CommitDescription commit, List<Action> out) {
        CommitDescription.Payload p = commit.payload();
        List<UpdateConfig.ConfigUpdate> config = configUpdates(p.mapUpdates());
        boolean configReplaced = p.replacedMaps().stream().anyMatch(m -> m.target() == CommitDescription.MapTarget.CONFIG
                || m.target() == CommitDescription.MapTarget.TABLE_METADATA);
        if (!config.isEmpty() || configReplaced) {
            // a replaced table-metadata map is judged as a replaced config map too (conservative: the action
            // expresses one replace flag, and it covers every config key)
            out.add(new UpdateConfig(config, configReplaced));
        }
        List<UpdateSchemaMetadata.MetadataUpdate> meta = new ArrayList<>();
        for (CommitDescription.MapUpdate u : p.mapUpdates()) {
            switch (u.map().target()) {
                case SCHEMA_METADATA -> meta.add(new UpdateSchemaMetadata.MetadataUpdate(-1, u.key(), u.value()));
                case FIELD_METADATA -> meta.add(new UpdateSchemaMetadata.MetadataUpdate(u.map().fieldId(), u.key(), u.value()));
                case CONFIG, TABLE_METADATA -> { }
            }
        }
        if (!meta.isEmpty()) {
            out.add(new UpdateSchemaMetadata(meta));
        }
        boolean schemaReplaced = p.replacedMaps().stream().anyMatch(m -> m.target() == CommitDescription.MapTarget.SCHEMA_METADATA
                || m.target() == CommitDescription.MapTarget.FIELD_METADATA);
        if (schemaReplaced) {
            // a whole schema or field metadata map replaced: not expressible as key updates; judged as a
            // wholesale schema change (conflicts with every action that depends on the schema)
            out.add(new ChangeSchema(schema(p.schema())));
        }
    }

    private static List<UpdateConfig.ConfigUpdate> configUpdates(List<CommitDescription.MapUpdate> updates) {
        List<UpdateConfig.ConfigUpdate> out = new ArrayList<>();
        for (CommitDescription.MapUpdate u : updates) {
            switch (u.map().target()) {
                case CONFIG -> out.add(new UpdateConfig.ConfigUpdate(UpdateConfig.Target.CONFIG, u.key(), u.value()));
                case TABLE_METADATA -> out.add(new UpdateConfig.ConfigUpdate(UpdateConfig.Target.TABLE_METADATA, u.key(), u.value()));
                case SCHEMA_METADATA, FIELD_METADATA -> { }
            }
        }
        return out;
    }

    /**
     * A CreateIndex version's segments: a new segment whose name a removed segment had → RewriteIndex of that
     * segment; other new segments → AddIndex; removed segments no new segment replaces → RemoveIndex. Coverage
     * not recorded counts as none (the store fills in every fragment of the version when Lance does not say).
     */
    private static void indices(CommitDescription.Payload p, List<Action> out) {
        Map<String, CommitDescription.IndexSegment> removedByName = new java.util.LinkedHashMap<>();
        p.removedIndices().forEach(r -> removedByName.putIfAbsent(r.name(), r));
        Set<java.util.UUID> replaced = new HashSet<>();
        for (CommitDescription.IndexSegment n : p.newIndices()) {
            Set<Long> coverage = new HashSet<>(n.coverage().orElse(List.of()));
            Set<Integer> fields = new HashSet<>(n.fields());
            CommitDescription.IndexSegment old = removedByName.get(n.name());
            if (old != null && replaced.add(old.uuid())) {
                out.add(new RewriteIndex(old.uuid(), n.uuid(), 0, coverage, fields));
            } else {
                Set<FragmentRef> refs = new HashSet<>();
                coverage.forEach(f -> refs.add(FragmentRef.id(f)));
                out.add(new AddIndex(n.uuid(), n.name(), fields, refs, 0, Optional.empty()));
            }
        }
        for (CommitDescription.IndexSegment r : p.removedIndices()) {
            if (!replaced.contains(r.uuid())) {
                out.add(new RemoveIndex(r.uuid()));
            }
        }
    }

    private static Schema schema(List<CommitDescription.SchemaField> fields) {
        List<Field> out = new ArrayList<>();
        for (CommitDescription.SchemaField f : fields) {
            out.add(new Field(f.id(), f.name(), f.nullable(), -1,
                    f.primaryKey() ? Map.of(Field.PRIMARY_KEY_METADATA, "true") : Map.of()));
        }
        return new Schema(out, Map.of());
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

    private static ReplaceFragmentColumns columns(long fragment, java.util.Collection<Integer> fields) {
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
