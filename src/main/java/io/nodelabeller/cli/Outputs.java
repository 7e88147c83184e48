package io.nodelabeller.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.CoreConfig;
import io.nodelabeller.config.Role;
import io.nodelabeller.publish.Part;
import io.nodelabeller.config.PublishConfig;
import io.nodelabeller.daemon.Metrics;
import io.nodelabeller.publish.FeaturesFilePublisher;
import io.nodelabeller.publish.Install;
import io.nodelabeller.publish.KubernetesClients;
import io.nodelabeller.publish.NodeFeaturePublisher;
import io.nodelabeller.publish.DryRunPublisher;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.publish.NodeFeatureRules;
import io.nodelabeller.publish.ResourceSlices;
import io.nodelabeller.feature.DeviceSlices;
import io.nodelabeller.publish.NodePublisher;
import io.nodelabeller.publish.OwnerRefs;
import io.nodelabeller.publish.PublishEvents;
import io.nodelabeller.publish.PublishException;
import io.nodelabeller.publish.Publisher;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The publishers {@code publish:} enables, in order: the Node, the NFD NodeFeature object, the features.d file.
 * Owns the Kubernetes client (started only when a Kubernetes output is on) and closes it.
 */
final class Outputs implements AutoCloseable {

    /** An output cannot be set up: {@code usage} true for a config/usage problem (exit 2), else runtime (exit 1). */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;
        final boolean usage;

        Unavailable(String message, boolean usage) {
            super(message);
            this.usage = usage;
        }
    }

    private final List<Publisher> publishers;
    private final KubernetesClient client;
    private final NodeFeatureRules ruleObjects;
    /** The node's ResourceSlices of the NVIDIA DRA driver, once {@link #readResourceSlices} started them; else null. */
    private ResourceSlices slices;
    /** once's LIST of the NodeFeatureRule objects, on its own thread; null before it starts and for run. */
    private Thread ruleObjectsRead;

    /**
     * The most once waits for its LIST of NodeFeatureRule objects: one request of the client, whose connection and
     * answer are each bounded by the request timeout (no retries); this only guards against waiting forever.
     */
    static final Duration RULE_OBJECTS_LIST_BOUND = NodePublisher.Settings.defaults().requestTimeout().multipliedBy(3);

    private Outputs(List<Publisher> publishers, KubernetesClient client, NodeFeatureRules ruleObjects) {
        this.publishers = List.copyOf(publishers);
        this.client = client;
        this.ruleObjects = ruleObjects;
    }

    /**
     * The NodeFeatureRule objects, when the node is published to and {@code publish.nodeFeatureRules} is on; else
     * null. Not read yet: {@link #readRuleObjects(boolean, Runnable)}.
     */
    NodeFeatureRules ruleObjects() {
        return ruleObjects;
    }

    /**
     * Starts reading the NodeFeatureRule objects: {@code watch} (run) with an informer, in the background, calling
     * {@code onChange} after each change; else (once) one LIST, on its own thread (waited for by
     * {@link #awaitRuleObjects}).
     */
    void readRuleObjects(boolean watch, Runnable onChange) {
        if (ruleObjects == null) {
            return;
        }
        if (watch) {
            ruleObjects.watch(onChange);
        } else {
            // on its own thread, so that the list and the read of the node go to the API server together
            ruleObjectsRead = ruleObjects.listInBackground("rule-objects-read");
        }
    }

    /**
     * Waits for the first read of the NodeFeatureRule objects: once's LIST to its end, as long as the request takes
     * (its one cycle applies them or knows it could not); run's informer only {@code briefly}, since a change runs a
     * cycle anyway.
     */
    void awaitRuleObjects(Duration briefly) throws InterruptedException {
        if (ruleObjects == null) {
            return;
        }
        if (ruleObjectsRead != null) {
            ruleObjectsRead.join(RULE_OBJECTS_LIST_BOUND.toMillis());
        } else {
            ruleObjects.awaitKnown(briefly);
        }
    }

    List<Publisher> publishers() {
        return publishers;
    }

    /** How long after a 404 (no resource.k8s.io/v1) or a 403 the ResourceSlices are read again. */
    static final Duration RESOURCE_SLICES_RECHECK = Duration.ofMinutes(10);

    /**
     * The node's ResourceSlices of the NVIDIA DRA driver, for the {@code dra} source: where the node is published to,
     * read once the node shows {@code nvidia.com/gpu.present=true} ({@link GpuNodeSlices}) — watched ({@code watch}:
     * run, {@code onChange} called after each change) or listed once (once); else none (no cluster to read them from).
     */
    DeviceSlices readResourceSlices(boolean watch, String nodeName, Runnable onChange, Metrics metrics) {
        NodePublisher node = (NodePublisher) publishers.stream().filter(NodePublisher.class::isInstance).findFirst().orElse(null);
        if (client == null || node == null) {
            return DeviceSlices.NONE;
        }
        List<String> states = ResourceSlices.State.metricNames();
        return new GpuNodeSlices(node::seenLabels, () -> {
            metrics.resourceSlices(ResourceSlices.State.STARTING.metricName(), states);
            ResourceSlices feed = new ResourceSlices(client, nodeName, ResourceSlices.NVIDIA_GPU_DRIVER,
                    s -> metrics.resourceSlices(s.metricName(), states), RESOURCE_SLICES_RECHECK);
            synchronized (this) {
                slices = feed;
            }
            if (watch) {
                feed.watch(onChange);
            } else {
                feed.listInBackground("resource-slices-read");
            }
            return feed;
        });
    }

    /**
     * {@code core.noPublish} (NFD's dry run) turns the Kubernetes outputs into {@link DryRunPublisher}: no node name,
     * no client, nothing written to the cluster. The features.d file is not Kubernetes and is still written.
     *
     * @param early the client the caller started once the configuration was read: non-null exactly when
     *              {@link #needsClient} holds, which is when an output here takes it
     */
    static Outputs create(CoreConfig core, PublishConfig config, KubeOptions kube, EarlyClient early, Environment env,
                          Metrics metrics, boolean daemon) throws Unavailable {
        return create(core, config, kube, early, env, metrics, daemon, Part.ALL);
    }

    /**
     * As above for an agent that keeps {@code part} of its install's labels. The GPU agent ({@link Role#GPU}) reads no
     * NodeFeatureRule objects and writes no features.d file (the host agent does both), and its NodeFeature object has
     * its own name, {@value #GPU_NODE_FEATURE_PREFIX}{@code <node>}, beside the host agent's.
     */
    static Outputs create(CoreConfig core, PublishConfig config, KubeOptions kube, EarlyClient early, Environment env,
                          Metrics metrics, boolean daemon, Part part) throws Unavailable {
        boolean gpuAgent = part.role() == Role.GPU;
        if (gpuAgent && !config.node() && !config.nodeFeature().enabled()) {
            throw new Unavailable("--role gpu: publish.node and publish.nodeFeature.enabled are off (the GPU agent writes"
                    + " no features.d file): nothing to publish", true);
        }
        boolean wantsKubernetes = config.node() || config.nodeFeature().enabled();
        boolean kubernetes = wantsKubernetes && !core.noPublish();
        if (!wantsKubernetes && config.featuresFile().isEmpty()) {
            throw new Unavailable("publish: node, nodeFeature.enabled and featuresFile are all off: nothing to publish",
                    true);
        }
        if (kubernetes && !kube.hasNodeName()) {
            throw new Unavailable("no node name: set --node-name or the NODE_NAME environment variable"
                    + " (in a DaemonSet: env NODE_NAME from fieldRef spec.nodeName)", true);
        }
        List<Publisher> out = new ArrayList<>();
        KubernetesClient client = null;
        try {
            if (kubernetes) {
                client = early.take();
            }
            NodeFeatureRules objects = null;
            Install install = kubernetes ? install(client, kube.instance(), part.role()) : null;
            if (config.node() && kubernetes) {
                out.add(nodePublisher(client, kube.nodeName, daemon ? core.sleepInterval() : null, metrics, install, part));
                if (config.nodeFeatureRules() && !gpuAgent) {
                    objects = newRuleObjects(client, metrics, config.ruleChangeSpread());
                }
            }
            if (config.nodeFeature().enabled() && kubernetes) {
                out.add(new NodeFeaturePublisher(client, nodeFeatureNamespace(config.nodeFeature().namespace(),
                        env.get(Environment.POD_NAMESPACE)),
                        gpuAgent ? GPU_NODE_FEATURE_PREFIX + kube.nodeName : config.nodeFeature().name(), kube.nodeName,
                        core.ownerRefs(), gpuAgent ? gpuAgentFeatures(core.noPublishFeatures()) : core.noPublishFeatures(),
                        new OwnerRefs.Pod(env.get(Environment.POD_NAME), env.get(Environment.POD_UID)),
                        NodePublisher.Settings.defaults(), events(metrics), install));
            }
            if (wantsKubernetes && !kubernetes) {
                out.add(new DryRunPublisher());
            }
            if (!config.featuresFile().isEmpty() && !gpuAgent) {
                out.add(new FeaturesFilePublisher(Path.of(config.featuresFile())));
            }
            return new Outputs(out, client, objects);
        } catch (PublishException | RuntimeException e) {
            closeQuietly(client);
            throw new Unavailable("cannot set up the Kubernetes client"
                    + (kube.kubeconfig == null ? "" : " from " + kube.kubeconfig) + ": " + e.getMessage(), false);
        }
    }

    /**
     * Whether {@link #create} will need a Kubernetes client for this configuration: a node or NodeFeature output, not
     * {@code core.noPublish}, and a node name. A features.d file alone, or a dry run, never starts one.
     */
    static boolean needsClient(CoreConfig core, PublishConfig config, KubeOptions kube) {
        return (config.node() || config.nodeFeature().enabled()) && !core.noPublish() && kube.hasNodeName();
    }

    /**
     * A Kubernetes client for the options. Only run/once/prune get here, and only when a Kubernetes output is on:
     * print and explain never load fabric8 (PrintLoadsNoDaemonClassesIT).
     */
    static KubernetesClient client(KubeOptions kube) throws PublishException {
        return KubernetesClients.create(kube.kubeconfig);
    }

    /**
     * The install the agent belongs to: named ({@code --instance}), its write scope read from its ClusterRoleBinding
     * when first needed (its GPU labels: those the nvidia labeler documents); else none, nothing to check.
     */
    static Install install(KubernetesClient client, String instance, Role role) {
        if (instance.isEmpty()) {
            return Install.unchecked(io.nodelabeller.publish.Bookkeeping.DEFAULT);
        }
        return Install.named(client, instance, Catalog.gpuLabel(), role, NodePublisher.Settings.defaults());
    }

    /**
     * The features the GPU agent leaves out of its NodeFeature object: {@code noPublish} and its PCI scan, which the
     * host agent's object carries already — nfd-master appends the instances of a node's objects
     * (api/nfd/v1alpha1/feature.go, {@code InstanceFeatureSet.MergeInto}), so a second copy would show every PCI
     * device twice to the cluster's rules. The {@code nvidia.*} features are the GPU agent's alone.
     */
    static List<String> gpuAgentFeatures(List<String> noPublish) {
        List<String> out = new ArrayList<>(noPublish);
        out.add("pci.*");
        return out;
    }

    /**
     * Before the node's name, the name of the GPU agent's NodeFeature object. Not GPU Feature Discovery's own
     * ({@code nvidia-features-for-<node>}, internal/lm/output.go): while both run during a migration they would rewrite
     * one object in turn, and deleting GFD's DaemonSet would garbage-collect it with node-labeller's labels in it.
     */
    static final String GPU_NODE_FEATURE_PREFIX = "node-labeller-gpu-";

    /** The agent's own namespace in this version's manifests, where no POD_NAMESPACE says otherwise. */
    static final String DEFAULT_NAMESPACE = "node-labeller";

    /**
     * The namespace of the NodeFeature objects: as configured, else the agent's own ({@code POD_NAMESPACE}, from
     * the downward API), else {@value #DEFAULT_NAMESPACE}.
     */
    static String nodeFeatureNamespace(String configured, String podNamespace) {
        if (configured != null && !configured.isEmpty()) {
            return configured;
        }
        return podNamespace != null && !podNamespace.isBlank() ? podNamespace : DEFAULT_NAMESPACE;
    }

    /**
     * The Node publisher, reporting patches and API errors to the metrics. {@code interval} is the daemon's cycle
     * interval; null for a single cycle ({@code once}), which needs no watch on the node.
     */
    static Publisher nodePublisher(KubernetesClient client, String nodeName, java.time.Duration interval, Metrics metrics,
                                   Install install, Part part) {
        NodePublisher.Settings settings = NodePublisher.Settings.defaults();
        if (interval == null) {
            settings = settings.withWatchTimeout(null);
        } else if (!interval.isZero()) {
            settings = settings.withCycleInterval(interval);
        }
        NodePublisher publisher = new NodePublisher(client, nodeName, settings, events(metrics), install, part);
        publisher.prepare();
        return publisher;
    }

    /** How long after a 404 (no CRD) or a 403 the NodeFeatureRule objects are read again. */
    static final java.time.Duration RULE_OBJECTS_RECHECK = java.time.Duration.ofMinutes(10);

    private static NodeFeatureRules newRuleObjects(KubernetesClient client, Metrics metrics, java.time.Duration spread) {
        List<String> states = NodeFeatureRules.State.metricNames();
        metrics.ruleObjects(NodeFeatureRules.State.STARTING.metricName(), states);
        return new NodeFeatureRules(client, s -> metrics.ruleObjects(s.metricName(), states),
                RULE_OBJECTS_RECHECK, spread, new java.util.Random());
    }

    /** What the Kubernetes outputs report to the metrics: patches sent, API errors by status. */
    private static PublishEvents events(Metrics metrics) {
        return new PublishEvents() {
            @Override
            public void patchSent() {
                metrics.patchSent();
            }

            @Override
            public void apiError(int status) {
                metrics.apiError(status);
            }
        };
    }

    /** What the Node publisher owns on the node now, by kind; empty when there is none or the read failed. */
    java.util.Map<LabelSet.Kind, java.util.SortedMap<String, String>> ownedOnNode() {
        for (Publisher p : publishers) {
            if (p instanceof NodePublisher node) {
                try {
                    return node.ownedOutputs();
                } catch (PublishException e) {
                    org.slf4j.LoggerFactory.getLogger(Outputs.class).warn(
                            "cannot read the labels owned on the node at start ({}); the first cycle will try again",
                            e.getMessage());
                }
            }
        }
        return java.util.Map.of();
    }

    /** Label {@code key} of the node as the Node publisher last saw it; null without one or before it saw the node. */
    String nodeLabel(String key) {
        for (Publisher p : publishers) {
            if (p instanceof NodePublisher node) {
                return node.seenLabel(key);
            }
        }
        return null;
    }

    private static void closeQuietly(KubernetesClient client) {
        if (client != null) {
            client.close();
        }
    }

    @Override
    public void close() {
        if (ruleObjects != null) {
            ruleObjects.close();
        }
        synchronized (this) {
            if (slices != null) {
                slices.close();
            }
        }
        for (Publisher p : publishers) {
            p.close();
        }
        closeQuietly(client);
    }
}
