package io.palisade.benchmarks;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import io.palisade.substrate.BatchSource;
import org.apache.arrow.vector.types.pojo.Schema;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * A streaming reader of {@code rows} synthetic rows ({@code id} string {@code r<offset+i>}, a
 * {@code dim}-float embedding), {@code batchRows} per batch: only one batch is ever in memory.
 */
public final class EmbeddingReader extends BatchSource {
    public static final String CATALOG_TEMPLATE = """
            {"tables": [{"name": "items", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "embedding", "type": {"vector": "float32", "dim": %d}}]}]}
            """;

    private final long rows;
    private final long offset;
    private final int batchRows;
    private final int dim;
    private final SplittableRandom random;
    private long produced;

    public EmbeddingReader(BufferAllocator allocator, long offset, long rows, int batchRows, int dim, long seed) {
        super(allocator, schema(dim));
        this.offset = offset;
        this.rows = rows;
        this.batchRows = batchRows;
        this.dim = dim;
        this.random = new SplittableRandom(seed);
    }

    /** The catalog of the one benchmark table {@code items}. */
    public static io.palisade.coordinator.Catalog catalog(int dim) {
        return io.palisade.coordinator.Catalog.fromJson(CATALOG_TEMPLATE.formatted(dim));
    }

    public static Schema schema(int dim) {
        return catalog(dim).require("items").arrowSchema();
    }

    @Override
    protected boolean fillNext(VectorSchemaRoot root) {
        if (produced >= rows) {
            return false;
        }
        fill(root, (int) Math.min(batchRows, rows - produced));
        return true;
    }

    /** Fills {@code root} with the next {@code n} rows. */
    public void fill(VectorSchemaRoot root, int n) {
        root.allocateNew();
        VarCharVector id = (VarCharVector) root.getVector("id");
        FixedSizeListVector emb = (FixedSizeListVector) root.getVector("embedding");
        Float4Vector items = (Float4Vector) emb.getDataVector();
        items.setInitialCapacity(n * dim);
        items.allocateNew();
        for (int i = 0; i < n; i++) {
            id.setSafe(i, ("r" + (offset + produced + i)).getBytes(StandardCharsets.UTF_8));
            emb.setNotNull(i);
            for (int j = 0; j < dim; j++) {
                items.setSafe(i * dim + j, (float) random.nextDouble());
            }
        }
        items.setValueCount(n * dim);
        for (FieldVector v : root.getFieldVectors()) {
            v.setValueCount(n);
        }
        root.setRowCount(n);
        produced += n;
    }
}
