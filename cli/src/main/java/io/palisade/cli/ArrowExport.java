package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.JsonRenderer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** The journal as an Arrow IPC file: one row per event. */
final class ArrowExport {
    static final List<String> TEXT = List.of("type", "intent_id", "graph_branch", "table", "outcome", "json");
    private static final int BATCH = 4096;

    private ArrowExport() {
    }

    static Schema schema() {
        List<Field> fields = new java.util.ArrayList<>();
        fields.add(new Field("seq", FieldType.notNullable(new ArrowType.Int(64, true)), null));
        fields.add(new Field("time", FieldType.notNullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), null));
        fields.add(new Field("epoch", FieldType.notNullable(new ArrowType.Int(64, true)), null));
        for (String t : TEXT) {
            fields.add(new Field(t, t.equals("type") || t.equals("json") ? FieldType.notNullable(ArrowType.Utf8.INSTANCE)
                    : FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
        }
        return new Schema(fields);
    }

    static long write(JournalReader reader, Path out, Cli.Progress p) throws Exception {
        try (FileOutputStream fos = new FileOutputStream(out.toFile())) {
            return write(reader, fos.getChannel(), p);
        }
    }

    /** Writes the Arrow IPC file to {@code channel} (a file, or stdout for {@code --out -}). */
    static long write(JournalReader reader, java.nio.channels.WritableByteChannel channel, Cli.Progress p) throws Exception {
        long n = 0;
        try (BufferAllocator alloc = new RootAllocator();
             VectorSchemaRoot root = VectorSchemaRoot.create(schema(), alloc);
             ArrowFileWriter w = new ArrowFileWriter(root, null, channel);
             JournalCursor c = Cli.readAll(reader)) {
            w.start();
            int row = 0;
            root.allocateNew();
            JournalRecord r;
            while ((r = c.poll()) != null) {
                ObjectNode t = JsonRenderer.toTree(r);
                ((BigIntVector) root.getVector("seq")).setSafe(row, r.sequence());
                ((TimeStampMicroTZVector) root.getVector("time")).setSafe(row, Math.floorDiv(r.timestampNanos(), 1000L));
                ((BigIntVector) root.getVector("epoch")).setSafe(row, r.writerEpoch());
                for (String f : TEXT) {
                    VarCharVector v = (VarCharVector) root.getVector(f);
                    String s = f.equals("json") ? t.toString() : text(t, f);
                    if (s == null) {
                        v.setNull(row);
                    } else {
                        v.setSafe(row, s.getBytes(StandardCharsets.UTF_8));
                    }
                }
                row++;
                n++;
                p.at(n);
                if (row == BATCH) {
                    flush(root, w, row);
                    root.allocateNew();
                    row = 0;
                }
            }
            if (row > 0 || n == 0) {
                flush(root, w, row);
            }
            w.end();
        }
        return n;
    }

    private static String text(ObjectNode t, String f) {
        JsonNode v = t.get(f);
        if (v == null && f.equals("intent_id") && t.has("intent_ids") && t.get("intent_ids").size() > 0) {
            v = t.get("intent_ids").get(0);
        }
        if (v == null && f.equals("graph_branch") && t.has("branch")) {
            v = t.get("branch");
        }
        return v == null || v.isNull() ? null : v.asText();
    }

    private static void flush(VectorSchemaRoot root, ArrowFileWriter w, int rows) throws java.io.IOException {
        for (org.apache.arrow.vector.FieldVector v : root.getFieldVectors()) {
            v.setValueCount(rows);
        }
        root.setRowCount(rows);
        w.writeBatch();
    }
}
