package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.cli.IncidentModel.Attribution;
import io.palisade.cli.IncidentModel.Intent;
import io.palisade.journal.IntentOutcome;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code explain} and its {@link IncidentModel} on the small incident graph ({@link IncidentJournals}): the legend,
 * conflicts naming own keys only and a committing intent that really committed the key before, the retry link of the
 * reused idempotency key, the writer's crash and recovery, and a json form that matches the table form.
 */
class ExplainIncidentTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static IncidentJournals.Incident incident;
    private static IncidentModel model;
    private static String graph;

    @BeforeAll
    static void build() {
        incident = IncidentJournals.of(IncidentJournals.SMALL_EVENTS);
        graph = incident.graph().toString();
        model = ExplainCommand.model(incident.graph());
    }

    @Test
    void everyConflictNamesOnlyItsOwnKeysEachAttributedToAnIntentThatCommittedItBefore() {
        int conflicts = 0;
        int attributed = 0;
        for (Intent i : model.intents().values()) {
            if (!i.conflicted()) {
                assertThat(i.conflicts).isEmpty();
                continue;
            }
            conflicts++;
            assertThat(i.conflictKeys()).as(i.id).isNotEmpty().allMatch(i.ownKeys::contains);
            // the coordinator's completion itself names only own keys, in its reason as in its conflicting keys
            assertThat(i.completion.conflictingKeys()).as(i.id).allMatch(i.ownKeys::contains);
            if (i.completion.outcome() == IntentOutcome.KEY_CONFLICT) {
                Matcher m = Pattern.compile("already present \\[([^\\]]*)]").matcher(i.completion.reason());
                if (m.find()) {
                    assertThat(Arrays.stream(m.group(1).split(", ")).toList()).as(i.id + ": " + i.completion.reason())
                            .allMatch(i.ownKeys::contains);
                }
            }
            for (Attribution a : i.conflicts) {
                if (a.intentId() == null) {
                    assertThat(a.note()).isNotEmpty();
                    continue;
                }
                attributed++;
                Intent w = model.intent(a.intentId()).orElseThrow();
                assertThat(w.applied()).as(a.toString()).isTrue();
                assertThat(w.recorded.operation()).as("a fold re-commits writes; it never wrote a key")
                        .isNotEqualTo(io.palisade.journal.LogicalOperation.FOLD);
                assertThat(w.ownKeys).contains(a.key());
                assertThat(w.recorded.graphBranch()).isEqualTo(i.recorded.graphBranch());
                assertThat(w.recorded.table()).isEqualTo(i.recorded.table());
                assertThat(w.completionSequence).isEqualTo(a.sequence()).isLessThan(i.completionSequence);
                assertThat(w.beat).containsKey(i.id);
            }
        }
        assertThat(conflicts).isGreaterThan(1);
        assertThat(attributed).isPositive();
    }

    @Test
    void theKeyOfTheRetryShowsTheLegendTheRetryLinksBothWaysAndTheCurrentValue() {
        CliRun.Result r = CliRun.run("explain", graph, "--key", IncidentJournals.RETRY_ROW, "--table", "person", "--all");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).contains("legend: A = intent recorded", "B = substrate commit", "D = completion",
                "R = recovery's decision", "F = fold");
        assertThat(r.out()).contains("this intent retried loser ", "this intent was retried by ",
                "idempotency key '" + IncidentJournals.RETRY_KEY + "'");
        assertThat(r.out()).containsPattern("current value on main in person: \\{\"id\":\"e7\".*\"the retry\"");
        List<Intent> retries = model.retries().stream()
                .filter(i -> IncidentJournals.RETRY_KEY.equals(i.recorded.idempotencyKey())).toList();
        assertThat(retries).singleElement().satisfies(retry -> {
            Intent loser = model.intent(retry.retryOf).orElseThrow();
            assertThat(loser.completion.outcome()).isEqualTo(IntentOutcome.KEY_CONFLICT);
            assertThat(loser.retriedBy).isEqualTo(retry.id);
            assertThat(retry.applied()).isTrue();
            assertThat(loser.conflicts).singleElement().satisfies(a -> assertThat(a.intentId()).isNotNull());
        });
    }

    @Test
    void anIntentOfTheKilledWriterNamesItsWriterAndTheRecoveryThatFollowed() {
        Intent killed = model.intents().values().stream()
                .filter(i -> i.session != null && i.session.pid == incident.killedPid()).findFirst().orElseThrow();
        assertThat(killed.session.ending).isIn(IncidentModel.Ending.DIED, IncidentModel.Ending.TORN_TAIL);
        CliRun.Result r = CliRun.run("explain", graph, killed.id);
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).contains("writer: epoch " + killed.session.epoch + ", pid " + incident.killedPid())
                .contains("crash: writer pid " + incident.killedPid() + " (epoch " + killed.session.epoch + ") died")
                .contains("recovered by epoch " + killed.session.recoveredBy.epoch + " at seq "
                        + killed.session.recoveredBy.startSequence);
    }

    @Test
    void theJsonFormParsesAndMatchesTheTableForm() throws Exception {
        String key = busiestKey();
        CliRun.Result table = CliRun.run("explain", graph, "--key", key, "--table", "person", "--all");
        CliRun.Result json = CliRun.run("explain", graph, "--key", key, "--table", "person", "--format", "json");
        CliRun.Result alias = CliRun.run("explain", graph, "--key", key, "--table", "person", "--json");
        CliRun.Result jsonl = CliRun.run("explain", graph, "--key", key, "--table", "person", "--format", "jsonl");
        assertThat(List.of(table.code(), json.code(), alias.code(), jsonl.code())).containsOnly(0);
        assertThat(alias.out()).isEqualTo(json.out());
        JsonNode doc = JSON.readTree(json.out());
        List<String> tableIds = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^  intent (\\S+) \\(recorded at seq (\\d+)\\)").matcher(table.out());
        while (m.find()) {
            tableIds.add(m.group(1));
        }
        List<String> jsonIds = new ArrayList<>();
        for (JsonNode i : doc.path("intents")) {
            jsonIds.add(i.path("intent_id").asText());
            assertThat(table.out()).contains("intent " + i.path("intent_id").asText() + " (recorded at seq "
                    + i.path("seq").asLong() + ")");
            for (JsonNode c : i.path("conflicts")) {
                if (!c.path("committed_by").isNull()) {
                    assertThat(table.out()).contains(c.path("key").asText() + " committed by intent "
                            + c.path("committed_by").asText() + " at seq " + c.path("committed_at_seq").asLong());
                }
            }
        }
        assertThat(jsonIds).isEqualTo(tableIds).isNotEmpty();
        assertThat(jsonl.out().strip().split("\n")).hasSize(jsonIds.size());
        // the model was built from the whole journal once, record by record (the former explain decoded the journal
        // once per intent); this counts the records the model was given, not every decode the command makes
        assertThat(doc.path("journal").path("records_read").asLong()).isEqualTo(incident.events());
        assertThat(doc.path("summary").path("conflicts").asLong())
                .isEqualTo(model.conflictsOf("person", key).size());
        assertThat(doc.path("summary").path("conflicts").asLong() + doc.path("summary").path("conflicts_on_other_keys").asLong())
                .isEqualTo(model.intentsOf("person", key).stream().filter(Intent::conflicted).count());
        assertThat(table.out()).contains("summary: ", doc.path("summary").path("conflicts").asLong() + " conflict(s) of this key");
    }

    @Test
    void theOutcomeAndRangeFiltersSelectIntentsAndTheCompactFormFoldsIdenticalLosers() throws Exception {
        String key = busiestKey();
        JsonNode conflicts = JSON.readTree(CliRun.run("explain", graph, "--key", key, "--table", "person", "--outcome",
                "key_conflict,write_conflict", "--json").out());
        assertThat(conflicts.path("intents")).isNotEmpty().allSatisfy(i ->
                assertThat(i.path("outcome").asText()).isIn("key_conflict", "write_conflict"));
        List<Intent> touched = model.intentsOf("person", key);
        long mid = touched.get(touched.size() / 2).sequence; // the key's middle intent: the range holds the later half
        JsonNode late = JSON.readTree(CliRun.run("explain", graph, "--key", key, "--table", "person", "--from",
                Long.toString(mid), "--json").out());
        assertThat(late.path("intents")).isNotEmpty()
                .allSatisfy(i -> assertThat(i.path("seq").asLong()).isGreaterThanOrEqualTo(mid));
        String hot = IncidentJournals.HOT_KEY;
        List<Intent> all = model.intentsOf("person", hot);
        assertThat(all).as("the fixture's hot key has more intents than explain shows one by one")
                .hasSizeGreaterThan(ExplainCommand.COMPACT_ABOVE);
        CliRun.Result compact = CliRun.run("explain", graph, "--key", hot, "--table", "person");
        assertThat(compact.out()).contains("(compact: identical losers folded").contains(" intents lost the same way: ");
        assertThat(compact.out().lines().count())
                .isLessThan(CliRun.run("explain", graph, "--key", hot, "--table", "person", "--all").out().lines().count());
    }

    /** The person key with the most intents. */
    private static String busiestKey() {
        String best = null;
        int most = -1;
        for (int k = 0; k < IncidentJournals.KEYS; k++) {
            int n = model.intentsOf("person", "e" + k).size();
            if (n > most) {
                most = n;
                best = "e" + k;
            }
        }
        return best;
    }
}
