package io.palisade.journal;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One in-process {@link KafkaTestCluster} for a test class, started before the class's {@code @BeforeAll} methods and
 * stopped after its {@code @AfterAll} ones:
 *
 * <pre>
 * &#64;RegisterExtension
 * static final KafkaClusterExtension KAFKA = new KafkaClusterExtension(1);
 * ... KAFKA.cluster().newJournal("g") ...
 * </pre>
 *
 * With {@code -Dpalisade.kafka.tests=off} no cluster starts and the class's tests are skipped, with a line on stdout
 * and stderr naming the class (never silently).
 */
public final class KafkaClusterExtension implements BeforeAllCallback, AfterAllCallback {
    /** The system property that, set to {@code off}, skips every Kafka suite. */
    public static final String SWITCH = "palisade.kafka.tests";

    private final int brokers;
    private KafkaTestCluster cluster;

    /** @param brokers brokers of the cluster ({@link KafkaTestCluster#start}) */
    public KafkaClusterExtension(int brokers) {
        if (brokers < 1) {
            throw new IllegalArgumentException("brokers >= 1");
        }
        this.brokers = brokers;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if ("off".equals(System.getProperty(SWITCH))) {
            String line = "[kafka] SKIPPED: -D" + SWITCH + "=off: " + context.getDisplayName()
                    + " (needs an in-process Kafka cluster) did NOT run";
            System.out.println(line);
            System.err.println(line);
            Assumptions.abort(line);
        }
        long t0 = System.nanoTime();
        cluster = KafkaTestCluster.start(brokers);
        System.out.println("[kafka] " + brokers + "-broker cluster for " + context.getDisplayName() + " started in "
                + (System.nanoTime() - t0) / 1_000_000 + " ms");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            try {
                cluster.close();
            } finally {
                cluster = null;
            }
        }
    }

    /** The running cluster. */
    public KafkaTestCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("the Kafka cluster runs only between the class's beforeAll and afterAll");
        }
        return cluster;
    }
}
