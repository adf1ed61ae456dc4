package io.palisade.coordinator.internal;


import io.palisade.fencing.FormatStamp;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.ValidationException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The graph-wide format stamp (RFC-023 §7): the file {@code _palisade/format}, one line
 * {@code palisade-format=N}. It is read before the journal, the catalog or any branch is opened, so
 * selecting a branch cannot bypass it. It is written with temp file, fsync, atomic rename and fsync of
 * the directory; the PK migration writes it last (after {@code MigrationStampWritten} is journaled).
 *
 * <p>The stamps this binary supports are {@link FormatStamp#values()}, narrowed by the system property
 * {@value #SUPPORTED_PROPERTY} (a comma list of numbers) to simulate an older binary in tests.
 * A graph without the file predates it: its journal's stamp decides (see {@code Palisade.open}).
 */
public final class GraphFormat {
    public static final String FILE = "format";
    public static final String SUPPORTED_PROPERTY = "palisade.supported.formats";
    private static final String PREFIX = "palisade-format=";

    private GraphFormat() {
    }

    /** The stamp numbers this binary supports. */
    public static Set<Integer> supported() {
        String p = System.getProperty(SUPPORTED_PROPERTY, "").trim();
        Set<Integer> out = new TreeSet<>();
        if (p.isEmpty()) {
            Arrays.stream(FormatStamp.values()).forEach(s -> out.add(s.number()));
            return out;
        }
        for (String s : p.split(",")) {
            out.add(Integer.parseInt(s.trim()));
        }
        return out;
    }

    static Path file(Path root) {
        return root.resolve(GraphLayout.PALISADE).resolve(FILE);
    }

    /** The raw stamp number of the graph at {@code root}, if the stamp file exists. */
    public static Optional<Integer> read(Path root) {
        Path f = file(root);
        if (!Files.exists(f)) {
            return Optional.empty();
        }
        try {
            String s = Files.readString(f, StandardCharsets.UTF_8).trim();
            if (!s.startsWith(PREFIX)) {
                throw new GraphRefusedException("graph " + root + ": unreadable format stamp file " + f + ": '" + s + "'");
            }
            return Optional.of(Integer.parseInt(s.substring(PREFIX.length()).trim()));
        } catch (IOException | NumberFormatException e) {
            throw new GraphRefusedException("graph " + root + ": unreadable format stamp file " + f + ": " + e.getMessage());
        }
    }

    /**
     * The stamp of a graph if this binary supports it; a {@link GraphRefusedException} naming the number
     * and the supported set otherwise (an older binary meeting a newer graph).
     */
    public static FormatStamp check(Path root, int number) {
        Set<Integer> supported = supported();
        if (!supported.contains(number)) {
            throw new GraphRefusedException("graph " + root + " has format stamp " + number
                    + ", which this binary does not support (supports " + supported + "); use a binary that does");
        }
        return FormatStamp.of(number);
    }

    /**
     * The barrier of every normal open: the stamp must be known and at {@link FormatStamp#FENCING}.
     * A pre-fencing graph (never migrated, or a migration claimed but not finished) is refused for
     * normal writes; only {@code PkMigration} opens it.
     */
    public static void checkForNormalOpen(Path root) {
        Optional<Integer> n = read(root);
        if (n.isEmpty()) {
            return; // predates the stamp file: the journal's stamp is checked after replay
        }
        FormatStamp s = check(root, n.get());
        if (s != FormatStamp.FENCING) {
            boolean claimed = Files.exists(MigrationClaim.file(root));
            throw new GraphRefusedException("graph " + root + " is at format stamp " + s.number() + " (" + s + ")"
                    + (claimed ? ": a PK migration is in progress or was interrupted (claim " + MigrationClaim.file(root)
                    + "); the graph is partially migrated" : "") + ". Normal writes are refused until `palisade migrate pk "
                    + root + "` completes (docs/migration.md)");
        }
    }

    /** Writes the stamp durably: temp file, fsync, atomic rename, fsync of the directory. */
    public static void write(Path root, int number) {
        Path f = file(root);
        try {
            Files.createDirectories(f.getParent());
            Path tmp = f.resolveSibling(FILE + ".tmp");
            Files.writeString(tmp, PREFIX + number + "\n", StandardCharsets.UTF_8);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel dir = FileChannel.open(f.getParent(), StandardOpenOption.READ)) {
                dir.force(true);
            }
        } catch (IOException e) {
            throw new ValidationException("cannot write the format stamp of graph " + root + ": " + e.getMessage(), e);
        }
    }
}
