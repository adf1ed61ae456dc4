package io.palisade.coordinator;

import java.time.Duration;

/**
 * How long the graph remembers an idempotency key. A write that carries a key the graph remembers gets the first
 * receipt issued for it back instead of a second write; a key is remembered for {@code window} after its write
 * completed, but only the newest {@code maxKeys} keys are (whichever bound forgets it first). A repeat of a forgotten
 * key is a new write with a new receipt, exactly as a first use of the key would be: the journal still holds the first
 * write, its intent and its outcome, so {@code palisade explain} shows both.
 *
 * <p>Keys are forgotten when the writer checkpoints its heads state (every {@link Options#checkpointEvery()} journal
 * records and at close), each time in one journaled {@code receipts_expired} record naming the rule; so a key may be
 * remembered up to one checkpoint interval longer than the bounds say, never shorter. Memory: about 300 bytes a key,
 * so the defaults bound the keys at about 30 MiB of heap.
 *
 * <p>Defaults ({@link #DEFAULTS}): 24 hours and 100,000 keys. Under a steady 300 keyed writes a second the count bound
 * forgets a key after about 5.5 minutes: a client that retries within minutes is answered with its first receipt.
 *
 * @param window  how long after its write completed a key is remembered (at most)
 * @param maxKeys the most keys remembered, the newest ones
 */
public record Idempotency(Duration window, int maxKeys) {

    /** The defaults described above. */
    public static final Idempotency DEFAULTS = new Idempotency(Duration.ofHours(24), 100_000);

    public Idempotency {
        if (window == null || window.isNegative() || maxKeys < 0) {
            throw new IllegalArgumentException("idempotency: a window >= 0 and maxKeys >= 0");
        }
    }

    public Idempotency withWindow(Duration w) {
        return new Idempotency(w, maxKeys);
    }

    public Idempotency withMaxKeys(int n) {
        return new Idempotency(window, n);
    }

    /** The rule in words, for journal records and status output. */
    public String describe() {
        return "idempotency keys are remembered for " + words(window) + ", the newest " + maxKeys + " at most";
    }

    private static String words(Duration d) {
        long s = d.toSeconds();
        if (s % 3600 == 0 && s > 0) {
            return s / 3600 + " h";
        }
        return s % 60 == 0 && s > 0 ? s / 60 + " min" : s + " s";
    }
}
