package io.nodelabeller.cli;

import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.memory.MemorySource;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad input gets one clear line (plus, for usage errors, a hint to --help) and the right exit code. */
class BadInputTest {

    @TempDir
    Path tmp;

    static List<String> lines(String text) {
        return text.lines().filter(l -> !l.isBlank()).toList();
    }

    static void assertUsageError(Cli.Result r, String expectedLine) {
        assertEquals(Main.USAGE, r.code(), r.err());
        List<String> err = lines(r.err());
        assertEquals(2, err.size(), "one line and the hint, not the usage text: " + err);
        assertEquals(expectedLine, err.get(0));
        assertTrue(err.get(1).startsWith("Try 'node-labeller") && err.get(1).endsWith("--help' for more information."), err.get(1));
    }

    @Test
    void aHostRootThatIsNotADirectoryIsAUsageError() throws Exception {
        // before: exit 0 and a node without labels
        assertUsageError(Cli.run("print", "--host-root", tmp.resolve("nope").toString()),
                "node-labeller: --host-root " + tmp.resolve("nope") + ": no such directory");
        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertUsageError(Cli.run("explain", "--host-root", file.toString()),
                "node-labeller: --host-root " + file + ": not a directory");
    }

    @Test
    void aMissingKubeconfigIsAUsageErrorLikeAMissingConfig() {
        assertUsageError(Cli.run("once", "--node-name", "n1", "--kubeconfig", tmp.resolve("kubeconfig").toString(),
                        "--host-root", Hosts.root("cloud-vm").toString()),
                "node-labeller: --kubeconfig " + tmp.resolve("kubeconfig") + ": no such file");
    }

    @Test
    void usageErrorsAreOneLineAndAHint() {
        assertUsageError(Cli.run("print", "--bogus"), "node-labeller: Unknown option: '--bogus'");
        Cli.Result typo = Cli.run("prin");
        assertEquals(Main.USAGE, typo.code());
        assertFalse(typo.err().contains("Usage:"), typo.err());
        assertTrue(typo.err().contains("Did you mean: node-labeller print"), typo.err());
    }

    @Test
    void malformedYamlIsOneLineWithFileLineAndColumn() throws Exception {
        Path bad = Files.writeString(tmp.resolve("bad.yaml"), "core:\n  sleepInterval: 60s\n  labelSources: [all\n");
        Cli.Result r = Cli.run("print", "--config", bad.toString());
        assertEquals(Main.USAGE, r.code());
        assertEquals(List.of("config error: " + bad + ": not valid YAML at line 4, column 1: expected ',' or ']', but got <stream end>"
                + " (while parsing a flow sequence at line 3, column 17)"), lines(r.err()));
    }

    @Test
    void aBadLabelWhiteListIsOneLine() throws Exception {
        Path bad = Files.writeString(tmp.resolve("re.yaml"), "core:\n  labelWhiteList: \"a(b\"\n");
        Cli.Result r = Cli.run("check-config", "--config", bad.toString());
        assertEquals(Main.USAGE, r.code());
        List<String> err = lines(r.err());
        assertEquals(1, err.size(), err.toString());
        assertTrue(err.get(0).startsWith("config error: " + bad + ": core.labelWhiteList: expected a regular expression (Go RE2 syntax), got 'a(b' (error parsing regexp: missing closing ): `a(b`)"), err.get(0));
    }

    @Test
    void checkConfigNamesTheDevicePluginConfigItChecked() throws Exception {
        Path dp = Files.writeString(tmp.resolve("dp.yaml"), "version: v1\nflags:\n  migStrategy: none\n");
        Cli.Result r = Cli.run("check-config", "--device-plugin-config", dp.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("defaults: ok", dp + ": ok (device plugin config)"), lines(r.out()));
    }

    @Test
    void aWarningAboutAFileItCannotReadSaysWhy() throws Exception {
        Path root = tmp.resolve("host");
        Files.createDirectories(root.resolve("proc"));
        Files.createDirectories(root.resolve("sys/kernel/mm/hugepages")); // so that the host is visible at all
        assertEquals(0, new ProcessBuilder("mkfifo", root.resolve("proc/swaps").toString()).start().waitFor());
        List<String> warnings = new ArrayList<>();
        new MemorySource().discover(new HostFs(root), warnings::add);
        assertTrue(warnings.contains("memory.swap left out: cannot read /proc/swaps (a FIFO, socket or device, not a regular file: not read)"),
                warnings.toString());
        assertEquals("no such file", HostFs.reason(new java.nio.file.NoSuchFileException("/x")));
        assertEquals("permission denied", HostFs.reason(new java.nio.file.AccessDeniedException("/x")));
    }
}
