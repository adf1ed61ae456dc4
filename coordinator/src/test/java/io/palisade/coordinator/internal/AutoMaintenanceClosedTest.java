package io.palisade.coordinator.internal;

import io.palisade.fencing.GraphClosedException;
import io.palisade.fencing.GraphRefusedException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;

/** Automatic maintenance the close dropped is told apart from maintenance that failed. */
class AutoMaintenanceClosedTest {

    @Test
    void onlyAGraphClosedFirstIsADropNotAFailure() {
        assertThat(AutoMaintenance.closedFirst(new GraphClosedException("graph g was closed"))).isTrue();
        assertThat(AutoMaintenance.closedFirst(new CompletionException(new GraphClosedException("graph g was closed"))))
                .isTrue();
        assertThat(AutoMaintenance.closedFirst(new GraphRefusedException("the writer lease is held elsewhere")))
                .isFalse();
        assertThat(AutoMaintenance.closedFirst(new CompletionException(new IllegalStateException("lance failed"))))
                .isFalse();
    }
}
