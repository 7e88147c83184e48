package io.nodelabeller;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Dependencies between the pipeline's packages point one way (docs/development.md): the model and the NVML binding
 * depend on nothing of ours, sources never reach publishing, nothing imports cli. Read from the source files.
 */
class ArchitectureTest {

    /** Which of our top-level packages each package may import (itself always allowed). */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "feature", Set.of(),
            "nvml", Set.of(),
            "config", Set.of(),
            "source", Set.of("config", "feature", "nvml"),
            "label", Set.of("config", "feature"),
            "publish", Set.of("config", "feature", "label"),
            "daemon", Set.of("config", "feature", "label", "source", "publish", "nvml"),
            "cli", Set.of("config", "feature", "label", "source", "publish", "daemon", "nvml"));

    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?io\\.nodelabeller\\.(\\w+)", Pattern.MULTILINE);

    @Test
    void importsFollowThePipeline() throws IOException {
        Path main = Path.of("src/main/java/io/nodelabeller");
        List<String> violations = new ArrayList<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                String pkg = main.relativize(file).getName(0).toString();
                Set<String> allowed = ALLOWED.get(pkg);
                if (allowed == null) {
                    violations.add(file + ": package '" + pkg + "' is not in the layout");
                    continue;
                }
                String text = Files.readString(file);
                if (!pkg.equals("cli") && text.contains("System.getenv")) {
                    violations.add(file + " reads the environment (only cli may: its Environment hands values down)");
                }
                Matcher m = IMPORT.matcher(text);
                while (m.find()) {
                    String target = m.group(1);
                    if (!target.equals(pkg) && !allowed.contains(target)) {
                        violations.add(file + " imports io.nodelabeller." + target);
                    }
                }
                // fully-qualified references count as imports too
                Matcher q = Pattern.compile("io\\.nodelabeller\\.(\\w+)\\.").matcher(text.replaceAll("(?m)^(package|import) .*$", ""));
                while (q.find()) {
                    String target = q.group(1);
                    if (!target.equals(pkg) && !allowed.contains(target)) {
                        violations.add(file + " refers to io.nodelabeller." + target);
                    }
                }
            }
        }
        assertEquals(List.of(), violations);
    }
}
