/**
 * The {@code palisade} command (picocli): {@link io.palisade.cli.Main} and one package-private class per
 * subcommand. The reading tools (audit, replay, explain, heads, report, scan, branch list, recover --dry-run) open
 * the journal read-only and work while a writer holds the graph; the writing commands take the writer lease.
 * <p>
 * {@link io.palisade.cli.ErrorKind} is the one error vocabulary: every {@link io.palisade.fencing.PalisadeException}
 * class has one kind, one JSON name and one exit code. Only {@link io.palisade.cli.Main#main} calls
 * {@code System.exit} (DESIGN §8); {@link io.palisade.cli.Main#run} runs a command in this JVM and returns its exit
 * code.
 */
package io.palisade.cli;
