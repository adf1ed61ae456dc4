package io.palisade.fencing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FormatStampTest {

    @Test
    void formatStampsAreKnownOrRefused() {
        assertThat(FormatStamp.of(4)).isEqualTo(FormatStamp.PRE_FENCING);
        assertThat(FormatStamp.of(5)).isEqualTo(FormatStamp.FENCING);
        assertThatThrownBy(() -> FormatStamp.of(6)).isInstanceOf(GraphRefusedException.class)
                .hasMessageContaining("6").hasMessageContaining("not supported");
    }
}
