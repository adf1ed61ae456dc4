package io.palisade.coordinator;

import io.palisade.coordinator.internal.Engine;
import io.palisade.substrate.TableStore;

import java.nio.file.Path;

/** The coordinator's own tests in the engine's package reach a graph's engine and the simulation wiring through this. */
public final class Internals {
    private Internals() {
    }

    public static Engine engine(Graph g) {
        return g.engine();
    }

    /** Creates a graph on {@code store} whose committer the caller steps (the deterministic simulation's wiring). */
    public static Graph createStepped(Path root, Catalog catalog, Options options, TableStore store) {
        return Palisade.create(root, catalog, options, new Palisade.Wiring(tables -> store, true));
    }
}
