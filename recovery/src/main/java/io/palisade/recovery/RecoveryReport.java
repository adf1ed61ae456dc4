package io.palisade.recovery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.palisade.heads.HeadsState;
import io.palisade.journal.RecoveryClassification;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one recovery run ({@link Recovery#run}, or {@link Recovery#plan} for a dry run) found and did.
 *
 * <p>Invariants: the lists are immutable copies; {@link #toJson()} renders every component but the state, in a fixed
 * key order, so two equal reports render to the same bytes.
 *
 * @param recoveryId         id of this run ({@code RecoveryStarted}/{@code RecoveryFinished}); null when nothing was journaled
 * @param checkpointSequence the checkpoint the heads were loaded from (-1: full replay)
 * @param skippedCheckpoints damaged or unusable checkpoints passed over, newest first ("file: reason")
 * @param recordsReplayed    journal records folded on top of the checkpoint
 * @param closedRecovery     id of an earlier recovery run that was killed before it finished, now closed
 * @param classifications    every decision, in journal order
 * @param headsDigestBefore  heads digest of the replayed state, before any decision
 * @param headsDigest        heads digest after recovery
 * @param adoptForeign       whether the operator asked to adopt foreign versions
 * @param state              the state after the appended records
 */
public record RecoveryReport(String recoveryId, long checkpointSequence, List<String> skippedCheckpoints,
                             long recordsReplayed, String closedRecovery, List<RecoveryClassification> classifications,
                             String headsDigestBefore, String headsDigest, boolean adoptForeign, HeadsState state) {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public RecoveryReport {
        skippedCheckpoints = List.copyOf(skippedCheckpoints);
        classifications = List.copyOf(classifications);
    }

    /** Whether this run journaled anything. */
    public boolean changedAnything() {
        return !classifications.isEmpty() || closedRecovery != null;
    }

    /** The report as JSON (state omitted; its digest is included). */
    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("recoveryId", recoveryId);
        m.put("checkpointSequence", checkpointSequence);
        m.put("skippedCheckpoints", skippedCheckpoints);
        m.put("recordsReplayed", recordsReplayed);
        m.put("closedRecovery", closedRecovery);
        m.put("adoptForeign", adoptForeign);
        m.put("headsDigestBefore", headsDigestBefore);
        m.put("headsDigest", headsDigest);
        m.put("lastSequence", state.lastSequence());
        List<Map<String, Object>> cs = new ArrayList<>();
        for (RecoveryClassification c : classifications) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("subject", c.subjectId());
            e.put("kind", c.kind().name());
            e.put("table", c.table());
            e.put("detail", c.detail());
            cs.add(e);
        }
        m.put("classifications", cs);
        try {
            return JSON.writeValueAsString(m);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a report of strings and numbers always serialises", e);
        }
    }
}
