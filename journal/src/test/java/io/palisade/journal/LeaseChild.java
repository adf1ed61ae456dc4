package io.palisade.journal;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.journal.JournalEvent.GraphBranchCreated;

import java.nio.file.Path;

/**
 * Child-JVM entry point of {@link LeaseProcessTest}. {@code hold DIR}: opens the journal, prints
 * {@code HELD <epoch> <pid>}, then appends forever printing {@code ACK <seq>} after each append returns
 * (until killed). {@code try DIR}: tries to open; prints {@code REFUSED <message>} and exits 3 when refused,
 * or {@code OPENED <epoch>} and exits 0.
 */
public final class LeaseChild {
    private LeaseChild() {
    }

    public static void main(String[] args) {
        Path palisade = Path.of(args[1]);
        switch (args[0]) {
            case "hold" -> {
                Journal j = Journal.open(palisade, JournalOptions.defaults());
                System.out.println("HELD " + j.epoch() + " " + ProcessHandle.current().pid());
                System.out.flush();
                for (long i = 0; ; i++) {
                    long seq = j.append(new GraphBranchCreated("b" + i, "main", i), Durability.PROCESS_CRASH);
                    System.out.println("ACK " + seq);
                    if (i % 64 == 0) {
                        System.out.flush();
                    }
                }
            }
            case "try" -> {
                try (Journal j = Journal.open(palisade, JournalOptions.defaults())) {
                    System.out.println("OPENED " + j.epoch());
                } catch (GraphRefusedException e) {
                    System.out.println("REFUSED " + e.getMessage());
                    System.out.flush();
                    System.exit(3);
                }
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }
}
