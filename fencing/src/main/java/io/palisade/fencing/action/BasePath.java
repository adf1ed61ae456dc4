package io.palisade.fencing.action;

import java.util.Optional;

/**
 * An additional storage base of a table (Lance's UpdateBases). Lance's name is optional and its id 0
 * means "assign at commit": an unnamed base is held with the empty name (null is accepted and stored
 * as empty, so the journal encoding is unchanged), and neither an empty name nor id 0 identifies a base.
 */
public record BasePath(int id, String name, String path) {

    public BasePath {
        name = name == null ? "" : name;
    }

    /** The base's name, if it has one. */
    public Optional<String> givenName() {
        return name.isEmpty() ? Optional.empty() : Optional.of(name);
    }
}
