package io.palisade.coordinator.internal;

import io.palisade.fencing.IdempotencyMismatchException;
import io.palisade.heads.IntentReceipt;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The digest of a write request that carries an idempotency key: SHA-256 over its kind, graph branch, table and its
 * rows (order-independent, {@link RowDigest}) or, for a delete, its sorted keys. It is journaled with the request's
 * intent ({@code IntentRecorded.requestDigest}) and kept with the key's receipt, so that a repeat of the key with
 * another request is refused ({@link IdempotencyMismatchException}) instead of answered with the first receipt.
 */
public final class RequestDigest {
    private RequestDigest() {
    }

    /** The digest of {@code op}; only the kinds of write a caller may give an idempotency key have one. */
    public static String of(WriteOp op) {
        return switch (op) {
            case WriteOp.Insert i -> ofRows(op, i.rows());
            case WriteOp.Upsert u -> ofRows(op, u.rows());
            // the request as given (the columns it names), not the rows it resolves to
            case WriteOp.Update u -> digest(op, RowDigest.of(u.changes()));
            case WriteOp.Append a -> ofRows(op, a.rows());
            case WriteOp.Overwrite o -> ofRows(op, o.rows());
            case WriteOp.Delete d -> digest(op, String.join("\u0001", d.keys().keys().stream().sorted().toList()));
            case WriteOp.AddColumns a -> throw noDigest(op);
            case WriteOp.OptimizeIndex o -> throw noDigest(op);
            case WriteOp.Compact c -> throw noDigest(op);
            case WriteOp.Fold f -> throw noDigest(op);
        };
    }

    /**
     * The digest of a graph transaction on {@code branch}: over its parts' digests in the order it names them (a part
     * at another place is another transaction). Every part's intent carries it.
     */
    public static String ofTransaction(String branch, List<WriteOp> parts) {
        StringBuilder body = new StringBuilder("transaction\u0000").append(branch);
        for (WriteOp p : parts) {
            body.append('\u0000').append(of(p));
        }
        return RowDigest.ofText(body.toString());
    }

    /**
     * Checks a repeat of an idempotency key: {@code op} carries the key that {@code receipt} (the write it names) was
     * issued for. A receipt without a digest (its intent was journaled before digests were) answers any repeat.
     *
     * @throws IdempotencyMismatchException when {@code op} is another request than the one the key names
     */
    static void checkRepeat(WriteOp op, IntentReceipt receipt) {
        String first = receipt.requestDigest();
        if (first != null && !first.equals(op.submission().requestDigest())) {
            throw new IdempotencyMismatchException(op.idempotencyKey().orElseThrow(), receipt.intentId());
        }
    }

    /** Checks a repeat of a key within one group: {@code op} and {@code twin}, admitted as {@code twinIntent}. */
    static void checkTwin(WriteOp op, WriteOp twin, String twinIntent) {
        if (!Objects.equals(op.submission().requestDigest(), twin.submission().requestDigest())) {
            throw new IdempotencyMismatchException(op.idempotencyKey().orElseThrow(), twinIntent);
        }
    }

    private static String ofRows(WriteOp op, VectorSchemaRoot rows) {
        List<Map<String, Object>> maps = new ArrayList<>(rows.getRowCount());
        List<FieldVector> vectors = rows.getFieldVectors();
        for (int i = 0; i < rows.getRowCount(); i++) {
            Map<String, Object> row = new HashMap<>();
            for (FieldVector v : vectors) {
                row.put(v.getName(), v.getObject(i));
            }
            maps.add(row);
        }
        return digest(op, RowDigest.of(maps));
    }

    private static String digest(WriteOp op, String body) {
        return RowDigest.ofText(op.kind() + "\u0000" + op.branch() + "\u0000" + op.table() + "\u0000" + body);
    }

    private static IllegalArgumentException noDigest(WriteOp op) {
        return new IllegalArgumentException(op.kind() + " takes no idempotency key");
    }
}
