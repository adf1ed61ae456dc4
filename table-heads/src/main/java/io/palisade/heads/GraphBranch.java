package io.palisade.heads;

import java.util.Objects;

/**
 * A live graph branch and its creation point.
 *
 * <p>Invariants: {@code main} has no parent and {@code fromSequence == createdAt == -1} (it exists
 * before the first record); every other branch names a parent that was live when it was created,
 * {@code fromSequence <= createdAt}, and it inherited the parent's pins as of {@code fromSequence}.
 *
 * @param name         the branch name
 * @param parent       nullable: the branch it was created from (null for main)
 * @param fromSequence the journal sequence of the parent state it inherited (-1 for main)
 * @param createdAt    the sequence of its {@code GraphBranchCreated} record (-1 for main)
 */
public record GraphBranch(String name, String parent, long fromSequence, long createdAt) {
    public GraphBranch {
        Objects.requireNonNull(name, "name");
    }
}
