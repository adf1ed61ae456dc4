package io.palisade.substrate.lance;

import io.palisade.fencing.ObjectStoreRefusedException;
import io.palisade.fencing.ValidationException;
import io.palisade.substrate.s3.S3ProxyFixture;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConditionalPutProbeTest {

    @Test
    void aStoreThatRefusesTheSecondCreatePasses() {
        S3ProxyFixture s3 = S3ProxyFixture.shared();
        assertThatCode(() -> ConditionalPutProbe.check(s3.freshUri(), s3.storageOptions())).doesNotThrowAnyException();
    }

    @Test
    void aStoreThatIgnoresIfNoneMatchIsRefused() {
        try (S3ProxyFixture s3 = S3ProxyFixture.ignoringConditionalPuts()) {
            assertThatThrownBy(() -> ConditionalPutProbe.check(s3.freshUri(), s3.storageOptions()))
                    .isInstanceOf(ObjectStoreRefusedException.class)
                    .hasMessageContaining("does not honour conditional put");
        }
    }

    @Test
    void wrongCredentialsAreRefusedNamingTheFailedPut() {
        S3ProxyFixture s3 = S3ProxyFixture.shared();
        Map<String, String> bad = new HashMap<>(s3.storageOptions());
        bad.put("aws_secret_access_key", "not-the-secret");
        assertThatThrownBy(() -> ConditionalPutProbe.check(s3.freshUri(), bad))
                .isInstanceOf(ObjectStoreRefusedException.class)
                .hasMessageContaining("cannot write to the object store");
    }

    @Test
    void onlyS3UrisAreProbed() {
        assertThatThrownBy(() -> ConditionalPutProbe.check("gs://bucket/x", Map.of()))
                .isInstanceOf(ValidationException.class).hasMessageContaining("only s3://");
        assertThatThrownBy(() -> ConditionalPutProbe.check("s3:///nobucket", Map.of()))
                .isInstanceOf(ValidationException.class);
    }

    /** One request as the server saw it. */
    private record Seen(String method, String path, Map<String, String> headers, byte[] body) {
    }

    /**
     * The probe's puts are plain bodies signed whole: no {@code aws-chunked} content encoding (S3Proxy answers a chunked
     * put and closes the connection before the client has written its final chunk, so the client reported a failed
     * write for a put that had landed) and no {@code Expect: 100-continue}. A recording server on loopback answers as a
     * conforming store: 200 to the first create-if-absent, 412 to the second, 204 to the delete.
     */
    @Test
    void theProbePutsOnePlainBodySignedWholeAndDeletesItsObject() throws Exception {
        List<Seen> seen = new ArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            Seen s = record(exchange);
            int status;
            synchronized (seen) {
                boolean again = seen.stream().anyMatch(p -> p.method().equals("PUT") && p.path().equals(s.path()));
                seen.add(s);
                status = s.method().equals("DELETE") ? 204 : again ? 412 : 200;
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        server.start();
        try {
            Map<String, String> options = Map.of("aws_access_key_id", "k", "aws_secret_access_key", "s",
                    "aws_endpoint", "http://127.0.0.1:" + server.getAddress().getPort(), "aws_region", "us-east-1");
            ConditionalPutProbe.check("s3://bucket/graph", options);
        } finally {
            server.stop(0);
        }
        assertThat(seen).extracting(Seen::method).containsExactly("PUT", "PUT", "DELETE");
        assertThat(seen).extracting(Seen::path).allSatisfy(p -> assertThat(p).startsWith("/bucket/graph/_palisade_probe/"));
        assertThat(seen.stream().map(Seen::path).distinct()).hasSize(1);
        String sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest("palisade conditional-put probe\n".getBytes(StandardCharsets.UTF_8)));
        for (Seen put : seen.subList(0, 2)) {
            assertThat(put.headers()).containsEntry("if-none-match", "*")
                    .doesNotContainKey("expect")
                    .doesNotContainKey("x-amz-decoded-content-length")
                    .containsEntry("x-amz-content-sha256", sha256)
                    .containsEntry("content-length", "31");
            assertThat(put.headers().getOrDefault("content-encoding", "")).doesNotContain("aws-chunked");
            assertThat(new String(put.body(), StandardCharsets.UTF_8)).isEqualTo("palisade conditional-put probe\n");
        }
    }

    private static Seen record(HttpExchange exchange) throws IOException {
        Map<String, String> headers = new HashMap<>();
        exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
        byte[] body = exchange.getRequestBody().readAllBytes();
        return new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), headers, body);
    }
}
