package io.palisade.cli;

import io.palisade.coordinator.TableLocation;
import io.palisade.substrate.s3.S3ProxyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line on a graph whose tables live on an object store (S3Proxy in this JVM): init --tables, write, scan,
 * heads, audit verify; the storage options come from the file named by {@code palisade.storage.file}
 * ({@code PALISADE_STORAGE_FILE}), and a store that ignores conditional put is refused with exit 6.
 */
class ObjectStoreCliTest {
    @TempDir
    Path tmp;

    @AfterEach
    void clearStorageFile() {
        System.clearProperty(TableLocation.FILE_PROPERTY);
    }

    private void storageFile(Map<String, String> options) throws Exception {
        Path f = tmp.resolve("storage.properties");
        Files.writeString(f, options.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n", "", "\n")));
        System.setProperty(TableLocation.FILE_PROPERTY, f.toString());
    }

    @Test
    void initWriteScanHeadsAndAuditVerifyOnAnS3Graph() throws Exception {
        S3ProxyFixture s3 = S3ProxyFixture.shared();
        storageFile(s3.storageOptions());
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, CliRun.CATALOG);
        String graph = tmp.resolve("g").toString();
        String uri = s3.freshUri();
        CliRun.Result init = CliRun.run("init", graph, "--catalog", cat.toString(), "--tables", uri);
        assertThat(init.code()).as(init.toString()).isZero();
        assertThat(init.out()).contains("on " + uri);
        assertThat(Files.readString(tmp.resolve("g/_palisade/tables.uri"))).doesNotContain(S3ProxyFixture.SECRET_KEY);
        assertThat(Files.readString(tmp.resolve("g/_palisade/catalog.json"))).doesNotContain(S3ProxyFixture.SECRET_KEY);

        CliRun.Result w = CliRun.runWithInput("{\"id\":\"a\",\"age\":1}\n{\"id\":\"b\",\"age\":2}\n", "write", graph,
                "--table", "person", "--mode", "insert");
        assertThat(w.code()).as(w.toString()).isZero();
        CliRun.Result again = CliRun.runWithInput("{\"id\":\"a\",\"age\":9}\n", "write", graph, "--table", "person",
                "--mode", "insert");
        assertThat(again.code()).as(again.toString()).isEqualTo(Main.KEY_CONFLICT);

        CliRun.Result scan = CliRun.run("scan", graph, "--table", "person");
        assertThat(scan.code()).as(scan.toString()).isZero();
        assertThat(scan.out().strip().split("\n")).hasSize(2);
        assertThat(scan.out()).contains("\"id\":\"a\"").contains("\"age\":2");

        CliRun.Result heads = CliRun.run("heads", graph, "--json");
        assertThat(heads.code()).as(heads.toString()).isZero();
        assertThat(heads.out()).contains("person");

        CliRun.Result verify = CliRun.run("audit", "verify", graph);
        assertThat(verify.code()).as(verify.toString()).isZero();

        // the incident tools read the journal locally and the tables on the store
        CliRun.Result explain = CliRun.run("explain", graph, "--key", "a", "--table", "person", "--json");
        assertThat(explain.code()).as(explain.toString()).isZero();
        com.fasterxml.jackson.databind.JsonNode doc = new com.fasterxml.jackson.databind.ObjectMapper().readTree(explain.out());
        assertThat(doc.get("current_value").toString()).as("the key's value as read from the s3:// table")
                .contains("\"age\":1").doesNotContain("\"age\":9");
        assertThat(explain.out()).contains("KEY_CONFLICT"); // the refused second insert of a
        CliRun.Result replay = CliRun.run("replay", graph, "--at", "last 1", "--format", "json");
        assertThat(replay.code()).as(replay.toString()).isZero();
        assertThat(replay.out()).contains("person");
        Path html = tmp.resolve("report.html");
        CliRun.Result report = CliRun.run("report", graph, "--html", html.toString());
        assertThat(report.code()).as(report.toString()).isZero();
        assertThat(Files.readString(html)).contains("person");
    }

    @Test
    void aStoreThatIgnoresConditionalPutIsRefusedWithExitSix() throws Exception {
        try (S3ProxyFixture ignoring = S3ProxyFixture.ignoringConditionalPuts()) {
            storageFile(ignoring.storageOptions());
            Path cat = tmp.resolve("catalog.json");
            Files.writeString(cat, CliRun.CATALOG);
            String graph = tmp.resolve("g").toString();
            CliRun.Result init = CliRun.run("init", graph, "--catalog", cat.toString(), "--tables", ignoring.freshUri());
            assertThat(init.code()).as(init.toString()).isEqualTo(Main.REFUSED);
            assertThat(init.err()).startsWith("palisade: graph refused: ").contains("does not honour conditional put");
            assertThat(tmp.resolve("g")).doesNotExist();
        }
    }
}
