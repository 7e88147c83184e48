package io.nodelabeller.cli;

import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code explain --node-feature-rules}: NodeFeatureRule objects as {@code kubectl get nodefeaturerules -o yaml} writes
 * them (a List), run after the configured rules; every output says which rule of which object produced it.
 */
class ExplainRuleObjectsTest {

    @TempDir
    Path tmp;

    private static final String OBJECTS = """
            apiVersion: v1
            kind: List
            items:
              - apiVersion: nfd.k8s-sigs.io/v1alpha1
                kind: NodeFeatureRule
                metadata: {name: gpu-policy, resourceVersion: "812"}
                spec:
                  rules:
                    - name: dedicated gpu nodes
                      labels: {vendor.io/gpu-node: "true"}
                      annotations: {vendor.io/os: "@system.osrelease.ID"}
                      taints: [{key: vendor.io/dedicated, value: gpu, effect: NoSchedule}]
                      extendedResources: {vendor.io/widgets: "4"}
                      matchFeatures:
                        - feature: system.osrelease
                          matchExpressions: {ID: {op: Exists}}
                    - name: broken
                      labels: {vendor.io/broken: "true"}
                      matchFeatures:
                        - feature: system.osrelease
                          matchExpressions: {ID: {op: Gt, value: ["x"]}}
            """;

    @Test
    void everyOutputNamesItsObjectAndRule() throws Exception {
        Path rules = tmp.resolve("nfr.yaml");
        Files.writeString(rules, OBJECTS);
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, "publish: {taints: true, extendedResources: true}\n");
        Cli.Result r = Cli.run("explain", "--config", cfg.toString(), "--host-root", Hosts.root("gpu-server").toString(),
                "--sources", "system", "--node-feature-rules", rules.toString());
        assertEquals(0, r.code(), r.err());
        List<String> out = r.out().lines().toList();
        int label = out.indexOf("vendor.io/gpu-node=true");
        assertTrue(label >= 0, r.out());
        assertEquals("    source: nodefeaturerule", out.get(label + 1));
        // what retention waits for: the source its rule reads, and the objects themselves
        assertEquals("    waits for: nodefeaturerules, system", out.get(label + 2));
        assertTrue(out.get(label + 3).startsWith("    facts:  NodeFeatureRule gpu-policy, rule 'dedicated gpu nodes': system.osrelease"),
                out.get(label + 3));
        // annotations take values as written (nfd-master resolves @ only in labels and extended resources)
        assertTrue(out.contains("annotation vendor.io/os=@system.osrelease.ID"), r.out());
        assertTrue(out.contains("taint vendor.io/dedicated=gpu:NoSchedule"), r.out());
        assertTrue(out.contains("extended resource vendor.io/widgets=4"), r.out());
        // found when evaluated, as nfd-master finds it: the value, then the bound, must be integers
        assertTrue(r.err().contains("NodeFeatureRule objects: rule 'broken' skipped: not a number 'ubuntu'"), r.err());
    }

    @Test
    void somethingElseThanNodeFeatureRulesIsAUsageError() throws Exception {
        Path rules = tmp.resolve("cm.yaml");
        Files.writeString(rules, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
        Cli.Result r = Cli.run("explain", "--host-root", Hosts.root("gpu-server").toString(), "--sources", "system",
                "--node-feature-rules", rules.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains(rules + ": expected NodeFeatureRule objects"), r.err());
    }
}
