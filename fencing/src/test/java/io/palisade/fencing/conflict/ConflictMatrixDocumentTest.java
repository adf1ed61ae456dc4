package io.palisade.fencing.conflict;

import io.palisade.fencing.action.ActionKind;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/conflict-matrix.md is generated from the code; this test fails when the committed file is stale. */
class ConflictMatrixDocumentTest {

    private static final Path DOC = Path.of("..", "docs", "conflict-matrix.md");

    @Test
    void committedConflictMatrixDocumentIsCurrent() throws IOException {
        String rendered = ConflictMatrixDocument.render();
        if (Boolean.getBoolean("palisade.regenerateDocs")) {
            Files.createDirectories(DOC.getParent());
            Files.writeString(DOC, rendered, StandardCharsets.UTF_8);
        }
        assertThat(DOC).as("docs/conflict-matrix.md is missing; regenerate it (see its header)").exists();
        assertThat(Files.readString(DOC, StandardCharsets.UTF_8))
                .as("docs/conflict-matrix.md is stale; regenerate: mvn -B -q test -pl fencing "
                        + "-Dtest=ConflictMatrixDocumentTest -Dpalisade.regenerateDocs=true")
                .isEqualTo(rendered);
    }

    @Test
    void documentCoversEveryActionAndEveryRule() {
        String doc = ConflictMatrixDocument.render();
        for (ActionKind k : ActionKind.values()) {
            assertThat(doc).contains("| " + k.code() + " | " + k.label() + " |").contains("| **" + k.code() + "** |");
        }
        for (Rule r : Rule.values()) {
            assertThat(doc).contains("### " + r.code() + " — " + r.title());
        }
    }
}
