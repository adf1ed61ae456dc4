package io.palisade.journal;

import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * An in-process KRaft cluster from Kafka's test kit: {@code brokers} brokers and one separate controller (three
 * combined broker+controller voters in one JVM do not start). Topics of journals made by {@link #newJournal} get
 * replication 3 and {@code min.insync.replicas} 2 on three or more brokers, 1 and 1 on fewer. Start one per test
 * class: a one-node cluster boots in 5-9 s.
 */
public final class KafkaTestCluster implements AutoCloseable {
    private final KafkaClusterTestKit kit;
    private final int brokers;

    private KafkaTestCluster(KafkaClusterTestKit kit, int brokers) {
        this.kit = kit;
        this.brokers = brokers;
    }

    public static KafkaTestCluster start(int brokers) {
        int rf = Math.min(3, brokers);
        int isr = rf >= 3 ? 2 : 1;
        try {
            KafkaClusterTestKit kit = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                    .setCombined(brokers == 1)
                    .setNumBrokerNodes(brokers)
                    .setNumControllerNodes(1)
                    .build())
                    .setConfigProp("offsets.topic.replication.factor", Integer.toString(rf))
                    .setConfigProp("transaction.state.log.replication.factor", Integer.toString(rf))
                    .setConfigProp("transaction.state.log.min.isr", Integer.toString(isr))
                    .setConfigProp("group.initial.rebalance.delay.ms", "0")
                    // one partition each: the default 50 make the first transactional producer wait for 50 leaders
                    .setConfigProp("transaction.state.log.num.partitions", "1")
                    .setConfigProp("offsets.topic.num.partitions", "1")
                    .setConfigProp("auto.create.topics.enable", "false")
                    .build();
            kit.format();
            kit.startup();
            kit.waitForReadyBrokers();
            return new KafkaTestCluster(kit, brokers);
        } catch (Exception e) {
            throw new IllegalStateException("the in-process Kafka cluster did not start", e);
        }
    }

    public String bootstrapServers() {
        return kit.bootstrapServers();
    }

    /** The journal config of a new graph on this cluster (a fresh topic). */
    public KafkaJournalConfig newJournal(String graphName) {
        int rf = Math.min(3, brokers);
        return KafkaJournalConfig.forNewGraph(bootstrapServers(), graphName).withReplication(rf, rf >= 3 ? 2 : 1);
    }

    /** Broker ids, for {@link #stopBroker}. */
    public java.util.Set<Integer> brokerIds() {
        return kit.brokers().keySet();
    }

    /** Stops one broker (a controlled shutdown; its replicas leave the ISR). */
    public void stopBroker(int id) {
        kit.brokers().get(id).shutdown();
    }

    @Override
    public void close() {
        try {
            kit.close();
        } catch (Exception e) {
            throw new IllegalStateException("the in-process Kafka cluster did not stop cleanly", e);
        }
    }
}
