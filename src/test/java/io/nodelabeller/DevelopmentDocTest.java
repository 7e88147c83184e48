package io.nodelabeller;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The files docs/development.md names are there: a renamed or removed script or folder fails here, not a reader. */
class DevelopmentDocTest {

    /** A path in backticks under one of the repository's top-level folders; placeholders ({@code <name>}, "...") are not paths. */
    private static final Pattern PATH = Pattern.compile("`((?:bin|bench|src|config|manifests|docs)/[^` <>]+)[` ]");

    @Test
    void everyPathItNamesExistsAndEveryScriptRuns() throws Exception {
        Matcher m = PATH.matcher(Files.readString(Path.of("docs/development.md")));
        TreeSet<String> named = new TreeSet<>();
        while (m.find()) {
            if (!m.group(1).contains("...")) {
                named.add(m.group(1));
            }
        }
        assertTrue(named.contains("bench/gpu/check.sh") && named.contains("bin/build-image.sh"), "the pattern finds nothing: " + named);
        List<String> wrong = new ArrayList<>();
        for (String name : named) {
            Path path = Path.of(name);
            if (!Files.exists(path)) {
                wrong.add(name + " is not there");
            } else if ((name.endsWith(".sh") || name.endsWith(".py")) && !Files.isExecutable(path)) {
                wrong.add(name + " is not executable");
            }
        }
        assertEquals(List.of(), wrong);
    }
}
