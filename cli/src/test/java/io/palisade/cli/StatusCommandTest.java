package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code palisade status}: per table head its fragments, rows, versions kept and bytes; the graph's journal bytes. */
class StatusCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void statusCountsFragmentsDeletedRowsVersionsAndBytesAndSaysWhenCompactionIsDue() throws Exception {
        Path catalog = tmp.resolve("catalog.json");
        Files.writeString(catalog, """
                {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
                  {"name": "age", "type": "int64", "nullable": true}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", catalog.toString()).code()).isZero();
        for (int i = 0; i < 3; i++) {
            CliRun.Result w = CliRun.runWithInput("{\"id\":\"k" + i + "\",\"age\":" + i + "}\n{\"id\":\"x" + i
                    + "\",\"age\":0}\n", "write", graph, "--table", "person", "--mode", "upsert");
            assertThat(w.code()).as(w.toString()).isZero();
        }
        CliRun.Result d = CliRun.runWithInput("{\"id\":\"x0\"}\n", "write", graph, "--table", "person", "--mode", "delete");
        assertThat(d.code()).as(d.toString()).isZero();

        CliRun.Result r = CliRun.run("status", graph, "--format", "json");
        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode out = JSON.readTree(r.out());
        JsonNode person = out.get("tables").get(0);
        assertThat(person.get("branch").asText()).isEqualTo("main");
        assertThat(person.get("table").asText()).isEqualTo("person");
        assertThat(person.get("fragments").asInt()).isEqualTo(3);
        assertThat(person.get("live_rows").asLong()).isEqualTo(5);
        assertThat(person.get("deleted_rows").asLong()).isEqualTo(1);
        // one in six stored rows deleted: past the default 10 % trigger
        assertThat(person.get("compaction_due").asText()).contains("% of stored rows deleted");
        assertThat(person.get("versions_kept").asInt()).isEqualTo(person.get("version").asInt());
        assertThat(person.get("table_bytes").asLong()).isPositive();
        assertThat(person.get("last_compaction_seq").isNull()).isTrue();
        assertThat(out.get("journal_bytes").asLong()).isPositive();
        assertThat(out.get("palisade_bytes").asLong()).isGreaterThanOrEqualTo(out.get("journal_bytes").asLong());
        // the cycle files are sparse: what the disk holds is far below their reserved length
        assertThat(out.get("journal_bytes").asLong()).isLessThan(out.get("journal_file_bytes").asLong());
        // no journal file of this young graph is past the retention window: no row was released
        assertThat(out.has("journal_rows_released_below")).isTrue();
        assertThat(out.get("journal_rows_released_below").isNull()).isTrue();
        long sessions = CliRun.run("audit", graph, "--type", "writer_started").out().strip().split("\n").length;
        assertThat(out.get("journal_segments").asLong()).as("one per writer session").isEqualTo(sessions)
                .isGreaterThanOrEqualTo(5); // init, and each of the 4 writes
        assertThat(out.get("writer").isNull()).as("no process holds the lease").isTrue();
        assertThat(out.get("open_intents").asInt()).isZero();
        // each write's close checkpointed the heads, which forgets the intents the checkpoint covers
        assertThat(out.get("last_checkpoint_seq").asLong()).isPositive();
        assertThat(out.get("completed_intents").asInt()).isZero();
        assertThat(out.get("idempotency_keys").asInt()).isZero(); // no write carried a key

        CliRun.Result table = CliRun.run("status", graph);
        assertThat(table.code()).as(table.toString()).isZero();
        assertThat(table.out()).contains("fragments").contains("versions_kept").contains("journal ");
        assertThat(CliRun.run("status", tmp.resolve("nothing").toString()).code()).isEqualTo(Main.INVALID_INPUT);

        // with a writer holding the lease (this process), status names it
        try (io.palisade.coordinator.Graph g = io.palisade.coordinator.Palisade.open(Path.of(graph),
                io.palisade.coordinator.Options.defaults())) {
            JsonNode held = JSON.readTree(CliRun.run("status", graph, "--format", "json").out()).get("writer");
            assertThat(held.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
            assertThat(held.get("epoch").asLong()).isPositive();
            assertThat(CliRun.run("status", graph).out()).contains("writer: pid " + ProcessHandle.current().pid());
        }
    }

    @Test
    void statusShowsAJournalAckTablesUnfoldedWritesTheirRowsAndTheFoldLagAndNoneForATableAckTable() throws Exception {
        Path catalog = tmp.resolve("catalog.json");
        Files.writeString(catalog, """
                {"tables": [{"name": "person", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
                  {"name": "age", "type": "int64", "nullable": true}]},
                  {"name": "city", "kind": "node", "columns": [{"name": "id", "type": "string"}]}]}
                """);
        String graph = tmp.resolve("ack").toString();
        assertThat(CliRun.run("init", graph, "--catalog", catalog.toString()).code()).isZero();
        io.palisade.coordinator.Options noFold = io.palisade.coordinator.Options.defaults()
                .withFolding(3_600_000L, 1_000_000, 1L << 30);
        long before = System.currentTimeMillis();
        try (io.palisade.coordinator.Graph g = io.palisade.coordinator.Palisade.open(Path.of(graph), noFold)) {
            g.upsert("main", "person", java.util.List.of(io.palisade.coordinator.Row.of("id", "a", "age", 1L),
                    io.palisade.coordinator.Row.of("id", "b", "age", 2L)));
            g.delete("main", "person", java.util.List.of("b"));
            g.upsert("main", "city", java.util.List.of(io.palisade.coordinator.Row.of("id", "paris")));

            JsonNode out = JSON.readTree(CliRun.run("status", graph, "--format", "json").out());
            long elapsed = System.currentTimeMillis() - before;
            JsonNode person = null;
            JsonNode city = null;
            for (JsonNode t : out.get("tables")) {
                if (t.get("table").asText().equals("person")) {
                    person = t;
                } else {
                    city = t;
                }
            }
            assertThat(person.get("ack").asText()).isEqualTo("journal");
            assertThat(person.get("unfolded").asLong()).isEqualTo(2);
            assertThat(person.get("unfolded_rows").asLong()).as("two rows upserted, one key deleted").isEqualTo(3);
            assertThat(person.get("folded_through").asLong()).isEqualTo(-1); // never folded yet
            // the age of the oldest unfolded write: written after `before`, so no older than the time since
            assertThat(person.get("fold_lag_ms").isNumber()).isTrue();
            assertThat(person.get("fold_lag_ms").asLong()).isBetween(0L, elapsed);
            // the same figures as heads
            JsonNode heads = JSON.readTree(CliRun.run("heads", graph, "--json").out());
            for (JsonNode h : heads) {
                if (h.get("table").asText().equals("person")) {
                    assertThat(h.get("unfolded").asLong()).isEqualTo(person.get("unfolded").asLong());
                    assertThat(h.get("folded_through").asLong()).isEqualTo(person.get("folded_through").asLong());
                }
            }
            assertThat(city.get("ack").asText()).isEqualTo("table");
            for (String f : new String[] {"unfolded", "unfolded_rows", "folded_through", "fold_lag_ms"}) {
                assertThat(city.get(f).isNull()).as(f).isTrue();
            }

            CliRun.Result table = CliRun.run("status", graph);
            assertThat(table.code()).as(table.toString()).isZero();
            java.util.List<String> lines = table.out().lines().toList();
            java.util.List<String> header = java.util.Arrays.asList(lines.get(1).trim().split("\\s+"));
            assertThat(header).contains("unfolded", "unfolded_rows", "fold_lag_ms");
            String personLine = lines.stream().filter(l -> l.startsWith("main") && l.contains(" person ")).findFirst()
                    .orElseThrow();
            String cityLine = lines.stream().filter(l -> l.startsWith("main") && l.contains(" city ")).findFirst()
                    .orElseThrow();
            java.util.List<String> p = java.util.Arrays.asList(personLine.trim().split("\\s{2,}"));
            java.util.List<String> c = java.util.Arrays.asList(cityLine.trim().split("\\s{2,}"));
            assertThat(p.subList(p.size() - 3, p.size() - 1)).containsExactly("2", "3");
            assertThat(Long.parseLong(p.get(p.size() - 1))).isBetween(0L, System.currentTimeMillis() - before);
            assertThat(c.subList(c.size() - 3, c.size())).containsExactly("-", "-", "-");
        }
    }

    @Test
    void aScanOfAPointWhoseVersionRetentionRemovedIsAUsageErrorNamingTheOldestVersionKept() throws Exception {
        Path graph = tmp.resolve("retained");
        io.palisade.coordinator.Options tight = io.palisade.coordinator.Options.defaults()
                .withRetention(io.palisade.coordinator.Retention.DEFAULTS.withVersions(2, 4)
                        .withWindow(java.time.Duration.ZERO).withExpireEvery(3))
                .withCompaction(io.palisade.coordinator.Compaction.off()).withIndexRefreshEvery(0);
        long early = -1;
        try (io.palisade.coordinator.Graph g = io.palisade.coordinator.Palisade.create(graph,
                io.palisade.coordinator.Catalog.fromJson(CliRun.CATALOG), tight)) {
            for (int i = 0; i < 30; i++) {
                g.upsert("main", "person", java.util.List.of(io.palisade.coordinator.Row.of("id", "k" + (i % 5),
                        "age", (long) i)));
                if (i == 2) {
                    early = g.state().lastSequence();
                }
            }
            assertThat(g.metrics().versionsExpired()).isPositive();
        }
        CliRun.Result r = CliRun.run("scan", graph.toString(), "--table", "person", "--at", String.valueOf(early));
        assertThat(r.code()).as(r.toString()).isEqualTo(Main.USAGE);
        assertThat(r.err()).contains("version retention removed it").contains("oldest version kept after it is")
                .doesNotContain("Exception").doesNotContain("manifest");
        CliRun.Result now = CliRun.run("scan", graph.toString(), "--table", "person");
        assertThat(now.code()).as(now.toString()).isZero();
        assertThat(now.out().strip().split("\n")).hasSize(5);
        JsonNode status = JSON.readTree(CliRun.run("status", graph.toString(), "--format", "json").out());
        assertThat(status.get("tables").get(0).get("last_version_removal_seq").asLong()).isPositive();
        assertThat(status.get("tables").get(0).get("versions_kept").asInt()).isLessThan(status.get("tables").get(0)
                .get("version").asInt());
        // audit verify says which table versions it can still check, and where the journal says the rest went
        CliRun.Result audit = CliRun.run("audit", "verify", graph.toString(), "--json");
        assertThat(audit.code()).as(audit.toString()).isZero();
        JsonNode v = JSON.readTree(audit.out()).get("table_versions").get(0);
        assertThat(v.get("table").asText()).isEqualTo("person");
        assertThat(v.get("table_branch").asText()).isEqualTo("main");
        assertThat(v.get("versions_kept").asInt()).isEqualTo(status.get("tables").get(0).get("versions_kept").asInt());
        assertThat(v.get("oldest_version").asLong()).isGreaterThan(1);
        assertThat(v.get("removed_below_version").asLong()).isLessThanOrEqualTo(v.get("oldest_version").asLong());
        assertThat(v.get("removed_at_seq").asLong()).isPositive();
        CliRun.Result text = CliRun.run("audit", "verify", graph.toString());
        assertThat(text.code()).as(text.toString()).isZero();
        assertThat(text.out()).contains("table versions that can still be checked: person main v"
                + v.get("oldest_version").asLong() + "..v").contains("removed by version retention");
    }

    @Test
    void aScanOfAForkPointWhoseFilesRetentionRemovedIsAUsageErrorNotDamage() throws Exception {
        Path graph = tmp.resolve("forked");
        io.palisade.coordinator.Options tight = io.palisade.coordinator.Options.defaults()
                .withRetention(io.palisade.coordinator.Retention.DEFAULTS.withVersions(2, 4)
                        .withWindow(java.time.Duration.ZERO).withExpireEvery(3))
                .withCompaction(io.palisade.coordinator.Compaction.off()).withIndexRefreshEvery(0);
        long forkPoint;
        try (io.palisade.coordinator.Graph g = io.palisade.coordinator.Palisade.create(graph,
                io.palisade.coordinator.Catalog.fromJson(CliRun.CATALOG), tight)) {
            for (int i = 0; i < 3; i++) {
                g.upsert("main", "person", java.util.List.of(io.palisade.coordinator.Row.of("id", "k" + i, "age", (long) i)));
            }
            forkPoint = g.state().lastSequence(); // main's head now is the version b's table branch forks from
            g.createBranch("b", "main");
            g.upsert("b", "person", java.util.List.of(io.palisade.coordinator.Row.of("id", "b0", "age", 0L)));
            // both sides rewrite their fragments and move on: no kept version of either names the fork point's files,
            // though Lance keeps its manifest as b's base
            g.compact("b", "person");
            for (int i = 0; i < 12; i++) {
                g.upsert("b", "person", java.util.List.of(io.palisade.coordinator.Row.of("id", "b" + i, "age", (long) i)));
            }
            for (int i = 0; i < 6; i++) {
                g.upsert("main", "person", java.util.List.of(io.palisade.coordinator.Row.of("id", "k" + (i % 3),
                        "age", (long) (100 + i))));
            }
            g.compact("main", "person");
            for (int i = 0; i < 12; i++) {
                g.upsert("main", "person", java.util.List.of(io.palisade.coordinator.Row.of("id", "m" + i, "age", (long) i)));
            }
            assertThat(g.metrics().versionsExpired()).isPositive();
        }
        CliRun.Result r = CliRun.run("scan", graph.toString(), "--table", "person", "--at", String.valueOf(forkPoint));
        assertThat(r.code()).as(r.toString()).isEqualTo(Main.USAGE);
        assertThat(r.err()).contains("version retention removed").contains("oldest version kept after it is")
                .doesNotContain("corrupted").doesNotContain("Exception");
        CliRun.Result b = CliRun.run("scan", graph.toString(), "--table", "person", "--branch", "b");
        assertThat(b.code()).as(b.toString()).isZero();
        assertThat(b.out()).contains("b11").contains("k2");
    }
}
