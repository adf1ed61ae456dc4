package io.palisade.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * What {@code palisade --version} prints: {@code palisade <version> (commit <hash>)}, the hash followed by "-dirty"
 * when the tree it was built from differed from that commit ({@code git status} listed a change or an untracked
 * file), and "commit unknown" when it was built without git history. The build writes both into
 * {@code version.properties}.
 */
final class Version implements CommandLine.IVersionProvider {
    private static final String RESOURCE = "version.properties";

    @Override
    public String[] getVersion() {
        return new String[] {line(read())};
    }

    /** The properties the build wrote; empty when the resource is missing (classes run outside the build). */
    static Properties read() {
        Properties p = new Properties();
        try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    /** The version line of {@code p}: a property the build left unset ("${...}") or absent is unknown. */
    static String line(Properties p) {
        String version = known(p.getProperty("version"));
        String commit = known(p.getProperty("commit"));
        String dirty = known(p.getProperty("dirty"));
        return "palisade " + (version == null ? "(version unknown)" : version) + " ("
                + (commit == null ? "commit unknown" : "commit " + commit + ("true".equals(dirty) ? "-dirty" : ""))
                + ")";
    }

    private static String known(String value) {
        return value == null || value.isBlank() || value.contains("${") ? null : value.strip();
    }
}
