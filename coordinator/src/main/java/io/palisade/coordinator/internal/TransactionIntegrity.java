package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.fencing.EndpointConflictException;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.UniqueConflictException;
import io.palisade.heads.HeadsState;
import io.palisade.substrate.ArrowRows;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The integrity checks of a graph transaction (docs/transactions.md): its parts are judged together, as one write whose
 * rows all take effect at once. The parts are applied to the {@link TableImage}s of the tables they touch, the rules
 * are checked on the result, and the images are kept (the transaction goes on to the journal) or taken back exactly:
 * <ul>
 *   <li>every edge a part inserts or upserts names a node its endpoint table holds after the transaction (in the
 *       committed state, or written by a part);</li>
 *   <li>no node a part deletes is named by an edge after the transaction (a part may delete those edges too);</li>
 *   <li>no unique value a part writes is held by another id after the transaction (another part may free it), and no
 *       two rows of the transaction take the same one.</li>
 * </ul>
 * Committer thread only; the images are {@link Integrity}'s, against the newest published state.
 */
final class TransactionIntegrity {
    private final Context ctx;
    private final Integrity integrity;

    /** A transaction's part at fault, and why. */
    record Refusal(Fence.Admitted part, PalisadeException error) {
    }

    /** A unique value a row of a part writes: its table, column, value and the row's id. */
    private record Taken(Fence.Admitted part, Catalog.TableDef def, String column, String value, String id) {
    }

    TransactionIntegrity(Context ctx, Integrity integrity) {
        this.ctx = ctx;
        this.integrity = integrity;
    }

    /**
     * Judges {@code parts} (the fenced inserts, upserts and deletes of one transaction on {@code branch}, at most one
     * write of a key per table) against {@code state}. Empty when the transaction breaks no rule: the images then hold
     * its effect. A refusal names the first part at fault; the images are as they were. A table the checks must read
     * that this session refuses fails the transaction with that table's error (thrown).
     */
    Optional<Refusal> judge(String branch, HeadsState state, List<Fence.Admitted> parts) {
        Catalog catalog = ctx.view().catalog();
        if (!catalog.declaresIntegrity()) {
            return Optional.empty();
        }
        // every table whose image the checks read or advance
        Map<String, Catalog.TableDef> needed = new LinkedHashMap<>();
        for (Fence.Admitted a : parts) {
            Catalog.TableDef def = catalog.require(a.op().table());
            if (Integrity.checks(catalog, def)) {
                needed.put(def.name(), def);
            }
            for (Catalog.Endpoint e : catalog.endpointsOf(def)) {
                needed.put(e.node(), catalog.require(e.node()));
            }
            for (Catalog.Endpoint e : catalog.endpointsInto(def.name())) {
                needed.put(e.edge(), catalog.require(e.edge()));
            }
        }
        needed.keySet().removeIf(t -> state.pin(branch, t).isEmpty());
        if (needed.isEmpty()) {
            return Optional.empty();
        }
        for (String t : needed.keySet()) {
            Optional<PalisadeException> refused = ctx.refusals().refusal(branch, t);
            if (refused.isPresent()) {
                throw refused.get();
            }
        }
        Map<String, TableImage> images = new LinkedHashMap<>();
        for (Catalog.TableDef def : needed.values()) {
            images.put(def.name(), integrity.image(def, branch, state));
        }
        // the rows the parts write (their ids and checked columns), read before any is applied
        Map<Fence.Admitted, List<Map<String, Object>>> rows = new IdentityHashMap<>();
        for (Fence.Admitted a : parts) {
            if (!(a.op() instanceof WriteOp.Delete) && images.containsKey(a.op().table())) {
                List<String> read = new ArrayList<>(Integrity.tracked(catalog.require(a.op().table())));
                read.add(0, "id");
                rows.put(a, ArrowRows.rows(SubstrateWrites.rows(a.op()), read));
            }
        }
        // the unique values taken, with who held each before the transaction; two rows taking one value conflict
        List<Taken> taken = new ArrayList<>();
        Map<String, String> before = new HashMap<>();
        Map<String, String> byTransaction = new HashMap<>();
        for (Fence.Admitted a : parts) {
            List<Map<String, Object>> rs = rows.get(a);
            Catalog.TableDef def = catalog.require(a.op().table());
            if (rs == null || def.unique().isEmpty()) {
                continue;
            }
            TableImage image = images.get(def.name());
            for (Map<String, Object> r : rs) {
                String id = String.valueOf(r.get("id"));
                for (String col : def.unique()) {
                    String v = TableImage.text(r.get(col));
                    if (v == null) {
                        continue;
                    }
                    String slot = def.name() + '\u0000' + col + '\u0000' + v;
                    String other = byTransaction.putIfAbsent(slot, id);
                    if (other != null && !other.equals(id)) {
                        ctx.meters().integrityConflicts.increment();
                        return Optional.of(new Refusal(a, new UniqueConflictException(def.name(), col, v, other, id)));
                    }
                    before.putIfAbsent(slot, image.holder(image.column(col), v));
                    taken.add(new Taken(a, def, col, v, id));
                }
            }
        }
        images.values().forEach(TableImage::begin);
        Optional<Refusal> refusal;
        try {
            apply(parts, rows, images);
            refusal = check(catalog, parts, rows, images, taken, before);
        } catch (RuntimeException | Error e) {
            images.values().forEach(TableImage::rollback);
            throw e;
        }
        if (refusal.isPresent()) {
            images.values().forEach(TableImage::rollback);
            ctx.meters().integrityConflicts.increment();
        } else {
            images.values().forEach(TableImage::keep);
        }
        return refusal;
    }

    /** Applies every part to the images of its table. */
    private static void apply(List<Fence.Admitted> parts, Map<Fence.Admitted, List<Map<String, Object>>> rows,
                              Map<String, TableImage> images) {
        for (Fence.Admitted a : parts) {
            TableImage image = images.get(a.op().table());
            if (image == null) {
                continue;
            }
            if (a.op() instanceof WriteOp.Delete d) {
                d.keys().keys().forEach(image::remove);
            } else {
                for (Map<String, Object> r : rows.get(a)) {
                    image.put(String.valueOf(r.get("id")), r);
                }
            }
        }
    }

    /** The first rule the applied transaction breaks, in part order: endpoints, then node deletes, then unique values. */
    private static Optional<Refusal> check(Catalog catalog, List<Fence.Admitted> parts,
                                           Map<Fence.Admitted, List<Map<String, Object>>> rows,
                                           Map<String, TableImage> images, List<Taken> taken,
                                           Map<String, String> before) {
        for (Fence.Admitted a : parts) {
            Catalog.TableDef def = catalog.require(a.op().table());
            if (a.op() instanceof WriteOp.Delete) {
                Optional<Refusal> r = nodeDeletes(catalog, a, def, images);
                if (r.isPresent()) {
                    return r;
                }
                continue;
            }
            List<Map<String, Object>> rs = rows.get(a);
            for (Catalog.Endpoint e : catalog.endpointsOf(def)) {
                TableImage nodes = images.get(e.node());
                if (rs == null) {
                    continue;
                }
                Set<String> missing = new LinkedHashSet<>();
                List<String> edges = new ArrayList<>();
                for (Map<String, Object> r : rs) {
                    String end = TableImage.text(r.get(e.column()));
                    if (nodes == null || !nodes.holds(end)) {
                        missing.add(end);
                        if (edges.size() < Integrity.NAMED) {
                            edges.add(def.name() + "/" + r.get("id"));
                        }
                    }
                }
                if (!missing.isEmpty()) {
                    return Optional.of(new Refusal(a, new EndpointConflictException(
                            EndpointConflictException.Situation.MISSING_ENDPOINT, def.name(), Integrity.first(missing),
                            missing.size(), edges, "table '" + e.node() + "' (the declared " + e.column() + " of '"
                            + def.name() + "'), in the committed state or in the transaction")));
                }
            }
        }
        for (Taken t : taken) {
            String slot = t.def().name() + '\u0000' + t.column() + '\u0000' + t.value();
            String holder = before.get(slot);
            TableImage image = images.get(t.def().name());
            if (holder != null && !holder.equals(t.id())
                    && t.value().equals(image.valueOf(holder, image.column(t.column())))) {
                return Optional.of(new Refusal(t.part(), new UniqueConflictException(t.def().name(), t.column(),
                        t.value(), holder, t.id())));
            }
        }
        return Optional.empty();
    }

    /** A delete part of a node table whose ids an edge still names after the transaction. */
    private static Optional<Refusal> nodeDeletes(Catalog catalog, Fence.Admitted a, Catalog.TableDef def,
                                                 Map<String, TableImage> images) {
        List<Catalog.Endpoint> ends = new ArrayList<>();
        List<TableImage> endImages = new ArrayList<>();
        for (Catalog.Endpoint e : catalog.endpointsInto(def.name())) {
            TableImage image = images.get(e.edge());
            if (image != null) {
                ends.add(e);
                endImages.add(image);
            }
        }
        return Integrity.nodeHasEdges(def.name(), a.keys().keys(), ends, endImages).map(e -> new Refusal(a, e));
    }
}
