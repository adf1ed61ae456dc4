package io.palisade.substrate.s3;

import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

/**
 * An S3-compatible server in this JVM for tests (S3Proxy, no container engine): listens on loopback on an ephemeral
 * port, has one bucket, and checks SigV4 signatures made with its own explicit credentials. {@link #storageOptions()}
 * are the Lance storage options that reach it: always explicit keys, so Lance's credential chain never looks for
 * instance metadata off loopback (the test JVMs also run with {@code AWS_EC2_METADATA_DISABLED=true}).
 *
 * <p>By default the store honours {@code If-None-Match: *} (a second create-if-absent of a key gets 412), which Lance's
 * commit relies on; {@link #ignoringConditionalPuts} starts one that drops the condition and overwrites, as a store
 * that does not support conditional put would.
 *
 * <p>Invariants: started by the factory methods, stopped by {@link #close()} (the {@link #shared()} one by the JVM's
 * exit); {@link #port()} is fixed between the two.
 */
public final class S3ProxyFixture implements AutoCloseable {
    /** The one bucket. */
    public static final String BUCKET = "palisade";
    public static final String ACCESS_KEY = "palisade-test-access";
    public static final String SECRET_KEY = "palisade-test-secret";
    public static final String REGION = "us-east-1";

    /** The environment variable naming the port of {@link #shared()} (set by the build, see the parent pom). */
    public static final String PORT_VARIABLE = "PALISADE_TEST_S3_PORT";

    private static S3ProxyFixture shared;

    private final S3Proxy proxy;
    private final boolean isShared;

    private S3ProxyFixture(BlobStore store, int port, boolean isShared) {
        this.isShared = isShared;
        store.createContainer(BUCKET);
        proxy = S3Proxy.builder()
                .blobStore(store)
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .endpoint(URI.create("http://127.0.0.1:" + port))
                .build();
        try {
            proxy.start();
        } catch (Exception e) {
            throw new IllegalStateException("S3Proxy did not start", e);
        }
        if (proxy.getPort() <= 0) {
            throw new IllegalStateException("S3Proxy has no port after start (state " + proxy.getState() + ")");
        }
    }

    /**
     * The test JVM's server, in memory, started at the first call and stopped only when the JVM exits ({@link #close()}
     * does nothing on it); tests share it and keep apart by prefix ({@link #freshUri()}). It listens on the port the
     * build reserved and named in {@value #PORT_VARIABLE}, where the test JVM's {@code AWS_ENDPOINT} also points:
     * Lance 7.0.0 opens a new table branch's store from the environment rather than from the storage options
     * (docs/scale-out.md), so only tables on this server can fork branches. Without the variable (a test run outside
     * the build) it takes an ephemeral port.
     */
    public static synchronized S3ProxyFixture shared() {
        if (shared == null) {
            String port = System.getenv(PORT_VARIABLE);
            shared = new S3ProxyFixture(BlobStores.create("transient", new Properties()),
                    port == null || port.isBlank() ? 0 : Integer.parseInt(port.trim()), true);
        }
        return shared;
    }

    /** A server of its own whose objects live in memory (gone at {@link #close()}). */
    public static S3ProxyFixture inMemory() {
        return new S3ProxyFixture(BlobStores.create("transient", new Properties()), 0, false);
    }

    /** A server whose objects live under {@code dir} (a file per object). */
    public static S3ProxyFixture onDisk(Path dir) {
        Properties p = new Properties();
        p.setProperty("jclouds.filesystem.basedir", dir.toAbsolutePath().toString());
        return new S3ProxyFixture(BlobStores.create("filesystem", p), 0, false);
    }

    /** A server in memory that ignores {@code If-None-Match}: a create-if-absent of an existing key overwrites it. */
    public static S3ProxyFixture ignoringConditionalPuts() {
        return new S3ProxyFixture(new IgnoresConditions(BlobStores.create("transient", new Properties())), 0, false);
    }

    public int port() {
        return proxy.getPort();
    }

    /** {@code http://127.0.0.1:PORT}. */
    public String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    /** {@code s3://palisade/<prefix>}. */
    public String uri(String prefix) {
        return "s3://" + BUCKET + "/" + prefix;
    }

    /** {@code s3://palisade/<a fresh random prefix>}. */
    public String freshUri() {
        return uri("t-" + UUID.randomUUID());
    }

    /** Lance storage options for this server: explicit credentials, the loopback endpoint, plain HTTP allowed. */
    public Map<String, String> storageOptions() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("aws_access_key_id", ACCESS_KEY);
        m.put("aws_secret_access_key", SECRET_KEY);
        m.put("aws_endpoint", endpoint());
        m.put("aws_region", REGION);
        m.put("allow_http", "true");
        return Map.copyOf(m);
    }

    /** Stops the server; does nothing on {@link #shared()}. */
    @Override
    public void close() {
        if (isShared) {
            return;
        }
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IllegalStateException("S3Proxy did not stop", e);
        }
    }

    /** A store that drops the create-if-absent condition of every put. */
    private static final class IgnoresConditions extends ForwardingBlobStore {
        IgnoresConditions(BlobStore delegate) {
            super(delegate);
        }

        @Override
        public PutObjectResponse putBlob(PutObjectRequest request, InputStream in) {
            return super.putBlob(request.toBuilder().ifNoneMatch(null).build(), in);
        }
    }
}
