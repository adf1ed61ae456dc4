package io.palisade.journal;

import java.time.Instant;
import java.util.Objects;

/**
 * The owner record of the writer lease: which process holds (or last held) the graph, since when,
 * with which epoch (fencing token) and owner token.
 */
public record LeaseOwner(long pid, String host, Instant since, long epoch, String token) {
    public LeaseOwner {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(token, "token");
    }

    String describe() {
        return "pid " + pid + " on host " + host + " since " + since + " (epoch " + epoch + ")";
    }
}
