package io.palisade.journal;

import io.palisade.fencing.KeyFilter;
import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Golden renderings: the field names are the audit format and must not change silently. */
class JsonRendererTest {

    @Test
    void intentRecordedRendersWithItsStableFieldNames() {
        JournalEvent e = new JournalEvent.IntentRecorded("intent-1", "client-7", LogicalOperation.INSERT, "main",
                "person", new ExpectedBase("main", 4, 2, 17), new byte[] {1, 2, 3},
                KeyFilter.ofStrings(0, List.of("b", "a")),
                new HeadTransition("main", "person", new TableHead("main", 4, 2, 0), new TableHead("main", 5, 2, 0)),
                "d1g357");
        String json = JsonRenderer.toJson(new JournalRecord(18, 1_700_000_000_000_000_000L, 3, e));
        assertThat(json).isEqualTo("{\"seq\":18,\"time\":\"2023-11-14T22:13:20Z\",\"epoch\":3,\"type\":\"intent_recorded\","
                + "\"intent_id\":\"intent-1\",\"idempotency_key\":\"client-7\",\"operation\":\"insert\","
                + "\"graph_branch\":\"main\",\"table\":\"person\",\"expected_base\":{\"table_branch\":\"main\","
                + "\"version\":4,\"schema_id\":2,\"graph_sequence\":17},\"actions_bytes\":3,\"actions_base64\":\"AQID\","
                + "\"key_filter\":{\"key_type\":\"UTF8\",\"field_ids\":[0],\"count\":2,\"keys\":[\"a\",\"b\"]},"
                + "\"intended_transition\":{\"graph_branch\":\"main\",\"table\":\"person\",\"from\":{\"table_branch\":"
                + "\"main\",\"version\":4,\"schema_id\":2,\"incarnation\":0},\"to\":{\"table_branch\":\"main\","
                + "\"version\":5,\"schema_id\":2,\"incarnation\":0}},\"request_digest\":\"d1g357\"}");
    }

    @Test
    void intentCompletedRendersWithItsStableFieldNames() {
        JournalEvent e = new JournalEvent.IntentCompleted("intent-2", IntentOutcome.KEY_CONFLICT, "key exists",
                "intent-1", List.of("a"));
        assertThat(JsonRenderer.toJson(new JournalRecord(19, 1_700_000_000_000_000_001L, 3, e)))
                .isEqualTo("{\"seq\":19,\"time\":\"2023-11-14T22:13:20.000000001Z\",\"epoch\":3,"
                        + "\"type\":\"intent_completed\",\"intent_id\":\"intent-2\",\"outcome\":\"KEY_CONFLICT\","
                        + "\"reason\":\"key exists\",\"conflicting_intent\":\"intent-1\",\"conflicting_keys\":[\"a\"]}");
    }

    @Test
    void catalogRecordedRendersItsCatalogAsJson() {
        JournalEvent e = JournalEvent.CatalogRecorded.of("{\"tables\": [{\"name\": \"person\", \"kind\": \"node\"}]}",
                "graph created");
        String digest = ((JournalEvent.CatalogRecorded) e).digest();
        assertThat(digest).hasSize(64).matches("[0-9a-f]+");
        assertThat(JsonRenderer.toJson(new JournalRecord(2, 1_700_000_000_000_000_000L, 1, e)))
                .isEqualTo("{\"seq\":2,\"time\":\"2023-11-14T22:13:20Z\",\"epoch\":1,\"type\":\"catalog_recorded\","
                        + "\"digest\":\"" + digest + "\",\"reason\":\"graph created\",\"catalog\":{\"tables\":"
                        + "[{\"name\":\"person\",\"kind\":\"node\"}]}}");
    }

    @Test
    void aCatalogRecordWhoseDigestIsNotItsCatalogsIsRefused() {
        JournalEvent.CatalogRecorded e = JournalEvent.CatalogRecorded.of("{\"tables\": []}", "graph created");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new JournalEvent.CatalogRecorded(e.digest(),
                "{\"tables\": [ ]}", e.reason())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not the SHA-256 of its catalog");
    }

    @Test
    void jsonlHasOneRecordPerLine() {
        StringWriter out = new StringWriter();
        JsonRenderer.writeJsonl(List.of(
                new JournalRecord(0, 0, 1, new JournalEvent.GraphBranchCreated("b", "main", 0)),
                new JournalRecord(1, 1, 1, new JournalEvent.GraphBranchDeleted("b"))), out);
        assertThat(out.toString().split("\n", -1)).hasSize(3).endsWith("");
        assertThat(out.toString()).startsWith("{\"seq\":0,").contains("\n{\"seq\":1,\"time\":");
    }
}
