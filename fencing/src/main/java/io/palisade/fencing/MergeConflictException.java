package io.palisade.fencing;

import java.util.List;

/** A branch merge found keys changed on both sides since the fork. Nothing was merged. */
public class MergeConflictException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    private final List<String> keys;

    public MergeConflictException(String message, List<String> keys) {
        super(message + " " + keys);
        this.keys = List.copyOf(keys);
    }

    /** The first few keys changed on both sides. */
    public List<String> keys() {
        return keys;
    }
}
