package io.palisade.fencing.conflict;

import io.palisade.fencing.ValidationException;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.ActionCodec;
import io.palisade.fencing.action.ActionKind;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;

class ActionCodecProperties {

    @Test
    void everyActionListRoundTrips() {
        qt().withExamples(2000).forAll(ActionGens.transactions()).checkAssert(actions -> {
            byte[] bytes = ActionCodec.encode(actions);
            assertThat(ActionCodec.decode(bytes)).isEqualTo(actions);
            assertThat(ActionCodec.encode(ActionCodec.decode(bytes))).as("deterministic encoding").isEqualTo(bytes);
        });
    }

    @Test
    void everyCatalogActionIsCoveredBySampleRoundTrips() {
        for (ActionKind k : ActionKind.values()) {
            List<Action> one = List.of(ConflictMatrixTest.sample(k));
            assertThat(ActionCodec.decode(ActionCodec.encode(one))).isEqualTo(one);
        }
    }

    @Test
    void anUnknownActionTagIsRefusedNotSkipped() {
        byte[] bytes = ActionCodec.encode(List.of(ConflictMatrixTest.sample(ActionKind.RESERVE_FRAGMENT_IDS)));
        bytes[2] = 42; // the tag of the only action
        assertThatThrownBy(() -> ActionCodec.decode(bytes)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("unknown action tag 42");
    }

    @Test
    void aNewerEncodingVersionIsRefused() {
        byte[] bytes = ActionCodec.encode(List.of());
        bytes[0] = 2;
        assertThatThrownBy(() -> ActionCodec.decode(bytes)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("version 2");
    }

    @Test
    void everyTruncationIsAValidationError() {
        qt().withExamples(300).forAll(ActionGens.transactions()).checkAssert(actions -> {
            byte[] bytes = ActionCodec.encode(actions);
            for (int cut = 0; cut < bytes.length; cut++) {
                byte[] truncated = Arrays.copyOf(bytes, cut);
                try {
                    ActionCodec.decode(truncated);
                    // a prefix can only decode if it is itself a complete, shorter list: never for a cut list
                    throw new AssertionError("decoded a truncated encoding at " + cut + " of " + bytes.length);
                } catch (ValidationException expected) {
                    // refused loudly
                }
            }
        });
    }
}
