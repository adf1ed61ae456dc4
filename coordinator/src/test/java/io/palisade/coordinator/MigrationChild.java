package io.palisade.coordinator;

import java.nio.file.Path;

/** Child-JVM entry point of the migration crash matrix: runs the migration (armed with -Dpalisade.crash.at). */
public final class MigrationChild {
    private MigrationChild() {
    }

    public static void main(String[] args) {
        MigrationReport r = PkMigration.run(Path.of(args[0]), MigrationOptions.defaults());
        System.out.println("STATUS " + r.status());
        System.exit(r.status() == MigrationReport.Status.REFUSED ? 3 : 0);
    }
}
