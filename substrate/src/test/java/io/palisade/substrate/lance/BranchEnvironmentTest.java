package io.palisade.substrate.lance;

import io.palisade.fencing.ValidationException;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.s3.S3ProxyFixture;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A fork on an object store is refused, before Lance writes anything, unless the {@code AWS_*} environment Lance
 * opens a new branch's store from agrees with the storage options the tables are opened with.
 */
class BranchEnvironmentTest {
    private static final String ROOT = "s3://bucket/graph";
    private static final Map<String, String> OPTIONS = Map.of("aws_endpoint", "http://127.0.0.1:9000",
            "aws_region", "eu-west-1", "aws_access_key_id", "key-id", "aws_secret_access_key", "very-secret",
            "allow_http", "true");
    private static final Map<String, String> SAME = Map.of("AWS_ENDPOINT", "http://127.0.0.1:9000/",
            "AWS_DEFAULT_REGION", "eu-west-1", "AWS_ACCESS_KEY_ID", "key-id", "AWS_SECRET_ACCESS_KEY", "very-secret",
            "AWS_ALLOW_HTTP", "TRUE");

    @Test
    void anEnvironmentThatAgreesPassesAndALocalRootIsNeverChecked() {
        assertThat(BranchEnvironment.mismatches(ROOT, OPTIONS, SAME)).isEmpty();
        assertThat(BranchEnvironment.mismatches("/data/graph/tables", OPTIONS, Map.of())).isEmpty();
        assertThat(BranchEnvironment.mismatches(ROOT, Map.of(), Map.of())).as("nothing given: Lance's defaults")
                .isEmpty();
    }

    @Test
    void everyDisagreementIsNamedAndNoSecretIsShown() {
        Map<String, String> env = Map.of("AWS_ENDPOINT", "http://127.0.0.1:9999", "AWS_REGION", "eu-west-1",
                "AWS_SECRET_ACCESS_KEY", "another-secret");
        List<String> m = BranchEnvironment.mismatches(ROOT, OPTIONS, env);
        assertThat(m).containsExactly(
                "AWS_ENDPOINT is http://127.0.0.1:9999; the storage options give http://127.0.0.1:9000 (aws_endpoint)",
                "AWS_ACCESS_KEY_ID is unset; the storage options give another value (aws_access_key_id, not shown)",
                "AWS_SECRET_ACCESS_KEY differs; the storage options give another value (aws_secret_access_key, not shown)",
                "AWS_ALLOW_HTTP is unset; the storage options give true (allow_http)");
        assertThatThrownBy(() -> BranchEnvironment.check(ROOT, "person", OPTIONS, env))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("cannot fork a branch of table 'person' on " + ROOT)
                .hasMessageContaining("AWS_ENDPOINT is http://127.0.0.1:9999")
                .message().doesNotContain("very-secret").doesNotContain("another-secret").doesNotContain("key-id");
    }

    /**
     * On a store the test JVM's environment does not point at (a server of its own; {@code AWS_ENDPOINT} names the
     * shared one), a fork is refused with nothing written, where Lance would have put the branch on the other server.
     */
    @Test
    void aForkOnAStoreTheEnvironmentDoesNotNameIsRefusedWithNothingWritten() {
        Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null)));
        try (S3ProxyFixture own = S3ProxyFixture.inMemory();
             LanceTableStore store = new LanceTableStore(own.freshUri(), own.storageOptions())) {
            assertThat(System.getenv("AWS_ENDPOINT")).as("the build points AWS_ENDPOINT at another server")
                    .isNotEqualTo(own.endpoint());
            try (KeyedTable t = store.createKeyed("person", TableKind.NODE, schema)) {
                assertThat(t.ref()).isEqualTo(TableRef.main(1));
            }
            assertThatThrownBy(() -> store.forkBranch("person", TableRef.main(1), "feature"))
                    .isInstanceOf(ValidationException.class)
                    .hasMessageContaining("AWS_ENDPOINT")
                    .hasMessageContaining(own.endpoint() + " (aws_endpoint)");
            assertThat(store.listBranches("person")).containsExactly("main");
        }
    }
}
