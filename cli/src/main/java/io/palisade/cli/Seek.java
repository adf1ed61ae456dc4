package io.palisade.cli;

import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one vocabulary of a point in the journal, shared by every command that seeks (README "Points and ranges"):
 * a sequence ({@code 42}), an ISO-8601 time with a zone ({@code 2026-11-29T14:00:00Z}, {@code ...+01:00}) or
 * without one (then UTC: {@code 2026-11-29T14:00}, {@code 2026-11-29}), a relative time ({@code -10m},
 * {@code 2h ago}, {@code now}), or {@code last N} (the last N records). Resolved against the journal by
 * {@link Span}, which turns every point outside the journal into a usage error naming the journal's range.
 */
final class Seek {
    private Seek() {
    }

    /** The text that help and errors show for the vocabulary. */
    static final String FORMS = "a sequence (42), an ISO-8601 time with or without zone (2026-11-29T14:00:00Z; "
            + "2026-11-29T14:00 is UTC), a relative time (-10m, 2h ago, now) or 'last N'";

    /** A point as the user wrote it. */
    sealed interface Point permits Seq, Time, Last {
        String text();
    }

    record Seq(long sequence, String text) implements Point {
    }

    record Time(Instant time, String text) implements Point {
    }

    /** The last {@code n} records: as a start the first of them; as an end or a point, the record just before them. */
    record Last(long n, String text) implements Point {
    }

    private static final Pattern SEQ = Pattern.compile("-?\\d+");
    private static final Pattern LAST = Pattern.compile("last[\\s:=]*(-?\\d+)", Pattern.CASE_INSENSITIVE);
    private static final Pattern RELATIVE = Pattern.compile(
            "(-)?\\s*(\\d+)\\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|weeks?)(\\s+ago)?",
            Pattern.CASE_INSENSITIVE);

    /** Parses {@code text} given to {@code option}; a usage error (exit 2) naming the forms when it is none of them. */
    static Point parse(String text, String option) {
        return parse(text, option, Instant.now());
    }

    static Point parse(String text, String option, Instant now) {
        if (text == null) {
            return null;
        }
        String s = text.strip();
        if (SEQ.matcher(s).matches()) {
            try {
                return new Seq(Long.parseLong(s), text);
            } catch (NumberFormatException e) {
                throw usage(option, text, "is too large a sequence");
            }
        }
        Matcher last = LAST.matcher(s);
        if (last.matches()) {
            long n;
            try {
                n = Long.parseLong(last.group(1));
            } catch (NumberFormatException e) {
                throw usage(option, text, "is too large a count");
            }
            if (n <= 0) {
                throw new CliException(Main.USAGE, option + " '" + text + "': last N needs N of 1 or more");
            }
            return new Last(n, text);
        }
        if (s.equalsIgnoreCase("now")) {
            return new Time(now, text);
        }
        Matcher rel = RELATIVE.matcher(s);
        if (rel.matches() && (rel.group(1) != null || rel.group(4) != null)) {
            long n = Long.parseLong(rel.group(2));
            String unit = rel.group(3).toLowerCase(Locale.ROOT);
            Duration d = switch (unit.charAt(0)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                case 'd' -> Duration.ofDays(n);
                default -> Duration.ofDays(7 * n); // w
            };
            return new Time(now.minus(d), text);
        }
        Instant t = isoTime(s);
        if (t == null) {
            throw usage(option, text, "is not a journal point: give " + FORMS);
        }
        return new Time(t, text);
    }

    /** An ISO-8601 time, with or without zone (zone-less = UTC), or a date (its start, UTC); null when it is none. */
    static Instant isoTime(String s) {
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            // try the next form
        }
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            // try the next form
        }
        try {
            return ZonedDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            // try the next form
        }
        try {
            return LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            // try the next form
        }
        try {
            return LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static CliException usage(String option, String text, String what) {
        return new CliException(Main.USAGE, option + " '" + text + "' " + what);
    }

    /** The journal's extent, against which points resolve; every point outside it is a usage error naming it. */
    static final class Span {
        private final JournalReader reader;
        final long end;
        /** The first sequence the local journal holds (0 unless its file retention moved older files out). */
        final long firstSequence;
        final Instant first;
        final Instant last;

        Span(JournalReader reader) {
            this.reader = reader;
            this.end = reader.endSequence();
            this.firstSequence = reader.firstSequence();
            this.first = end == 0 ? null : reader.record(firstSequence).map(JournalRecord::time).orElse(null);
            this.last = end == 0 ? null : reader.record(end - 1).map(JournalRecord::time).orElse(null);
        }

        /** "the journal holds sequences 0..N (T0 to T1)". */
        String range() {
            if (end == 0) {
                return "the journal is empty";
            }
            return "the journal holds sequences " + firstSequence + ".." + (end - 1) + " (" + first + " to " + last + ")"
                    + (firstSequence == 0 ? "" : "; its file retention moved the records before " + firstSequence
                    + " out");
        }

        /** The first sequence a range starting at {@code p} includes; {@code follow}: the journal's end is allowed. */
        long start(Point p, String option, boolean follow) {
            return switch (p) {
                case Seq s -> {
                    if (s.sequence() < 0 || s.sequence() > end || (s.sequence() == end && !follow)) {
                        throw outside(option, p, s.sequence() < 0 ? "a sequence is 0 or more" : "is past the journal's end");
                    }
                    yield s.sequence();
                }
                case Time t -> {
                    if (last != null && t.time().isAfter(last) && !follow) {
                        throw outside(option, p, "is after the journal's last record");
                    }
                    OptionalLong at = reader.sequenceAt(t.time());
                    yield at.isPresent() ? at.getAsLong() : end;
                }
                case Last l -> Math.max(reader.firstSequence(), end - l.n());
            };
        }

        /** The last sequence (inclusive) a range ending at {@code p} includes. */
        long end(Point p, String option) {
            return point(p, option);
        }

        /** The sequence whose state {@code p} names (the record at it folded); a usage error outside the journal. */
        long point(Point p, String option) {
            return switch (p) {
                case Seq s -> {
                    if (s.sequence() < 0 || s.sequence() >= end) {
                        throw outside(option, p, s.sequence() < 0 ? "a sequence is 0 or more" : "is past the journal's end");
                    }
                    yield s.sequence();
                }
                case Time t -> {
                    if (first == null || t.time().isBefore(first)) {
                        throw outside(option, p, firstSequence == 0
                                ? "is before the graph existed (its first record is at " + first + ")"
                                : "is before the first record the local journal holds (sequence " + firstSequence
                                + ", at " + first + "; the journal's file retention moved the older records out)");
                    }
                    Instant now = Instant.now();
                    if (t.time().isAfter(now)) {
                        // as a sequence past the end: the journal cannot say what a later record will change
                        throw outside(option, p, "is in the future (now is " + now + ")");
                    }
                    if (!t.time().isBefore(last)) {
                        yield end - 1;
                    }
                    OptionalLong after = reader.sequenceAt(t.time().plusNanos(1));
                    yield after.isPresent() ? after.getAsLong() - 1 : end - 1;
                }
                case Last l -> {
                    if (end - l.n() - 1 < 0) {
                        throw outside(option, p, "reaches before the journal's first record");
                    }
                    yield end - l.n() - 1;
                }
            };
        }

        /** A usage error when the range {@code from..to} (inclusive) is reversed. */
        static void ordered(long from, String fromOption, Point fromPoint, long to, String toOption, Point toPoint) {
            if (from > to) {
                throw new CliException(Main.USAGE, "reversed range: " + fromOption + " '" + fromPoint.text()
                        + "' (sequence " + from + ") is after " + toOption + " '" + toPoint.text() + "' (sequence " + to
                        + ")");
            }
        }

        private CliException outside(String option, Point p, String why) {
            String resolved = p instanceof Time t && !t.text().strip().equals(t.time().toString())
                    ? " (" + t.time() + ")" : "";
            return new CliException(Main.USAGE, option + " '" + p.text() + "'" + resolved + " " + why + "; " + range());
        }
    }
}
