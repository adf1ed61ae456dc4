package io.palisade.fencing;

/**
 * RFC-023 §5's normative write routing as a total function of (table class, logical operation).
 *
 * <table>
 *   <caption>Routing</caption>
 *   <tr><th>operation</th><th>keyed table</th><th>keyless table</th></tr>
 *   <tr><td>INSERT, LOAD_APPEND, BRANCH_MERGE_NEW_ROWS</td><td>merge-insert ON id, WhenMatched FAIL</td><td>Append</td></tr>
 *   <tr><td>UPSERT, LOAD_MERGE, BRANCH_MERGE_UPDATED_ROWS, WAL_UPSERT_FOLD</td><td>merge-insert ON id, UPDATE_ALL</td><td>refused</td></tr>
 *   <tr><td>APPEND</td><td>refused (ValidationException)</td><td>Append</td></tr>
 *   <tr><td>DELETE</td><td>staged delete</td><td>staged delete</td></tr>
 *   <tr><td>OVERWRITE</td><td>overwrite keeping the PK</td><td>overwrite</td></tr>
 *   <tr><td>ADD_COLUMNS, DROP_COLUMNS</td><td>schema change keeping the PK</td><td>schema change</td></tr>
 * </table>
 *
 * There is no "all rows are new" shortcut: a strict insert into a keyed table is a fenced merge-insert
 * even when every row was classified new against a snapshot (§5.1).
 */
public final class WriteRouting {

    private WriteRouting() {
    }

    public static Route route(TableClass table, LogicalOperation op) {
        return switch (table) {
            case TableClass.Keyed keyed -> switch (op) {
                case INSERT, LOAD_APPEND, BRANCH_MERGE_NEW_ROWS -> new Route.MergeInsert(keyed, Route.WhenMatched.FAIL);
                case UPSERT, LOAD_MERGE, BRANCH_MERGE_UPDATED_ROWS, WAL_UPSERT_FOLD ->
                        new Route.MergeInsert(keyed, Route.WhenMatched.UPDATE_ALL);
                case DELETE -> new Route.Delete(keyed);
                case OVERWRITE -> new Route.Overwrite(keyed, true);
                case ADD_COLUMNS -> new Route.SchemaChange(keyed, Route.SchemaChange.Kind.ADD_COLUMNS);
                case DROP_COLUMNS -> new Route.SchemaChange(keyed, Route.SchemaChange.Kind.DROP_COLUMNS);
                case APPEND -> throw new ValidationException("table '" + keyed.table() + "' is keyed on '"
                        + keyed.keyField() + "': a bare Append cannot be expressed; insert (merge-insert ON "
                        + keyed.keyField() + ", WhenMatched Fail) or upsert instead");
            };
            case TableClass.Keyless keyless -> switch (op) {
                case INSERT, LOAD_APPEND, BRANCH_MERGE_NEW_ROWS, APPEND -> new Route.Append(keyless);
                case UPSERT, LOAD_MERGE, BRANCH_MERGE_UPDATED_ROWS, WAL_UPSERT_FOLD ->
                        throw new ValidationException("table '" + keyless.table() + "' is append-only and has no key: "
                                + op + " needs a keyed table");
                case DELETE -> new Route.Delete(keyless);
                case OVERWRITE -> new Route.Overwrite(keyless, false);
                case ADD_COLUMNS -> new Route.SchemaChange(keyless, Route.SchemaChange.Kind.ADD_COLUMNS);
                case DROP_COLUMNS -> new Route.SchemaChange(keyless, Route.SchemaChange.Kind.DROP_COLUMNS);
            };
        };
    }
}
