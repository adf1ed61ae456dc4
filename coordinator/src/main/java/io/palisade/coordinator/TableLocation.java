package io.palisade.coordinator;

import io.palisade.coordinator.internal.GraphLayout;
import io.palisade.fencing.ValidationException;
import io.palisade.substrate.lance.ConditionalPutProbe;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.lance.LanceTableStore;

import java.io.IOException;
import java.io.Reader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * Where a graph's Lance tables live, and the storage options they are opened with (docs/scale-out.md).
 *
 * <p>By default the tables are the local directory {@code <graph>/tables}. A graph created with an object-store URI
 * ({@code s3://bucket/prefix}) records that URI, and only the URI, in {@code <graph>/_palisade/tables.uri}; the journal,
 * writer lease, checkpoints and catalog stay on local disk under {@code <graph>/_palisade}. Storage options (Lance's
 * keys: {@code aws_access_key_id}, {@code aws_secret_access_key}, {@code aws_endpoint}, {@code aws_region},
 * {@code allow_http}, ...) are never written into the graph: each process reads them, later sources winning, from
 * <ol>
 *   <li>the properties file named by the environment variable {@value #FILE_VARIABLE} or the system property
 *       {@value #FILE_PROPERTY} (the property wins);</li>
 *   <li>environment variables {@code PALISADE_STORAGE_<KEY>} ({@code PALISADE_STORAGE_AWS_ENDPOINT} is
 *       {@code aws_endpoint});</li>
 *   <li>options given to the Java API ({@link Palisade#open(Path, Options, Map)}).</li>
 * </ol>
 * With none, Lance uses its own defaults (the {@code AWS_*} environment, instance credentials).
 *
 * <p>Invariants: {@link #uri()} has no trailing slash; {@link #storageOptions()} is unmodifiable; a local location has
 * no storage options.
 */
public final class TableLocation {
    /** The file under {@code _palisade/} that records an object-store tables URI. */
    public static final String URI_FILE = "tables.uri";
    public static final String FILE_VARIABLE = "PALISADE_STORAGE_FILE";
    public static final String FILE_PROPERTY = "palisade.storage.file";
    public static final String ENV_PREFIX = "PALISADE_STORAGE_";

    private final String uri;
    private final Map<String, String> storageOptions;

    private TableLocation(String uri, Map<String, String> storageOptions) {
        this.uri = uri.replaceAll("/+$", "");
        this.storageOptions = Map.copyOf(storageOptions);
    }

    /** The tables of the graph at {@code graph}, with storage options resolved as above plus {@code given}. */
    public static TableLocation of(Path graph, Map<String, String> given) {
        GraphLayout layout = new GraphLayout(graph);
        Path recorded = layout.palisade().resolve(URI_FILE);
        if (!Files.exists(recorded)) {
            return new TableLocation(layout.tables().toString(), Map.of());
        }
        String uri;
        try {
            uri = Files.readString(recorded, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new ValidationException("cannot read " + recorded + ": " + e.getMessage(), e);
        }
        if (!ConditionalPutProbe.isObjectStore(uri)) {
            throw new ValidationException(recorded + " names '" + uri + "', not an object-store URI");
        }
        return new TableLocation(uri, resolveOptions(given));
    }

    /** {@link #of(Path, Map)} with no options given. */
    public static TableLocation of(Path graph) {
        return of(graph, Map.of());
    }

    /** An object-store location for a graph about to be created (validated; nothing is written). */
    static TableLocation objectStore(String uri, Map<String, String> given) {
        Objects.requireNonNull(uri, "uri");
        if (!ConditionalPutProbe.isObjectStore(uri) || !uri.toLowerCase(Locale.ROOT).startsWith("s3://")) {
            throw new ValidationException("tables location '" + uri + "': only s3://bucket/prefix object stores are supported");
        }
        return new TableLocation(uri, resolveOptions(given));
    }

    /** The Lance root: a local directory path or an object-store URI. */
    public String uri() {
        return uri;
    }

    public Map<String, String> storageOptions() {
        return storageOptions;
    }

    public boolean onObjectStore() {
        return ConditionalPutProbe.isObjectStore(uri);
    }

    /**
     * A Lance store on these tables; {@code sync} fsyncs local commits' files (an object store is durable per PUT, so
     * it is ignored there).
     */
    public TableStore open(boolean sync) {
        return new LanceTableStore(uri, storageOptions, sync && !onObjectStore());
    }

    /**
     * A Lance store a writer commits through: the conditional-put {@link #probe} first (on an object store), then
     * {@link #open}. Every path that commits to a graph's tables without {@code Palisade.open} (migration, repair)
     * opens them this way.
     */
    public TableStore openForWriting(boolean sync) {
        probe();
        return open(sync);
    }

    /** On an object store, checks that it refuses a second create-if-absent ({@link ConditionalPutProbe}); else nothing. */
    void probe() {
        if (onObjectStore()) {
            ConditionalPutProbe.check(uri, storageOptions);
            java.util.List<String> env = io.palisade.substrate.lance.BranchEnvironment.mismatches(uri, storageOptions,
                    System.getenv());
            if (!env.isEmpty()) {
                org.slf4j.LoggerFactory.getLogger(TableLocation.class).warn("tables on {}: every fork of a table "
                        + "branch will be refused until the AWS_* environment agrees with the storage options (Lance "
                        + "opens a new branch's store from the environment): {}", uri, String.join("; ", env));
            }
        }
    }

    /** Records an object-store URI in the graph at {@code graph} (durably: fsync of file and directory). */
    void record(Path graph) {
        if (!onObjectStore()) {
            return;
        }
        GraphLayout layout = new GraphLayout(graph);
        Path file = layout.palisade().resolve(URI_FILE);
        try {
            Files.createDirectories(layout.palisade());
            Files.writeString(file, uri + "\n", StandardCharsets.UTF_8);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            try (FileChannel dir = FileChannel.open(layout.palisade(), StandardOpenOption.READ)) {
                dir.force(true);
            }
        } catch (IOException e) {
            throw new ValidationException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static Map<String, String> resolveOptions(Map<String, String> given) {
        Map<String, String> options = new LinkedHashMap<>();
        String file = System.getProperty(FILE_PROPERTY, System.getenv(FILE_VARIABLE));
        if (file != null && !file.isBlank()) {
            Path p = Path.of(file.strip());
            Properties props = new Properties();
            try (Reader r = Files.newBufferedReader(p, StandardCharsets.UTF_8)) {
                props.load(r);
            } catch (IOException e) {
                throw new ValidationException("cannot read the storage options file " + p + " (" + FILE_VARIABLE
                        + "): " + e.getMessage(), e);
            }
            for (String k : props.stringPropertyNames()) {
                options.put(k.strip().toLowerCase(Locale.ROOT), props.getProperty(k).strip());
            }
        }
        for (Map.Entry<String, String> e : System.getenv().entrySet()) {
            if (e.getKey().startsWith(ENV_PREFIX) && !e.getKey().equals(FILE_VARIABLE)
                    && e.getKey().length() > ENV_PREFIX.length()) {
                options.put(e.getKey().substring(ENV_PREFIX.length()).toLowerCase(Locale.ROOT), e.getValue());
            }
        }
        given.forEach((k, v) -> options.put(k.toLowerCase(Locale.ROOT), v));
        return options;
    }

    /** The URI and the option keys, never their values (credentials). */
    @Override
    public String toString() {
        return uri + (storageOptions.isEmpty() ? "" : " " + new java.util.TreeSet<>(storageOptions.keySet()));
    }
}
