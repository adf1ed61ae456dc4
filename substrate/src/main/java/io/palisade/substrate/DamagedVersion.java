package io.palisade.substrate;

import java.util.List;
import java.util.Objects;

/**
 * A table version whose files are damaged, as {@link TableStore#tornVersions} and
 * {@link TableStore#damage} find it: typically torn by a power cut inside a commit (file names survive,
 * unsynced bytes do not).
 *
 * @param ref      the version
 * @param damaged  the damaged files, each as "file: what is wrong" (e.g. "…/_versions/184….manifest: zero-length")
 * @param setAside the files {@link TableStore#setAside} moves to remove the version from its branch: the
 *                 version's manifest, and the branch's version hint when it names this version or a newer
 *                 one, or is itself undecodable
 * @param reason   what is wrong, in one phrase (e.g. "manifest zero-length")
 */
public record DamagedVersion(TableRef ref, List<String> damaged, List<String> setAside, String reason) {
    public DamagedVersion {
        Objects.requireNonNull(ref, "ref");
        damaged = List.copyOf(damaged);
        setAside = List.copyOf(setAside);
        Objects.requireNonNull(reason, "reason");
    }
}
