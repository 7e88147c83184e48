package io.nodelabeller.cli;

import io.nodelabeller.catalog.Catalog;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code node-labeller labels}: the plain list, and docs/labels.md kept equal to its Markdown, which holds the one
 * list of sources in the docs.
 */
class LabelsCommandTest {

    private static final Path DOC = Path.of("docs/labels.md");

    @Test
    void plainListHasOneKeySourceExampleLinePerMarkdownRowInTheSameOrder() {
        Cli.Result plain = Cli.run("labels");
        assertEquals(0, plain.code(), plain.err());
        List<String[]> lines = plain.out().lines().map(l -> l.split("\t", -1)).toList();
        assertTrue(lines.size() > 50, plain.out());
        lines.forEach(f -> assertEquals(3, f.length, String.join("|", f)));

        // the first cell of each table row, without its backticks
        List<String> rows = Cli.run("labels", "--markdown").out().lines()
                .filter(l -> l.startsWith("| `"))
                .map(l -> l.substring(3, l.indexOf('`', 3)))
                .toList();
        assertEquals(rows, lines.stream().map(f -> f[0]).toList());
        assertTrue(lines.stream().anyMatch(f -> f[0].equals("nvidia.com/gpu.present") && f[1].equals("pci")),
                "gpu.present is tied to the pci source");
    }

    /** Each folder under source/ is a source with its catalog line, and docs/labels.md names them all, from the catalog. */
    @Test
    void theSourceFoldersTheCatalogAndTheGeneratedListAgree() throws Exception {
        List<String> folders;
        try (Stream<Path> dirs = Files.list(Path.of("src/main/java/io/nodelabeller/source"))) {
            folders = dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).sorted().toList();
        }
        assertEquals(folders, Catalog.sourceNames().stream().sorted().toList(), "a folder under source/ without its Catalog line");
        String listed = Files.readString(DOC).lines().dropWhile(l -> !l.startsWith("The sources, in the order they run"))
                .takeWhile(l -> !l.isEmpty()).collect(Collectors.joining(" "));
        assertEquals(Catalog.sourceNames(), backticked(listed.substring(listed.lastIndexOf(": ") + 2)));
    }

    /** The two places that say how to regenerate docs/labels.md say it with one command, the command's own. */
    @Test
    void theRegenerationCommandIsTheSameEverywhere() throws Exception {
        assertTrue(Files.readString(DOC).contains(LabelsCommand.REGENERATE));
        assertTrue(Files.readString(Path.of("docs/development.md")).contains(LabelsCommand.REGENERATE));
        for (Path page : List.of(Path.of("README.md"), Path.of("docs/development.md"))) {
            assertTrue(Files.readString(page).lines().filter(l -> l.contains("labels --markdown") && l.contains("> docs/labels.md"))
                    .allMatch(l -> l.contains(LabelsCommand.REGENERATE)), page + " names another command");
        }
    }

    /**
     * No page of the docs keeps a list of the sources by hand: one would go stale when a source is added. A run of
     * four or more source names in backticks is such a list; name a source where it matters, or point to
     * docs/labels.md.
     */
    @Test
    void noOtherPageListsTheSourcesByHand() throws Exception {
        String name = Catalog.sourceNames().stream().map(Pattern::quote).collect(Collectors.joining("|", "`(?:", ")`"));
        Pattern list = Pattern.compile("(?:" + name + "(?:,\\s*|\\s*/\\s*|\\s+and\\s+|,\\s+and\\s+)){3,}" + name);
        List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
            docs.filter(d -> d.toString().endsWith(".md") && !d.equals(DOC)).sorted().forEach(pages::add);
        }
        List<String> found = new ArrayList<>();
        for (Path page : pages) {
            Matcher m = list.matcher(Files.readString(page));
            while (m.find()) {
                found.add(page + ": " + m.group().replaceAll("\\s+", " "));
            }
        }
        assertEquals(List.of(), found, "sources listed by hand: point to docs/labels.md instead");
        assertTrue(list.matcher("(`pci`, `usb`, `cpu`,\n `kernel`)").find(), "the pattern finds a list across lines");
    }

    private static List<String> backticked(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("`([^`]+)`").matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}
