package io.palisade.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The event type names {@code audit --type} accepts: every record type, none of the sealed groupings of them. */
class EventTypesTest {

    @Test
    void everyRecordTypeIsANameAndNoGroupingIs() {
        assertThat(EventTypes.NAMES).contains("intent_recorded", "rows_recorded", "rows_released", "write_journaled",
                "write_released", "transaction_committed").doesNotContain("journaled_write", "released")
                .doesNotHaveDuplicates().isSorted();
        EventTypes.require("write_released", "--type");
        assertThatThrownBy(() -> EventTypes.require("journaled_write", "--type"))
                .hasMessageContaining("is not an event type").hasMessageContaining("write_journaled");
    }
}
