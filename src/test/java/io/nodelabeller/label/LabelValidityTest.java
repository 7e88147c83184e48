package io.nodelabeller.label;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

class LabelValidityTest {

    /** The agent's rules: the default namespaces. */
    private final LabelValidity rules = io.nodelabeller.catalog.Catalog.labelValidity(io.nodelabeller.config.Config.DEFAULT.core());

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "feature.node.kubernetes.io/kernel-version.full|6.8.0-45-generic",
            "feature.node.kubernetes.io/kernel-version.revision|''",
            "nvidia.com/gpu.product|NVIDIA-A100-SXM4-40GB",
            "sub.feature.node.kubernetes.io/x|y",
            "profile.node.kubernetes.io/x|y",
            "example.com/a|b",
    })
    void acceptsValid(String key, String value) {
        assertNull(rules.problem(key, value));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "kubernetes.io/hostname|x",
            "node.kubernetes.io/x|y",
            "k8s.io/x|y",
            "sub.k8s.io/x|y",
            "node-role.kubernetes.io/worker|''",
            "node-restriction.kubernetes.io/x|y",
            "unprefixed|y",
            "example.com/-bad|y",
            "example.com/bad-|y",
            "Example.com/x|y",
            "example.com/x|has space",
            "example.com/x|-lead",
            "example.com/x|trail.",
            "example.com/x|a+b",
            "example.com/|y",
    })
    void rejectsInvalid(String key, String value) {
        assertNotNull(rules.problem(key, value), key + "=" + value);
    }

    @Test
    void lengthLimits() {
        String n63 = "a".repeat(63);
        assertNull(rules.problem("example.com/" + n63, n63));
        assertNotNull(rules.problem("example.com/" + n63 + "a", "x"));
        assertNotNull(rules.problem("example.com/x", n63 + "a"));
        String longPrefix = ("a".repeat(60) + ".").repeat(4) + "com"; // 247 chars
        assertNull(rules.problem(longPrefix + "/x", "y"));
        assertNotNull(rules.problem("b".repeat(7) + "." + longPrefix + "/x", "y"));
    }

    @Test
    void extraNamespacesAllowAndDeny() {
        LabelValidity custom = new LabelValidity(List.of("special.kubernetes.io"), List.of("*.vendor.com", "denied.io"));
        assertNull(custom.problem("special.kubernetes.io/x", "y"));
        assertNotNull(custom.problem("a.vendor.com/x", "y"));
        assertNotNull(custom.problem("denied.io/x", "y"));
        assertNull(custom.problem("other.io/x", "y"));
        // node-role is denied whatever the config says
        assertNotNull(new LabelValidity(List.of("node-role.kubernetes.io"), List.of()).problem("node-role.kubernetes.io/x", "y"));
        assertEquals(null, custom.problem("feature.node.kubernetes.io/x", "y"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "nvidia.com/gpu.deploy.driver|false",
            "nvidia.com/gpu.deploy.operands|false",
            "nvidia.com/mig.config|all-1g.5gb",
            "nvidia.com/mig.config.state|success",
            "nvidia.com/device-plugin.config|a100",
            "nvidia.com/gpu.workload.config|vm-passthrough",
            "nvidia.com/cc.mode|off",
            "nvidia.com/cc.mode.state|on",
            "nvidia.com/vgpu.config|A100-4C",
            "nvidia.com/vgpu.config.state|success",
            "nvidia.com/gpu-driver-upgrade-state|upgrade-required",
            "example.com/Auto-Upgrade|true",
    })
    void controlKeysOfOtherComponentsAreNeverWritten(String key, String value) {
        String problem = rules.problem(key, value);
        assertNotNull(problem, key);
        org.junit.jupiter.api.Assertions.assertTrue(problem.contains("control key"), problem);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "nvidia.com/mig.capable|true",
            "nvidia.com/mig.strategy|single",
            "nvidia.com/gpu.product|NVIDIA-A100-SXM4-40GB",
            "nvidia.com/mig-1g.10gb.count|7",
            "nvidia.com/mig-3g.40gb.engines.copy|3",
    })
    void ourOwnGpuLabelsAreAllowed(String key, String value) {
        assertNull(rules.problem(key, value), key);
    }

    /**
     * Under nvidia.com's subdomains nothing (the Network Operator's operator.* keys), whatever core.extraLabelNs allows;
     * under nvidia.com itself, labels that are no control key: which of them are written is the install's write scope
     * (WriteScopeTest).
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "network.nvidia.com/operator.mofed.wait|false",
            "sub.nvidia.com/x|y",
            "NVIDIA.com/gpu.product|x",
    })
    void nothingUnderNvidiaComsSubdomains(String key, String value) {
        assertNotNull(rules.problem(key, value), key);
        assertNotNull(new LabelValidity(List.of("nvidia.com", "*.nvidia.com"), List.of()).problem(key, value),
                key + " with nvidia.com in extraLabelNs");
    }

    @Test
    void noOtherOutputUnderNvidiaCom() {
        assertNotNull(rules.problem(LabelSet.Kind.EXTENDED_RESOURCE, "nvidia.com/gpu", "8"));
        assertNotNull(rules.problem(LabelSet.Kind.EXTENDED_RESOURCE, "nvidia.com/mig-1g.10gb.count", "8"),
                "a GPU label's key is a label's, not a resource's");
        assertNotNull(rules.problem(LabelSet.Kind.TAINT, "nvidia.com/gpu:NoSchedule", ""));
        assertNotNull(rules.problem(LabelSet.Kind.TAINT, "nvidia.com/gpu.present:NoSchedule", "true"));
        assertNotNull(rules.problem(LabelSet.Kind.ANNOTATION, "nvidia.com/gpu.product", "x"));
        assertNull(rules.problem(LabelSet.Kind.EXTENDED_RESOURCE, "feature.node.kubernetes.io/widgets", "4"));
        assertNull(rules.problem(LabelSet.Kind.TAINT, "feature.node.kubernetes.io/gpu:NoSchedule", ""));
        assertNull(rules.problem(LabelSet.Kind.LABEL, "nvidia.com/gds.capable", "true"), "a label: the write scope decides");
    }
}
