package io.palisade.substrate.lance;

import io.palisade.substrate.TableStore;
import io.palisade.substrate.TableStoreConformance;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conformance suite against the Lance store on an S3-compatible object store (MinIO), through
 * Lance storage options. Needs a container engine: without one, Testcontainers disables the class
 * and every test reports as skipped ("Docker is not available"), never as passed.
 */
@Testcontainers(disabledWithoutDocker = true)
class MinioLanceConformanceTest extends TableStoreConformance {

    private static final String BUCKET = "palisade";
    private static MinIOContainer minio;

    @BeforeAll
    static void startMinio() throws Exception {
        minio = new MinIOContainer("minio/minio:RELEASE.2025-04-22T22-12-26Z");
        minio.start();
        Container.ExecResult mb = minio.execInContainer("sh", "-c",
                "mc alias set local http://127.0.0.1:9000 " + minio.getUserName() + " " + minio.getPassword()
                        + " && mc mb --ignore-existing local/" + BUCKET);
        assertThat(mb.getExitCode()).as("bucket creation: %s", mb.getStderr()).isZero();
    }

    @org.junit.jupiter.api.AfterAll
    static void stopMinio() {
        if (minio != null) {
            minio.stop();
        }
    }

    @Override
    protected TableStore newStore(Path dir) {
        Map<String, String> options = Map.of(
                "aws_access_key_id", minio.getUserName(),
                "aws_secret_access_key", minio.getPassword(),
                "aws_endpoint", minio.getS3URL(),
                "aws_region", "us-east-1",
                "allow_http", "true");
        return new LanceTableStore("s3://" + BUCKET + "/" + UUID.randomUUID(), options);
    }
}
