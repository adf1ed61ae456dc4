package io.palisade.substrate.lance;

import io.palisade.fencing.ObjectStoreRefusedException;
import io.palisade.fencing.ValidationException;
import io.palisade.substrate.s3.S3ProxyFixture;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

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
}
