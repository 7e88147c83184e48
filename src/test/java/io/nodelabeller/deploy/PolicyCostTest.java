package io.nodelabeller.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodelabeller.deploy.AdmissionPolicyTest.Installed;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.WriteScope;
import io.nodelabeller.publish.Bookkeeping;
import io.nodelabeller.publish.Install;
import io.nodelabeller.publish.NodeFeaturePublisher;
import io.nodelabeller.publish.NodePatch;
import io.nodelabeller.publish.NodePublisher;
import io.nodelabeller.publish.OwnerRefs;
import io.nodelabeller.publish.PublishEvents;
import io.nodelabeller.testing.ControlPlane;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The write scope's supported bounds hold on the real API server, whose cost limit (1,000,000 units per CEL
 * expression) refuses a write whole when its check costs more: the largest node (4,500 keys, what the node's
 * annotations can track) is labelled under the longest denied-keys patterns a scope takes (4,096 characters) and
 * under a hundred label-domains, by the agent's own publishers with its pod-bound token — on the node and, for
 * nfd-compat, in its NodeFeature object. That the same keys in one write are refused shows what the agent's spreading
 * ({@code publish.WriteBudget}) is for.
 */
class PolicyCostTest {

    static final int LARGEST = 4500;

    /**
     * 63 patterns of 64 characters (none matches the keys written here): with the canary pattern {@link ServerJudge}
     * adds to an install, the longest denied-keys a scope takes.
     */
    static String longestDeniedKeys() {
        List<String> patterns = new ArrayList<>();
        for (int i = 0; i < 63; i++) {
            String prefix = String.format("^feature\\.node\\.kubernetes\\.io/denied-%02d-", i);
            String suffix = "[a-z0-9]+\\.present$";
            patterns.add(prefix + "y".repeat(64 - prefix.length() - suffix.length()) + suffix);
        }
        String all = String.join("\n", patterns);
        assertEquals(63 * 64, all.length() - 62, "63 x 64 characters");
        return all;
    }

    static Installed withScope(Installed installed, String key, String value) {
        Map<String, String> annotations = new TreeMap<>(installed.crb().getMetadata().getAnnotations());
        annotations.put(key, value);
        return installed.withScope(annotations);
    }

    static LabelSet labels(SortedMap<String, String> keys) {
        TreeMap<String, Label> out = new TreeMap<>();
        keys.forEach((k, v) -> out.put(k, Label.of(k, v, "test", "test")));
        return new LabelSet(out, List.of());
    }

    static SortedMap<String, String> pciKeys(int n) {
        SortedMap<String, String> out = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            out.put(String.format("feature.node.kubernetes.io/pci-%04d_10de.present", i), "true");
        }
        return out;
    }

    /** A fresh node for this test, and the agent's pod-bound token on it. */
    static String freshNode(ControlPlane cp, String node) {
        cp.admin().nodes().withName(node).delete();
        cp.admin().nodes().withName(node).waitUntilCondition(n -> n == null, 30, java.util.concurrent.TimeUnit.SECONDS);
        return cp.podBoundToken("node-labeller", "node-labeller", node);
    }

    /**
     * The largest node's first labelling under the longest patterns: in one write the server refuses it for its cost;
     * the agent spreads it over writes that are each admitted, and then removes it all in one.
     */
    @Test
    void theLargestNodesFirstLabellingUnderTheLongestDeniedKeysIsSpreadOverAdmittedWrites() throws Exception {
        ServerJudge.shared().install(withScope(AdmissionPolicyTest.BASE, WriteScope.DENIED_KEYS, longestDeniedKeys()));
        assertSpreadOverAdmittedWrites("cost-1", pciKeys(LARGEST));
    }

    /**
     * A hundred label-domains: the largest node's keys in an entry's own domain are one lookup each, one write; in a
     * subdomain of an entry each key is checked against every entry, which in one write the server refuses for its
     * cost, and the agent spreads over admitted writes.
     */
    @Test
    void aHundredLabelDomainsAdmitTheLargestNode() throws Exception {
        List<String> domains = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            domains.add(String.format("team-%03d.example.com", i));
        }
        Installed policy = withScope(AdmissionPolicyTest.BASE, WriteScope.LABEL_DOMAINS, String.join(",", domains));
        SortedMap<String, String> own = new TreeMap<>();
        SortedMap<String, String> sub = new TreeMap<>();
        for (int i = 0; i < LARGEST; i++) {
            own.put(String.format("%s/key-%04d", domains.get(99), i), "true");
            sub.put(String.format("rack.%s/key-%04d", domains.get(99), i), "true");
        }
        Map<String, Object> bare = AdmissionPolicyTest.node(x -> {
            AdmissionPolicyTest.map(x, "metadata").remove("labels");
            AdmissionPolicyTest.map(x, "metadata").remove("annotations");
        });
        Map<String, Object> labelled = AdmissionPolicyTest.agentWrites(policy, bare, NodePatch.Desired.labels(own));
        assertEquals(LARGEST, ((Map<?, ?>) ((Map<?, ?>) labelled.get("metadata")).get("labels")).size());
        assertSpreadOverAdmittedWrites("cost-3", sub);
    }

    /**
     * {@code keys} on a fresh node: refused in one write for its cost, written whole by the agent's NodePublisher
     * over several admitted writes, then removed.
     */
    static void assertSpreadOverAdmittedWrites(String node, SortedMap<String, String> keys) throws Exception {
        ControlPlane cp = ServerJudge.shared().controlPlane();
        String token = freshNode(cp, node);
        @SuppressWarnings("unchecked")
        Map<String, Object> bare = Kustomize.YAML.convertValue(cp.admin().nodes().withName(node).get(), Map.class);
        NodePatch.Plan whole = NodePatch.plan(AdmissionPolicyTest.asPatchNode(bare), NodePatch.Desired.labels(keys),
                Bookkeeping.DEFAULT);
        try (KubernetesClient agent = cp.client(token)) {
            KubernetesClientException refused = assertThrows(KubernetesClientException.class, () -> agent.nodes()
                    .withName(node).patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                            io.fabric8.kubernetes.client.dsl.base.PatchType.JSON), NodePublisher.json(whole.node())));
            assertTrue(refused.getMessage().contains("cost limit exceeded"), refused.getMessage());

            AtomicInteger patches = new AtomicInteger();
            PublishEvents counting = new PublishEvents() {
                @Override
                public void patchSent() {
                    patches.incrementAndGet();
                }
            };
            Install install = Install.named(agent, "node-labeller", k -> false, io.nodelabeller.config.Role.ALL,
                    NodePublisher.Settings.defaults());
            try (NodePublisher publisher = new NodePublisher(agent, node,
                    NodePublisher.Settings.defaults().withWatchTimeout(null), counting, install)) {
                publisher.publish(labels(keys));
                Map<String, String> on = cp.admin().nodes().withName(node).get().getMetadata().getLabels();
                assertEquals(keys.size() + 1, on.size(), "every key, and the kubelet's hostname label");
                assertTrue(on.entrySet().containsAll(keys.entrySet()));
                assertTrue(patches.get() > 1, "spread over writes: " + patches.get());
                publisher.publish(labels(new TreeMap<>()));
                assertEquals(1, cp.admin().nodes().withName(node).get().getMetadata().getLabels().size());
            }
        }
    }

    /**
     * nfd-compat: the largest NodeFeature under the longest patterns. Created whole it is refused for its cost; the
     * agent creates it with what fits and adds the rest in updates, each admitted (the policy checks what a write
     * adds or changes).
     */
    @Test
    void theLargestNodeFeatureUnderTheLongestDeniedKeysIsSpreadOverAdmittedWrites() throws Exception {
        ServerJudge judge = ServerJudge.shared();
        judge.install(withScope(AdmissionPolicyTest.NODE_FEATURE, WriteScope.DENIED_KEYS, longestDeniedKeys()));
        ControlPlane cp = judge.controlPlane();
        SortedMap<String, String> keys = pciKeys(LARGEST);
        String token = freshNode(cp, "cost-2");
        var nodeFeatures = cp.admin().genericKubernetesResources(ServerJudge.NODE_FEATURES).inNamespace("node-labeller");
        nodeFeatures.withName("cost-2").delete();
        try (KubernetesClient agent = cp.client(token)) {
            Map<String, Object> whole = AdmissionPolicyTest.nodeFeature("cost-2", "cost-2", keys);
            KubernetesClientException refused = assertThrows(KubernetesClientException.class, () -> agent
                    .genericKubernetesResources(ServerJudge.NODE_FEATURES).inNamespace("node-labeller")
                    .resource(Kustomize.YAML.convertValue(whole, GenericKubernetesResource.class)).create());
            assertTrue(refused.getMessage().contains("cost limit exceeded"), refused.getMessage());

            Install install = Install.named(agent, "node-labeller", k -> false, io.nodelabeller.config.Role.HOST,
                    NodePublisher.Settings.defaults());
            NodeFeaturePublisher publisher = new NodeFeaturePublisher(agent, "node-labeller", "cost-2", "cost-2", List.of(),
                    List.of(), OwnerRefs.Pod.NONE, NodePublisher.Settings.defaults(), PublishEvents.NONE, install);
            assertTrue(publisher.publish(labels(keys)));
            GenericKubernetesResource written = nodeFeatures.withName("cost-2").get();
            assertEquals(keys, new TreeMap<>((Map<?, ?>) ((Map<?, ?>) written.getAdditionalProperties().get("spec")).get("labels")));
            assertTrue(written.getMetadata().getGeneration() > 10, "spread over writes: " + written.getMetadata().getGeneration());
        }
    }
}
