package io.palisade.heads;

import io.palisade.journal.TableHead;

import java.util.Objects;

/**
 * What one graph branch pins for one table: the published {@link TableHead} and whether the branch
 * owns it or still inherits it lazily from the branch it was created from.
 *
 * <p>An inherited pin ({@code inheritedFrom != null}) points at another branch's table state: the first
 * write to the table on this branch must fork a Lance table branch at exactly {@code head.version()}
 * of {@code head.tableBranch()}. The first head transition published on this branch for the table
 * turns the pin into an owned one.
 *
 * @param head          the pinned head
 * @param inheritedFrom nullable: the graph branch this pin was copied from at branch creation; null when owned
 * @param since         the journal sequence of the record that established this pin (publish or branch creation)
 */
public record Pin(TableHead head, String inheritedFrom, long since) {
    public Pin {
        Objects.requireNonNull(head, "head");
    }

    /** Whether the branch owns this head (published it itself) rather than inheriting it. */
    public boolean owned() {
        return inheritedFrom == null;
    }
}
