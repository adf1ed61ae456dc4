package io.palisade.coordinator.internal;


import io.palisade.fencing.GraphRefusedException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The migration claim (RFC-023 §7.1): {@code _palisade/migration.claim}, created atomically if absent
 * ({@link Files#createFile}, the local-disk {@code PutMode::Create}) and holding one line
 * {@code <migrationId> <ownerToken>} with a random owner token. There is no time-based takeover: a
 * claim is replaced only by {@link #replace}, which {@code PkMigration} calls after it holds the
 * writer lease (so the previous owner is dead) and has classified every journaled unit of the claim.
 */
public record MigrationClaim(String migrationId, String ownerToken) {
    static final String FILE = "migration.claim";
    private static final SecureRandom RANDOM = new SecureRandom();

    public static Path file(Path root) {
        return root.resolve(GraphLayout.PALISADE).resolve(FILE);
    }

    static String newToken() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    public static Optional<MigrationClaim> read(Path root) {
        Path f = file(root);
        if (!Files.exists(f)) {
            return Optional.empty();
        }
        try {
            String[] parts = Files.readString(f, StandardCharsets.UTF_8).trim().split("\\s+");
            if (parts.length != 2) {
                return Optional.of(new MigrationClaim("", "")); // torn create: content never made durable
            }
            return Optional.of(new MigrationClaim(parts[0], parts[1]));
        } catch (IOException e) {
            throw new GraphRefusedException("cannot read the migration claim " + f + ": " + e.getMessage());
        }
    }

    /** Creates the claim if absent; a {@link GraphRefusedException} if any claim exists. */
    public static MigrationClaim create(Path root, String migrationId) {
        MigrationClaim c = new MigrationClaim(migrationId, newToken());
        Path f = file(root);
        try {
            Files.createFile(f);
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                ch.write(java.nio.ByteBuffer.wrap((migrationId + " " + c.ownerToken + "\n").getBytes(StandardCharsets.UTF_8)));
                ch.force(true);
            }
            fsyncDir(f.getParent());
            return c;
        } catch (FileAlreadyExistsException e) {
            throw new GraphRefusedException("graph " + root + " already has a migration claim " + f);
        } catch (IOException e) {
            throw new GraphRefusedException("cannot create the migration claim " + f + ": " + e.getMessage());
        }
    }

    /** Replaces a stale claim with a new owner token (after its units were classified). */
    static MigrationClaim replace(Path root, String migrationId) {
        MigrationClaim c = new MigrationClaim(migrationId, newToken());
        Path f = file(root);
        try {
            Path tmp = f.resolveSibling(FILE + ".tmp");
            Files.writeString(tmp, migrationId + " " + c.ownerToken + "\n", StandardCharsets.UTF_8);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fsyncDir(f.getParent());
            return c;
        } catch (IOException e) {
            throw new GraphRefusedException("cannot replace the migration claim " + f + ": " + e.getMessage());
        }
    }

    static void release(Path root) {
        try {
            Files.deleteIfExists(file(root));
            fsyncDir(file(root).getParent());
        } catch (IOException e) {
            throw new GraphRefusedException("cannot release the migration claim " + file(root) + ": " + e.getMessage());
        }
    }

    private static void fsyncDir(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
