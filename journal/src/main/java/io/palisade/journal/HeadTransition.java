package io.palisade.journal;

import java.util.Objects;

/**
 * One table head transition on one graph branch: {@code from} is the head the writer expects to
 * replace ({@code null} when the table has no head yet on this branch, e.g. created or forked by this
 * transition), {@code to} the head it publishes.
 */
public record HeadTransition(String graphBranch, String table, TableHead from, TableHead to) {
    public HeadTransition {
        Objects.requireNonNull(graphBranch, "graphBranch");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(to, "to");
    }
}
