package io.nodelabeller.cli;

import io.nodelabeller.testing.Generated;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * docs/labels.md and the generated blocks ({@link Generated}) are what the declarations in the code make. With
 * {@code -Dregenerate=true} (the command {@link LabelsCommand#REGENERATE}) it writes them instead of failing.
 */
class GeneratedFilesTest {

    private static final boolean REGENERATE = Boolean.getBoolean("regenerate");

    @Test
    void everyGeneratedFileIsCurrent() throws Exception {
        List<String> stale = new ArrayList<>();
        Cli.Result r = Cli.run("labels", "--markdown");
        assertEquals(0, r.code(), r.err());
        check(Path.of("docs/labels.md"), r.out(), stale);
        for (Generated.Block b : Generated.blocks()) {
            String now = Files.readString(b.file());
            check(b.file(), Generated.apply(now, b.name(), b.text().get()), stale);
        }
        assertEquals(List.of(), stale, "generated from the declarations in the code: regenerate with\n  "
                + LabelsCommand.REGENERATE);
    }

    private static void check(Path file, String want, List<String> stale) throws Exception {
        if (Files.exists(file) && Files.readString(file).equals(want)) {
            return;
        }
        if (REGENERATE) {
            Files.writeString(file, want);
        } else {
            stale.add(file.toString());
        }
    }
}
