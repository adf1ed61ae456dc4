package io.palisade.cli;

import io.palisade.journal.JournalEvent;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The event type names {@code audit --type} accepts: the snake_case names {@code JsonRenderer.typeName} renders,
 * derived from the sealed {@link JournalEvent}'s records (through its sealed sub-interfaces, such as
 * {@code JournaledWrite}, which are not types of their own), so a new event type is known here at once.
 */
final class EventTypes {
    static final List<String> NAMES = records(JournalEvent.class).map(c -> snake(c.getSimpleName())).sorted().toList();
    static final int WIDTH = NAMES.stream().mapToInt(String::length).max().orElse(24);

    private EventTypes() {
    }

    /** The records {@code sealed} permits, directly or through its sealed sub-interfaces. */
    private static java.util.stream.Stream<Class<?>> records(Class<?> sealed) {
        return Arrays.stream(sealed.getPermittedSubclasses())
                .flatMap(c -> c.isRecord() ? java.util.stream.Stream.<Class<?>>of(c) : records(c)).distinct();
    }

    static String snake(String camel) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < camel.length(); i++) {
            char c = camel.charAt(i);
            if (Character.isUpperCase(c) && i > 0) {
                sb.append('_');
            }
            sb.append(Character.toLowerCase(c));
        }
        return sb.toString();
    }

    /** A usage error (exit 2) listing the valid types, and the nearest one, when {@code type} is none of them. */
    static void require(String type, String option) {
        if (NAMES.contains(type)) {
            return;
        }
        List<String> near = Suggest.nearest(type.toLowerCase(Locale.ROOT), NAMES);
        throw new CliException(Main.USAGE, option + " '" + type + "' is not an event type"
                + (near.isEmpty() ? "" : " (did you mean " + String.join(" or ", near) + "?)")
                + "; the types are " + String.join(", ", NAMES));
    }
}
