package io.palisade.fencing.conflict;

import io.palisade.fencing.action.ActionKind;

import java.util.EnumMap;
import java.util.Map;

import static io.palisade.fencing.action.ActionKind.*;

/**
 * The N×N conflict matrix over the action catalog (spike §5). Cells are declared once per unordered
 * pair, so the matrix is symmetric by construction: {@code cell(a, b) == cell(b, a)}. Pairs not
 * declared below are C, and a test checks that exactly those pairs have disjoint kind-level
 * footprints ({@link ActionKind#mayInterfere}).
 */
public final class ConflictMatrix {

    private static final Map<ActionKind, Map<ActionKind, Cell>> CELLS = new EnumMap<>(ActionKind.class);

    static {
        for (ActionKind a : ActionKind.values()) {
            CELLS.put(a, new EnumMap<>(ActionKind.class));
        }
        rule(ADD_FRAGMENTS, ADD_FRAGMENTS, Rule.KEY_FILTER);
        rule(ADD_FRAGMENTS, REMOVE_FRAGMENTS, Rule.FRAGMENT_OVERLAP);
        rule(ADD_FRAGMENTS, UPDATE_DELETION_VECTOR, Rule.KEYS_VS_DELETE);
        rule(ADD_FRAGMENTS, REWRITE_FRAGMENTS, Rule.FRAGMENT_OVERLAP);
        rule(ADD_FRAGMENTS, ADD_FIELDS, Rule.NEW_FIELDS_NEED_DATA);
        rule(ADD_FRAGMENTS, DROP_FIELDS, Rule.FIELD_DEPENDENCY);
        conflict(ADD_FRAGMENTS, CHANGE_SCHEMA, "appended fragments were written against the replaced schema");
        rule(ADD_FRAGMENTS, UPDATE_SCHEMA_METADATA, Rule.PRIMARY_KEY_CHANGE);

        rule(REMOVE_FRAGMENTS, REMOVE_FRAGMENTS, Rule.FRAGMENT_OVERLAP);
        rule(REMOVE_FRAGMENTS, UPDATE_DELETION_VECTOR, Rule.FRAGMENT_OVERLAP);
        rule(REMOVE_FRAGMENTS, REPLACE_FRAGMENT_COLUMNS, Rule.FRAGMENT_OVERLAP);
        rule(REMOVE_FRAGMENTS, REWRITE_FRAGMENTS, Rule.FRAGMENT_OVERLAP);
        rule(REMOVE_FRAGMENTS, ADD_FIELDS, Rule.FRAGMENT_OVERLAP);
        rule(REMOVE_FRAGMENTS, ADD_INDEX, Rule.INDEX_COVERAGE);
        rule(REMOVE_FRAGMENTS, REWRITE_INDEX, Rule.INDEX_COVERAGE);

        rule(UPDATE_DELETION_VECTOR, UPDATE_DELETION_VECTOR, Rule.DELETION_MERGE);
        rule(UPDATE_DELETION_VECTOR, REPLACE_FRAGMENT_COLUMNS, Rule.DELETE_VS_COLUMN_REWRITE);
        rule(UPDATE_DELETION_VECTOR, REWRITE_FRAGMENTS, Rule.FRAGMENT_OVERLAP);

        rule(REPLACE_FRAGMENT_COLUMNS, REPLACE_FRAGMENT_COLUMNS, Rule.COLUMN_OVERLAP);
        rule(REPLACE_FRAGMENT_COLUMNS, REWRITE_FRAGMENTS, Rule.FRAGMENT_OVERLAP);
        rule(REPLACE_FRAGMENT_COLUMNS, DROP_FIELDS, Rule.FIELD_DEPENDENCY);
        conflict(REPLACE_FRAGMENT_COLUMNS, CHANGE_SCHEMA, "column data was written against the replaced schema");
        rule(REPLACE_FRAGMENT_COLUMNS, ADD_INDEX, Rule.INDEX_COVERAGE);

        rule(REWRITE_FRAGMENTS, REWRITE_FRAGMENTS, Rule.FRAGMENT_OVERLAP);
        rule(REWRITE_FRAGMENTS, ADD_FIELDS, Rule.FRAGMENT_OVERLAP);
        rule(REWRITE_FRAGMENTS, ADD_INDEX, Rule.INDEX_COVERAGE);
        rule(REWRITE_FRAGMENTS, REWRITE_INDEX, Rule.INDEX_COVERAGE);

        rule(ADD_FIELDS, ADD_FIELDS, Rule.FIELD_NAME_CLASH);
        conflict(ADD_FIELDS, DROP_FIELDS, "a concurrent drop changes which names and fields exist");
        conflict(ADD_FIELDS, CHANGE_SCHEMA, "the schema the fields were added to was replaced");

        rule(DROP_FIELDS, DROP_FIELDS, Rule.FIELD_DEPENDENCY);
        conflict(DROP_FIELDS, CHANGE_SCHEMA, "the schema the fields were dropped from was replaced");
        rule(DROP_FIELDS, UPDATE_SCHEMA_METADATA, Rule.FIELD_DEPENDENCY);
        rule(DROP_FIELDS, ADD_INDEX, Rule.FIELD_DEPENDENCY);

        conflict(CHANGE_SCHEMA, CHANGE_SCHEMA, "two wholesale schema replacements (overwrites) race");
        conflict(CHANGE_SCHEMA, UPDATE_SCHEMA_METADATA, "metadata of a schema that was replaced wholesale");
        conflict(CHANGE_SCHEMA, ADD_INDEX, "an index over fields of a schema that was replaced wholesale");

        rule(UPDATE_SCHEMA_METADATA, UPDATE_SCHEMA_METADATA, Rule.KEYED_MAP_UPDATES);

        rule(ADD_INDEX, ADD_INDEX, Rule.INDEX_IDENTITY);
        rule(ADD_INDEX, REMOVE_INDEX, Rule.INDEX_IDENTITY);
        rule(ADD_INDEX, REWRITE_INDEX, Rule.INDEX_IDENTITY);
        rule(ADD_INDEX, INVALIDATE_INDEX_COVERAGE, Rule.COVERAGE_ABSORBED);
        rule(ADD_INDEX, REBIND_INDEX_COVERAGE, Rule.COVERAGE_REMAP);
        rule(ADD_INDEX, REGISTER_FRAG_REUSE, Rule.COVERAGE_REMAP);

        rule(REMOVE_INDEX, REMOVE_INDEX, Rule.INDEX_IDENTITY);
        rule(REMOVE_INDEX, REWRITE_INDEX, Rule.INDEX_IDENTITY);

        rule(REWRITE_INDEX, REWRITE_INDEX, Rule.INDEX_IDENTITY);
        rule(REWRITE_INDEX, INVALIDATE_INDEX_COVERAGE, Rule.COVERAGE_ABSORBED);
        rule(REWRITE_INDEX, REBIND_INDEX_COVERAGE, Rule.COVERAGE_REMAP);
        rule(REWRITE_INDEX, REGISTER_FRAG_REUSE, Rule.COVERAGE_REMAP);

        rule(INVALIDATE_INDEX_COVERAGE, REBIND_INDEX_COVERAGE, Rule.COVERAGE_REMAP);
        rule(REBIND_INDEX_COVERAGE, REBIND_INDEX_COVERAGE, Rule.COVERAGE_REMAP);
        rule(REBIND_INDEX_COVERAGE, REGISTER_FRAG_REUSE, Rule.COVERAGE_REMAP);

        conflict(REGISTER_FRAG_REUSE, REGISTER_FRAG_REUSE, "the fragment-reuse index is a singleton per commit window");

        rule(UPDATE_CONFIG, UPDATE_CONFIG, Rule.KEYED_MAP_UPDATES);
        rule(ADD_BASES, ADD_BASES, Rule.BASE_IDENTITY);
        rule(UPDATE_MERGED_GENERATIONS, UPDATE_MERGED_GENERATIONS, Rule.MERGED_GENERATIONS);

        for (ActionKind a : ActionKind.values()) {
            for (ActionKind b : ActionKind.values()) {
                if (b.ordinal() >= a.ordinal() && !CELLS.get(a).containsKey(b)) {
                    put(a, b, new Cell.Compatible(a.label() + " and " + b.label() + " touch disjoint kinds of resource"));
                }
            }
        }
    }

    private ConflictMatrix() {
    }

    private static void rule(ActionKind a, ActionKind b, Rule rule) {
        put(a, b, new Cell.Ruled(rule));
    }

    private static void conflict(ActionKind a, ActionKind b, String why) {
        put(a, b, new Cell.Conflicting(Resolution.RETRY, why));
    }

    private static void put(ActionKind a, ActionKind b, Cell cell) {
        if (CELLS.get(a).containsKey(b)) {
            throw new IllegalStateException("cell " + a.code() + "×" + b.code() + " declared twice");
        }
        CELLS.get(a).put(b, cell);
        CELLS.get(b).put(a, cell);
    }

    /** The cell for a current action of kind {@code current} against a winner of kind {@code winner}. */
    public static Cell cell(ActionKind current, ActionKind winner) {
        return CELLS.get(current).get(winner);
    }
}
