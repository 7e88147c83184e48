package io.nodelabeller.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code node-labeller labels}: the plain list, and docs/labels.md kept equal to its Markdown. */
class LabelsCommandTest {

    private static final Path DOC = Path.of("docs/labels.md");

    @Test
    void docsLabelsMdIsWhatTheCommandPrints() throws Exception {
        Cli.Result r = Cli.run("labels", "--markdown");
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.exists(DOC), DOC + " is missing: create it with\n  " + LabelsCommand.REGENERATE);
        assertEquals(r.out(), Files.readString(DOC),
                DOC + " is not what `node-labeller labels --markdown` prints: regenerate it with\n  " + LabelsCommand.REGENERATE);
    }

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
}
