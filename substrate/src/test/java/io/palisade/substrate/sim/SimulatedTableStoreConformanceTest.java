package io.palisade.substrate.sim;

import io.palisade.substrate.TableStore;
import io.palisade.substrate.TableStoreConformance;

import java.nio.file.Path;

class SimulatedTableStoreConformanceTest extends TableStoreConformance {
    @Override
    protected TableStore newStore(Path dir) {
        return new SimulatedTableStore();
    }
}
