package io.nodelabeller.label;

import io.nodelabeller.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An install's write scope, read from its ClusterRoleBinding's annotations as the agent and the policy read them. */
class WriteScopeTest {

    private static final List<LabelDoc> GPU = Catalog.gpuLabels();
    private static final Predicate<String> GPU_LABEL = k -> GPU.stream().anyMatch(d -> d.matches(k));
    /** The shipped binding's annotations (manifests/base/common/rbac.yaml). */
    private static final Map<String, String> SHIPPED = Map.of(WriteScope.LABEL_DOMAINS, "",
            WriteScope.NVIDIA_KEYS, "nvidia.com/gdrcopy.capable,nvidia.com/gds.capable,nvidia.com/peermem.capable",
            WriteScope.DENIED_KEYS, "", WriteScope.TAINTS, "false", WriteScope.EXTENDED_RESOURCES, "false");

    private static String problem(Map<String, String> annotations, LabelSet.Kind kind, String key) {
        return WriteScope.of(annotations, "ClusterRoleBinding x").problem(kind, key, GPU_LABEL);
    }

    @ParameterizedTest
    @CsvSource({
            "feature.node.kubernetes.io/kernel-version.full",
            "sub.feature.node.kubernetes.io/x",
            "profile.node.kubernetes.io/gpu-workstation",
            "nvidia.com/gpu.product",
            "nvidia.com/mig-1g.10gb.count",
            "nvidia.com/gpu.model.NVIDIA-A100-SXM4-80GB.memory",
            "nvidia.com/gds.capable",
            "nvidia.com/peermem.capable",
            "nvidia.com/gdrcopy.capable",
    })
    void theShippedScopeWritesNfdsNamespacesTheGpuLabelsAndTheOperatorsCapabilities(String key) {
        assertNull(problem(SHIPPED, LabelSet.Kind.LABEL, key), key);
    }

    @ParameterizedTest
    @CsvSource({
            "example.com/rack, domain 'example.com' is not in the write scope (node-labeller.io/label-domains on ClusterRoleBinding x)",
            "vendor.example.com/accelerator, domain 'vendor.example.com' is not in the write scope",
            "nvidia.com/gpu.product.x, under nvidia.com only node-labeller's GPU labels and the keys of node-labeller.io/nvidia-keys",
            "nvidia.com/fabric.capable, under nvidia.com only",
            "network.nvidia.com/operator.mofed.wait, domain 'network.nvidia.com' is not in the write scope",
            "nvidia.com/gpu.deploy.driver, another component's control key",
            "nvidia.com/cc.mode, another component's control key",
            "feature.node.kubernetes.io/auto-upgrade, another component's control key",
    })
    void everythingElseIsOutside(String key, String why) {
        String problem = problem(SHIPPED, LabelSet.Kind.LABEL, key);
        assertNotNull(problem, key);
        assertTrue(problem.contains(why), problem);
    }

    @Test
    void domainsNvidiaKeysAndDeniedKeysWidenAndNarrowIt() {
        Map<String, String> a = Map.of(WriteScope.LABEL_DOMAINS, " example.com, *.intel.com ,nvidia.com, *.k8s.io, node-labeller.io",
                WriteScope.NVIDIA_KEYS, "nvidia.com/fabric.capable, nvidia.com/gpu.deploy.driver, nvidia.com, network.nvidia.com/x,"
                        + " nvidia.com/a/b",
                WriteScope.DENIED_KEYS, "rack\n^feature\\.node\\.kubernetes\\.io/secret",
                WriteScope.TAINTS, "true", WriteScope.EXTENDED_RESOURCES, "true");
        WriteScope scope = WriteScope.of(a, "ClusterRoleBinding x");
        assertEquals(List.of("example.com", "intel.com"), scope.labelDomains(), "reserved domains never count");
        assertEquals(Set.of("nvidia.com/fabric.capable"), scope.nvidiaKeys(), "exact nvidia.com keys, never a control key");
        assertEquals(List.of(WriteScope.LABEL_DOMAINS + ": nvidia.com (a reserved domain)", WriteScope.LABEL_DOMAINS
                        + ": *.k8s.io (a reserved domain)", WriteScope.LABEL_DOMAINS + ": node-labeller.io (a reserved domain)",
                WriteScope.NVIDIA_KEYS + ": nvidia.com/gpu.deploy.driver (not an exact nvidia.com/ key, or another component's"
                        + " control key)", WriteScope.NVIDIA_KEYS + ": nvidia.com (not an exact nvidia.com/ key, or another component's"
                        + " control key)", WriteScope.NVIDIA_KEYS + ": network.nvidia.com/x (not an exact nvidia.com/ key, or another"
                        + " component's control key)", WriteScope.NVIDIA_KEYS + ": nvidia.com/a/b (not an exact nvidia.com/ key, or"
                        + " another component's control key)"), WriteScope.ignored(a));
        assertNull(scope.problem(LabelSet.Kind.LABEL, "example.com/x", GPU_LABEL));
        assertNull(scope.problem(LabelSet.Kind.LABEL, "team.example.com/x", GPU_LABEL));
        assertNull(scope.problem(LabelSet.Kind.EXTENDED_RESOURCE, "sgx.intel.com/epc", GPU_LABEL), "Intel's SGX rule");
        assertNull(scope.problem(LabelSet.Kind.TAINT, "example.com/dedicated:NoSchedule", GPU_LABEL));
        assertNull(scope.problem(LabelSet.Kind.LABEL, "nvidia.com/fabric.capable", GPU_LABEL));
        assertNotNull(scope.problem(LabelSet.Kind.ANNOTATION, "nvidia.com/fabric.capable", GPU_LABEL), "labels only there");
        assertNotNull(scope.problem(LabelSet.Kind.LABEL, "nvidia.com/gpu.deploy.driver", GPU_LABEL));
        assertNotNull(scope.problem(LabelSet.Kind.LABEL, "k8s.io/x", GPU_LABEL));
        assertNotNull(scope.problem(LabelSet.Kind.LABEL, "x.node-labeller.io/managed-labels", GPU_LABEL));
        assertTrue(scope.problem(LabelSet.Kind.LABEL, "example.com/rack", GPU_LABEL).contains("denied by node-labeller.io/denied-keys"));
        assertNotNull(scope.problem(LabelSet.Kind.LABEL, "feature.node.kubernetes.io/secret-x", GPU_LABEL));
        assertNull(scope.problem(LabelSet.Kind.LABEL, "feature.node.kubernetes.io/not-secret", GPU_LABEL), "searched, like RE2's find");
    }

    @Test
    void taintsAndExtendedResourcesOnlyWhereSwitchedOn() {
        assertTrue(problem(SHIPPED, LabelSet.Kind.TAINT, "feature.node.kubernetes.io/gpu:NoSchedule")
                .contains("taints are not in the write scope (node-labeller.io/taints on ClusterRoleBinding x)"));
        assertTrue(problem(SHIPPED, LabelSet.Kind.EXTENDED_RESOURCE, "feature.node.kubernetes.io/widgets")
                .contains("extended resources are not in the write scope"));
        assertNull(problem(SHIPPED, LabelSet.Kind.ANNOTATION, "feature.node.kubernetes.io/owner"));
    }

    @Test
    void aMissingAnnotationMeansNothingMore() {
        WriteScope none = WriteScope.of(null, "ClusterRoleBinding x");
        assertEquals(List.of(), none.labelDomains());
        assertEquals(Set.of(), none.nvidiaKeys());
        assertFalse(none.taints());
        assertFalse(none.extendedResources());
        assertNotNull(none.problem(LabelSet.Kind.LABEL, "nvidia.com/gds.capable", GPU_LABEL));
        assertNull(none.problem(LabelSet.Kind.LABEL, "nvidia.com/gpu.present", GPU_LABEL));
    }

    @Test
    void aDeniedKeyThatIsNotRe2IsAClearError() {
        var e = assertThrows(IllegalArgumentException.class, () -> WriteScope.of(Map.of(WriteScope.DENIED_KEYS, "a(b"),
                "ClusterRoleBinding x"));
        assertTrue(e.getMessage().startsWith("ClusterRoleBinding x: annotation node-labeller.io/denied-keys: 'a(b' is not RE2"),
                e.getMessage());
    }

    /** More denied-keys patterns than the install supports is a clear error; the bound itself is accepted. */
    @Test
    void deniedKeysBeyondTheSupportedLengthAreAClearError() {
        String pattern = "^example\\.com/" + "x".repeat(49) + "$"; // 64 characters
        assertEquals(64, pattern.length());
        String atBound = String.join("\n", java.util.Collections.nCopies(WriteScope.MAX_DENIED_KEYS_LENGTH / 64, pattern));
        assertEquals(64, WriteScope.of(Map.of(WriteScope.DENIED_KEYS, atBound), "x").deniedKeys().size());
        var e = assertThrows(IllegalArgumentException.class, () -> WriteScope.of(Map.of(WriteScope.DENIED_KEYS,
                atBound + "\nz"), "ClusterRoleBinding x"));
        assertEquals("ClusterRoleBinding x: annotation node-labeller.io/denied-keys: 4097 characters of patterns, more than"
                + " the 4096 supported (the admission policy's cost per key grows with them)", e.getMessage());
    }
}
