package io.palisade.heads;

import io.palisade.journal.TableHead;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The digest of a {@link HeadsState} ({@link HeadsState#digest()}): SHA-256 (hex) of a canonical rendering of the
 * live branches, every pin and the journal-ack fold marks, each sorted by name, and the digests of the catalog the
 * journal last recorded and of the one before it. Owns that rendering, which is part of
 * the product's format: the journal's {@code CheckpointWritten} and {@code RecoveryFinished} records carry digests,
 * so a rendering that changed would make every recorded digest disagree.
 *
 * <p>Invariant: the digest is a function of the heads only (branches with parent and creation point, pins, fold
 * marks, recorded catalog), not of the sequences at which things happened nor of intents, so equal heads give equal digests however
 * the state was reached (checkpoint + tail, full replay, a re-run recovery).
 */
final class HeadsDigest {
    private HeadsDigest() {
    }

    /** The digest of {@code state}'s heads. */
    static String of(HeadsState state) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeUTF("palisade-heads-digest-v1");
            List<Map.Entry<String, GraphBranch>> bs = state.branches.sortedEntries(Comparator.naturalOrder());
            out.writeInt(bs.size());
            for (Map.Entry<String, GraphBranch> b : bs) {
                GraphBranch g = b.getValue();
                out.writeUTF(g.name());
                writeNullable(out, g.parent());
                out.writeLong(g.fromSequence());
                PMap<String, Pin> p = state.pins.get(g.name());
                List<Map.Entry<String, Pin>> ps = p == null ? List.of() : p.sortedEntries(Comparator.naturalOrder());
                out.writeInt(ps.size());
                for (Map.Entry<String, Pin> e : ps) {
                    TableHead h = e.getValue().head();
                    out.writeUTF(e.getKey());
                    out.writeUTF(h.tableBranch());
                    out.writeLong(h.version());
                    out.writeLong(h.schemaId());
                    out.writeLong(h.incarnation());
                    writeNullable(out, e.getValue().inheritedFrom());
                }
            }
            // journal-ack fold marks (absent from states without any, so that their digest is unchanged)
            List<Map.Entry<String, PMap<String, FoldMark>>> fs = state.folds.sortedEntries(Comparator.naturalOrder());
            if (!fs.isEmpty()) {
                out.writeUTF("folds");
                out.writeInt(fs.size());
                for (Map.Entry<String, PMap<String, FoldMark>> b : fs) {
                    List<Map.Entry<String, FoldMark>> ts = b.getValue().sortedEntries(Comparator.naturalOrder());
                    out.writeUTF(b.getKey());
                    out.writeInt(ts.size());
                    for (Map.Entry<String, FoldMark> t : ts) {
                        out.writeUTF(t.getKey());
                        out.writeLong(t.getValue().foldedThrough());
                        out.writeLong(t.getValue().unfolded());
                    }
                }
            }
            // the catalog the journal last recorded, and the one before it (absent from states without one, so that
            // their digest is unchanged): a checkpoint whose catalog was altered disagrees with its journaled digest
            if (state.catalog != null) {
                out.writeUTF("catalog");
                out.writeUTF(state.catalog.digest());
                writeNullable(out, state.catalog.previousDigest());
            }
            out.flush();
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes.toByteArray()));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in-memory stream: cannot happen
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    private static void writeNullable(DataOutputStream out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            out.writeUTF(s);
        }
    }
}
