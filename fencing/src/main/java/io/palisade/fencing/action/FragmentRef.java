package io.palisade.fencing.action;

/**
 * A reference to a fragment: an existing one by id, or one produced by an earlier action of the same
 * transaction (the spike's symbolic intra-transaction reference, §3.3), resolved through
 * {@link TxnContext} as the driver walks the action list. A transaction is therefore an ordered list,
 * never a DAG: a reference may only point backwards.
 */
public sealed interface FragmentRef {

    /** An existing fragment. */
    record Id(long id) implements FragmentRef {
        public Id {
            if (id < 0) {
                throw new IllegalArgumentException("fragment id must be non-negative: " + id);
            }
        }

        @Override
        public String toString() {
            return "#" + id;
        }
    }

    /** Output {@code output} of action {@code action} (an earlier index in the same transaction). */
    record ProducedBy(int action, int output) implements FragmentRef {
        public ProducedBy {
            if (action < 0 || output < 0) {
                throw new IllegalArgumentException("negative produced-by reference " + action + "/" + output);
            }
        }

        @Override
        public String toString() {
            return "produced(" + action + "," + output + ")";
        }
    }

    static FragmentRef id(long id) {
        return new Id(id);
    }

    /** The fragment id this reference names, if it names an existing one. */
    default java.util.OptionalLong existingId() {
        return this instanceof Id i ? java.util.OptionalLong.of(i.id()) : java.util.OptionalLong.empty();
    }
}
