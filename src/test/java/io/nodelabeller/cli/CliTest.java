package io.nodelabeller.cli;

import io.nodelabeller.cli.Cli.Result;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.List;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.nodelabeller.cli.Cli.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CliTest {

    @TempDir
    Path tmp;

    @Test
    void printTextIsSortedKeyValueLines() {
        Result r = run("print", "--host-root", Hosts.root("cloud-vm").toString());
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertTrue(lines.length > 0);
        for (int i = 1; i < lines.length; i++) {
            // sorted by key: compare what is before '=' ("AVX=true" comes before "AVX2=true")
            String previous = lines[i - 1].substring(0, lines[i - 1].indexOf('='));
            String current = lines[i].substring(0, lines[i].indexOf('='));
            assertTrue(previous.compareTo(current) < 0, "sorted: " + lines[i - 1] + " / " + lines[i]);
        }
        assertTrue(r.out().contains("feature.node.kubernetes.io/kernel-version.major="), r.out());
    }

    @Test
    void printJsonAndYaml() {
        Result json = run("print", "--format", "json", "--host-root", Hosts.root("cloud-vm").toString());
        assertEquals(0, json.code());
        assertTrue(json.out().trim().startsWith("{") && json.out().contains("\"feature.node.kubernetes.io/kernel-version.major\" : \""),
                json.out());
        Result yaml = run("print", "--format", "yaml", "--host-root", Hosts.root("cloud-vm").toString());
        assertEquals(0, yaml.code());
        assertTrue(yaml.out().contains("feature.node.kubernetes.io/kernel-version.major: \""), yaml.out());
    }

    @Test
    void explainShowsFacts() {
        Result r = run("explain", "--host-root", Hosts.root("cloud-vm").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("facts:  kernel.version.major = '"), r.out());
        assertTrue(r.out().contains("proc/sys/kernel/osrelease"), r.out());
    }

    @Test
    void badConfigExitsTwoNamingFileAndKey() throws Exception {
        Path cfg = tmp.resolve("bad.yaml");
        Files.writeString(cfg, "core:\n  sleepInterval: soon\n  nope: 1\n");
        for (String cmd : new String[] {"check-config", "print"}) {
            Result r = run(cmd, "--config", cfg.toString());
            assertEquals(2, r.code(), cmd);
            assertTrue(r.err().contains(cfg + ": core.sleepInterval: expected a duration"), r.err());
            assertTrue(r.err().contains(cfg + ": core.nope: unknown key"), r.err());
            assertEquals("", r.out());
        }
    }

    @Test
    void checkConfigOk() throws Exception {
        Path cfg = tmp.resolve("good.yaml");
        Files.writeString(cfg, "core:\n  sleepInterval: 30s\n");
        Result r = run("check-config", "--config", cfg.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(cfg + ": ok\n", r.out());
    }

    @Test
    void missingConfigFileAndUnknownSourceAreUsageErrors() {
        Result r = run("print", "--config", tmp.resolve("nope.yaml").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("nope.yaml: file not found"), r.err());
        Result s = run("print", "--sources", "nosuch");
        assertEquals(2, s.code());
        assertTrue(s.err().contains("unknown source 'nosuch'"), s.err());
        assertEquals(2, run("print", "--format", "xml").code());
        assertEquals(2, run("bogus-command").code());
    }

    /**
     * NFD skips an unknown name in core.featureSources / labelSources with a log line (pkg/nfd-worker/nfd-worker.go):
     * print and run do the same, naming file and key path; check-config lists every one and exits 2. On the command
     * line (--sources) an unknown name stays a usage error.
     */
    @Test
    void unknownSourceNamesInTheConfigAreSkippedWithAWarningAndFailCheckConfig() throws Exception {
        Path cfg = tmp.resolve("nfd-worker.conf");
        Files.writeString(cfg, "core:\n  featureSources: [kernel, rdt, -fake]\n  labelSources: [kernel, fake]\n");
        Result r = run("print", "--config", cfg.toString(), "--host-root", Hosts.root("cloud-vm").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("feature.node.kubernetes.io/kernel-version.full="), r.out());
        assertTrue(r.err().contains(cfg + ": core.featureSources[1]: unknown source 'rdt' skipped, as NFD skips it"), r.err());
        assertTrue(r.err().contains(cfg + ": core.featureSources[2]: unknown source 'fake' skipped"), r.err());
        assertTrue(r.err().contains(cfg + ": core.labelSources[1]: unknown label source 'fake' skipped"), r.err());

        Result check = run("check-config", "--config", cfg.toString());
        assertEquals(2, check.code());
        assertEquals(3, check.err().lines().filter(l -> l.startsWith("config error: " + cfg + ": core.")).count(), check.err());
    }

    /** check-config lists every problem of the config file, its custom.d files and the device plugin config in one run. */
    @Test
    void checkConfigListsTheProblemsOfEveryFileTogether() throws Exception {
        Path rules = Files.createDirectories(tmp.resolve("custom.d"));
        Files.writeString(rules.resolve("team.yaml"), "- {name: t, labels: {a: b}, matchFeatures: [{feature: pcidevice}]}\n");
        Path cfg = tmp.resolve("all.yaml");
        Files.writeString(cfg, "core:\n  customRulesDir: " + rules + "\n  noPublish: maybe\n  featureSources: [all, rdt]\n");
        Path dp = tmp.resolve("dp.yaml");
        Files.writeString(dp, "version: v1\nflags:\n  migStrategy: sometimes\n");
        Result r = run("check-config", "--config", cfg.toString(), "--device-plugin-config", dp.toString());
        assertEquals(2, r.code());
        List<String> lines = r.err().lines().filter(l -> l.startsWith("config error: ")).toList();
        assertTrue(lines.stream().anyMatch(l -> l.contains(cfg + ": core.noPublish:")), r.err());
        assertTrue(lines.stream().anyMatch(l -> l.contains(cfg + ": core.featureSources[1]: unknown source 'rdt'")), r.err());
        assertTrue(lines.stream().anyMatch(l -> l.contains(rules.resolve("team.yaml") + ": [0].matchFeatures[0].feature:")), r.err());
        assertTrue(lines.stream().anyMatch(l -> l.contains(dp + ": flags.migStrategy:")), r.err());
    }

    @Test
    void printWithoutGpuOrNvmlSaysInOneLineWhyThereAreNoNvmlLabels() {
        Result r = run("print", "--host-root", Hosts.root("cloud-vm").toString(),
                "--nvml-library", tmp.resolve("missing/libnvidia-ml.so.1").toString());
        assertEquals(0, r.code(), r.err());
        long lines = r.err().lines().filter(l -> l.contains("NVML unavailable")).count();
        assertEquals(1, lines, r.err());
        assertTrue(r.out().contains("feature.node.kubernetes.io/kernel-version.full="), r.out());
        assertTrue(!r.out().contains("nvidia.com/"), r.out());
    }

    @Test
    void versionAndHelp() {
        assertEquals(0, run("--version").code());
        Result h = run("--help");
        assertEquals(0, h.code());
        assertTrue(h.out().contains("print"), h.out());
    }

    @Test
    void aNamedCommandIsBuiltAloneAndEveryOtherLineGetsThemAll() {
        List<String> all = List.of("print", "explain", "check-config", "run", "once", "prune", "labels", "affinity", "help");
        assertEquals(all, List.copyOf(Main.commandLine().getSubcommands().keySet()));
        for (String[] args : List.of(new String[] {"--help"}, new String[] {"help", "print"}, new String[] {"prin"},
                new String[] {"--version"})) {
            assertEquals(all, List.copyOf(Main.commandLine(args).getSubcommands().keySet()), String.join(" ", args));
        }
        for (String name : all.subList(0, all.size() - 1)) {
            assertEquals(List.of(name), List.copyOf(Main.commandLine(name, "--help").getSubcommands().keySet()), name);
        }
    }

    @Test
    void helpAndUsageErrorsStillSeeEveryCommand() {
        Result top = run("--help");
        for (String name : List.of("print", "explain", "check-config", "run", "once", "prune", "labels", "affinity")) {
            assertTrue(top.out().contains("  " + name + " "), name + " missing from:\n" + top.out());
        }
        Result help = run("help", "once");
        assertEquals(0, help.code(), help.err());
        assertTrue(help.out().startsWith("Usage: node-labeller once"), help.out());
        Result typo = run("prin", "--host-root", "/");
        assertEquals(Main.USAGE, typo.code());
        assertTrue(typo.err().contains("Did you mean: node-labeller print or"), typo.err());
        Result own = run("print", "--help");
        assertEquals(0, own.code(), own.err());
        assertTrue(own.out().startsWith("Usage: node-labeller print"), own.out());
        Result bad = run("print", "--no-such-option");
        assertEquals(Main.USAGE, bad.code());
        assertTrue(bad.err().contains("Try 'node-labeller print --help'"), bad.err());
    }
}
