package io.palisade.substrate.lance;

import io.palisade.fencing.ValidationException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Lance 7.0.0's {@code Dataset.createBranch} opens the new table branch's object store from the process environment
 * ({@code AWS_*}), not from the storage options the dataset was opened with (docs/scale-out.md). Where the two
 * disagree, a fork would write the branch to another store, or to the right one with other credentials, or fail
 * half way with a transport error. So a fork on an object store is refused before Lance is called unless, for every
 * setting the storage options give, the environment gives the same value:
 *
 * <pre>
 * storage option                    environment variable
 * aws_endpoint (endpoint)           AWS_ENDPOINT
 * aws_region (region)               AWS_REGION or AWS_DEFAULT_REGION
 * aws_access_key_id                 AWS_ACCESS_KEY_ID
 * aws_secret_access_key             AWS_SECRET_ACCESS_KEY
 * aws_session_token                 AWS_SESSION_TOKEN
 * allow_http (aws_allow_http)       AWS_ALLOW_HTTP
 * </pre>
 *
 * A setting the storage options leave out is Lance's own default on both paths and is not compared. Messages name
 * the variables and show the values of the non-secret ones only.
 */
public final class BranchEnvironment {
    private record Setting(List<String> optionKeys, List<String> variables, boolean secret) {
    }

    private static final List<Setting> SETTINGS = List.of(
            new Setting(List.of("aws_endpoint", "endpoint", "aws_endpoint_url"), List.of("AWS_ENDPOINT"), false),
            new Setting(List.of("aws_region", "region"), List.of("AWS_REGION", "AWS_DEFAULT_REGION"), false),
            new Setting(List.of("aws_access_key_id", "access_key_id"), List.of("AWS_ACCESS_KEY_ID"), true),
            new Setting(List.of("aws_secret_access_key", "secret_access_key"), List.of("AWS_SECRET_ACCESS_KEY"), true),
            new Setting(List.of("aws_session_token", "session_token"), List.of("AWS_SESSION_TOKEN"), true),
            new Setting(List.of("allow_http", "aws_allow_http"), List.of("AWS_ALLOW_HTTP"), false));

    private BranchEnvironment() {
    }

    /**
     * What the environment {@code env} would have to change for a table branch forked under {@code root} to reach the
     * store the storage options {@code options} name: one line per setting ({@code AWS_ENDPOINT is unset; the storage
     * options give http://...}); empty when they agree or {@code root} is not on an object store.
     */
    public static List<String> mismatches(String root, Map<String, String> options, Map<String, String> env) {
        List<String> out = new ArrayList<>();
        if (!ConditionalPutProbe.isObjectStore(root)) {
            return out;
        }
        for (Setting s : SETTINGS) {
            Optional<String> wanted = ConditionalPutProbe.option(options, s.optionKeys().toArray(String[]::new));
            if (wanted.isEmpty()) {
                continue;
            }
            String want = normal(s, wanted.get());
            boolean same = s.variables().stream().map(env::get)
                    .anyMatch(v -> v != null && normal(s, v).equals(want));
            if (!same) {
                String have = s.variables().stream().filter(v -> env.get(v) != null).findFirst()
                        .map(v -> v + (s.secret() ? " differs" : " is " + env.get(v))).orElse(s.variables().get(0)
                                + " is unset");
                out.add(have + "; the storage options give " + (s.secret() ? "another value (" + s.optionKeys().get(0)
                        + ", not shown)" : want + " (" + s.optionKeys().get(0) + ")"));
            }
        }
        return out;
    }

    /**
     * Refuses a fork of {@code table} under {@code root} when {@link #mismatches} finds any; nothing is written.
     *
     * @throws ValidationException naming every variable to set
     */
    public static void check(String root, String table, Map<String, String> options, Map<String, String> env) {
        List<String> m = mismatches(root, options, env);
        if (!m.isEmpty()) {
            throw new ValidationException("cannot fork a branch of table '" + table + "' on " + root + ": Lance opens a "
                    + "new table branch's store from the AWS_* environment, not from the storage options, and they "
                    + "disagree: " + String.join("; ", m) + ". Set the AWS_* variables to the storage options' values "
                    + "(docs/scale-out.md)");
        }
    }

    private static String normal(Setting s, String v) {
        String t = v.strip();
        if (s.variables().get(0).equals("AWS_ENDPOINT")) {
            return t.replaceAll("/+$", "");
        }
        if (s.variables().get(0).equals("AWS_ALLOW_HTTP")) {
            return t.toLowerCase(Locale.ROOT);
        }
        return t;
    }
}
