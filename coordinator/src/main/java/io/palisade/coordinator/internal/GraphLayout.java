package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.TableLocation;

import io.palisade.fencing.ValidationException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Where a graph keeps its parts: {@code <graph>/tables/} (the Lance tables, unless {@code _palisade/tables.uri}
 * names an object store: {@link TableLocation}) and {@code <graph>/_palisade/} (journal, writer lease, checkpoints,
 * {@code catalog.json}).
 */
public record GraphLayout(Path root) {
    public static final String PALISADE = "_palisade";
    public static final String CATALOG = "catalog.json";

    public Path palisade() {
        return root.resolve(PALISADE);
    }

    public Path tables() {
        return root.resolve("tables");
    }

    public Path catalogFile() {
        return palisade().resolve(CATALOG);
    }

    public boolean exists() {
        return Files.exists(catalogFile());
    }

    /** Writes the catalog durably: temp file, fsync, atomic rename, fsync of the directory. */
    public void writeCatalog(Catalog catalog) {
        try {
            Files.createDirectories(palisade());
            if (!Files.exists(palisade().resolve(TableLocation.URI_FILE))) { // tables on an object store: no tables/
                Files.createDirectories(tables());
            }
            Path tmp = palisade().resolve(CATALOG + ".tmp");
            Files.writeString(tmp, catalog.toJson(), StandardCharsets.UTF_8);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, catalogFile(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel dir = FileChannel.open(palisade(), StandardOpenOption.READ)) {
                dir.force(true);
            }
        } catch (IOException e) {
            throw new ValidationException("cannot write the catalog of graph " + root + ": " + e.getMessage(), e);
        }
    }
}
