package io.palisade.substrate.lance;

import io.palisade.substrate.TableStore;
import io.palisade.substrate.TableStoreConformance;

import java.nio.file.Path;

class LanceTableStoreConformanceTest extends TableStoreConformance {
    @Override
    protected TableStore newStore(Path dir) {
        return new LanceTableStore(dir.toString());
    }
}
