package io.nodelabeller.cli;

import io.nodelabeller.config.CoreConfig;
import io.nodelabeller.config.PublishConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OutputsTest {

    /** NodeFeatures follow the agent into whatever namespace it is installed in, unless configured. */
    @Test
    void theNodeFeatureNamespaceIsConfiguredElseTheAgentsOwn() {
        assertEquals("nfd", Outputs.nodeFeatureNamespace("nfd", "kube-system"));
        assertEquals("kube-system", Outputs.nodeFeatureNamespace("", "kube-system"));
        assertEquals("node-labeller", Outputs.nodeFeatureNamespace("", null));
        assertEquals("node-labeller", Outputs.nodeFeatureNamespace("", " "));
    }

    /**
     * run and once start building the Kubernetes client as soon as the configuration is read, only where an output
     * will take it: a dry run or a features.d file alone never loads the client (its classes stay out of memory).
     */
    @Test
    void aClientIsStartedEarlyOnlyForAnOutputThatTakesIt() {
        KubeOptions named = new KubeOptions();
        named.nodeName = "worker-1";
        KubeOptions unnamed = new KubeOptions();
        CoreConfig core = CoreConfig.DEFAULT;
        CoreConfig dryRun = new CoreConfig(core.sleepInterval(), core.featureSources(), core.labelSources(),
                core.labelWhiteList(), core.extraLabelNs(), core.denyLabelNs(), true, core.ownerRefs(),
                core.noPublishFeatures(), core.customRulesDir(), core.sourceTimeout());
        PublishConfig node = PublishConfig.DEFAULT;
        PublishConfig nodeFeatureOnly = new PublishConfig(false, 3, new PublishConfig.NodeFeatureOutput(true, "", ""), "",
                true, true, false, false, PublishConfig.RULE_CHANGE_SPREAD);
        PublishConfig fileOnly = new PublishConfig(false, 3, PublishConfig.NodeFeatureOutput.DEFAULT, "/tmp/f", true, true,
                false, false, PublishConfig.RULE_CHANGE_SPREAD);

        assertTrue(Outputs.needsClient(core, node, named));
        assertTrue(Outputs.needsClient(core, nodeFeatureOnly, named));
        assertFalse(Outputs.needsClient(core, fileOnly, named), "a features.d file is not Kubernetes");
        assertFalse(Outputs.needsClient(dryRun, node, named), "core.noPublish");
        assertFalse(Outputs.needsClient(core, node, unnamed), "no node name: the outputs fail before any request");
    }
}
