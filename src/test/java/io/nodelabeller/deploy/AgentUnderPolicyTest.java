package io.nodelabeller.deploy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodelabeller.cli.Cli;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.WriteScope;
import io.nodelabeller.publish.Install;
import io.nodelabeller.publish.NodePublisher;
import io.nodelabeller.publish.PublishEvents;
import io.nodelabeller.publish.PublishException;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent of an install against an API server that enforces that install's admission policy
 * ({@link PolicedNodeDispatcher}), with the install's ClusterRoleBinding as the shipped manifests create it: what its
 * configuration makes it produce is written, a key outside the install's write scope is dropped before anything is
 * sent, with one warning that names it and the setting, and the rest of the patch lands; a changed scope is picked up.
 */
class AgentUnderPolicyTest {

    @TempDir
    Path tmp;

    private static KubernetesMockServer server(PolicedNodeDispatcher dispatcher) {
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        return server;
    }

    /** The base install's ClusterRoleBinding, as rendered, created in the server. */
    private static ClusterRoleBinding createBinding(KubernetesClient client, Map<String, String> extraAnnotations) {
        ClusterRoleBinding crb = AdmissionPolicyTest.base().crb();
        Map<String, String> annotations = new TreeMap<>(crb.getMetadata().getAnnotations());
        annotations.putAll(extraAnnotations);
        return client.rbac().clusterRoleBindings().resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder(crb)
                .editMetadata().withAnnotations(annotations).endMetadata().build()).create();
    }

    /**
     * The project's gpu-server host (its features.d file has example.com/rack, /datacenter): with the shipped scope the
     * first write is admitted whole, less the example.com labels, named once; with example.com added to the scope they
     * land too, and the warning ends.
     */
    @Test
    void theGpuServersLabelsAreWrittenAndOnlyWhatIsOutsideTheScopeIsLeftOut() throws Exception {
        PolicedNodeDispatcher dispatcher = new PolicedNodeDispatcher(AdmissionPolicyTest.BASE, AdmissionPolicyTest.AGENT);
        KubernetesMockServer server = server(dispatcher);
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-1").addToLabels("kubernetes.io/hostname", "gpu-1")
                    .endMetadata().build()).create();
            createBinding(client, Map.of());
            String kubeconfig = TestKubeconfig.write(tmp, client.getMasterUrl().toString()).toString();
            Cli.Result first = Cli.run("once", "--host-root", Hosts.root("gpu-server").toString(), "--node-name", "gpu-1",
                    "--kubeconfig", kubeconfig, "--instance", "node-labeller", "--no-timestamp");
            assertEquals(0, first.code(), first.err());
            assertEquals(List.of(), dispatcher.refused());
            // what print shows for that host, less the keys outside the scope (the kubelet's hostname label stays)
            Map<String, String> printed = Cli.run("print", "--host-root", Hosts.root("gpu-server").toString(),
                    "--no-timestamp").labels();
            assertTrue(printed.size() > 50 && printed.containsKey("example.com/rack"), printed.toString());
            Map<String, String> expected = new TreeMap<>(printed);
            expected.keySet().removeIf(k -> k.startsWith("example.com/"));
            expected.put("kubernetes.io/hostname", "gpu-1");
            Map<String, String> labels = client.nodes().withName("gpu-1").get().getMetadata().getLabels();
            assertEquals(expected, new TreeMap<>(labels));
            // one line names what is left out and the setting (the host has no NVML: the nvidia source's own warning)
            List<String> dropped = first.err().lines().filter(l -> l.contains("not written, outside what this install may write"))
                    .toList();
            assertEquals(1, dropped.size(), first.err());
            assertTrue(dropped.get(0).contains(" WARN "), dropped.get(0));
            assertTrue(dropped.get(0).contains("label example.com/rack (domain 'example.com' is not in the write scope"
                    + " (node-labeller.io/label-domains on ClusterRoleBinding node-labeller))"), dropped.get(0));
            assertTrue(dropped.get(0).contains("label example.com/datacenter"), dropped.get(0));

            // the operator adds the domain to the install's scope: the agent and the policy both see it
            ClusterRoleBinding crb = client.rbac().clusterRoleBindings().withName("node-labeller").get();
            crb.getMetadata().getAnnotations().put(WriteScope.LABEL_DOMAINS, "example.com");
            client.rbac().clusterRoleBindings().resource(crb).update();
            // the API server's policy reads the edited binding too
            dispatcher.judgeWith(AdmissionPolicyTest.BASE.withScope(crb.getMetadata().getAnnotations()));
            Cli.Result second = Cli.run("once", "--host-root", Hosts.root("gpu-server").toString(), "--node-name", "gpu-1",
                    "--kubeconfig", kubeconfig, "--instance", "node-labeller", "--no-timestamp");
            assertEquals(0, second.code(), second.err());
            assertEquals(List.of(), dispatcher.refused());
            printed.put("kubernetes.io/hostname", "gpu-1");
            assertEquals(printed, new TreeMap<>(client.nodes().withName("gpu-1").get().getMetadata().getLabels()));
            assertTrue(second.err().lines().noneMatch(l -> l.contains("not written")), second.err());
        } finally {
            server.destroy();
        }
    }

    /**
     * The two agents of a GPU node (host and GPU role, one install) under the install's policy: each one's writes are
     * admitted whole — the GPU agent's first write claims new keys in the shared list, pinned — and together they give
     * what one agent gave, which they take over without a write when the install had one agent before.
     */
    @Test
    void theHostAndGpuAgentsOfOneInstallAreAdmittedWhole() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(io.nodelabeller.testing.FakeNvml.built(
                io.nodelabeller.testing.FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        String lib = io.nodelabeller.testing.FakeNvml.nvml().gpus(8, io.nodelabeller.testing.FakeNvml.a100_80gb())
                .install(tmp.resolve("lib")).toString();
        Map<String, String> scope = new TreeMap<>(AdmissionPolicyTest.base().crb().getMetadata().getAnnotations());
        scope.put(WriteScope.LABEL_DOMAINS, "example.com"); // the host's features.d labels
        PolicedNodeDispatcher dispatcher = new PolicedNodeDispatcher(AdmissionPolicyTest.BASE.withScope(scope), AdmissionPolicyTest.AGENT);
        KubernetesMockServer server = server(dispatcher);
        try (KubernetesClient client = server.createClient()) {
            for (String node : List.of("gpu-1", "gpu-2")) {
                client.nodes().resource(new NodeBuilder().withNewMetadata().withName(node).addToLabels("kubernetes.io/hostname", node)
                        .endMetadata().build()).create();
            }
            createBinding(client, Map.of(WriteScope.LABEL_DOMAINS, "example.com"));
            String kubeconfig = TestKubeconfig.write(tmp, client.getMasterUrl().toString()).toString();
            java.util.function.BiFunction<String, String, Cli.Result> once = (node, role) -> Cli.runWith(
                    Map.of("NODE_LABELLER_ROLE", role), "once", "--host-root", Hosts.root("gpu-server").toString(),
                    "--nvml-library", lib, "--node-name", node, "--kubeconfig", kubeconfig, "--instance", "node-labeller",
                    "--no-timestamp");
            // gpu-1: the two agents from the start, the GPU agent first (its pod may come up before the host agent's)
            for (String role : List.of("gpu", "host", "gpu", "host")) {
                Cli.Result r = once.apply("gpu-1", role);
                assertEquals(0, r.code(), role + ": " + r.err());
                assertTrue(r.err().lines().noneMatch(l -> l.contains(" WARN ") || l.contains(" ERROR ")), role + ": " + r.err());
            }
            // gpu-2: one agent first (the earlier layout), then the two
            assertEquals(0, once.apply("gpu-2", "all").code());
            Map<String, String> one = new TreeMap<>(client.nodes().withName("gpu-2").get().getMetadata().getLabels());
            int writes = dispatcher.admitted().size();
            assertEquals(0, once.apply("gpu-2", "host").code());
            assertEquals(0, once.apply("gpu-2", "gpu").code());
            assertEquals(writes, dispatcher.admitted().size(), "the hand-over writes nothing");
            assertEquals(List.of(), dispatcher.refused());
            one.put("kubernetes.io/hostname", "gpu-1");
            assertEquals(one, new TreeMap<>(client.nodes().withName("gpu-1").get().getMetadata().getLabels()),
                    "two agents give what one gave");
            assertEquals(client.nodes().withName("gpu-2").get().getMetadata().getAnnotations().get("node-labeller.io/managed-labels"),
                    client.nodes().withName("gpu-1").get().getMetadata().getAnnotations().get("node-labeller.io/managed-labels"));
        } finally {
            server.destroy();
        }
    }

    /** No binding of the named install: the agent publishes nothing (its policy would not apply), and says why. */
    @Test
    void withoutItsInstallsBindingTheAgentWritesNothing() throws Exception {
        PolicedNodeDispatcher dispatcher = new PolicedNodeDispatcher(AdmissionPolicyTest.BASE, AdmissionPolicyTest.AGENT);
        KubernetesMockServer server = server(dispatcher);
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-1").endMetadata().build()).create();
            String kubeconfig = TestKubeconfig.write(tmp, client.getMasterUrl().toString()).toString();
            Cli.Result r = Cli.run("once", "--host-root", Hosts.root("gpu-server").toString(), "--node-name", "gpu-1",
                    "--kubeconfig", kubeconfig, "--instance", "team-a-node-labeller");
            assertEquals(1, r.code(), r.err());
            assertTrue(r.err().contains("ClusterRoleBinding team-a-node-labeller: GET /apis/rbac.authorization.k8s.io/v1/"
                    + "clusterrolebindings/team-a-node-labeller: HTTP 404"), r.err());
            assertTrue(r.err().contains("its admission policies would not apply"), r.err());
            Node node = client.nodes().withName("gpu-1").get();
            assertTrue(node.getMetadata().getLabels() == null || node.getMetadata().getLabels().isEmpty(), node.toString());
            assertEquals(List.of(), dispatcher.admitted());
        } finally {
            server.destroy();
        }
    }

    /** An install name that cannot prefix annotations is a usage error naming the option. */
    @Test
    void anInstallNameThatCannotPrefixAnnotationsIsAUsageError() {
        Cli.Result r = Cli.run("once", "--node-name", "n1", "--instance", "Team_A");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--instance (or NODE_LABELLER_INSTANCE): install name 'Team_A' is not a DNS subdomain"), r.err());
        Cli.Result env = Cli.runWith(Map.of("NODE_LABELLER_INSTANCE", "a..b"), "prune", "--node-name", "n1");
        assertEquals(2, env.code());
        assertTrue(env.err().contains("install name 'a..b'"), env.err());
    }

    /**
     * The operator narrows the scope while the agent runs: its next write of the key is refused (403), the agent reads
     * the scope again, and its next publish removes the key it may no longer write instead of being refused again.
     */
    @Test
    void aNarrowedScopeIsReadAgainAfterARefusal() throws Exception {
        Map<String, String> wide = new TreeMap<>(AdmissionPolicyTest.base().crb().getMetadata().getAnnotations());
        wide.put(WriteScope.LABEL_DOMAINS, "example.com");
        PolicedNodeDispatcher dispatcher = new PolicedNodeDispatcher(AdmissionPolicyTest.BASE.withScope(wide), AdmissionPolicyTest.AGENT);
        KubernetesMockServer server = server(dispatcher);
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build()).create();
            createBinding(client, Map.of(WriteScope.LABEL_DOMAINS, "example.com"));
            List<io.nodelabeller.label.LabelDoc> gpu = io.nodelabeller.catalog.Catalog.gpuLabels();
            Install install = Install.named(client, "node-labeller", k -> gpu.stream().anyMatch(d -> d.matches(k)),
                    NodePublisher.Settings.defaults());
            try (NodePublisher publisher = new NodePublisher(client, "n1", NodePublisher.Settings.defaults().withWatchTimeout(null),
                    PublishEvents.NONE, install)) {
                publisher.publish(labels("feature.node.kubernetes.io/a", "1", "example.com/rack", "r1"));
                assertEquals("r1", client.nodes().withName("n1").get().getMetadata().getLabels().get("example.com/rack"));

                Map<String, String> narrow = new TreeMap<>(wide);
                narrow.put(WriteScope.LABEL_DOMAINS, "");
                ClusterRoleBinding crb = client.rbac().clusterRoleBindings().withName("node-labeller").get();
                crb.getMetadata().setAnnotations(narrow);
                client.rbac().clusterRoleBindings().resource(crb).update();
                dispatcher.judgeWith(AdmissionPolicyTest.BASE.withScope(narrow));

                PublishException e = assertThrows(PublishException.class,
                        () -> publisher.publish(labels("feature.node.kubernetes.io/a", "1", "example.com/rack", "r2")));
                assertEquals(403, e.status());
                assertEquals(List.of(), install.scope().labelDomains(), "read again after the refusal");
                publisher.publish(labels("feature.node.kubernetes.io/a", "1", "example.com/rack", "r2"));
                Map<String, String> now = client.nodes().withName("n1").get().getMetadata().getLabels();
                assertFalse(now.containsKey("example.com/rack"), now.toString());
                assertEquals("1", now.get("feature.node.kubernetes.io/a"));
            }
        } finally {
            server.destroy();
        }
    }

    private static LabelSet labels(String... kv) {
        TreeMap<String, Label> out = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.put(kv[i], Label.of(kv[i], kv[i + 1], "test", "test"));
        }
        return new LabelSet(out, List.of());
    }
}
