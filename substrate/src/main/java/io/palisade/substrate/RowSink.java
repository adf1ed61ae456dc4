package io.palisade.substrate;

import java.util.Map;

/** Takes the rows of a streaming read one at a time ({@link TableSnapshot#scan(ScanSpec, RowSink)}). */
@FunctionalInterface
public interface RowSink {
    /**
     * Takes one row ({@code column → value}, values as {@link ArrowRows} gives them); returns whether the read should go
     * on. A sink that returns false ends the read: no further row is read.
     */
    boolean accept(Map<String, Object> row);
}
