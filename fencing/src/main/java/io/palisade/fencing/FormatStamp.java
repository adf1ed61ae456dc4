package io.palisade.fencing;

/**
 * Graph-wide format stamps (RFC-023 §7). A binary refuses a graph whose stamp it does not support;
 * the fencing stamp is written last by the PK migration, and only the migration may open a
 * {@link #PRE_FENCING} graph for writes.
 */
public enum FormatStamp {
    /** Tables may lack PK metadata; keyed appends may exist. Writable only by the migration. */
    PRE_FENCING(4),
    /** Every keyed table on every branch carries the PK; all writes are fenced. */
    FENCING(5);

    private final int number;

    FormatStamp(int number) {
        this.number = number;
    }

    public int number() {
        return number;
    }

    /** The stamp with this number; an unknown number is a {@link GraphRefusedException}. */
    public static FormatStamp of(int number) {
        for (FormatStamp s : values()) {
            if (s.number == number) {
                return s;
            }
        }
        throw new GraphRefusedException("graph format stamp " + number + " is not supported by this binary (supports "
                + java.util.Arrays.stream(values()).map(s -> String.valueOf(s.number)).toList() + ")");
    }
}
