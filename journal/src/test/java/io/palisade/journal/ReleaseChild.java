package io.palisade.journal;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child-JVM entry point of {@link RowReleaseCrashTest}: {@code DIR POINT N} writes three closed five-minute files of
 * journal-ack rows and an open fourth ({@link RowReleaseTest#write}), then runs the row release and halts the JVM
 * ({@code Runtime.halt(86)}: no shutdown hook, no flush, as SIGKILL) the Nth time the release reaches {@code POINT}
 * ({@code before-replace} or {@code after-replace}). Prints {@code WRITTEN <end sequence>} before the release.
 */
public final class ReleaseChild {
    static final int HALT_STATUS = 86;

    private ReleaseChild() {
    }

    public static void main(String[] args) {
        Path palisade = Path.of(args[0]);
        String point = args[1];
        int nth = Integer.parseInt(args[2]);
        StepClock clock = new StepClock();
        Journal j = Journal.open(palisade, JournalOptions.defaults().withClock(clock));
        RowReleaseTest.write(j, clock, 3, 0);
        RowReleaseTest.write(j, clock, 1, 100);
        System.out.println("WRITTEN " + j.endSequence());
        System.out.flush();
        AtomicInteger hits = new AtomicInteger();
        j.releaseRows(j.endSequence(), new RowRelease.Hook() {
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
        System.out.println("RELEASED");
        System.out.flush();
        Runtime.getRuntime().halt(0); // no close: the writer dies holding its segment open, as a killed one would
    }
}
