package io.nodelabeller;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shape of the code (docs/development.md), read from the source files: dependencies between the pipeline's
 * packages point one way, no package imports another that imports it back (directly or in a ring, sub-packages
 * included), and the stage rules hold inside each source's folder: discovery never labels, a labeler never reads
 * a file, nothing below cli reads the environment.
 */
class ArchitectureTest {

    private static final Path MAIN = Path.of("src/main/java/io/nodelabeller");

    /** Which of our top-level packages each top-level package may import (itself always allowed). */
    private static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            Map.entry("log", Set.of()),
            Map.entry("feature", Set.of()),
            Map.entry("nvml", Set.of()),
            Map.entry("template", Set.of()),
            Map.entry("config", Set.of("template")),
            Map.entry("label", Set.of("config", "feature", "template", "log")),
            Map.entry("source", Set.of("config", "feature", "nvml", "label", "log")),
            Map.entry("catalog", Set.of("config", "feature", "nvml", "label", "source")),
            Map.entry("publish", Set.of("config", "feature", "label", "log")),
            Map.entry("daemon", Set.of("config", "feature", "label", "source", "publish", "nvml", "log")),
            Map.entry("cli", Set.of("config", "feature", "label", "source", "catalog", "publish", "daemon", "nvml", "log")));

    /** A reference to one of our types: an import, or a fully-qualified name in the code. */
    private static final Pattern REFERENCE = Pattern.compile("io\\.nodelabeller\\.((?:[a-z]\\w*\\.)*)[A-Z]");

    /** What reading a host file looks like: the host root's API, or the JDK's file APIs. */
    private static final Pattern READS_FILES = Pattern.compile(
            "import io\\.nodelabeller\\.source\\.HostFs;|import java\\.nio\\.file\\.|import java\\.io\\.(File|\\w*Reader|\\w*InputStream)\\b");
    private static final Pattern LABELS = Pattern.compile("import io\\.nodelabeller\\.label\\.");
    /**
     * Opening, listing or looking at a file without the host root: the JDK's file APIs a source could reach a host
     * file with, imported or written out. Only {@code HostFs} may use them in the source stage.
     */
    static final Pattern OPENS_FILES = Pattern.compile("\\bjava\\.nio\\.file\\.(Files|Paths|FileSystems)\\b"
            + "|\\bjava\\.io\\.(File|FileInputStream|FileReader|RandomAccessFile)\\b"
            + "|\\bjava\\.nio\\.channels\\.FileChannel\\b|\\bnew File\\(|\\bPath\\.of\\(");

    private record JavaFile(Path path, String pkg, String text) {
        String top() {
            return pkg.contains(".") ? pkg.substring(0, pkg.indexOf('.')) : pkg;
        }

        /** Our packages this file refers to (imports and qualified names, comments included: they are code too). */
        Set<String> references() {
            Set<String> out = new TreeSet<>();
            Matcher m = REFERENCE.matcher(text.replaceFirst("(?m)^package .*$", ""));
            while (m.find()) {
                String p = m.group(1);
                out.add(p.isEmpty() ? "" : p.substring(0, p.length() - 1));
            }
            return out;
        }
    }

    private static List<JavaFile> files() throws IOException {
        List<JavaFile> out = new ArrayList<>();
        try (Stream<Path> all = Files.walk(MAIN)) {
            for (Path f : (Iterable<Path>) all.filter(p -> p.toString().endsWith(".java"))::iterator) {
                String pkg = MAIN.relativize(f.getParent()).toString().replace('/', '.');
                out.add(new JavaFile(f, pkg, Files.readString(f)));
            }
        }
        return out;
    }

    @Test
    void importsFollowThePipeline() throws IOException {
        List<String> violations = new ArrayList<>();
        for (JavaFile f : files()) {
            Set<String> allowed = ALLOWED.get(f.top());
            if (allowed == null) {
                violations.add(f.path() + ": package '" + f.top() + "' is not in the layout");
                continue;
            }
            for (String target : f.references()) {
                String top = target.contains(".") ? target.substring(0, target.indexOf('.')) : target;
                if (!top.equals(f.top()) && !allowed.contains(top)) {
                    violations.add(f.path() + " refers to io.nodelabeller." + target);
                }
            }
            if (!f.top().equals("cli") && f.text().contains("System.getenv")) {
                violations.add(f.path() + " reads the environment (only cli may: its Environment hands values down)");
            }
        }
        assertEquals(List.of(), violations);
    }

    /**
     * The loopback API server (src/loopback) stands in for kube-apiserver in the image build's training, the image
     * check and the fleet bench: Vert.x is on its classpath only (provided, never in the jar), no product class refers
     * to it or to Vert.x, and it uses none of the agent's code (an API server built from the agent's own code would
     * agree with the agent by construction, not because both follow kube-apiserver).
     */
    @Test
    void theLoopbackApiServerAndTheProductShareNoCode() throws IOException {
        List<String> violations = new ArrayList<>();
        for (JavaFile f : files()) {
            if (f.text().contains("io.vertx") || f.references().stream().anyMatch(r -> r.startsWith("loopback"))) {
                violations.add(f.path() + " refers to the loopback API server or Vert.x");
            }
        }
        Path loopback = Path.of("src/loopback/java/io/nodelabeller/loopback");
        try (Stream<Path> all = Files.walk(loopback)) {
            for (Path f : (Iterable<Path>) all.filter(p -> p.toString().endsWith(".java"))::iterator) {
                JavaFile file = new JavaFile(f, "loopback", Files.readString(f));
                assertTrue(file.text().startsWith("package io.nodelabeller.loopback;"), f.toString());
                for (String r : file.references()) {
                    if (!r.isEmpty() && !r.equals("loopback")) { // "": a class of its own package by its name
                        violations.add(f + " refers to io.nodelabeller." + r);
                    }
                }
            }
        }
        assertEquals(List.of(), violations);
    }

    /** Packages, sub-packages included, form no ring: config ↔ config.rules would be one, source ↔ source.pci another. */
    /** docs/development.md's package table shows, in its last column, exactly what {@link #ALLOWED} allows. */
    @Test
    void theDocsTableOfImportsIsThisTestsOwn() throws IOException {
        Map<String, Set<String>> documented = new TreeMap<>();
        Matcher row = Pattern.compile("(?m)^\\| `(\\w+)` \\| .* \\| ([^|]+) \\|$").matcher(Files.readString(Path.of("docs/development.md")));
        while (row.find()) {
            Set<String> imports = new TreeSet<>();
            Matcher name = Pattern.compile("`(\\w+)`").matcher(row.group(2));
            while (name.find()) {
                imports.add(name.group(1));
            }
            documented.put(row.group(1), imports);
        }
        assertEquals(new TreeMap<>(ALLOWED), documented, "docs/development.md's \"may import\" column and ALLOWED differ");
    }

    @Test
    void noPackageImportsOneThatImportsItBack() throws IOException {
        Map<String, Set<String>> edges = new TreeMap<>();
        for (JavaFile f : files()) {
            Set<String> to = edges.computeIfAbsent(f.pkg(), k -> new TreeSet<>());
            f.references().stream().filter(t -> !t.equals(f.pkg())).forEach(to::add);
        }
        List<String> rings = new ArrayList<>();
        for (String start : edges.keySet()) {
            List<String> path = ring(start, start, edges, new ArrayList<>(List.of(start)), new TreeSet<>());
            if (path != null && path.stream().allMatch(p -> p.compareTo(start) >= 0)) { // each ring once
                rings.add(String.join(" -> ", path));
            }
        }
        assertEquals(List.of(), rings);
    }

    private static List<String> ring(String start, String at, Map<String, Set<String>> edges, List<String> path,
                                     Set<String> seen) {
        for (String next : edges.getOrDefault(at, Set.of())) {
            if (next.equals(start)) {
                List<String> done = new ArrayList<>(path);
                done.add(start);
                return done;
            }
            if (seen.add(next)) {
                path.add(next);
                List<String> found = ring(start, next, edges, path, seen);
                if (found != null) {
                    return found;
                }
                path.remove(path.size() - 1);
            }
        }
        return null;
    }

    /**
     * Inside a source's folder live its discovery and its labeler, each to its stage: code that reads host files
     * never labels, and a labeler never reads a file.
     */
    /** A source reads the host through {@code HostFs} only, so that every read is under --host-root and bounded. */
    @Test
    void sourcesOpenNoFileThemselves() throws IOException {
        List<String> violations = new ArrayList<>();
        for (JavaFile f : files()) {
            if (f.top().equals("source") && !f.path().endsWith("source/HostFs.java")
                    && OPENS_FILES.matcher(f.text()).find()) {
                violations.add(f.path() + " uses the JDK's file APIs itself (read through HostFs)");
            }
        }
        assertEquals(List.of(), violations);
    }

    /** The pattern of {@link #sourcesOpenNoFileThemselves} catches the ways a source could open a file. */
    @Test
    void theFileApiPatternCatchesWhatItShould() {
        for (String code : List.of("import java.nio.file.Files;", "java.nio.file.Files.readString(p)",
                "import java.io.FileInputStream;", "import java.io.File;", "new File(\"/sys\")", "Path.of(\"/proc\")",
                "import java.nio.channels.FileChannel;", "import java.nio.file.Paths;", "import java.io.RandomAccessFile;")) {
            assertTrue(OPENS_FILES.matcher(code).find(), code);
        }
        for (String code : List.of("import java.nio.file.Path;", "import java.io.IOException;", "import java.io.InputStream;",
                "host.open(path)", "import java.io.FileNotFoundException;")) {
            assertFalse(OPENS_FILES.matcher(code).find(), code);
        }
    }

    @Test
    void discoveryNeverLabelsAndLabelersNeverReadFiles() throws IOException {
        List<String> violations = new ArrayList<>();
        for (JavaFile f : files()) {
            if (f.top().equals("source") && READS_FILES.matcher(f.text()).find() && LABELS.matcher(f.text()).find()) {
                violations.add(f.path() + " both reads host files and labels");
            }
            if (f.top().equals("label") && READS_FILES.matcher(f.text()).find()) {
                violations.add(f.path() + " is in the label stage and reads files");
            }
        }
        assertEquals(List.of(), violations);
    }
}
