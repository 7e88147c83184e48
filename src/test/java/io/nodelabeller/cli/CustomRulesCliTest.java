package io.nodelabeller.cli;

import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** check-config and print with custom rules and local feature files, through the real command line. */
class CustomRulesCliTest {

    @TempDir
    Path tmp;

    @Test
    void checkConfigListsEveryRuleProblemAndExitsTwo() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("custom.d"));
        Files.writeString(dir.resolve("gpu.yaml"), """
                - name: fine
                  labels: {gpu-node: "true"}
                  matchFeatures:
                    - feature: pci.device
                      matchExpressions: {vendor: "10de"}
                - name: broken
                  labels: {x: "true"}
                  matchFeatures:
                    - feature: pci.device
                      matchExpressions:
                        vendor: {op: Like, value: ["10de"]}
                        class: {op: Gt, value: ["03"], extra: 1}
                        device: {op: InRegexp, value: ["*"]}
                """);
        Path cfg = tmp.resolve("nfd-worker.conf");
        Files.writeString(cfg, """
                core:
                  customRulesDir: %s
                sources:
                  custom:
                    - name: ok
                      labels: {a: "b"}
                    - name: also-broken
                      labelsTemplate: "{{ range .pci.device }}{{ env .vendor }}=1{{ end }}"
                      matchFeatures: [{feature: pci.device, matchExpressions: {vendor: {op: GtLt, value: ["1"]}}}]
                """.formatted(dir));
        Cli.Result r = Cli.run("check-config", "--config", cfg.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals("", r.out());
        List<String> lines = r.err().lines().toList();
        Path rules = dir.resolve("gpu.yaml");
        assertEquals(List.of(
                "config error: " + cfg + ": sources.custom[1].labelsTemplate: expected a Go template: at offset 26: "
                        + "function \"env\" not defined",
                "config error: " + cfg + ": sources.custom[1].matchFeatures[0].matchExpressions.vendor.value: expected "
                        + "exactly two integer values for op GtLt, got [1]",
                "config error: " + rules + ": [1].matchFeatures[0].matchExpressions.vendor.op: expected one of In, NotIn, "
                        + "InRegexp, Exists, DoesNotExist, Gt, Lt, GtLt, IsTrue, IsFalse, got 'Like'",
                "config error: " + rules + ": [1].matchFeatures[0].matchExpressions.device.value: expected valid regular "
                        + "expressions (Go RE2 syntax) for op InRegexp, '*' is not: error parsing regexp: missing argument to repetition operator: `*`",
                // what NFD's worker accepts leniently comes last: check-config lists it too
                "config error: " + rules + ": [1].matchFeatures[0].matchExpressions.class.extra: unknown key ignored, as "
                        + "NFD's worker ignores it (an expression has op and value)"), lines);
    }

    /**
     * A custom.d file with a broken rule (another team's ConfigMap) costs only itself, as in NFD's worker: print
     * applies the config's rules and the other files, and says in one line which file was left out and why.
     */
    @Test
    void aBrokenCustomDFileIsLeftOutAloneByTheAgent() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("custom.d"));
        Files.writeString(dir.resolve("a-good.yaml"), "- {name: good, labels: {team-a: \"true\"}}\n");
        Files.writeString(dir.resolve("b-broken.yaml"), "- {name: broken, labels: {team-b: \"true\"}, "
                + "matchFeatures: [{feature: pci.device, matchExpressions: {vendor: {op: Like, value: [\"10de\"]}}}]}\n");
        Path cfg = tmp.resolve("c.yaml");
        Files.writeString(cfg, "core:\n  customRulesDir: " + dir + "\nsources:\n  custom:\n    - {name: own, labels: {own: \"true\"}}\n");
        Cli.Result r = Cli.run("print", "--config", cfg.toString(), "--sources", "kernel",
                "--host-root", io.nodelabeller.testing.Hosts.root("cloud-vm").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("feature.node.kubernetes.io/own=true\n"), r.out());
        assertTrue(r.out().contains("feature.node.kubernetes.io/team-a=true\n"), r.out());
        assertFalse(r.out().contains("team-b"), r.out());
        assertEquals(1, r.err().lines().filter(l -> l.contains(dir.resolve("b-broken.yaml") + ": rule file skipped")
                && l.contains("[0].matchFeatures[0].matchExpressions.vendor.op")).count(), r.err());

        Cli.Result check = Cli.run("check-config", "--config", cfg.toString());
        assertEquals(2, check.code(), "check-config stays strict");
    }

    @Test
    void checkConfigAcceptsGoodRules() throws Exception {
        Path cfg = tmp.resolve("ok.yaml");
        Files.writeString(cfg, "core:\n  customRulesDir: \"\"\nsources:\n  local: {}\n  custom:\n"
                + "    - {name: r, labels: {a: b}, matchFeatures: [{feature: kernel.loadedmodule, matchExpressions: [nvidia]}]}\n");
        Cli.Result r = Cli.run("check-config", "--config", cfg.toString());
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void printShowsLocalAndRuleLabels() throws Exception {
        Path cfg = tmp.resolve("c.yaml");
        Files.writeString(cfg, """
                core:
                  customRulesDir: ""
                sources:
                  custom:
                    - name: from-local-feature
                      labels: {has-asset-tag: "@local.feature.asset-tag"}
                      matchFeatures:
                        - feature: local.feature
                          matchExpressions: {asset-tag: {op: InRegexp, value: ["^INV-"]}}
                """);
        Cli.Result r = Cli.run("print", "--config", cfg.toString(), "--sources", "local",
                "--host-root", Hosts.root("gpu-server").toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                example.com/datacenter=fra2
                example.com/owner=ml-platform
                example.com/rack=r12-u07
                feature.node.kubernetes.io/has-asset-tag=INV-004211
                feature.node.kubernetes.io/infiniband=true
                feature.node.kubernetes.io/node-pool=a100-inference
                feature.node.kubernetes.io/warranty=active
                """, r.out());
    }

    /**
     * Each rule output names the sources it waits for: those of the features its terms read and its values copy, all
     * the rules before it for a term on rule.matched (NFD's built-in rdma rules, on pci and kernel, come first), and
     * none for a rule without match terms.
     */
    @Test
    void explainShowsWhatEachRuleOutputWaitsFor() throws Exception {
        Path cfg = tmp.resolve("c.yaml");
        Files.writeString(cfg, """
                core:
                  customRulesDir: ""
                sources:
                  custom:
                    - name: copies a local feature
                      labels: {asset: "@local.feature.asset-tag"}
                      matchFeatures:
                        - feature: system.osrelease
                          matchExpressions: {ID: {op: Exists}}
                    - name: always
                      labels: {always: "yes"}
                    - name: after
                      labels: {after: "yes"}
                      matchFeatures:
                        - feature: rule.matched
                          matchExpressions: {always: {op: In, value: ["yes"]}}
                """);
        Cli.Result r = Cli.run("explain", "--config", cfg.toString(), "--sources", "system,local,pci,kernel",
                "--host-root", Hosts.root("gpu-server").toString());
        assertEquals(0, r.code(), r.err());
        List<String> out = r.out().lines().toList();
        assertEquals(List.of("    source: custom", "    waits for: local, system"), shownUnder(out, "feature.node.kubernetes.io/asset=INV-004211"));
        assertEquals(List.of("    source: custom", "    waits for: no source (its rule reads no feature)"),
                shownUnder(out, "feature.node.kubernetes.io/always=yes"));
        assertEquals(List.of("    source: custom", "    waits for: kernel, local, pci, system"),
                shownUnder(out, "feature.node.kubernetes.io/after=yes"));
        List<String> builtIn = shownUnder(out, "example.com/rack=r12-u07");
        assertEquals("    source: local", builtIn.get(0), "a built-in label shows the source it is computed from");
        assertTrue(builtIn.get(1).startsWith("    facts:  "), builtIn.toString());
    }

    /** The two lines under {@code head} in explain's output. */
    private static List<String> shownUnder(List<String> out, String head) {
        int i = out.indexOf(head);
        assertTrue(i >= 0, head + " not in " + String.join("\n", out));
        return out.subList(i + 1, i + 3);
    }

    @Test
    void explainOnTheHostileTreeShowsDroppedLabelsAndWarnings() {
        Cli.Result r = Cli.run("explain", "--sources", "local", "--host-root", Hosts.root("hostile").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("vendor.example.com/good=yes\n    source: local\n"), r.out());
        assertTrue(r.out().contains("# dropped kubernetes.io/denied=true (local): namespace 'kubernetes.io' is not allowed"),
                r.out());
        assertTrue(r.out().contains("# source local warning: /etc/kubernetes/node-feature-discovery/features.d/00-huge: "
                + "skipped, 70049 bytes is over the 65536 byte limit"), r.out());
    }
}
