package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A16: sets or removes table config and table metadata keys; {@code replace} replaces the whole config
 * map (and so touches every key).
 */
public record UpdateConfig(List<ConfigUpdate> updates, boolean replace) implements Action {

    public enum Target { CONFIG, TABLE_METADATA }

    /** One key update; an empty value removes the key. */
    public record ConfigUpdate(Target target, String key, Optional<String> value) {
        public static ConfigUpdate set(Target t, String key, String value) {
            return new ConfigUpdate(t, key, Optional.of(value));
        }
    }

    public UpdateConfig {
        updates = List.copyOf(updates);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.UPDATE_CONFIG;
    }

    @Override
    public ResourceMask reads() {
        return ResourceMask.NONE;
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder();
        if (replace) {
            b.all(ResourceKind.CONFIG);
        }
        for (ConfigUpdate u : updates) {
            b.id(u.target() == Target.CONFIG ? ResourceKind.CONFIG : ResourceKind.TABLE_METADATA, u.key());
        }
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        for (ConfigUpdate u : updates) {
            if (u.target() == null || u.key() == null || u.key().isEmpty() || u.value() == null) {
                throw new ValidationException("config update " + u + " needs a target, a non-empty key and a value or removal");
            }
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        Map<String, String> config = replace ? new HashMap<>() : new HashMap<>(base.config());
        Map<String, String> meta = new HashMap<>(base.tableMetadata());
        for (ConfigUpdate u : updates) {
            Map<String, String> m = u.target() == Target.CONFIG ? config : meta;
            u.value().ifPresentOrElse(v -> m.put(u.key(), v), () -> m.remove(u.key()));
        }
        return base.withConfig(config, meta);
    }
}
