package io.palisade.substrate.lance;

import io.palisade.fencing.ObjectStoreRefusedException;
import io.palisade.fencing.ValidationException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Checks that the S3 store under a table root honours conditional put before anything is written there. Lance commits
 * a table version by putting its manifest with {@code If-None-Match: *}; a store that ignores the condition lets two
 * writers both "create" the same version and one commit is silently lost. The probe puts a fresh object
 * {@code <root>/_palisade_probe/<uuid>} twice with that condition: the first must succeed, the second must be refused
 * (412 Precondition Failed, or 409 for a concurrent conditional write); then it deletes the object.
 *
 * <p>It speaks S3 through the AWS SDK, configured from the same Lance storage options the tables are opened with
 * ({@code aws_access_key_id}, {@code aws_secret_access_key}, {@code aws_session_token}, {@code aws_endpoint},
 * {@code aws_region}, {@code aws_virtual_hosted_style_request}, and their unprefixed aliases); without keys it uses
 * the SDK's default credential chain, as Lance would use its own. Lance's Java API has no call that puts one object
 * with a condition, and a probe through Lance commits would only race (nondeterministic), so the SDK is the one way to
 * ask the exact question.
 *
 * <p>Invariant: {@link #check} returns only after seeing the store refuse a second create-if-absent; every other
 * outcome throws {@link ObjectStoreRefusedException} naming the root and what was seen.
 */
public final class ConditionalPutProbe {
    private ConditionalPutProbe() {
    }

    /** True when {@code root} names an object store (a URI with a scheme other than {@code file}). */
    public static boolean isObjectStore(String root) {
        int colon = root.indexOf("://");
        return colon > 0 && !root.substring(0, colon).equalsIgnoreCase("file");
    }

    /**
     * Probes the store under {@code root} ({@code s3://bucket/prefix}) with the given Lance storage options.
     *
     * @throws ValidationException         {@code root} is not an {@code s3://} URI with a bucket
     * @throws ObjectStoreRefusedException the store does not refuse a second create-if-absent, or cannot be probed
     */
    public static void check(String root, Map<String, String> storageOptions) {
        URI uri;
        try {
            uri = URI.create(root);
        } catch (IllegalArgumentException e) {
            throw new ValidationException("tables location '" + root + "' is not a URI: " + e.getMessage(), e);
        }
        if (!"s3".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new ValidationException("tables location '" + root + "': only s3://bucket/prefix object stores are "
                    + "supported (an S3-compatible store that honours conditional put)");
        }
        String bucket = uri.getHost();
        String prefix = uri.getPath() == null ? "" : uri.getPath().replaceAll("^/+|/+$", "");
        try (S3Client s3 = client(storageOptions)) {
            // the SDK does not retry (a retried conditional put whose first attempt landed would see its own 412);
            // a first put that fails is tried again here, on a fresh key
            for (int attempt = 1; ; attempt++) {
                String key = (prefix.isEmpty() ? "" : prefix + "/") + "_palisade_probe/" + UUID.randomUUID();
                PutObjectRequest put = PutObjectRequest.builder().bucket(bucket).key(key).ifNoneMatch("*").build();
                try {
                    s3.putObject(put, RequestBody.fromBytes(BODY));
                } catch (SdkException e) {
                    if (attempt < PUT_ATTEMPTS && !(e instanceof S3Exception s && s.statusCode() / 100 == 4)) {
                        deleteQuietly(s3, bucket, key); // the put may have landed before the transport failed
                        continue;
                    }
                    throw new ObjectStoreRefusedException("cannot write to the object store at " + root + " (the "
                            + "conditional-put probe's first put of s3://" + bucket + "/" + key + " failed): "
                            + e.getMessage(), e);
                }
                secondPut(s3, root, bucket, key, put);
                return;
            }
        }
    }

    private static final byte[] BODY = "palisade conditional-put probe\n".getBytes(StandardCharsets.UTF_8);
    private static final int PUT_ATTEMPTS = 3;

    /** The second create-if-absent of {@code key}: safe to retry on a transport error (the key exists either way). */
    private static void secondPut(S3Client s3, String root, String bucket, String key, PutObjectRequest put) {
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    s3.putObject(put, RequestBody.fromBytes(BODY));
                } catch (S3Exception e) {
                    if (e.statusCode() == 412 || e.statusCode() == 409) {
                        return; // refused: the store honours conditional put
                    }
                    throw new ObjectStoreRefusedException("the object store at " + root + " answered the "
                            + "conditional-put probe's second create-if-absent with HTTP " + e.statusCode()
                            + " instead of 412: " + e.getMessage(), e);
                } catch (SdkException e) {
                    if (attempt < PUT_ATTEMPTS) {
                        continue;
                    }
                    throw new ObjectStoreRefusedException("the object store at " + root + " did not answer the "
                            + "conditional-put probe's second create-if-absent: " + e.getMessage(), e);
                }
                throw new ObjectStoreRefusedException("the object store at " + root + " does not honour conditional "
                        + "put: a second create-if-absent (If-None-Match: *) of s3://" + bucket + "/" + key + " was "
                        + "accepted, so two Lance commits of one table version would both succeed and one would be "
                        + "lost. Use a store that refuses it with 412 (AWS S3, MinIO, S3Proxy; docs/scale-out.md)");
            }
        } finally {
            deleteQuietly(s3, bucket, key);
        }
    }

    private static void deleteQuietly(S3Client s3, String bucket, String key) {
        try {
            s3.deleteObject(b -> b.bucket(bucket).key(key));
        } catch (SdkException ignored) {
            // a probe object left behind is harmless: a fresh key every time, never read
        }
    }

    private static S3Client client(Map<String, String> o) {
        Optional<String> endpoint = option(o, "aws_endpoint", "endpoint");
        Optional<String> keyId = option(o, "aws_access_key_id", "access_key_id");
        Optional<String> secret = option(o, "aws_secret_access_key", "secret_access_key");
        Optional<String> token = option(o, "aws_session_token", "session_token");
        String region = option(o, "aws_region", "region").or(() -> Optional.ofNullable(System.getenv("AWS_REGION")))
                .orElse("us-east-1");
        boolean virtualHosted = option(o, "aws_virtual_hosted_style_request", "virtual_hosted_style_request")
                .map(v -> v.trim().equalsIgnoreCase("true")).orElse(false);
        AwsCredentialsProvider credentials;
        if (keyId.isPresent() && secret.isPresent()) {
            credentials = StaticCredentialsProvider.create(token.isPresent()
                    ? AwsSessionCredentials.create(keyId.get(), secret.get(), token.get())
                    : AwsBasicCredentials.create(keyId.get(), secret.get()));
        } else {
            credentials = DefaultCredentialsProvider.builder().build();
        }
        var b = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .region(Region.of(region))
                .credentialsProvider(credentials)
                .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
                // one plain body, signed whole: over http the SDK would otherwise send the put as aws-chunked
                // (a signed data chunk, then a signed empty final chunk, written piece by piece). S3Proxy answers
                // 200 and closes the connection once it has the decoded bytes, before the final chunk arrives; the
                // client's write of that chunk then meets a reset and the SDK reports "Error writing request body
                // to server" for a put that landed (seen in a packet capture under the crash matrix on a loaded
                // machine, docs/crash-points.md). Chunked signing exists for bodies too large to hash up front; a
                // 31-byte body gains nothing from it, nor from the Expect: 100-continue handshake
                .serviceConfiguration(S3Configuration.builder()
                        .chunkedEncodingEnabled(false)
                        .expectContinueEnabled(false)
                        .build())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        endpoint.ifPresent(e -> b.endpointOverride(URI.create(e)).forcePathStyle(!virtualHosted));
        return b.build();
    }

    /** The first of {@code keys} (lower case) that {@code o} gives a non-blank value, matched ignoring case; trimmed. */
    static Optional<String> option(Map<String, String> o, String... keys) {
        for (String k : keys) {
            for (Map.Entry<String, String> e : o.entrySet()) {
                if (e.getKey().toLowerCase(Locale.ROOT).equals(k) && e.getValue() != null && !e.getValue().isBlank()) {
                    return Optional.of(e.getValue().trim());
                }
            }
        }
        return Optional.empty();
    }
}
