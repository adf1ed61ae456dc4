package io.palisade.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of the README and of docs/ names a file of the repository, and none leaves it: a reader of a
 * clean clone can follow each one.
 */
class DocLinksTest {
    /** The repository root: the parent of this module's directory (surefire runs in the module basedir). */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @Test
    void everyRelativeLinkResolvesInsideTheRepository() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages) {
            Matcher m = LINK.matcher(Files.readString(page));
            while (m.find()) {
                String target = m.group(1);
                if (target.startsWith("http://") || target.startsWith("https://") || target.startsWith("#")
                        || target.startsWith("mailto:")) {
                    continue;
                }
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                Path resolved = page.getParent().resolve(file).normalize();
                checked++;
                if (!resolved.startsWith(ROOT)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " leaves the repository");
                } else if (!Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " does not exist");
                }
            }
        }
        assertThat(checked).as("relative links checked").isGreaterThan(20);
        assertThat(broken).isEmpty();
    }
}
