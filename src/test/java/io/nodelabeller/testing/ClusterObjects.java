package io.nodelabeller.testing;

/** Objects a cluster holds, as JSON, for the tests and benches that serve them from a loopback API server. */
public final class ClusterObjects {

    private ClusterObjects() {
    }

    /**
     * A NodeFeatureRule object (NFD's CRD, nfd.k8s-sigs.io/v1alpha1) named {@code name} whose one rule matches every
     * node with an os-release ID and labels it {@code label=value}.
     */
    public static String everyNodeRule(String name, String label, String value) {
        return """
                {"apiVersion": "nfd.k8s-sigs.io/v1alpha1", "kind": "NodeFeatureRule",
                 "metadata": {"name": "%s"},
                 "spec": {"rules": [{"name": "every node", "labels": {"%s": "%s"},
                   "matchFeatures": [{"feature": "system.osrelease", "matchExpressions": {"ID": {"op": "Exists"}}}]}]}}
                """.formatted(name, label, value);
    }
}
