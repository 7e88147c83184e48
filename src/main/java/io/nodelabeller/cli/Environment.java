package io.nodelabeller.cli;

import picocli.CommandLine.Model.CommandSpec;

import java.util.Map;

/**
 * The environment variables node-labeller reads, all of them, read here and nowhere else: the stages below the
 * command line get plain values. In a DaemonSet the downward API sets them (manifests/base/agent).
 *
 * @param vars the process environment ({@link System#getenv()}), or a map a test chooses
 */
record Environment(Map<String, String> vars) {

    /** The node the agent runs on: the default of {@code --node-name} and NFD's {@code system.name.nodename}. */
    static final String NODE_NAME = "NODE_NAME";
    /** The agent's own pod and namespace: owner references and the namespace of NodeFeature objects. */
    static final String POD_NAME = "POD_NAME";
    static final String POD_UID = "POD_UID";
    static final String POD_NAMESPACE = "POD_NAMESPACE";
    /**
     * The install the agent belongs to (its ClusterRoleBinding's name), the default of {@code --instance}; the
     * manifests set it, and kustomize keeps it equal to the binding's name through renames.
     */
    static final String INSTANCE = "NODE_LABELLER_INSTANCE";
    /** Which of its install's labels the agent writes: the default of {@code --role} (the manifests set it). */
    static final String ROLE = "NODE_LABELLER_ROLE";
    /**
     * GFD's and the device plugin's MIG strategy and failOnInitError, as the GPU Operator sets them on its operands
     * from the ClusterPolicy: the defaults of {@code --mig-strategy} and {@code --fail-on-init-error}, the first
     * variable set winning, as for GFD's flags (cmd/gpu-feature-discovery/main.go).
     */
    static final java.util.List<String> MIG_STRATEGY = java.util.List.of("GFD_MIG_STRATEGY", "MIG_STRATEGY");
    static final java.util.List<String> FAIL_ON_INIT_ERROR = java.util.List.of("GFD_FAIL_ON_INIT_ERROR", "FAIL_ON_INIT_ERROR");
    /** The root log level (TRACE, DEBUG, INFO, WARN, ERROR); INFO when unset or unknown ({@link LogSetup}). */
    static final String LOG_LEVEL = "NODE_LABELLER_LOG_LEVEL";

    Environment {
        vars = Map.copyOf(vars);
    }

    static Environment system() {
        return new Environment(System.getenv());
    }

    /** The variable's value, trimmed; "" when unset. */
    String get(String name) {
        String v = vars.get(name);
        return v == null ? "" : v.trim();
    }

    /** The value of the first of {@code names} that is set, trimmed; "" when none is. */
    String first(java.util.List<String> names) {
        return names.stream().map(this::get).filter(v -> !v.isEmpty()).findFirst().orElse("");
    }

    /** The name of the first of {@code names} that is set, or null. */
    String firstName(java.util.List<String> names) {
        return names.stream().filter(n -> !get(n).isEmpty()).findFirst().orElse(null);
    }

    /** The environment of the {@link Main} that runs {@code spec}'s command. */
    static Environment of(CommandSpec spec) {
        return ((Main) spec.root().userObject()).environment();
    }
}
