package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;
import io.palisade.fencing.action.UpdateConfig.ConfigUpdate;
import io.palisade.fencing.action.UpdateConfig.Target;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.palisade.fencing.action.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A16 UpdateConfig, A18 AddBases, A19 UpdateMergedGenerations. */
class TableStateActionsTest {

    private static void assertInvalid(Manifest m, Action a, String messagePart) {
        assertThatThrownBy(() -> m.apply(List.of(a)))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining(messagePart);
    }

    private static ConfigUpdate remove(Target t, String key) {
        return new ConfigUpdate(t, key, Optional.empty());
    }

    // ------------------------------------------------------------------ A16 UpdateConfig

    @Test
    void configAndTableMetadataKeysAreSetAndRemoved() {
        Manifest m = apply(keyedWith(1), new UpdateConfig(List.of(
                ConfigUpdate.set(Target.CONFIG, "lance.auto_cleanup.interval", "20"),
                ConfigUpdate.set(Target.CONFIG, "keep", "1"),
                ConfigUpdate.set(Target.TABLE_METADATA, "owner", "palisade")), false));
        assertThat(m.config()).containsOnly(Map.entry("lance.auto_cleanup.interval", "20"), Map.entry("keep", "1"));
        assertThat(m.tableMetadata()).containsOnly(Map.entry("owner", "palisade"));

        Manifest removed = apply(m, new UpdateConfig(List.of(remove(Target.CONFIG, "keep"), remove(Target.TABLE_METADATA, "owner"),
                remove(Target.CONFIG, "absent")), false));
        assertThat(removed.config()).containsOnlyKeys("lance.auto_cleanup.interval");
        assertThat(removed.tableMetadata()).isEmpty();
    }

    @Test
    void replacingTheConfigDropsEveryOtherConfigKeyButNotTableMetadata() {
        Manifest base = apply(keyedWith(1), new UpdateConfig(List.of(ConfigUpdate.set(Target.CONFIG, "a", "1"),
                ConfigUpdate.set(Target.CONFIG, "b", "2"), ConfigUpdate.set(Target.TABLE_METADATA, "t", "x")), false));
        UpdateConfig replace = new UpdateConfig(List.of(ConfigUpdate.set(Target.CONFIG, "c", "3")), true);
        Manifest m = apply(base, replace);
        assertThat(m.config()).containsOnly(Map.entry("c", "3"));
        assertThat(m.tableMetadata()).containsOnly(Map.entry("t", "x"));
        assertThat(replace.writes().scope(ResourceKind.CONFIG)).contains(Scope.ALL);
    }

    @Test
    void configUpdateWithoutAKeyIsRejectedAsInvalidInput() {
        assertInvalid(keyedWith(1), new UpdateConfig(List.of(ConfigUpdate.set(Target.CONFIG, null, "v")), false), "key");
        assertInvalid(keyedWith(1), new UpdateConfig(List.of(ConfigUpdate.set(Target.TABLE_METADATA, "", "v")), false), "key");
    }

    // ------------------------------------------------------------------ A18 AddBases

    @Test
    void basesAreAppendedInOrder() {
        Manifest m = apply(keyedWith(1), new AddBases(List.of(new BasePath(1, "hot", "file:///hot"),
                new BasePath(2, "cold", "s3://bucket/cold"))));
        Manifest more = apply(m, new AddBases(List.of(new BasePath(3, "archive", "s3://bucket/archive"))));
        assertThat(more.bases()).extracting(BasePath::id).containsExactly(1, 2, 3);
    }

    @Test
    void baseRepeatingAnIdNameOrPathIsRejected() {
        Manifest m = apply(keyedWith(1), new AddBases(List.of(new BasePath(1, "hot", "file:///hot"))));
        assertInvalid(m, new AddBases(List.of(new BasePath(1, "other", "file:///other"))), "repeats an existing id, name or path");
        assertInvalid(m, new AddBases(List.of(new BasePath(2, "hot", "file:///other"))), "repeats");
        assertInvalid(m, new AddBases(List.of(new BasePath(2, "other", "file:///hot"))), "repeats");
        assertInvalid(keyedWith(1), new AddBases(List.of(new BasePath(5, "a", "p1"), new BasePath(6, "a", "p2"))), "repeats");
    }

    // ------------------------------------------------------------------ A19 UpdateMergedGenerations

    @Test
    void mergedGenerationsAdvancePerShard() {
        Manifest m = apply(keyedWith(1), new UpdateMergedGenerations(Map.of("s0", 3L, "s1", 0L)));
        Manifest next = apply(m, new UpdateMergedGenerations(Map.of("s0", 5L)));
        assertThat(next.mergedGenerations()).containsOnly(Map.entry("s0", 5L), Map.entry("s1", 0L));
        // re-recording the same generation is allowed (idempotent)
        assertThat(apply(next, new UpdateMergedGenerations(Map.of("s0", 5L))).mergedGenerations()).isEqualTo(next.mergedGenerations());
    }

    @Test
    void mergedGenerationGoingBackwardsIsRejected() {
        Manifest m = apply(keyedWith(1), new UpdateMergedGenerations(Map.of("s0", 3L)));
        assertInvalid(m, new UpdateMergedGenerations(Map.of("s0", 2L)), "shard s0 merged generation would go back from 3 to 2");
        assertInvalid(keyedWith(1), new UpdateMergedGenerations(Map.of("s9", -5L)), "go back");
    }
}
