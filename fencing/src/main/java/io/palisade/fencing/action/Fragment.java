package io.palisade.fencing.action;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** A fragment of the manifest model: id, row count, data files, deletion vector and first row id. */
public record Fragment(long id, long physicalRows, List<DataFile> files, RowOffsets deleted, long rowIdBase) {
    public Fragment {
        files = List.copyOf(files);
        if (deleted.bound() > physicalRows) {
            throw new IllegalArgumentException("fragment " + id + " deletes offset " + (deleted.bound() - 1)
                    + " but has " + physicalRows + " rows");
        }
    }

    public long liveRows() {
        return physicalRows - deleted.cardinality();
    }

    public Set<Integer> fieldIds() {
        return files.stream().flatMap(f -> f.fieldIds().stream()).collect(Collectors.toUnmodifiableSet());
    }

    Fragment withDeleted(RowOffsets d) {
        return new Fragment(id, physicalRows, files, d, rowIdBase);
    }

    Fragment withFiles(List<DataFile> f) {
        return new Fragment(id, physicalRows, f, deleted, rowIdBase);
    }
}
