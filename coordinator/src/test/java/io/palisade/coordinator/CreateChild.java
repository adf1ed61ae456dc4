package io.palisade.coordinator;

import java.nio.file.Path;

/** Child-JVM entry point of the create crash test: creates a graph at args[0] (armed with -Dpalisade.crash.at). */
public final class CreateChild {
    private CreateChild() {
    }

    public static void main(String[] args) {
        try (Graph g = Palisade.create(Path.of(args[0]), Catalog.fromJson(Rows.CATALOG), Options.defaults())) {
            System.out.println("CREATED " + g.catalog().tables().size());
        }
    }
}
