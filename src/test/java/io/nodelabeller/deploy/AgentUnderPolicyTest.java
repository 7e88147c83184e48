package io.nodelabeller.deploy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.cli.Cli;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.WriteScope;
import io.nodelabeller.publish.Install;
import io.nodelabeller.publish.NodePublisher;
import io.nodelabeller.publish.PublishEvents;
import io.nodelabeller.publish.PublishException;
import io.nodelabeller.testing.ControlPlane;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
 * The agent of an install against a real kube-apiserver that enforces that install's admission policy, with the
 * install's objects as the shipped manifests create them ({@link ServerJudge}) and the agent's credentials as its
 * DaemonSet pod gets them (a service-account token bound to a Pod on its node): what its configuration makes it
 * produce is written, a key outside the install's write scope is dropped before anything is sent, with one warning
 * that names it and the setting, and the rest of the patch lands; a changed scope is picked up.
 */
class AgentUnderPolicyTest {

    @TempDir
    Path tmp;

    /** A kubeconfig with the agent's pod-bound token for {@code node} (a fresh node of this test). */
    private Path agentKubeconfig(String node) throws java.io.IOException {
        return agentKubeconfig(node, "node-labeller", true);
    }

    /** As above, for the service account {@code account}; {@code fresh}: the node deleted first. */
    private Path agentKubeconfig(String node, String account, boolean fresh) throws java.io.IOException {
        ControlPlane cp = ServerJudge.shared().controlPlane();
        if (fresh) {
            cp.admin().nodes().withName(node).delete();
            cp.admin().nodes().withName(node).waitUntilCondition(n -> n == null, 30, java.util.concurrent.TimeUnit.SECONDS);
        }
        return cp.kubeconfig(java.nio.file.Files.createDirectories(tmp.resolve(account)), node,
                cp.podBoundToken("node-labeller", account, node));
    }

    /** overlays/gpu's install (two agents), its binding annotated with {@code extraAnnotations} on top. */
    private static AdmissionPolicyTest.Installed twoAgents(Map<String, String> extraAnnotations) {
        Map<String, String> annotations = new TreeMap<>(AdmissionPolicyTest.TWO_AGENTS.crb().getMetadata().getAnnotations());
        annotations.putAll(extraAnnotations);
        return AdmissionPolicyTest.TWO_AGENTS.withScope(annotations);
    }

    /** The base install, its ClusterRoleBinding annotated with {@code extraAnnotations} on top of the shipped scope. */
    private static AdmissionPolicyTest.Installed base(Map<String, String> extraAnnotations) {
        Map<String, String> annotations = new TreeMap<>(AdmissionPolicyTest.base().crb().getMetadata().getAnnotations());
        annotations.putAll(extraAnnotations);
        return AdmissionPolicyTest.BASE.withScope(annotations);
    }

    private static Map<String, String> labels(String node) {
        return new TreeMap<>(ServerJudge.shared().admin().nodes().withName(node).get().getMetadata().getLabels());
    }

    /**
     * The project's gpu-server host (its features.d file has example.com/rack, /datacenter): with the shipped scope the
     * first write is admitted whole, less the example.com labels, named once; with example.com added to the scope they
     * land too, and the warning ends.
     */
    @Test
    void theGpuServersLabelsAreWrittenAndOnlyWhatIsOutsideTheScopeIsLeftOut() throws Exception {
        ServerJudge judge = ServerJudge.shared();
        judge.install(base(Map.of()));
        String kubeconfig = agentKubeconfig("aup-gpu-1").toString();
        Cli.Result first = Cli.run("once", "--host-root", Hosts.root("gpu-server").toString(), "--node-name", "aup-gpu-1",
                "--kubeconfig", kubeconfig, "--instance", "node-labeller", "--no-timestamp");
        assertEquals(0, first.code(), first.err());
        // what print shows for that host, less the keys outside the scope (the kubelet's hostname label stays)
        Map<String, String> printed = Cli.run("print", "--host-root", Hosts.root("gpu-server").toString(),
                "--no-timestamp").labels();
        assertTrue(printed.size() > 50 && printed.containsKey("example.com/rack"), printed.toString());
        Map<String, String> expected = new TreeMap<>(printed);
        expected.keySet().removeIf(k -> k.startsWith("example.com/"));
        expected.put("kubernetes.io/hostname", "aup-gpu-1");
        assertEquals(expected, labels("aup-gpu-1"));
        // one line names what is left out and the setting (the host has no NVML: the nvidia source's own warning)
        List<String> dropped = first.err().lines().filter(l -> l.contains("not written, outside what this install may write"))
                .toList();
        assertEquals(1, dropped.size(), first.err());
        assertTrue(dropped.get(0).contains(" WARN "), dropped.get(0));
        assertTrue(dropped.get(0).contains("label example.com/rack (domain 'example.com' is not in the write scope"
                + " (node-labeller.io/label-domains on ClusterRoleBinding node-labeller))"), dropped.get(0));
        assertTrue(dropped.get(0).contains("label example.com/datacenter"), dropped.get(0));
        assertTrue(first.err().lines().noneMatch(l -> l.contains(" 403 ") || l.contains("denied request")), first.err());

        // the operator adds the domain to the install's scope: the agent and the API server's policy both read it
        judge.install(base(Map.of(WriteScope.LABEL_DOMAINS, "example.com")));
        Cli.Result second = Cli.run("once", "--host-root", Hosts.root("gpu-server").toString(), "--node-name", "aup-gpu-1",
                "--kubeconfig", kubeconfig, "--instance", "node-labeller", "--no-timestamp");
        assertEquals(0, second.code(), second.err());
        printed.put("kubernetes.io/hostname", "aup-gpu-1");
        assertEquals(printed, labels("aup-gpu-1"));
        assertTrue(second.err().lines().noneMatch(l -> l.contains("not written")), second.err());
    }

    /**
     * The two agents of a GPU node (host and GPU role, one install, each its own service account as overlays/gpu
     * ships them) under the install's policy: each one's writes are admitted whole — the GPU agent's first write claims
     * new keys in the shared list, pinned — and together they give what one agent gave, which they take over without
     * a write when the install had one agent before (the base, upgraded to overlays/gpu).
     */
    @Test
    void theHostAndGpuAgentsOfOneInstallAreAdmittedWhole() throws Exception {
        String lib = io.nodelabeller.testing.FakeNvml.nvml().gpus(8, io.nodelabeller.testing.FakeNvml.a100_80gb())
                .install(tmp.resolve("lib")).toString();
        Map<String, String> kubeconfigs = new HashMap<>();
        for (String node : List.of("aup-gpu-1", "aup-gpu-2")) {
            kubeconfigs.put(node + "/host", agentKubeconfig(node).toString());
            kubeconfigs.put(node + "/all", kubeconfigs.get(node + "/host"));
            kubeconfigs.put(node + "/gpu", agentKubeconfig(node, "node-labeller-gpu", false).toString());
        }
        java.util.function.BiFunction<String, String, Cli.Result> once = (node, role) -> Cli.runWith(
                Map.of("NODE_LABELLER_ROLE", role), "once", "--host-root", Hosts.root("gpu-server").toString(),
                "--nvml-library", lib, "--node-name", node, "--kubeconfig", kubeconfigs.get(node + "/" + role),
                "--instance", "node-labeller", "--no-timestamp");
        // aup-gpu-2: one agent first (the base's layout: --role all)
        ServerJudge.shared().install(base(Map.of(WriteScope.LABEL_DOMAINS, "example.com"))); // the host's features.d labels
        assertEquals(0, once.apply("aup-gpu-2", "all").code());
        ServerJudge.shared().install(twoAgents(Map.of(WriteScope.LABEL_DOMAINS, "example.com")));
        // aup-gpu-1: the two agents from the start, the GPU agent first (its pod may come up before the host agent's)
        for (String role : List.of("gpu", "host", "gpu", "host")) {
            Cli.Result r = once.apply("aup-gpu-1", role);
            assertEquals(0, r.code(), role + ": " + r.err());
            assertTrue(r.err().lines().noneMatch(l -> l.contains(" WARN ") || l.contains(" ERROR ")), role + ": " + r.err());
        }
        // aup-gpu-2, upgraded to the two agents
        var client = ServerJudge.shared().admin();
        Map<String, String> one = labels("aup-gpu-2");
        String version = client.nodes().withName("aup-gpu-2").get().getMetadata().getResourceVersion();
        assertEquals(0, once.apply("aup-gpu-2", "host").code());
        assertEquals(0, once.apply("aup-gpu-2", "gpu").code());
        assertEquals(version, client.nodes().withName("aup-gpu-2").get().getMetadata().getResourceVersion(),
                "the hand-over writes nothing");
        one.put("kubernetes.io/hostname", "aup-gpu-1");
        assertEquals(one, labels("aup-gpu-1"), "two agents give what one gave");
        assertEquals(client.nodes().withName("aup-gpu-2").get().getMetadata().getAnnotations().get("node-labeller.io/managed-labels"),
                client.nodes().withName("aup-gpu-1").get().getMetadata().getAnnotations().get("node-labeller.io/managed-labels"));
    }

    /**
     * nfd-compat as overlays/nfd-compat ships it (its config, its policy, NFD's CRDs): the host agent and the GPU agent,
     * each with its own pod-bound token, publish their NodeFeature objects — the node's, with the host labels and
     * nvidia.com/gpu.present, and node-labeller-gpu-&lt;node&gt;, with GPU Feature Discovery's — every write admitted, no
     * warning; nothing is written to the node itself.
     */
    @Test
    void nfdCompatsTwoAgentsPublishTheirNodeFeatures() throws Exception {
        String lib = io.nodelabeller.testing.FakeNvml.nvml().gpus(8, io.nodelabeller.testing.FakeNvml.a100_80gb())
                .install(tmp.resolve("lib")).toString();
        List<io.fabric8.kubernetes.api.model.HasMetadata> objects = Manifests.render("overlays/nfd-compat");
        Path config = java.nio.file.Files.writeString(tmp.resolve("config.yaml"), Manifests.one(objects,
                io.fabric8.kubernetes.api.model.ConfigMap.class, "node-labeller-config").getData().get("config.yaml"));
        ServerJudge judge = ServerJudge.shared();
        Map<String, String> scope = new TreeMap<>(AdmissionPolicyTest.NODE_FEATURE.crb().getMetadata().getAnnotations());
        scope.put(WriteScope.LABEL_DOMAINS, "example.com"); // the host's features.d labels
        judge.install(AdmissionPolicyTest.NODE_FEATURE.withScope(scope));
        var nodeFeatures = judge.admin().genericKubernetesResources(ServerJudge.NODE_FEATURES).inNamespace("node-labeller");
        nodeFeatures.withName("aup-nfd-1").delete();
        nodeFeatures.withName("node-labeller-gpu-aup-nfd-1").delete();
        Map<String, String> kubeconfigs = Map.of("host", agentKubeconfig("aup-nfd-1").toString(),
                "gpu", agentKubeconfig("aup-nfd-1", "node-labeller-gpu", false).toString());
        String version = judge.admin().nodes().withName("aup-nfd-1").get().getMetadata().getResourceVersion();
        for (String role : List.of("host", "gpu")) {
            Cli.Result r = Cli.runWith(Map.of("NODE_LABELLER_ROLE", role, "POD_NAMESPACE", "node-labeller"), "once",
                    "--config", config.toString(), "--host-root", Hosts.root("gpu-server").toString(), "--nvml-library", lib,
                    "--node-name", "aup-nfd-1", "--kubeconfig", kubeconfigs.get(role), "--instance", "node-labeller",
                    "--no-timestamp");
            assertEquals(0, r.code(), role + ": " + r.err());
            // (run outside a DaemonSet's pod, it has no pod to name as the object's owner: that one warning)
            assertTrue(r.err().lines().noneMatch(l -> l.contains(" WARN ") && !l.contains(" OwnerRefs: ")
                    || l.contains(" ERROR ")), role + ": " + r.err());
        }
        Map<?, ?> host = (Map<?, ?>) ((Map<?, ?>) nodeFeatures.withName("aup-nfd-1").get().getAdditionalProperties()
                .get("spec")).get("labels");
        Map<?, ?> gpu = (Map<?, ?>) ((Map<?, ?>) nodeFeatures.withName("node-labeller-gpu-aup-nfd-1").get()
                .getAdditionalProperties().get("spec")).get("labels");
        assertEquals("true", host.get("nvidia.com/gpu.present"));
        assertTrue(host.keySet().stream().anyMatch(k -> ((String) k).startsWith("feature.node.kubernetes.io/pci-")), host.toString());
        assertTrue(host.keySet().stream().noneMatch(k -> ((String) k).startsWith("nvidia.com/gpu.product")), host.toString());
        assertEquals("NVIDIA-A100-SXM4-80GB", gpu.get("nvidia.com/gpu.product"));
        assertTrue(gpu.keySet().stream().allMatch(k -> ((String) k).startsWith("nvidia.com/")) && !gpu.containsKey(
                "nvidia.com/gpu.present"), gpu.toString());
        assertEquals(version, judge.admin().nodes().withName("aup-nfd-1").get().getMetadata().getResourceVersion(),
                "nfd-master writes the node, not the agents");
    }

    /**
     * An agent whose --role is not the role its service account has in the install's binding publishes nothing
     * instead of sending writes the policy refuses, and says what to change: the one agent of an earlier layout
     * (--role all) under the host agent's account, the host agent run as the GPU agent's account.
     */
    @Test
    void anAgentWhoseRoleIsNotItsIdentitysPublishesNothing() throws Exception {
        ServerJudge.shared().install(twoAgents(Map.of()));
        String host = agentKubeconfig("aup-gpu-4").toString();
        String gpu = agentKubeconfig("aup-gpu-4", "node-labeller-gpu", false).toString();
        String version = ServerJudge.shared().admin().nodes().withName("aup-gpu-4").get().getMetadata().getResourceVersion();
        for (String[] c : List.of(new String[] {"all", host, "host"}, new String[] {"host", gpu, "gpu"})) {
            Cli.Result r = Cli.runWith(Map.of("NODE_LABELLER_ROLE", c[0]), "once", "--host-root",
                    Hosts.root("gpu-server").toString(), "--node-name", "aup-gpu-4", "--kubeconfig", c[1],
                    "--instance", "node-labeller", "--no-timestamp");
            assertEquals(1, r.code(), r.err());
            assertTrue(r.err().contains("ClusterRoleBinding node-labeller binds system:serviceaccount:node-labeller:"
                    + (c[2].equals("gpu") ? "node-labeller-gpu" : "node-labeller") + " as the install's " + c[2]
                    + " agent (node-labeller.io/gpu-agent: node-labeller-gpu), and this agent runs with --role " + c[0]), r.err());
            assertTrue(r.err().contains("until it runs with --role " + c[2]), r.err());
        }
        assertEquals(version, ServerJudge.shared().admin().nodes().withName("aup-gpu-4").get().getMetadata().getResourceVersion());
    }

    /**
     * No binding of the named install: the agent publishes nothing (its policy would not apply), and says why; RBAC,
     * which grants it the read of its own binding only, refuses the read of another.
     */
    @Test
    void withoutItsInstallsBindingTheAgentWritesNothing() throws Exception {
        ServerJudge.shared().install(base(Map.of()));
        String kubeconfig = agentKubeconfig("aup-gpu-3").toString();
        String version = ServerJudge.shared().admin().nodes().withName("aup-gpu-3").get().getMetadata().getResourceVersion();
        Cli.Result r = Cli.run("once", "--host-root", Hosts.root("gpu-server").toString(), "--node-name", "aup-gpu-3",
                "--kubeconfig", kubeconfig, "--instance", "team-a-node-labeller");
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains("ClusterRoleBinding team-a-node-labeller: GET /apis/rbac.authorization.k8s.io/v1/"
                + "clusterrolebindings/team-a-node-labeller: HTTP 403"), r.err());
        assertTrue(r.err().contains("its admission policies would not apply"), r.err());
        assertEquals(version, ServerJudge.shared().admin().nodes().withName("aup-gpu-3").get().getMetadata().getResourceVersion());
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
        ServerJudge judge = ServerJudge.shared();
        judge.install(base(Map.of(WriteScope.LABEL_DOMAINS, "example.com")));
        agentKubeconfig("aup-n1");
        ControlPlane cp = judge.controlPlane();
        try (KubernetesClient client = cp.client(cp.podBoundToken("node-labeller", "node-labeller", "aup-n1"))) {
            List<io.nodelabeller.label.LabelDoc> gpu = io.nodelabeller.catalog.Catalog.gpuLabels();
            Install install = Install.named(client, "node-labeller", k -> gpu.stream().anyMatch(d -> d.matches(k)), io.nodelabeller.config.Role.ALL,
                    NodePublisher.Settings.defaults());
            try (NodePublisher publisher = new NodePublisher(client, "aup-n1", NodePublisher.Settings.defaults().withWatchTimeout(null),
                    PublishEvents.NONE, install)) {
                publisher.publish(labels("feature.node.kubernetes.io/a", "1", "example.com/rack", "r1"));
                assertEquals("r1", labels("aup-n1").get("example.com/rack"));

                judge.install(base(Map.of(WriteScope.LABEL_DOMAINS, ""))); // in force on the server when this returns

                PublishException e = assertThrows(PublishException.class,
                        () -> publisher.publish(labels("feature.node.kubernetes.io/a", "1", "example.com/rack", "r2")));
                assertEquals(403, e.status());
                assertEquals(List.of(), install.scope().labelDomains(), "read again after the refusal");
                publisher.publish(labels("feature.node.kubernetes.io/a", "1", "example.com/rack", "r2"));
                Map<String, String> now = labels("aup-n1");
                assertFalse(now.containsKey("example.com/rack"), now.toString());
                assertEquals("1", now.get("feature.node.kubernetes.io/a"));
            }
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
