package io.palisade.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TablesTest {
    private static List<String> print(List<String> header, List<List<String>> rows) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        Tables.print(new PrintStream(b, true, StandardCharsets.UTF_8), header, rows);
        return List.of(b.toString(StandardCharsets.UTF_8).split("\n"));
    }

    @Test
    void wideCharactersAreAlignedByTheCellsTheyTake() {
        List<String> out = print(List.of("id", "name", "age"), List.of(List.of("a", "東京", "1"), List.of("b", "Rome", "2")));
        assertThat(out).hasSize(4);
        // the age column starts at the same cell on every row: "東京" takes four cells, as "Rome" does
        assertThat(out.get(2).substring(out.get(2).indexOf('1'))).isEqualTo("1");
        assertThat(Tables.width(out.get(2).substring(0, out.get(2).indexOf('1'))))
                .isEqualTo(Tables.width(out.get(3).substring(0, out.get(3).indexOf('2'))));
    }

    @Test
    void aValueWithALineBreakStaysOnItsRow() {
        List<String> out = print(List.of("id", "note"), List.of(List.of("a", "two\nlines\tand a tab")));
        assertThat(out).hasSize(3);
        assertThat(out.get(2)).isEqualTo("a   two\\nlines\\tand a tab");
    }

    @Test
    void aLongWideValueIsCutToTheColumnLimitByCells() {
        String long_ = "字".repeat(100);
        List<String> out = print(List.of("v"), List.of(List.of(long_)));
        assertThat(Tables.width(out.get(2))).isLessThanOrEqualTo(Tables.MAX_WIDTH);
        assertThat(out.get(2)).endsWith("…");
    }

    @Test
    void theTableFormatShowsATimestampAsAnInstant() {
        var ts = new io.palisade.coordinator.Catalog.ColumnDef("at",
                io.palisade.coordinator.Catalog.ColumnType.Scalar.TIMESTAMP, true);
        assertThat(ScanCommand.cell(ts, 1_700_000_000_000_001L)).isEqualTo("2023-11-14T22:13:20.000001Z");
        assertThat(ScanCommand.cell(ts, null)).isEqualTo("null");
        var n = new io.palisade.coordinator.Catalog.ColumnDef("n", io.palisade.coordinator.Catalog.ColumnType.Scalar.INT64, true);
        assertThat(ScanCommand.cell(n, 1_700_000_000_000_001L)).isEqualTo("1700000000000001");
    }
}
