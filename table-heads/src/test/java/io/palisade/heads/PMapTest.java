package io.palisade.heads;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

class PMapTest {

    /** Keys with equal String hash codes ("Aa" and "BB" collide) exercise the collision nodes. */
    private static String key(int k) {
        String[] parts = {"Aa", "BB"};
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            sb.append(parts[(k >> i) & 1]);
        }
        return k % 3 == 0 ? sb.toString() : "k" + k;
    }

    @Test
    void behavesLikeAHashMapAndNeverChangesOlderVersions() {
        qt().withExamples(200).forAll(lists().of(integers().between(-300, 300)).ofSizeBetween(0, 400))
                .checkAssert(PMapTest::behavesLikeAHashMapAndNeverChangesOlderVersions);
    }

    private static void behavesLikeAHashMapAndNeverChangesOlderVersions(List<Integer> ops) {
        PMap<String, Integer> p = PMap.empty();
        Map<String, Integer> model = new HashMap<>();
        PMap<String, Integer> snapshot = p;
        Map<String, Integer> snapshotModel = Map.of();
        int i = 0;
        for (int op : ops) {
            String k = key(Math.abs(op) % 64);
            if (op >= 0) {
                p = p.put(k, op);
                model.put(k, op);
            } else {
                p = p.remove(k);
                model.remove(k);
            }
            if (++i % 37 == 0) {
                snapshot = p;
                snapshotModel = Map.copyOf(model);
            }
            assertThat(p.size()).isEqualTo(model.size());
        }
        for (int k = 0; k < 64; k++) {
            assertThat(p.get(key(k))).isEqualTo(model.get(key(k)));
            assertThat(snapshot.get(key(k))).isEqualTo(snapshotModel.get(key(k)));
        }
        Map<String, Integer> seen = new HashMap<>();
        p.forEach(seen::put);
        assertThat(seen).isEqualTo(model);
        PMap<String, Integer> rebuilt = PMap.empty();
        for (Map.Entry<String, Integer> e : model.entrySet()) {
            rebuilt = rebuilt.put(e.getKey(), e.getValue());
        }
        assertThat(rebuilt).isEqualTo(p).hasSameHashCodeAs(p);
    }

    @Test
    void manyKeysRoundTrip() {
        qt().withExamples(20).forAll(integers().between(1000, 20000)).checkAssert(PMapTest::manyKeysRoundTrip);
    }

    private static void manyKeysRoundTrip(int n) {
        PMap<String, Integer> p = PMap.empty();
        for (int i = 0; i < n; i++) {
            p = p.put("intent-" + i, i);
        }
        for (int i = 0; i < n; i += 2) {
            p = p.remove("intent-" + i);
        }
        assertThat(p.size()).isEqualTo(n / 2);
        for (int i = 0; i < n; i++) {
            assertThat(p.get("intent-" + i)).isEqualTo(i % 2 == 0 ? null : i);
        }
    }
}
