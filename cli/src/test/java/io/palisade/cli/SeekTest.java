package io.palisade.cli;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The journal point vocabulary: every form parses to what it says, anything else is a usage error. */
class SeekTest {
    private static final Instant NOW = Instant.parse("2026-11-29T14:00:00Z");

    private static Seek.Point p(String s) {
        return Seek.parse(s, "--at", NOW);
    }

    @Test
    void everyFormParses() {
        assertThat(p("42")).isEqualTo(new Seek.Seq(42, "42"));
        assertThat(p("last 10")).isEqualTo(new Seek.Last(10, "last 10"));
        assertThat(p("last:3")).isEqualTo(new Seek.Last(3, "last:3"));
        assertThat(((Seek.Time) p("2026-11-29T13:00:00Z")).time()).isEqualTo(Instant.parse("2026-11-29T13:00:00Z"));
        assertThat(((Seek.Time) p("2026-11-29T14:00:00+01:00")).time()).isEqualTo(Instant.parse("2026-11-29T13:00:00Z"));
        // zone-less is UTC
        assertThat(((Seek.Time) p("2026-11-29T13:00")).time()).isEqualTo(Instant.parse("2026-11-29T13:00:00Z"));
        assertThat(((Seek.Time) p("2026-11-29T13:00:00.5")).time()).isEqualTo(Instant.parse("2026-11-29T13:00:00.500Z"));
        assertThat(((Seek.Time) p("2026-11-29")).time()).isEqualTo(Instant.parse("2026-11-29T00:00:00Z"));
        assertThat(((Seek.Time) p("-10m")).time()).isEqualTo(Instant.parse("2026-11-29T13:50:00Z"));
        assertThat(((Seek.Time) p("2h ago")).time()).isEqualTo(Instant.parse("2026-11-29T12:00:00Z"));
        assertThat(((Seek.Time) p("3 days ago")).time()).isEqualTo(Instant.parse("2026-11-26T14:00:00Z"));
        assertThat(((Seek.Time) p("-30s")).time()).isEqualTo(Instant.parse("2026-11-29T13:59:30Z"));
        assertThat(((Seek.Time) p("now")).time()).isEqualTo(NOW);
    }

    @Test
    void anythingElseIsAUsageErrorNamingTheForms() {
        for (String bad : new String[]{"yesterday", "10m", "2026-13-45", "last", "last 0", "seq 5", "99999999999999999999"}) {
            assertThatThrownBy(() -> p(bad)).as(bad).isInstanceOfSatisfying(CliException.class,
                    e -> assertThat(e.code).isEqualTo(Main.USAGE)).hasMessageContaining("--at '" + bad + "'");
        }
        assertThatThrownBy(() -> p("tomorrow")).hasMessageContaining("ISO-8601").hasMessageContaining("last N");
    }
}
