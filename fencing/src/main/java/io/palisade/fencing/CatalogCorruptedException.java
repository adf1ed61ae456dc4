package io.palisade.fencing;

import java.util.List;
import java.util.Objects;

/**
 * The graph's stored catalog ({@code _palisade/catalog.json}) is not the catalog its journal recorded: it was edited
 * by hand or replaced, so tables would be read or written under a contract (kind, key columns, column types, ack mode)
 * no journaled write was made under. The catalog changes only through Palisade (create, add columns), each change
 * journaled before the file is written. This is corruption, never invalid input: the CLI exits 7.
 */
public class CatalogCorruptedException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final long recordedAt;
    private final List<String> differences;

    /**
     * @param file        the catalog file
     * @param recordedAt  the journal sequence of the catalog it was compared with
     * @param differences each difference, file first and then the journal ("table 'works_at': kind is node, the
     *                    journal recorded edge")
     */
    public CatalogCorruptedException(String file, long recordedAt, List<String> differences) {
        super(message(file, recordedAt, differences));
        this.file = Objects.requireNonNull(file, "file");
        this.recordedAt = recordedAt;
        this.differences = List.copyOf(differences);
    }

    private static String message(String file, long recordedAt, List<String> differences) {
        return "catalog " + file + " is not the catalog the journal recorded at sequence " + recordedAt + ": "
                + String.join("; ", differences) + ". A catalog changes only through Palisade (create, add columns); "
                + "undo the edit, or put back the catalog of that record (palisade audit GRAPH --type catalog_recorded "
                + "--format json shows it)";
    }

    /** The catalog file. */
    public String file() {
        return file;
    }

    /** The journal sequence of the {@code CatalogRecorded} the file was compared with. */
    public long recordedAt() {
        return recordedAt;
    }

    /** Each difference between the file and the journal's catalog, in words. */
    public List<String> differences() {
        return differences;
    }
}
