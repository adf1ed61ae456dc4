package io.palisade.substrate.sim;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimulatedTableStoreFaultTest {

    private static final Schema S = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE)));

    private BufferAllocator allocator;
    private VectorSchemaRoot rows;
    private final SimulatedTableStore store = new SimulatedTableStore();

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        rows = VectorSchemaRoot.create(S, allocator);
        ArrowRows.fill(rows, List.of(Map.of("id", "a")));
        store.createKeyed("t", TableKind.NODE, S).close();
    }

    @AfterEach
    void tearDown() {
        rows.close();
        allocator.close();
    }

    @Test
    void aFaultBeforeTheCommitLeavesTheTableUnchanged() {
        store.injectOnNextCommit("t", SimulatedTableStore.Fault.FAIL_BEFORE_COMMIT);
        try (KeyedTable t = store.openKeyed("t", TableRef.main(1))) {
            assertThatThrownBy(() -> t.insert(rows, MergePath.V2_FENCED)).isInstanceOf(CommitStateUnknownException.class);
        }
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(TableRef.main(1));
    }

    @Test
    void aFaultAfterTheCommitLeavesTheEffectInPlaceAndFiresOnce() {
        store.injectOnNextCommit("t", SimulatedTableStore.Fault.FAIL_AFTER_COMMIT);
        try (KeyedTable t = store.openKeyed("t", TableRef.main(1))) {
            assertThatThrownBy(() -> t.insert(rows, MergePath.V2_FENCED)).isInstanceOf(CommitStateUnknownException.class);
        }
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(TableRef.main(2));
        try (KeyedTable t = store.openKeyed("t", TableRef.main(2))) {
            assertThat(t.countRows()).isEqualTo(1);
            ArrowRows.fill(rows, List.of(Map.of("id", "b")));
            assertThat(t.insert(rows, MergePath.V2_FENCED).ref()).isEqualTo(TableRef.main(3));
        }
    }

    @Test
    void anInjectedWriteConflictIsRetryableLeavesTheTableUnchangedAndFiresOnce() {
        store.injectOnNextCommit("t", SimulatedTableStore.Fault.WRITE_CONFLICT);
        try (KeyedTable t = store.openKeyed("t", TableRef.main(1))) {
            assertThatThrownBy(() -> t.insert(rows, MergePath.V2_FENCED)).isInstanceOf(WriteConflictException.class);
            assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(TableRef.main(1));
            assertThat(t.insert(rows, MergePath.V2_FENCED).ref()).isEqualTo(TableRef.main(2));
        }
    }

    @Test
    void aFaultIsScopedToItsTable() {
        store.createKeyed("u", TableKind.NODE, S).close();
        store.injectOnNextCommit("t", SimulatedTableStore.Fault.FAIL_BEFORE_COMMIT);
        try (KeyedTable u = store.openKeyed("u", TableRef.main(1))) {
            assertThat(u.insert(rows, MergePath.V2_FENCED).ref()).isEqualTo(TableRef.main(2));
        }
        try (KeyedTable t = store.openKeyed("t", TableRef.main(1))) {
            assertThatThrownBy(() -> t.insert(rows, MergePath.V2_FENCED)).isInstanceOf(CommitStateUnknownException.class);
        }
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(TableRef.main(1));
    }
}
