package io.nodelabeller.label;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

class LabelValidityTest {

    private final LabelValidity rules = LabelValidity.defaults();

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
            "nvidia.com/gpu.deploy|x",
            "nvidia.com/mig.capable|true",
            "nvidia.com/mig.strategy|single",
            "nvidia.com/gpu.product|NVIDIA-A100-SXM4-40GB",
            "nvidia.com/device-plugin.configured|x",
    })
    void ourOwnGpuLabelsAreNotControlKeys(String key, String value) {
        assertNull(rules.problem(key, value), key);
    }
}
