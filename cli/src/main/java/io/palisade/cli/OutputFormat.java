package io.palisade.cli;

import picocli.CommandLine.Option;

/**
 * The output flags every command with an output shares: {@code --format table|json|jsonl}, and {@code --json},
 * kept as an alias of {@code --format json} for scripts written before {@code --format}.
 */
final class OutputFormat {
    enum Format { table, json, jsonl }

    @Option(names = "--format", paramLabel = "table|json|jsonl",
            description = "Output format: table (aligned columns for people), json (one JSON document) or jsonl "
                    + "(one JSON object per line). The default is the command's own, named in its description.")
    Format format;

    @Option(names = "--json", description = "Same as --format json (kept for existing scripts).")
    boolean json;

    /** The format asked for, or {@code dflt}. */
    Format resolve(Format dflt) {
        if (json && format != null && format != Format.json) {
            throw new CliException(Main.USAGE, "--json and --format " + format + " contradict each other; give one");
        }
        return json ? Format.json : format == null ? dflt : format;
    }
}
