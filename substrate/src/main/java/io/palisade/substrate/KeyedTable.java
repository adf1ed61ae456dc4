package io.palisade.substrate;

import io.palisade.fencing.KeyFilter;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

import java.util.List;

/**
 * A node or edge table whose non-null {@code id} is the unenforced primary key (RFC-023 §4.1, §5).
 *
 * <p>Every row-adding write is a merge-insert ON exactly {@code id}: there is deliberately no append
 * method, so a keyed Append cannot be expressed through the SPI (RFC-023 §5.1). Strict insert and
 * upsert stay distinct: a strict insert never turns into an update.
 *
 * <p>Failure contract of every write (nothing is written when it throws, except as stated):
 * <ul>
 *   <li>{@link io.palisade.fencing.ValidationException}: bad input or a request that would break the PK
 *       contract (null or repeated id, wrong columns, dropping {@code id}, making it nullable, a
 *       {@link MergePath} that does not match the table's index state).</li>
 *   <li>{@link io.palisade.fencing.KeyConflictException}: a strict insert met keys present at the base
 *       or inserted by a commit since the base; carries those keys.</li>
 *   <li>{@link io.palisade.fencing.WriteConflictException}: a commit since the base conflicts; the same
 *       request may succeed from a newer base.</li>
 *   <li>{@link io.palisade.fencing.CommitStateUnknownException}: the substrate failed in an unexpected
 *       way; whether a version was created is unknown.</li>
 * </ul>
 */
public interface KeyedTable extends TableSnapshot {

    /** Name of the BTREE index on {@code id} that {@link #createIdIndex()} creates. */
    String ID_INDEX_NAME = "palisade_id_btree";

    /** Field id of {@code id}, the key filter's field. */
    int idFieldId();

    /**
     * Merge-insert ON {@code id}, WhenMatched Fail: inserts every row or nothing. On {@link MergePath#INDEXED_UNFENCED}
     * a merge of enough rows for {@link MergeCost#scanCheaper} takes Lance's scan plan instead (a by-source
     * {@code DeleteIf "false"}, which deletes nothing), fenced by Lance's key filter as {@link MergePath#V2_FENCED} is.
     */
    CommitResult insert(VectorSchemaRoot rows, MergePath path);

    /** Merge-insert ON {@code id}, WhenMatched UpdateAll; the plan is chosen as {@link #insert}'s. */
    CommitResult upsert(VectorSchemaRoot rows, MergePath path);

    /**
     * Deletes the rows with the given keys (absent keys are ignored). Evaluated at the handle's base;
     * a delete never fails on a concurrent row-level data write: when a concurrent commit deleted or
     * rewrote one of the same rows, Lance re-runs the delete at the branch head (so it also removes the
     * rewritten row), otherwise it rebases (so a row of one of the keys inserted concurrently survives).
     * A concurrent Overwrite is a {@link io.palisade.fencing.WriteConflictException}. These behaviours
     * are pinned by the differential test. {@link CommitResult#deleted()} counts the rows this commit
     * removed.
     */
    CommitResult delete(KeyFilter keys);

    /**
     * One fold of a journal-ack table's acknowledged writes (docs/journal-ack.md), as one commit: a merge-insert ON
     * {@code id} that upserts {@code upserts} (WhenMatched UpdateAll, WhenNotMatched InsertAll) and deletes the rows of
     * {@code deletes} (WhenNotMatchedBySource DeleteIf {@code id IN deletes}; the two key sets are disjoint), and marks
     * {@code watermark} as merged (Lance's MemWAL merged generation). Either part may be empty, not both. The
     * coordinator's fence has already judged every row, so no key check is made here. With a delete part Lance joins
     * the whole table (the by-source clause), so a delete-bearing fold costs a scan; an upsert-only fold takes the scan
     * plan too when {@link MergeCost#scanCheaper} says it costs less than the table's indexed path (a by-source
     * {@code DeleteIf "false"}, which deletes nothing, switches the plan), and the table's merge path otherwise.
     */
    CommitResult fold(VectorSchemaRoot upserts, KeyFilter deletes, FoldWatermark watermark);

    /** Replaces all rows; the output schema keeps the exact primary key {@code id}. */
    CommitResult overwrite(VectorSchemaRoot rows);

    /** Adds nullable columns (existing rows read null); the primary key is untouched. */
    CommitResult addColumns(List<Field> columns);

    /** Drops columns; dropping {@code id} is refused. */
    CommitResult dropColumns(List<String> columns);

    /** Makes a column nullable; {@code id} is refused. */
    CommitResult makeNullable(String column);

    /** Creates the BTREE index on {@code id}; later merges take {@link MergePath#INDEXED_UNFENCED}. */
    CommitResult createIdIndex();

    /**
     * Brings the {@code id} index up to date with fragments written since it was built or last
     * optimised. When the index already covers every fragment of this handle's state nothing is
     * committed and the result's ref is {@link #ref()} (Lance creates no version then).
     */
    CommitResult optimizeIdIndex();

    /**
     * Plans the {@code id} index maintenance of this state: {@link MaintenancePlan.Kind#INDEX_BUILD}
     * covering every fragment when there is no index on {@code id};
     * {@link MaintenancePlan.Kind#INDEX_REWRITE} of {@link #ID_INDEX_NAME} covering every fragment
     * when one exists but misses a fragment; an {@link MaintenancePlan#isEmpty() empty} plan when it
     * covers every fragment (nothing would be committed). Commit it with {@link #commit(MaintenancePlan)}.
     */
    MaintenancePlan planIndexOptimize();
}
