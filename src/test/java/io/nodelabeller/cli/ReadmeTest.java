package io.nodelabeller.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README is for users and stays short; what it promises exists: every command and option it names is one the
 * CLI accepts, and every file it links to is in the repository.
 */
class ReadmeTest {

    private static final Path README = Path.of("README.md");

    @Test
    void isShort() throws Exception {
        long size = Files.size(README);
        assertTrue(size <= 12 * 1024, "README.md is " + size + " bytes; reference material belongs in docs/");
    }

    @Test
    void namesEveryCommandAndNoOther() throws Exception {
        Set<String> named = new TreeSet<>();
        String text = Files.readString(README);
        int section = text.indexOf("## Command line");
        String block = text.substring(text.indexOf("```", section), text.indexOf("```", text.indexOf("```", section) + 3));
        Matcher m = Pattern.compile("(?m)^node-labeller (\\S+)").matcher(block);
        while (m.find()) {
            named.add(m.group(1));
        }
        Set<String> cli = new TreeSet<>(Main.commandLine().getSubcommands().keySet());
        cli.remove("help");
        assertEquals(cli, named);
    }

    @Test
    void everyOptionItNamesIsAccepted() throws Exception {
        CommandLine main = Main.commandLine();
        Set<String> known = new TreeSet<>();
        for (CommandLine sub : main.getSubcommands().values()) {
            sub.getCommandSpec().options().forEach(o -> known.addAll(List.of(o.names())));
        }
        // and bin/build-image.sh's, as its usage line names them
        String usage = Files.readString(Path.of("bin/build-image.sh")).lines()
                .filter(l -> l.contains("usage: $0")).findFirst().orElseThrow();
        Matcher script = Pattern.compile("--[a-z][a-z-]+").matcher(usage);
        while (script.find()) {
            known.add(script.group());
        }
        List<String> unknown = new ArrayList<>();
        Matcher m = Pattern.compile("(?<![\\w-])--[a-z][a-z-]+").matcher(Files.readString(README));
        while (m.find()) {
            String option = m.group();
            if (!known.contains(option) && !Set.of("--set", "--no-hooks").contains(option)) { // helm's
                unknown.add(option);
            }
        }
        assertEquals(List.of(), unknown);
    }

    @Test
    void linksPointToFilesThatExist() throws Exception {
        List<String> missing = new ArrayList<>();
        Matcher m = Pattern.compile("\\]\\(([^)#]+)").matcher(Files.readString(README));
        while (m.find()) {
            if (!m.group(1).startsWith("http") && !Files.exists(Path.of(m.group(1)))) {
                missing.add(m.group(1));
            }
        }
        Matcher paths = Pattern.compile("`((?:manifests|config|docs|bin)/[\\w./-]+)`").matcher(Files.readString(README));
        while (paths.find()) {
            if (!Files.exists(Path.of(paths.group(1)))) {
                missing.add(paths.group(1));
            }
        }
        assertEquals(List.of(), missing);
    }

    @Test
    void printAndExplainRunAsWrittenOnTheFakeHost() {
        for (String line : List.of("print --host-root src/test/resources/hosts/gpu-server --nvml-library /nonexistent/libnvidia-ml.so.1",
                "explain --host-root src/test/resources/hosts/gpu-server --sources pci")) {
            StringWriter out = new StringWriter();
            CommandLine cl = Main.commandLine();
            cl.setOut(new PrintWriter(out));
            int rc = cl.execute(line.split(" "));
            assertEquals(0, rc, line);
            assertTrue(out.toString().contains("feature.node.kubernetes.io/pci-0302_10de.present=true"), line + ":\n" + out);
        }
    }
}
