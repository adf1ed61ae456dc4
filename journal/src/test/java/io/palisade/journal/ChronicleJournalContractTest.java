package io.palisade.journal;

import java.nio.file.Path;

/** The journal contract on the embedded Chronicle storage (no {@code journal.properties}). */
class ChronicleJournalContractTest extends JournalContractTest {
    @Override
    void prepare(Path palisade) {
        // Chronicle is the default: nothing to write
    }

    @Override
    Exclusion exclusion() {
        return Exclusion.REFUSED_AT_OPEN;
    }

    @Override
    int followRecordsPerSession() {
        return 3000;
    }
}
