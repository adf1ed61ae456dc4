package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;
import io.palisade.fencing.action.UpdateSchemaMetadata.MetadataUpdate;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.palisade.fencing.action.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A6 AddFields, A7 DropFields, A8 ChangeSchema, A9 UpdateSchemaMetadata. */
class SchemaActionsTest {

    private static final String PK = Field.PRIMARY_KEY_METADATA;

    private static void assertInvalid(Manifest m, Action a, String messagePart) {
        assertThatThrownBy(() -> m.apply(List.of(a)))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining(messagePart);
    }

    private static AddFields addNullable(String... names) {
        List<AddFields.NewField> f = new ArrayList<>();
        for (String n : names) {
            f.add(new AddFields.NewField(n, true));
        }
        return new AddFields(f, Map.of());
    }

    private static Schema keyedPlus(Field... extra) {
        List<Field> fields = new ArrayList<>(KEYED.fields());
        fields.addAll(List.of(extra));
        return new Schema(fields, Map.of());
    }

    // ------------------------------------------------------------------ A6 AddFields

    @Test
    void addedFieldsGetFreshConsecutiveIds() {
        Manifest m = apply(keyedWith(1), addNullable("email", "phone"));
        assertThat(m.schema().field("email").orElseThrow().id()).isEqualTo(3);
        assertThat(m.schema().field("phone").orElseThrow().id()).isEqualTo(4);
        assertThat(m.schema().field("phone").orElseThrow().nullable()).isTrue();
        assertThat(m.nextFieldId()).isEqualTo(5);
        assertThat(m.schema().primaryKeyFieldIds()).containsExactly(ID);
    }

    @Test
    void addedFieldDataIsAttachedToTheNamedFragments() {
        Manifest m = apply(keyedWith(1, 1), new AddFields(List.of(new AddFields.NewField("email", false)),
                Map.of(0L, "data/email-0.lance", 1L, "data/email-1.lance")));
        assertThat(m.fragment(0).orElseThrow().fieldIds()).contains(3);
        assertThat(m.fragment(1).orElseThrow().files()).extracting(DataFile::path).contains("data/email-1.lance");
    }

    @Test
    void fieldIdsAreNeverReusedAfterADrop() {
        Manifest m = keyedWith(1).apply(List.of(new DropFields(Set.of(AGE)), addNullable("age")));
        assertThat(m.schema().field("age").orElseThrow().id()).isEqualTo(3);
    }

    @Test
    void addingAnExistingOrRepeatedFieldNameIsRejected() {
        assertInvalid(keyedWith(1), addNullable("name"), "field 'name' already exists");
        assertInvalid(keyedWith(1), addNullable("email", "email"), "field 'email' already exists");
    }

    @Test
    void nonNullableFieldNeedsDataForEveryFragment() {
        AddFields partial = new AddFields(List.of(new AddFields.NewField("email", false)), Map.of(0L, "data/e0.lance"));
        assertInvalid(keyedWith(1, 1), partial, "needs data for fragment 1");
        // nullable fields need none, and an empty table needs none either way
        assertThat(apply(keyedWith(1, 1), addNullable("email")).schema().field("email")).isPresent();
        assertThat(apply(Manifest.empty(KEYED), new AddFields(List.of(new AddFields.NewField("email", false)), Map.of()))
                .schema().field("email")).isPresent();
    }

    @Test
    void addedFieldDataForAMissingFragmentIsRejected() {
        assertInvalid(keyedWith(1), new AddFields(List.of(new AddFields.NewField("email", true)), Map.of(5L, "data/e5.lance")),
                "fragment 5, which does not exist");
    }

    @Test
    void emptyFieldNameIsRejectedAsInvalidInput() {
        assertInvalid(keyedWith(1), addNullable(""), "non-empty name");
        assertInvalid(keyedWith(1), addNullable((String) null), "non-empty name");
    }

    // ------------------------------------------------------------------ A7 DropFields

    @Test
    void droppedFieldLeavesTheSchemaAndEveryDataFile() {
        Manifest base = apply(keyedWith(2),
                new ReplaceFragmentColumns(new FragmentRef.Id(0), Set.of(AGE), List.of(file(AGE)), java.util.Optional.empty()));
        Manifest m = apply(base, new DropFields(Set.of(AGE)));
        assertThat(m.schema().field(AGE)).isEmpty();
        Fragment f = m.fragment(0).orElseThrow();
        assertThat(f.fieldIds()).containsExactlyInAnyOrder(ID, NAME);
        // the file that held only the dropped field is gone
        assertThat(f.files()).hasSize(1);
        assertThat(m.nextFieldId()).isEqualTo(base.nextFieldId());
    }

    @Test
    void primaryKeyCannotBeDropped() {
        assertInvalid(keyedWith(1), new DropFields(Set.of(ID)), "cannot drop field 'id': it is the primary key");
        assertThat(apply(keylessWith(1), new DropFields(Set.of(ID))).schema().field(ID)).isEmpty();
    }

    @Test
    void droppingAMissingFieldIsRejected() {
        assertInvalid(keyedWith(1), new DropFields(Set.of(NAME, 9)), "cannot drop field 9");
    }

    // ------------------------------------------------------------------ A8 ChangeSchema

    @Test
    void schemaChangeKeepingTheKeyReplacesTheSchema() {
        Schema projected = new Schema(List.of(KEYED.field(ID).orElseThrow(), Field.of(7, "score", false)), Map.of("v", "2"));
        Manifest m = apply(keyedWith(1), new ChangeSchema(projected));
        assertThat(m.schema()).isEqualTo(projected);
        assertThat(m.nextFieldId()).isEqualTo(8);
        // the counter never goes back
        Manifest narrower = apply(m, new ChangeSchema(new Schema(List.of(KEYED.field(ID).orElseThrow()), Map.of())));
        assertThat(narrower.nextFieldId()).isEqualTo(8);
    }

    @Test
    void schemaChangeRemovingThePrimaryKeyIsRejected() {
        Schema noKey = new Schema(List.of(Field.of(ID, "id", false), Field.of(NAME, "name", true)), Map.of());
        assertInvalid(keyedWith(1), new ChangeSchema(noKey), "would change the primary key from fields [0] to []");
        Schema noIdField = new Schema(List.of(Field.of(NAME, "name", true)), Map.of());
        assertInvalid(keyedWith(1), new ChangeSchema(noIdField), "would change the primary key");
    }

    @Test
    void schemaChangeMovingThePrimaryKeyIsRejected() {
        Schema moved = new Schema(List.of(Field.of(ID, "id", false),
                new Field(NAME, "name", false, -1, Map.of(PK, "true"))), Map.of());
        assertInvalid(keyedWith(1), new ChangeSchema(moved), "from fields [0] to [1]");
        Schema widened = new Schema(List.of(new Field(ID, "id", false, -1, Map.of(PK, "true")),
                new Field(NAME, "name", false, -1, Map.of(PK, "true"))), Map.of());
        assertInvalid(keyedWith(1), new ChangeSchema(widened), "from fields [0] to [0, 1]");
    }

    @Test
    void schemaChangeMakingThePrimaryKeyNullableOrRenamingItIsRejected() {
        Schema nullable = new Schema(List.of(new Field(ID, "id", true, -1, Map.of(PK, "true"))), Map.of());
        assertInvalid(keyedWith(1), new ChangeSchema(nullable), "primary-key field 'id' nullable");
        Schema renamed = new Schema(List.of(new Field(ID, "key", false, -1, Map.of(PK, "true"))), Map.of());
        assertInvalid(keyedWith(1), new ChangeSchema(renamed), "rename or make nullable");
    }

    @Test
    void schemaChangeOnAKeylessTableCannotInstallANullablePrimaryKey() {
        Schema nullableKey = new Schema(List.of(new Field(ID, "id", true, -1, Map.of(PK, "true"))), Map.of());
        assertInvalid(keylessWith(1), new ChangeSchema(nullableKey), "nullable");
        Schema plain = new Schema(List.of(Field.of(ID, "id", true), Field.of(5, "extra", true)), Map.of());
        assertThat(apply(keylessWith(1), new ChangeSchema(plain)).schema()).isEqualTo(plain);
    }

    // ------------------------------------------------------------------ A9 UpdateSchemaMetadata

    @Test
    void schemaAndFieldMetadataAreSetAndRemoved() {
        Manifest m = apply(keyedWith(1), new UpdateSchemaMetadata(List.of(
                MetadataUpdate.set(-1, "owner", "graph"), MetadataUpdate.set(NAME, "comment", "display name"))));
        assertThat(m.schema().metadata()).containsEntry("owner", "graph");
        assertThat(m.schema().field(NAME).orElseThrow().metadata()).containsEntry("comment", "display name");
        assertThat(m.schema().field(ID).orElseThrow().isPrimaryKey()).isTrue();
        Manifest removed = apply(m, new UpdateSchemaMetadata(List.of(
                MetadataUpdate.remove(-1, "owner"), MetadataUpdate.remove(NAME, "comment"))));
        assertThat(removed.schema().metadata()).doesNotContainKey("owner");
        assertThat(removed.schema().field(NAME).orElseThrow().metadata()).isEmpty();
    }

    @Test
    void primaryKeyInstallsOnANonNullFieldOfAKeylessTable() {
        Manifest m = apply(keylessWith(2), UpdateSchemaMetadata.installPrimaryKey(ID));
        assertThat(m.schema().primaryKeyFieldIds()).containsExactly(ID);
        assertThat(m.schema().keyed()).isTrue();
        // from now on a keyless append is a keyed Append and cannot be expressed
        assertThatThrownBy(() -> m.apply(List.of(append(1)))).isInstanceOf(ValidationException.class);
    }

    @Test
    void primaryKeyCannotBeInstalledOnANullableField() {
        assertInvalid(keylessWith(1), UpdateSchemaMetadata.installPrimaryKey(NAME), "'name' is nullable");
    }

    @Test
    void primaryKeyMetadataCanOnlyBeSetToTrue() {
        assertInvalid(keylessWith(1), new UpdateSchemaMetadata(List.of(MetadataUpdate.set(ID, PK, "yes"))),
                "can only be set to true");
    }

    @Test
    void resettingTheInstalledPrimaryKeyIsANoOp() {
        Manifest base = keyedWith(1);
        Manifest m = apply(base, UpdateSchemaMetadata.installPrimaryKey(ID));
        assertThat(m.schema()).isEqualTo(base.schema());
        assertThat(m.fragments()).isEqualTo(base.fragments());
    }

    @Test
    void installedPrimaryKeyCannotBeChangedOnceSet() {
        String reserved = "reserved key " + PK + " cannot be changed once set";
        Manifest keyed = keyedWith(1);
        Manifest nonNullName = apply(keyed, new ChangeSchema(new Schema(List.of(KEYED.field(ID).orElseThrow(),
                Field.of(NAME, "name", false)), Map.of())));
        assertInvalid(nonNullName, UpdateSchemaMetadata.installPrimaryKey(NAME), reserved);
        assertInvalid(keyed, new UpdateSchemaMetadata(List.of(MetadataUpdate.remove(ID, PK))), reserved);
        assertInvalid(keyed, new UpdateSchemaMetadata(List.of(MetadataUpdate.set(ID, PK, "false"))), reserved);
    }

    @Test
    void metadataForAnUnknownFieldIsRejected() {
        assertInvalid(keyedWith(1), new UpdateSchemaMetadata(List.of(MetadataUpdate.set(9, "k", "v"))),
                "metadata update for unknown field 9");
    }

    @Test
    void onlyPrimaryKeyUpdatesWriteThePrimaryKeyResource() {
        assertThat(UpdateSchemaMetadata.installPrimaryKey(ID).changesPrimaryKey()).isTrue();
        assertThat(UpdateSchemaMetadata.installPrimaryKey(ID).writes().scope(ResourceKind.PRIMARY_KEY)).isPresent();
        UpdateSchemaMetadata plain = new UpdateSchemaMetadata(List.of(MetadataUpdate.set(-1, PK, "true")));
        assertThat(plain.changesPrimaryKey()).isFalse();
        assertThat(plain.writes().scope(ResourceKind.PRIMARY_KEY)).isEmpty();
    }
}
