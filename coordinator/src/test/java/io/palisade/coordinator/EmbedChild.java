package io.palisade.coordinator;

import java.nio.file.Path;

/** Child-JVM entry point of {@link JvmOptionsTest}: a plain embedder's first call, {@code Palisade.create}. */
public final class EmbedChild {
    private EmbedChild() {
    }

    public static void main(String[] args) {
        try (Graph g = Palisade.create(Path.of(args[0]), Catalog.fromJson(Rows.CATALOG), Options.defaults())) {
            System.out.println("CREATED " + g.catalog().tables().size());
        }
    }
}
