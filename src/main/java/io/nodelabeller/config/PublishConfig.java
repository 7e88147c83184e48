package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;


/**
 * {@code publish:} — where and how labels are written.
 *
 * @param node        patch the agent's own Node (default true)
 * @param staleAfter  scheduled cycles a failed source's labels are kept before they may be removed (default 3); cycles
 *                    fired by a change between them do not count
 * @param nodeFeature also write an NFD NodeFeature object (off by default)
 * @param featuresFile also write a features.d file at this host path ("" = off)
 * @param nodeFeatureRules read NodeFeatureRule objects from the API server and apply their rules (with {@code node};
 *                     default true; nothing happens where the CRD is not installed)
 * @param annotations  apply rules' {@code annotations} to the node (default true)
 * @param taints       apply rules' {@code taints} to the node (nfd-master's {@code enableTaints}; default false)
 * @param extendedResources apply rules' {@code extendedResources} to the node's capacity (default false)
 * @param ruleChangeSpread the cycle a NodeFeatureRule change runs starts after a random delay in [0, this] (default
 *                     30 s; 0 = at once): every agent of the cluster sees the change at the same moment, and their
 *                     patches would otherwise reach the API server together. A node's own changes are not delayed.
 */
public record PublishConfig(boolean node, int staleAfter, NodeFeatureOutput nodeFeature, String featuresFile,
                            boolean nodeFeatureRules, boolean annotations, boolean taints, boolean extendedResources,
                            java.time.Duration ruleChangeSpread) {

    /**
     * {@code publish.nodeFeature:} the NFD NodeFeature CR output. {@code namespace} "" (the default) means the
     * agent's own namespace, so that installing it elsewhere moves its NodeFeatures with its Role.
     */
    public record NodeFeatureOutput(boolean enabled, String namespace, String name) {
        public static final NodeFeatureOutput DEFAULT = new NodeFeatureOutput(false, "", "");
    }

    /** The default {@code ruleChangeSpread}: docs/scale.md shows how it was chosen. */
    public static final java.time.Duration RULE_CHANGE_SPREAD = java.time.Duration.ofSeconds(30);

    public static final PublishConfig DEFAULT = new PublishConfig(true, 3, NodeFeatureOutput.DEFAULT, "", true, true,
            false, false, RULE_CHANGE_SPREAD);

    static PublishConfig read(YamlNode n) {
        n.object("node", "staleAfter", "nodeFeature", "featuresFile", "nodeFeatureRules", "annotations", "taints",
                "extendedResources", "ruleChangeSpread");
        YamlNode nf = n.child("nodeFeature");
        nf.object("enabled", "namespace", "name");
        NodeFeatureOutput d = NodeFeatureOutput.DEFAULT;
        return new PublishConfig(
                n.child("node").bool(DEFAULT.node()),
                n.child("staleAfter").integer(DEFAULT.staleAfter(), 0, 1_000_000),
                new NodeFeatureOutput(nf.child("enabled").bool(d.enabled()), nf.child("namespace").string(d.namespace()),
                        nf.child("name").string(d.name())),
                n.child("featuresFile").string(DEFAULT.featuresFile()),
                n.child("nodeFeatureRules").bool(DEFAULT.nodeFeatureRules()),
                n.child("annotations").bool(DEFAULT.annotations()),
                n.child("taints").bool(DEFAULT.taints()),
                n.child("extendedResources").bool(DEFAULT.extendedResources()),
                n.child("ruleChangeSpread").duration(DEFAULT.ruleChangeSpread(), java.time.Duration.ZERO,
                        java.time.Duration.ofMinutes(10), "0 to 10m"));
    }
}
