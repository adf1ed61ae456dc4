package io.palisade.fencing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WriteRoutingTest {
    private static final TableClass.Keyed PERSON = TableClass.Keyed.onId("person", 0);
    private static final TableClass.Keyless LOG = new TableClass.Keyless("log");

    @ParameterizedTest
    @EnumSource(LogicalOperation.class)
    void aKeyedTableIsNeverRoutedToAppend(LogicalOperation op) {
        try {
            Route r = WriteRouting.route(PERSON, op);
            assertThat(r).isNotInstanceOf(Route.Append.class);
            if (r instanceof Route.MergeInsert mi) {
                assertThat(mi.on()).containsExactly("id");
            }
        } catch (ValidationException e) {
            assertThat(op).isEqualTo(LogicalOperation.APPEND);
            assertThat(e).hasMessageContaining("bare Append cannot be expressed");
        }
    }

    @Test
    void strictInsertsAndLoadAppendsAreFencedMergeInsertsThatFailOnMatch() {
        for (LogicalOperation op : List.of(LogicalOperation.INSERT, LogicalOperation.LOAD_APPEND,
                LogicalOperation.BRANCH_MERGE_NEW_ROWS)) {
            assertThat(WriteRouting.route(PERSON, op))
                    .isEqualTo(new Route.MergeInsert(PERSON, List.of("id"), Route.WhenMatched.FAIL));
        }
    }

    @Test
    void upsertsAreFencedMergeInsertsThatUpdateAll() {
        for (LogicalOperation op : List.of(LogicalOperation.UPSERT, LogicalOperation.LOAD_MERGE,
                LogicalOperation.BRANCH_MERGE_UPDATED_ROWS, LogicalOperation.WAL_UPSERT_FOLD)) {
            assertThat(WriteRouting.route(PERSON, op))
                    .isEqualTo(new Route.MergeInsert(PERSON, List.of("id"), Route.WhenMatched.UPDATE_ALL));
        }
    }

    @Test
    void keylessTablesMayAppendButNotUpsert() {
        assertThat(WriteRouting.route(LOG, LogicalOperation.APPEND)).isEqualTo(new Route.Append(LOG));
        assertThat(WriteRouting.route(LOG, LogicalOperation.INSERT)).isEqualTo(new Route.Append(LOG));
        assertThatThrownBy(() -> WriteRouting.route(LOG, LogicalOperation.UPSERT))
                .isInstanceOf(ValidationException.class).hasMessageContaining("append-only");
    }

    @Test
    void aMergeInsertOnAnyOtherColumnSetCannotBeBuilt() {
        assertThatThrownBy(() -> new Route.MergeInsert(PERSON, List.of("id", "name"), Route.WhenMatched.FAIL))
                .isInstanceOf(ValidationException.class).hasMessageContaining("no key fencing");
        assertThatThrownBy(() -> new Route.MergeInsert(PERSON, List.of("name"), Route.WhenMatched.UPDATE_ALL))
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void anOverwriteOfAKeyedTableMustKeepThePrimaryKey() {
        assertThat(WriteRouting.route(PERSON, LogicalOperation.OVERWRITE)).isEqualTo(new Route.Overwrite(PERSON, true));
        assertThatThrownBy(() -> new Route.Overwrite(PERSON, false)).isInstanceOf(ValidationException.class);
    }

    @Test
    void appendRoutesCanOnlyBeBuiltFromKeylessTables() {
        // source guard: the only constructor of Route.Append takes a TableClass.Keyless
        assertThat(Arrays.stream(Route.Append.class.getRecordComponents()).<Object>map(c -> c.getType()).toList())
                .containsExactly((Object) TableClass.Keyless.class);
        assertThat(Route.Append.class.getDeclaredConstructors())
                .allMatch(c -> Arrays.equals(c.getParameterTypes(), new Class<?>[] {TableClass.Keyless.class}));
    }

    @Test
    void formatStampsAreKnownOrRefused() {
        assertThat(FormatStamp.of(5)).isEqualTo(FormatStamp.FENCING);
        assertThatThrownBy(() -> FormatStamp.of(6)).isInstanceOf(GraphRefusedException.class)
                .hasMessageContaining("6").hasMessageContaining("not supported");
    }
}
