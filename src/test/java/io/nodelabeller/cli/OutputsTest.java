package io.nodelabeller.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class OutputsTest {

    /** NodeFeatures follow the agent into whatever namespace it is installed in, unless configured. */
    @Test
    void theNodeFeatureNamespaceIsConfiguredElseTheAgentsOwn() {
        assertEquals("nfd", Outputs.nodeFeatureNamespace("nfd", "kube-system"));
        assertEquals("kube-system", Outputs.nodeFeatureNamespace("", "kube-system"));
        assertEquals("node-labeller", Outputs.nodeFeatureNamespace("", null));
        assertEquals("node-labeller", Outputs.nodeFeatureNamespace("", " "));
    }
}
