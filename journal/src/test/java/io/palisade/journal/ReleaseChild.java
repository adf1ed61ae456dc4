package io.palisade.journal;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child-JVM entry point of {@link RowReleaseCrashTest}: {@code DIR POINT N} writes three closed five-minute files of
 * journal-ack rows and an open fourth ({@link RowReleaseTest#write}), then runs the row release and halts the JVM
 * ({@code Runtime.halt(86)}: no shutdown hook, no flush, as SIGKILL) the Nth time the release reaches {@code POINT}
 * ({@code before-replace} or {@code after-replace}; {@code none}: never), or then moves every released file out of the
 * local journal ({@link Journal#archiveFiles}) and halts at {@code archive-before-log}, {@code archive-after-log} or
 * {@code archive-after-delete}; with {@code PER_FILE} writes of 64 KiB per file (default 3). Prints
 * {@code WRITTEN <end sequence>} before the release, {@code RELEASED <records>} after it and {@code ARCHIVED <files>}
 * after the file retention.
 */
public final class ReleaseChild {
    static final int HALT_STATUS = 86;

    private ReleaseChild() {
    }

    public static void main(String[] args) {
        Path palisade = Path.of(args[0]);
        String point = args[1];
        int nth = Integer.parseInt(args[2]);
        int perFile = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        StepClock clock = new StepClock();
        Journal j = Journal.open(palisade, JournalOptions.defaults().withClock(clock));
        RowReleaseTest.write(j, clock, 3, 0, perFile);
        RowReleaseTest.write(j, clock, 1, 100_000, perFile);
        System.out.println("WRITTEN " + j.endSequence());
        System.out.flush();
        AtomicInteger hits = new AtomicInteger();
        RowReleaseReport report = j.releaseRows(j.endSequence(), java.time.Duration.ZERO, new RowRelease.Hook() {
            @Override
            public void beforeReplace(Path file) {
                reach("before-replace");
            }

            @Override
            public void afterReplace(Path file) {
                reach("after-replace");
            }

            private void reach(String at) {
                if (at.equals(point) && hits.incrementAndGet() == nth) {
                    Runtime.getRuntime().halt(HALT_STATUS);
                }
            }
        });
        System.out.println("RELEASED " + report.records());
        System.out.flush();
        ArchiveReport archived = j.archiveFiles(Long.MAX_VALUE, 0, null, new JournalArchive.Hook() {
            @Override
            public void beforeLog(Path file) {
                reach("archive-before-log");
            }

            @Override
            public void afterLog(Path file) {
                reach("archive-after-log");
            }

            @Override
            public void afterDelete(Path file) {
                reach("archive-after-delete");
            }

            private void reach(String at) {
                if (at.equals(point) && hits.incrementAndGet() == nth) {
                    Runtime.getRuntime().halt(HALT_STATUS);
                }
            }
        });
        System.out.println("ARCHIVED " + archived.files());
        System.out.flush();
        Runtime.getRuntime().halt(0); // no close: the writer dies holding its segment open, as a killed one would
    }
}
