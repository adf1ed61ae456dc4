package io.palisade.substrate.lance;

import io.palisade.substrate.TableStore;
import io.palisade.substrate.TableStoreConformance;
import io.palisade.substrate.s3.S3ProxyFixture;

import java.nio.file.Path;

/**
 * The conformance suite against the Lance store on an S3-compatible object store served in this JVM by S3Proxy
 * (no container engine needed, so it runs in CI; {@link MinioLanceConformanceTest} runs the same suite on MinIO
 * where a container engine is present). Each store gets a fresh prefix of the test JVM's shared server.
 */
class S3ProxyLanceConformanceTest extends TableStoreConformance {

    @Override
    protected TableStore newStore(Path dir) {
        S3ProxyFixture s3 = S3ProxyFixture.shared();
        return new LanceTableStore(s3.freshUri(), s3.storageOptions());
    }
}
