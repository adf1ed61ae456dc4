package io.palisade.fencing.conflict;

import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.AddFields;
import io.palisade.fencing.action.AddFragments;
import io.palisade.fencing.action.AddIndex;
import io.palisade.fencing.action.RemoveFragments;
import io.palisade.fencing.action.RewriteIndex;
import io.palisade.fencing.action.UpdateConfig;
import io.palisade.fencing.action.UpdateSchemaMetadata;
import io.palisade.fencing.action.ReplaceFragmentColumns;
import io.palisade.fencing.action.ResourceKind;
import io.palisade.fencing.action.ResourceMask.Contact;
import io.palisade.fencing.action.RowOffsets;
import io.palisade.fencing.action.UpdateDeletionVector;
import io.palisade.fencing.action.UpdateMergedGenerations;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static io.palisade.fencing.action.ResourceKind.*;

/**
 * The rules of the R(n) cells (spike §6). Each names a detection predicate over the two payloads and
 * the resolution when it fires. Every predicate is symmetric in its two arguments, so whether two
 * transactions may both commit never depends on which committed first (RFC-023 §5.3).
 *
 * <p>A rule only sees pairs whose resource masks touch (the driver's gate); {@code contacts} lists
 * every resource the two actions share.
 */
public enum Rule {
    KEY_FILTER(1, "Key filters intersect",
            "both actions declare keys and the exact key filters share a key; an unfiltered keyed AddFragments "
                    + "(unknown keys) touches every key; filters over different key fields are incomparable",
            Resolution.RETRY, "retry from the new base; a strict insert reports KeyConflict for the whole operation",
            EnumSet.of(KEYS)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            return keyConflict(contacts, "keys inserted by both transactions");
        }
    },
    FRAGMENT_OVERLAP(2, "Fragment overlap",
            "one action removes or rewrites a fragment the other reads or changes, or removes \"all current\" "
                    + "fragments while the other appends",
            Resolution.RETRY, "retry from the new base", EnumSet.of(FRAGMENTS, FRAGMENT_LIST)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            return conflictOn(contacts, this, "fragments changed by both");
        }
    },
    DELETION_MERGE(3, "Deletion vectors on one fragment",
            "both set the deletion vector of the same fragment",
            Resolution.REBASE, "union of both vectors when both name their affected rows, the rows are disjoint "
                    + "and no key is shared; otherwise retry",
            EnumSet.of(DELETIONS, KEYS)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            if (!touches(contacts, DELETIONS)) {
                return keyConflict(contacts, "keys deleted by both transactions");
            }
            UpdateDeletionVector x = (UpdateDeletionVector) a;
            UpdateDeletionVector y = (UpdateDeletionVector) b;
            Optional<RowOffsets> rx = x.affectedRows();
            Optional<RowOffsets> ry = y.affectedRows();
            if (rx.isEmpty() || ry.isEmpty()) {
                return retry("deletion vectors of fragment " + x.fragment() + " changed by both, affected rows unknown");
            }
            if (rx.get().intersects(ry.get())) {
                return retry("rows of fragment " + x.fragment() + " deleted or rewritten by both");
            }
            if (touches(contacts, KEYS)) {
                return keyConflict(contacts, "keys deleted by both transactions");
            }
            return new Judgement.Rebase("deletion vectors of fragment " + x.fragment() + " merged (disjoint rows)");
        }
    },
    DELETE_VS_COLUMN_REWRITE(4, "Deletion vs column rewrite on one fragment",
            "a deletion vector and a column rewrite on the same fragment whose rows overlap, or whose rows are not known",
            Resolution.RETRY, "retry from the new base", EnumSet.of(DELETIONS)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            UpdateDeletionVector d = (UpdateDeletionVector) (a instanceof UpdateDeletionVector ? a : b);
            ReplaceFragmentColumns r = (ReplaceFragmentColumns) (a instanceof ReplaceFragmentColumns ? a : b);
            if (!touches(contacts, DELETIONS)) {
                return Judgement.COMPATIBLE;
            }
            if (d.affectedRows().isPresent() && r.updatedRows().isPresent()
                    && !d.affectedRows().get().intersects(r.updatedRows().get())) {
                return Judgement.COMPATIBLE;
            }
            return retry("fragment " + d.fragment() + ": rows deleted by one transaction and rewritten by the other");
        }
    },
    KEYS_VS_DELETE(5, "Inserted keys vs deleted keys",
            "an AddFragments key filter shares a key with the keys a deletion vector removes",
            Resolution.RETRY, "retry from the new base (the order of insert and delete of one key matters)",
            EnumSet.of(KEYS)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            return keyConflict(contacts, "keys inserted by one transaction and deleted by the other");
        }
    },
    FIELD_DEPENDENCY(6, "Dropped field in use",
            "a dropped field is read or written by the other action (data files, column rewrite, metadata, index), "
                    + "or the primary key designation changes under a drop",
            Resolution.RETRY, "retry from the new schema", EnumSet.of(SCHEMA, PRIMARY_KEY)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            return conflictOn(contacts, this, "fields dropped by one transaction and used by the other");
        }
    },
    NEW_FIELDS_NEED_DATA(7, "New fields vs appended or moved rows",
            "AddFields adds a non-nullable field while fragments are appended concurrently (they would lack its data), "
                    + "or writes the new fields' values into a fragment whose rows the other action moves into new "
                    + "fragments (an Update rewriting rows: the moved rows would read null, the merged values are lost)",
            Resolution.RETRY, "retry from the new base; nullable new fields commute with freshly appended rows "
                    + "(they read null, as if appended after the fields)",
            EnumSet.of(FRAGMENT_LIST)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            AddFields f = (AddFields) (a instanceof AddFields ? a : b);
            AddFragments add = (AddFragments) (a instanceof AddFragments ? a : b);
            List<String> required = f.newFields().stream().filter(n -> !n.nullable()).map(AddFields.NewField::name).toList();
            if (!required.isEmpty()) {
                return retry("non-nullable new fields " + required + " would be missing from concurrently appended fragments");
            }
            Set<Long> moved = new java.util.TreeSet<>(add.preservedRowSources());
            moved.retainAll(f.fragmentFiles().keySet());
            return moved.isEmpty() ? Judgement.COMPATIBLE
                    : retry("rows of fragments " + moved + " are moved into new fragments while new fields' values are "
                    + "written for them (the moved rows would lose the values)");
        }
    },
    PRIMARY_KEY_CHANGE(8, "Primary key installed under a write",
            "a metadata update installs the primary key while a keyed write routes by the old key contract",
            Resolution.RETRY, "retry: routing and validation re-run under the new key contract", EnumSet.of(PRIMARY_KEY)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            return conflictOn(contacts, this, "primary key designation changed concurrently");
        }
    },
    INDEX_COVERAGE(9, "Index coverage vs data change",
            "an index (new or rewritten) covers a fragment, or a (fragment, field) column, that the other action "
                    + "rewrites, replaces or removes wholesale (\"all current\": an overwrite renumbers fragments from 0)",
            Resolution.RETRY, "retry: the index is rebuilt over the new data; a removal of fragments by id is absorbed "
                    + "(REBASE: the index drops them; their rows are gone, as deleted rows are, and ids are never reused)",
            EnumSet.of(FRAGMENTS, FRAGMENT_COLUMNS)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            if ((a instanceof RemoveFragments r && r.selector() instanceof RemoveFragments.Selector.Ids)
                    || (b instanceof RemoveFragments r2 && r2.selector() instanceof RemoveFragments.Selector.Ids)) {
                return new Judgement.Rebase("removed fragments dropped from the index's coverage");
            }
            return conflictOn(contacts, this, "index coverage changed under the index");
        }
    },
    COLUMN_OVERLAP(10, "Same column of one fragment",
            "both replace the data of the same (fragment, field)",
            Resolution.RETRY, "retry from the new base", EnumSet.of(FRAGMENT_COLUMNS)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            return conflictOn(contacts, this, "columns replaced by both");
        }
    },
    FIELD_NAME_CLASH(11, "Same new field name",
            "both add a field of the same name",
            Resolution.FAIL, "fail: the name is taken; the request cannot succeed as is", EnumSet.of(FIELD_NAMES)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            return conflictOn(contacts, this, "field names added by both");
        }
    },
    KEYED_MAP_UPDATES(12, "Same metadata or config key",
            "both set or remove the same schema-metadata, field-metadata, config or table-metadata key (unless both "
                    + "remove it), or one replaces the whole map",
            Resolution.RETRY, "retry from the new base; disjoint keys commute, and so do two removals of one key "
                    + "(idempotent)",
            EnumSet.of(SCHEMA_METADATA, PRIMARY_KEY, CONFIG, TABLE_METADATA)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            Set<String> removedByBoth = new java.util.HashSet<>(removals(a));
            removedByBoth.retainAll(removals(b));
            List<Contact> left = new java.util.ArrayList<>();
            for (Contact c : contacts) {
                if (c.kind() == CONFIG || c.kind() == TABLE_METADATA || c.kind() == SCHEMA_METADATA) {
                    Optional<io.palisade.fencing.action.Scope> sa = a.writes().scope(c.kind());
                    Optional<io.palisade.fencing.action.Scope> sb = b.writes().scope(c.kind());
                    if (sa.isPresent() && sb.isPresent() && sa.get() instanceof io.palisade.fencing.action.Scope.Ids ia
                            && sb.get() instanceof io.palisade.fencing.action.Scope.Ids ib) {
                        Set<String> shared = new java.util.TreeSet<>(ia.ids());
                        shared.retainAll(ib.ids());
                        if (shared.stream().allMatch(k -> removedByBoth.contains(c.kind() + "/" + k))) {
                            continue; // every shared key is removed by both: idempotent
                        }
                    }
                }
                left.add(c);
            }
            return conflictOn(left, this, "keys updated by both");
        }
    },
    INDEX_IDENTITY(13, "Same index",
            "both add, remove or rewrite the same index id, or add indices of the same name; two identical index "
                    + "commits (the same new index id replacing the same index) are one commit made twice",
            Resolution.RETRY, "retry from the new index list; an identical index commit commutes (idempotent)",
            EnumSet.of(INDICES)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            if (a.equals(b) && (a instanceof AddIndex || a instanceof RewriteIndex)) {
                return Judgement.COMPATIBLE;
            }
            return conflictOn(contacts, this, "index changed by both");
        }
    },
    COVERAGE_ABSORBED(14, "Invalidation absorbed by a new index",
            "an index being added or rewritten covers a (fragment, field) that a concurrent invalidation removes",
            Resolution.REBASE, "rebase: the index's coverage drops the invalidated fragments (an invalidation "
                    + "committed later applies to every index present, so both orders converge)",
            EnumSet.of(INDEX_INVALIDATION)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            return touches(contacts, INDEX_INVALIDATION)
                    ? new Judgement.Rebase("coverage invalidation absorbed into the index")
                    : Judgement.COMPATIBLE;
        }
    },
    COVERAGE_REMAP(15, "Coverage remap straddle",
            "a remap (rebind or fragment reuse) moves coverage of a (fragment, field) that the other action covers, "
                    + "invalidates or remaps",
            Resolution.RETRY, "retry: the remap is recomputed over the new coverage",
            EnumSet.of(ResourceKind.INDEX_COVERAGE, INDEX_INVALIDATION)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            return conflictOn(contacts, this, "index coverage remapped under the other");
        }
    },
    BASE_IDENTITY(16, "Duplicate base",
            "both add a base with the same id, name or path",
            Resolution.FAIL, "fail: the base already exists", EnumSet.of(BASES)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            return conflictOn(contacts, this, "bases added by both");
        }
    },
    MERGED_GENERATIONS(17, "MemWAL generations disagree",
            "both record a merged generation for the same shard, with different generations",
            Resolution.RETRY, "retry; the same generation for a shard is idempotent", EnumSet.of(MEMWAL)) {
        @Override
        Judgement judge(Action a, Action b, List<Contact> contacts) {
            UpdateMergedGenerations x = (UpdateMergedGenerations) a;
            UpdateMergedGenerations y = (UpdateMergedGenerations) b;
            Set<String> disagree = x.generations().keySet().stream()
                    .filter(s -> y.generations().containsKey(s) && !y.generations().get(s).equals(x.generations().get(s)))
                    .collect(Collectors.toCollection(java.util.TreeSet::new));
            return disagree.isEmpty() ? Judgement.COMPATIBLE
                    : retry("shards " + disagree + " merged at different generations");
        }
    };

    private final int number;
    private final String title;
    private final String detection;
    private final Resolution resolution;
    private final String resolutionText;
    private final Set<ResourceKind> kinds;

    Rule(int number, String title, String detection, Resolution resolution, String resolutionText,
         Set<ResourceKind> kinds) {
        this.number = number;
        this.title = title;
        this.detection = detection;
        this.resolution = resolution;
        this.resolutionText = resolutionText;
        this.kinds = Set.copyOf(kinds);
    }

    /**
     * Judges a pair whose masks touch. Must be symmetric: {@code judge(a, b)} and {@code judge(b, a)}
     * agree on whether both may commit.
     */
    abstract Judgement judge(Action a, Action b, List<Contact> contacts);

    public int number() {
        return number;
    }

    public String code() {
        return "R" + number;
    }

    public String title() {
        return title;
    }

    public String detection() {
        return detection;
    }

    /** The resolution when the rule fires (REBASE rules fall back to RETRY where the text says so). */
    public Resolution resolution() {
        return resolution;
    }

    public String resolutionText() {
        return resolutionText;
    }

    /** The resource kinds the rule's predicate examines. */
    public Set<ResourceKind> kinds() {
        return kinds;
    }

    // ------------------------------------------------------------------ helpers

    static boolean touches(List<Contact> contacts, ResourceKind kind) {
        return contacts.stream().anyMatch(c -> c.kind() == kind);
    }

    private static Judgement conflictOn(List<Contact> contacts, Rule rule, String what) {
        List<Contact> relevant = contacts.stream().filter(c -> rule.kinds.contains(c.kind())).toList();
        if (relevant.isEmpty()) {
            return Judgement.COMPATIBLE;
        }
        String detail = relevant.stream().map(Contact::toString).distinct().collect(Collectors.joining("; "));
        return new Judgement.Conflicting(rule.resolution, what + ": " + detail, List.of(), false);
    }

    private static Judgement keyConflict(List<Contact> contacts, String what) {
        return contacts.stream().filter(c -> c.kind() == KEYS).findFirst()
                .<Judgement>map(c -> new Judgement.Conflicting(Resolution.RETRY, what + ": " + c.shared().description(),
                        c.shared().exactKeys() ? c.shared().sample() : List.of(), c.shared().exactKeys()))
                .orElse(Judgement.COMPATIBLE);
    }

    /**
     * The resources whose key an update removes (config, table metadata, schema and field metadata),
     * in the ids the actions' masks use; empty for a replacement of the whole map.
     */
    private static Set<String> removals(Action x) {
        Set<String> out = new java.util.HashSet<>();
        if (x instanceof UpdateConfig u && !u.replace()) {
            u.updates().stream().filter(c -> c.value().isEmpty()).forEach(c -> out.add(
                    (c.target() == UpdateConfig.Target.CONFIG ? CONFIG : TABLE_METADATA) + "/" + c.key()));
        } else if (x instanceof UpdateSchemaMetadata m) {
            m.updates().stream().filter(c -> c.value().isEmpty() && !c.primaryKey())
                    .forEach(c -> out.add(SCHEMA_METADATA + "/" + c.resource()));
        }
        return out;
    }

    private static Judgement retry(String reason) {
        return new Judgement.Conflicting(Resolution.RETRY, reason, List.of(), false);
    }
}
