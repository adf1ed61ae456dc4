package io.palisade.cli;

import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.JournalCorruptedException;
import io.palisade.fencing.TableCorruptedException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** Entry point of the {@code palisade} command. */
@Command(name = "palisade", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Write coordinator for keyed Lance tables: write, read, audit and explain a graph.",
        subcommands = {InitCommand.class, WriteCommand.class, ScanCommand.class, BranchCommand.class,
                HeadsCommand.class, StatusCommand.class, CompactCommand.class, OptimizeCommand.class, AuditCommand.class,
                ReplayCommand.class, ExplainCommand.class, RecoverCommand.class, RepairCommand.class, MigrateCommand.class,
                ReportCommand.class, DemoCommand.class, HoldCommand.class, DemoWriterCommand.class, HelpCommand.class},
        exitCodeListHeading = "%nExit codes (and the JSON error kinds of each; README \"Errors: one vocabulary\"):%n",
        exitCodeList = {
                "0:ok",
                "1:internal error (internal_error, checkpoint)",
                "2:usage error: unknown command, bad option, a journal point or range outside the journal, an unknown type, branch or table (usage); a point whose table version retention removed (version_expired)",
                "3:key conflict: strict insert of an existing or concurrently inserted key (key_conflict); merge conflict (merge_conflict); "
                        + "a missing edge endpoint or a node with edges (endpoint_conflict); a unique value held (unique_conflict)",
                "4:retryable write conflict: the same request may succeed if retried (write_conflict)",
                "5:invalid input, nothing written: bad JSON line, null or duplicate id, wrong type, unknown column (validation)",
                "6:refused: writer lease held by another process, unsupported format stamp (graph_refused)",
                "7:journal, table or catalog files corrupted, or verification failed; names the sequence, the file or the difference (journal_corrupted, table_corrupted, catalog_corrupted, checkpoint_damaged)",
                "8:foreign commit: a table version no journaled write explains; not acknowledged; see recover (foreign_commit)",
                "9:a write whose outcome is not known: it may have been committed; consult the journal (palisade explain) before retrying (commit_state_unknown)",
                "10:an idempotency key given again with a different request; nothing written (idempotency_mismatch)"},
        footer = {"%nA journal point (--at, --from, --to) is a sequence (42), an ISO-8601 time with or without zone "
                + "(2026-11-29T14:00:00Z; a zone-less time is UTC), a relative time (-10m, 2h ago, now) or 'last N'. "
                + "Output: --format table|json|jsonl (--json = --format json).",
                "%nReading tools (audit, replay, explain, heads, report, audit verify, scan, branch list, recover "
                        + "--dry-run) open the journal read-only and work while a writer holds the graph. Errors are "
                        + "one line on stderr; --verbose adds the stack trace. --quiet leaves out progress, notes and "
                        + "confirmations on stderr (warnings and errors stay).",
                "%nExample:%n  palisade demo"})
public final class Main implements Runnable {
    public static final int OK = 0;
    public static final int INTERNAL = 1;
    public static final int USAGE = 2;
    public static final int KEY_CONFLICT = 3;
    public static final int WRITE_CONFLICT = 4;
    public static final int INVALID_INPUT = 5;
    public static final int REFUSED = 6;
    public static final int CORRUPTED = 7;
    public static final int FOREIGN_COMMIT = 8;
    /** A write whose outcome is not known (it may have been committed): never "retry blindly", unlike 1 or 4. */
    public static final int COMMIT_STATE_UNKNOWN = 9;
    /** An idempotency key reused for a different request: never answered with the first write's receipt. */
    public static final int IDEMPOTENCY_MISMATCH = 10;

    static volatile boolean verbose;
    /** {@code --quiet}: no progress, notes or confirmations on stderr; stdout, warnings and errors unchanged. */
    static volatile boolean quiet;
    /** Whether the command line asked for JSON output ({@code --json}): errors are then also one JSON line on stdout. */
    static volatile boolean json;
    /** Whether the command already printed its JSON result (then its error is not printed as JSON again). */
    static volatile boolean jsonPrinted;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-v", "--verbose"}, scope = CommandLine.ScopeType.INHERIT,
            description = "Log progress and print stack traces of errors.")
    void verbose(boolean v) {
        verbose = v;
    }

    @Option(names = {"-q", "--quiet"}, scope = CommandLine.ScopeType.INHERIT,
            description = "Print no progress, notes or confirmations on stderr; the results on stdout, warnings and "
                    + "errors are printed as without it.")
    void quiet(boolean q) {
        quiet = q;
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs one command in this JVM and returns its exit code, without {@code System.exit}: what {@link #main} does
     * (the end-to-end tests run the reading tools this way, in one JVM).
     */
    public static int run(String... args) {
        System.setProperty("chronicle.analytics.disable", "true");
        boolean v = false;
        for (String a : args) {
            if (a.equals("-v") || a.equals("--verbose")) {
                v = true;
            }
        }
        verbose = v;
        quiet = false;
        json = asksJson(args);
        jsonPrinted = false;
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", v ? "info" : "off");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        CommandLine cl = commandLine();
        try {
            return cl.execute(args);
        } catch (Throwable t) { // an Error escaping picocli's handler (e.g. a native library that cannot load)
            return handle(t);
        }
    }

    /**
     * Whether the command line asks for JSON output: {@code --json}, or {@code --format json|jsonl} on a command
     * that prints to stdout ({@code audit export}'s {@code --format} names a file format instead).
     */
    static boolean asksJson(String... args) {
        java.util.List<String> a = java.util.Arrays.asList(args);
        if (a.contains("--json")) {
            return true;
        }
        if (a.contains("export")) {
            return false;
        }
        for (int i = 0; i < args.length; i++) {
            String v = args[i].startsWith("--format=") ? args[i].substring("--format=".length())
                    : args[i].equals("--format") && i + 1 < args.length ? args[i + 1] : null;
            if ("json".equals(v) || "jsonl".equals(v)) {
                return true;
            }
        }
        return false;
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        versionEverywhere(cl);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> handle(ex,
                commandLine.getCommand() instanceof ReadOnly r && r.readOnly()));
        cl.setExecutionStrategy(parseResult -> {
            if (quiet && verbose) {
                List<CommandLine> parsed = parseResult.asCommandLineList();
                throw new CommandLine.ParameterException(parsed.get(parsed.size() - 1),
                        "--quiet and --verbose contradict each other; give one");
            }
            return new CommandLine.RunLast().execute(parseResult);
        });
        cl.setUsageHelpLongOptionsMaxWidth(28);
        cl.setUsageHelpAutoWidth(true);
        cl.setParameterExceptionHandler((ex, args) -> {
            String msg = Suggest.usage(ex);
            System.err.println("palisade: " + msg);
            System.err.println("usage: " + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help");
            if (json) {
                System.out.println(jsonError(USAGE, ErrorKind.USAGE, msg, ex));
            }
            return USAGE;
        });
        return cl;
    }

    /** Every subcommand's {@code --version} prints palisade's version line, as {@code palisade --version} does. */
    private static void versionEverywhere(CommandLine cl) {
        for (CommandLine sub : cl.getSubcommands().values()) {
            sub.getCommandSpec().versionProvider(new Version());
            versionEverywhere(sub);
        }
    }

    /** One line on stderr, and the exit code of the error. */
    static int handle(Throwable ex) {
        return handle(ex, false);
    }

    /**
     * One line on stderr, and the exit code of the error; {@code readOnly}: the command writes nothing, so invalid
     * input is not said to have written nothing.
     */
    static int handle(Throwable ex, boolean readOnly) {
        Throwable e = ex;
        while ((e instanceof java.util.concurrent.CompletionException || e instanceof java.util.concurrent.ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        ErrorKind kind = ErrorKind.of(e);
        int code = exitCode(e);
        String msg = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
        if (kind == ErrorKind.INTERNAL_ERROR && !(e instanceof CliException)) {
            msg = e.getClass().getSimpleName() + ": " + msg;
        }
        // a message that starts with its own kind ("foreign commit: ...") is not prefixed twice
        String words = kind.words();
        // a read-only command wrote nothing anyway: it does not say so
        String hint = readOnly && kind == ErrorKind.VALIDATION ? "" : kind.hint;
        String line = (msg.startsWith(words + ": ") ? msg : words + ": " + msg) + hint;
        System.err.println("palisade: " + line.replace('\n', ' '));
        if (json && !jsonPrinted) {
            System.out.println(jsonError(code, kind, msg, e));
        }
        if (verbose) {
            e.printStackTrace(System.err);
        }
        return code;
    }

    /**
     * One JSON line for a {@code --json} command's error, on stdout: {"error": {code, kind, retryable, message, ...}},
     * {@code kind} the {@link ErrorKind#json() JSON name} of the error's kind.
     */
    static String jsonError(int code, ErrorKind kind, String message, Throwable e) {
        java.util.Map<String, Object> err = new java.util.LinkedHashMap<>();
        err.put("code", code);
        err.put("kind", kind.json());
        err.put("retryable", e instanceof io.palisade.fencing.PalisadeException p && p.retryable());
        err.put("message", message);
        if (e instanceof TableCorruptedException t) {
            err.put("table", t.table());
            err.put("graph_branch", t.graphBranch());
            err.put("table_branch", t.tableBranch());
            err.put("version", t.version());
            err.put("files", t.files());
            err.put("intents", t.intentIds());
        }
        if (e instanceof JournalCorruptedException j) {
            err.put("sequence", j.sequence());
        }
        if (e instanceof io.palisade.fencing.CatalogCorruptedException c) {
            err.put("file", c.file());
            err.put("recorded_at_seq", c.recordedAt());
            err.put("differences", c.differences());
        }
        if (e instanceof ForeignCommitException f) {
            err.put("situation", f.situation().name().toLowerCase(java.util.Locale.ROOT));
            err.put("table", f.table());
            err.put("graph_branch", f.graphBranch());
            err.put("table_branch", f.tableBranch());
            err.put("journal_version", f.journalVersion());
            err.put("latest_version", f.latestVersion());
            err.put("foreign_versions", f.foreignVersions());
            err.put("intents", f.intentIds());
            if (f.duplicatesChecked()) {
                err.put("duplicate_keys", f.duplicateKeys());
            }
        }
        return Cli.toJson(java.util.Map.of("error", err));
    }

    /** The exit code of an error: its {@link ErrorKind}'s. */
    static int exitCode(Throwable e) {
        if (e instanceof CliException c) {
            return c.code;
        }
        return ErrorKind.of(e).code;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
