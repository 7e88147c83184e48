package io.nodelabeller.deploy;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.nodelabeller.deploy.AdmissionPolicyTest.Decision;
import io.nodelabeller.deploy.AdmissionPolicyTest.Installed;
import io.nodelabeller.deploy.AdmissionPolicyTest.Step;
import io.nodelabeller.deploy.AdmissionRequests.User;
import io.nodelabeller.label.WriteScope;
import io.nodelabeller.publish.Bookkeeping;
import io.nodelabeller.publish.NodePatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static io.nodelabeller.deploy.AdmissionPolicyTest.admit;
import static io.nodelabeller.deploy.AdmissionPolicyTest.agentWrites;
import static io.nodelabeller.deploy.AdmissionPolicyTest.annotation;
import static io.nodelabeller.deploy.AdmissionPolicyTest.assertAllowed;
import static io.nodelabeller.deploy.AdmissionPolicyTest.assertDenied;
import static io.nodelabeller.deploy.AdmissionPolicyTest.attack;
import static io.nodelabeller.deploy.AdmissionPolicyTest.copy;
import static io.nodelabeller.deploy.AdmissionPolicyTest.label;
import static io.nodelabeller.deploy.AdmissionPolicyTest.m;
import static io.nodelabeller.deploy.AdmissionPolicyTest.map;
import static io.nodelabeller.deploy.AdmissionPolicyTest.node;
import static io.nodelabeller.deploy.Manifests.ofKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admission policies as installs really are: every shipped variant renamed and moved with real kustomize, two
 * installs on one node, a key kept listed after its label is gone, forged {@code managedFields}, a NodeFeature's
 * features, and bindings that grant a group or a user. Each attack is a sequence of writes in the API server's request
 * shape ({@link AdmissionPolicyTest}'s harness); each of the agent's own writes is {@link NodePatch}'s, with the
 * managedFields the API server's field manager records ({@link FieldManager}).
 */
class InstallPolicyTest {

    // ---- renamed and moved: every variant polices exactly its own agent (real kustomize) ----

    /** The shipped kustomizations a user may build on. */
    static final List<String> OVERLAYS = List.of("base", "overlays/gpu", "overlays/job", "overlays/nfd-compat",
            "overlays/taints-and-extended-resources");

    /** What a user's kustomization adds on top of one of ours: rename (prefix, suffix, both), move, both. */
    static final Map<String, String> RENAMES = Map.of(
            "prefix", "namePrefix: team-a-\n",
            "suffix", "nameSuffix: -prod\n",
            "both", "namePrefix: team-a-\nnameSuffix: -prod\n",
            "moved", "namespace: gpu-system\n",
            "moved-and-renamed", "namespace: gpu-system\nnamePrefix: team-a-\nnameSuffix: -prod\n");

    static Stream<Arguments> renamedInstalls() {
        List<Arguments> out = new ArrayList<>();
        for (String overlay : OVERLAYS) {
            RENAMES.keySet().stream().sorted().forEach(rename -> out.add(Arguments.of(overlay, rename)));
        }
        return out.stream();
    }

    /** {@code overlay} under a user's kustomization with {@code rename}, rendered by real kustomize. */
    static List<HasMetadata> renderRenamed(String overlay, String rename) throws Exception {
        Path dir = Path.of("target", "test-kustomize", overlay.replace('/', '-') + "-" + rename);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kustomization.yaml"), "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                + RENAMES.get(rename) + "resources:\n  - ../../../manifests/" + overlay + "\n");
        return ManifestsTest.renderWithKubectl("../" + dir);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("renamedInstalls")
    void everyVariantRenamedOrMovedPolicesExactlyItsAgent(String overlay, String rename) throws Exception {
        List<HasMetadata> objects = renderRenamed(overlay, rename);
        ClusterRoleBinding crb = ofKind(objects, ClusterRoleBinding.class).get(0);
        assertEquals(1, ofKind(objects, ClusterRoleBinding.class).size(), "one install, one binding");
        // the binding binds the renamed accounts where they moved, and names the renamed GPU agent's (two agents)
        String gpuAgentName = crb.getMetadata().getAnnotations().get(WriteScope.GPU_AGENT);
        ServiceAccount sa = ofKind(objects, ServiceAccount.class).stream()
                .filter(a -> !a.getMetadata().getName().equals(gpuAgentName)).findFirst().orElseThrow();
        ManifestsTest.assertRolesAreTheirIdentities(objects, overlay + " " + rename);
        assertEquals(overlay.equals("overlays/gpu") || overlay.equals("overlays/nfd-compat"), gpuAgentName != null, overlay);
        User gpuAgent = gpuAgentName == null ? null : User.serviceAccount(sa.getMetadata().getNamespace(), gpuAgentName, "n1");
        // every policy binding's parameter is that binding; the agent reads it by the same name and may read only it
        List<ValidatingAdmissionPolicyBinding> bindings = ofKind(objects, ValidatingAdmissionPolicyBinding.class);
        assertFalse(bindings.isEmpty());
        for (ValidatingAdmissionPolicyBinding b : bindings) {
            assertNotNull(b.getSpec().getParamRef(), b.getMetadata().getName());
            assertEquals(crb.getMetadata().getName(), b.getSpec().getParamRef().getName(), b.getMetadata().getName());
        }
        ClusterRole role = ofKind(objects, ClusterRole.class).get(0);
        assertEquals(ManifestsTest.identityRule(crb), ManifestsTest.rules(role).get(0));
        for (HasMetadata w : Manifests.workloads(objects)) {
            List<EnvVar> env = Manifests.podSpec(w).getContainers().get(0).getEnv();
            assertEquals(crb.getMetadata().getName(), env.stream().filter(e -> e.getName().equals("NODE_LABELLER_INSTANCE"))
                    .findFirst().orElseThrow().getValue(), w.getMetadata().getName());
        }
        Bookkeeping bk = Bookkeeping.of(crb.getMetadata().getName());
        User agent = User.serviceAccount(sa.getMetadata().getNamespace(), sa.getMetadata().getName(), "n1");
        List<User> others = List.of(AdmissionPolicyTest.AGENT, User.serviceAccount("node-labeller", sa.getMetadata().getName(), "n1"),
                User.serviceAccount(sa.getMetadata().getNamespace(), "node-labeller-x", "n1"));
        if (overlay.equals("overlays/nfd-compat")) {
            Installed policy = Installed.of(objects, "own-nodefeature");
            Map<String, Object> squat = AdmissionPolicyTest.nodeFeature("n2", "n1");
            assertDenied(admit(policy, AdmissionRequests.nodeFeature("CREATE", "n2", sa.getMetadata().getNamespace(), agent), squat, null),
                    "not n2");
            assertAllowed(admit(policy, AdmissionRequests.nodeFeature("CREATE", "n1", sa.getMetadata().getNamespace(), agent),
                    AdmissionPolicyTest.nodeFeature("n1", "n1"), null));
            // the renamed GPU agent: its own object only, GPU Feature Discovery's labels only
            assertDenied(admit(policy, AdmissionRequests.nodeFeature("CREATE", "n1", sa.getMetadata().getNamespace(), gpuAgent),
                    AdmissionPolicyTest.nodeFeature("n1", "n1"), null), "not n1");
            for (User other : others) {
                if (!other.username().equals(agent.username())) {
                    assertTrue(admit(policy, AdmissionRequests.nodeFeature("CREATE", "n2", "x", other), squat, null).allowed(),
                            other.username());
                }
            }
            return;
        }
        Installed policy = Installed.of(objects, "own-node-labels");
        // its own first labelling passes, through its own tracking annotations; another domain is refused
        Map<String, Object> bare = node(n -> {
            map(n, "metadata").remove("labels");
            map(n, "metadata").remove("annotations");
        });
        Map<String, Object> labelled = agentWrites(policy, agent, bk, bare, NodePatch.Desired.labels(
                m("feature.node.kubernetes.io/kernel-version.major", "6", "nvidia.com/gpu.present", "true")));
        assertEquals("feature.node.kubernetes.io/kernel-version.major,nvidia.com/gpu.present",
                ((Map<?, ?>) ((Map<?, ?>) labelled.get("metadata")).get("annotations")).get(bk.labels()));
        Map<String, Object> change = node(label("example.com/x", "1").andThen(annotation(bk.labels(), AdmissionPolicyTest.OWNED
                + ",example.com/x")));
        assertDenied(admit(policy, AdmissionRequests.nodeUpdate("n1", null, agent), change, node(n -> { })), "not: example.com/x");
        if (gpuAgent != null) { // the renamed GPU agent is policed as the GPU agent
            assertDenied(admit(policy, AdmissionRequests.nodeUpdate("n1", null, gpuAgent), change, node(n -> { })),
                    "may write only GPU Feature Discovery's labels, not: example.com/x");
        }
        for (User other : others) {
            if (!other.username().equals(agent.username())) {
                assertTrue(admit(policy, AdmissionRequests.nodeUpdate("n1", null, other), change, node(n -> { })).allowed(),
                        other.username());
            }
        }
    }

    /**
     * No binding of what is shipped (every kustomization and the chart's variants) lacks its parameter: a binding
     * without paramRef would evaluate the policy with no parameter, which matches nobody.
     */
    @Test
    void everyShippedBindingNamesAParameterThatIsShippedWithIt() {
        List<List<HasMetadata>> renders = new ArrayList<>();
        Manifests.VARIANTS.forEach(v -> renders.add(Manifests.render(v)));
        for (Map<String, Object> values : List.<Map<String, Object>>of(Map.of(), Map.of("gpu.enabled", true),
                Map.of("nfdCompat.enabled", true), Map.of("nfdCompat.enabled", true, "nfdCompat.namespace", "nfd"))) {
            renders.add(HelmChartTest.template(values));
        }
        for (List<HasMetadata> objects : renders) {
            for (ValidatingAdmissionPolicyBinding b : ofKind(objects, ValidatingAdmissionPolicyBinding.class)) {
                assertNotNull(b.getSpec().getParamRef(), b.getMetadata().getName());
                Manifests.one(objects, ClusterRoleBinding.class, b.getSpec().getParamRef().getName());
                ValidatingAdmissionPolicy p = Manifests.one(objects, ValidatingAdmissionPolicy.class, b.getSpec().getPolicyName());
                assertEquals("ClusterRoleBinding", p.getSpec().getParamKind().getKind());
            }
        }
    }

    // ---- whom a binding grants the agent's permissions to: a group's members and a user are policed too ----

    @Test
    void aGroupOrAUserTheBindingGrantsIsPolicedLikeTheAgent() {
        Installed base = AdmissionPolicyTest.base();
        Map<String, Object> change = node(label("example.com/x", "1").andThen(AdmissionPolicyTest.managed(AdmissionPolicyTest.OWNED
                + ",example.com/x")));
        Installed group = withSubjects(base, new SubjectBuilder().withKind("Group").withName("system:serviceaccounts:gpu-tools")
                .withApiGroup("rbac.authorization.k8s.io").build());
        User member = User.serviceAccount("gpu-tools", "anything", "n1");
        assertDenied(admit(group, AdmissionRequests.nodeUpdate("n1", null, member), change, node(n -> { })), "not: example.com/x");
        assertTrue(admit(group, AdmissionRequests.nodeUpdate("n1", null, User.kubelet("n1")), change, node(n -> { })).allowed());
        assertTrue(admit(group, AdmissionRequests.nodeUpdate("n1", null, AdmissionPolicyTest.AGENT), change, node(n -> { })).allowed(),
                "the account the binding no longer binds");
        Installed user = withSubjects(base, new SubjectBuilder().withKind("User").withName("labeller@example.com")
                .withApiGroup("rbac.authorization.k8s.io").build());
        User person = new User("labeller@example.com", "", List.of("system:authenticated"), Map.of());
        assertDenied(admit(user, AdmissionRequests.nodeUpdate("n1", null, person), change, node(n -> { })), "not a pod-bound token");
    }

    private static Installed withSubjects(Installed installed, io.fabric8.kubernetes.api.model.rbac.Subject subject) {
        ClusterRoleBinding crb = installed.crb();
        List<HasMetadata> objects = new ArrayList<>(installed.objects());
        objects.replaceAll(o -> o == crb ? new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder(crb)
                .withSubjects(subject).build() : o);
        return new Installed(installed.policy(), installed.binding(), objects);
    }

    // ---- two installs on one node: each its own tracking annotations, neither touches the other's keys ----

    /** The shipped base and a second install of it, renamed and in another namespace, as a user's overlay makes it. */
    static final Installed A = AdmissionPolicyTest.base();
    static final User AGENT_A = AdmissionPolicyTest.AGENT;
    static final Bookkeeping BOOKS_A = Bookkeeping.DEFAULT;
    static final User AGENT_B = User.serviceAccount("gpu-system", "team-a-node-labeller-prod", "n1");
    static final Bookkeeping BOOKS_B = Bookkeeping.of("team-a-node-labeller-prod");

    static Installed installB() throws Exception {
        return Installed.of(renderRenamed("base", "moved-and-renamed"), "own-node-labels");
    }

    /** B's agent is policed by B's policy, not A's; its tracking annotations are its own. */
    @Test
    void twoHonestInstallsLabelOneNodeWithoutTouchingEachOthersKeys() throws Exception {
        Installed b = Installed.of(renderRenamed("base", "prefix"), "own-node-labels");
        User agentB = User.serviceAccount("node-labeller", "team-a-node-labeller", "n1");
        Bookkeeping booksB = Bookkeeping.of("team-a-node-labeller");
        assertTrue(admit(A, AdmissionRequests.nodeUpdate("n1", null, agentB), node(label("example.com/x", "1")), node(n -> { })).allowed());
        Map<String, Object> start = node(n -> {
            map(n, "metadata").remove("labels");
            map(n, "metadata").remove("annotations");
        });
        NodePatch.Desired wantA = NodePatch.Desired.labels(m("feature.node.kubernetes.io/kernel-version.major", "6",
                "feature.node.kubernetes.io/pci-10de.present", "true"));
        NodePatch.Desired wantB = NodePatch.Desired.labels(m("feature.node.kubernetes.io/pci-10de.present", "true",
                "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"));
        Map<String, Object> node = agentWrites(A, AGENT_A, BOOKS_A, start, wantA);
        node = agentWrites(b, agentB, booksB, node, wantB);
        // and again, in turn: nothing left to do for either, nothing removed
        Map<String, Object> again = agentWrites(A, AGENT_A, BOOKS_A, node, wantA);
        again = agentWrites(b, agentB, booksB, again, wantB);
        assertEquals(node, again);
        Map<?, ?> annotations = (Map<?, ?>) ((Map<?, ?>) node.get("metadata")).get("annotations");
        assertEquals("feature.node.kubernetes.io/kernel-version.major,feature.node.kubernetes.io/pci-10de.present",
                annotations.get(BOOKS_A.labels()));
        assertEquals("nvidia.com/gpu.product", annotations.get(booksB.labels()), "the shared key stays the first install's");
        assertEquals(Map.of("feature.node.kubernetes.io/kernel-version.major", "6", "feature.node.kubernetes.io/pci-10de.present", "true",
                "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"), ((Map<?, ?>) node.get("metadata")).get("labels"));
        // B no longer wants its key: it removes its own, and nothing of A's
        Map<String, Object> after = agentWrites(b, agentB, booksB, node, NodePatch.Desired.labels(m()));
        assertEquals(Map.of("feature.node.kubernetes.io/kernel-version.major", "6", "feature.node.kubernetes.io/pci-10de.present", "true"),
                ((Map<?, ?>) after.get("metadata")).get("labels"));
        assertFalse(((Map<?, ?>) ((Map<?, ?>) after.get("metadata")).get("annotations")).containsKey(booksB.labels()));
    }

    /** Two Helm releases in one namespace: each release's agent labels the node through its own policy only. */
    @Test
    void twoHelmReleasesLabelOneNodeEachThroughItsOwnPolicy() {
        Map<String, Installed> releases = new LinkedHashMap<>();
        for (String release : List.of("a", "b")) {
            releases.put(release, Installed.of(Manifests.parseAll(new com.marcnuri.helm.Helm(Manifests.CHART).template()
                    .withName(release).withNamespace("labellers").withKubeVersion("1.33.0").call()),
                    release + "-node-labeller-own-node-labels"));
        }
        User agentA = User.serviceAccount("labellers", "a-node-labeller", "n1");
        User agentB = User.serviceAccount("labellers", "b-node-labeller", "n1");
        Bookkeeping booksA = Bookkeeping.of("a-node-labeller");
        Bookkeeping booksB = Bookkeeping.of("b-node-labeller");
        assertTrue(admit(releases.get("a"), AdmissionRequests.nodeUpdate("n1", null, agentB), node(label("example.com/x", "1")), node(n -> { })).allowed());
        Map<String, Object> start = node(n -> {
            map(n, "metadata").remove("labels");
            map(n, "metadata").remove("annotations");
        });
        NodePatch.Desired wantA = NodePatch.Desired.labels(m("feature.node.kubernetes.io/pci-10de.present", "true"));
        NodePatch.Desired wantB = NodePatch.Desired.labels(m("feature.node.kubernetes.io/pci-10de.present", "true",
                "nvidia.com/gpu.count", "8"));
        Map<String, Object> node = agentWrites(releases.get("a"), agentA, booksA, start, wantA);
        node = agentWrites(releases.get("b"), agentB, booksB, node, wantB);
        Map<?, ?> annotations = (Map<?, ?>) ((Map<?, ?>) node.get("metadata")).get("annotations");
        assertEquals("feature.node.kubernetes.io/pci-10de.present", annotations.get(booksA.labels()));
        assertEquals("nvidia.com/gpu.count", annotations.get(booksB.labels()));
        // B's agent, compromised, cannot remove A's key nor unlist it
        assertStopped(releases.get("b"), agentB, "not: feature.node.kubernetes.io/pci-10de.present", node,
                Step.node(label("feature.node.kubernetes.io/pci-10de.present", null)));
        assertStopped(releases.get("b"), agentB, "not: a-node-labeller.node-labeller.io/managed-labels", node,
                Step.node(annotation(booksA.labels(), null)));
    }

    /** The node with install A's labels, as A's agent left it. */
    static Map<String, Object> nodeOfA() {
        return node(label("feature.node.kubernetes.io/pci-10de.present", "true").andThen(label("nvidia.com/gpu.present", "true"))
                .andThen(annotation(BOOKS_A.labels(), AdmissionPolicyTest.OWNED
                        + ",feature.node.kubernetes.io/pci-10de.present,nvidia.com/gpu.present")));
    }

    @Test
    void anotherInstallCannotRemoveChangeUnlistOrClaimTheKeysOfThisOne() throws Exception {
        Installed b = installB();
        // remove or change A's label
        assertStopped(b, AGENT_B, "may change or remove only labels listed in team-a-node-labeller-prod.node-labeller.io/managed-labels"
                + " before the change, not: nvidia.com/gpu.present", nodeOfA(), Step.node(label("nvidia.com/gpu.present", null)));
        assertStopped(b, AGENT_B, "not: nvidia.com/gpu.present", nodeOfA(), Step.node(label("nvidia.com/gpu.present", "false")));
        // unlist it from A's annotation (so that A's later writes are refused), or rewrite that annotation at all
        assertStopped(b, AGENT_B, "not: node-labeller.io/managed-labels", nodeOfA(),
                Step.node(annotation(BOOKS_A.labels(), AdmissionPolicyTest.OWNED)));
        assertStopped(b, AGENT_B, "not: node-labeller.io/managed-labels", nodeOfA(), Step.node(annotation(BOOKS_A.labels(), null)));
        // list A's key in its own annotation, then change it
        assertStopped(b, AGENT_B, "and never one another install lists, not: nvidia.com/gpu.present", nodeOfA(),
                Step.node(annotation(BOOKS_B.labels(), "nvidia.com/gpu.present")), Step.node(label("nvidia.com/gpu.present", "x")));
        // a key nfd-master hands over that A took over already
        Map<String, Object> handed = node(label("feature.node.kubernetes.io/cpu-model.id", "143")
                .andThen(annotation(NodePatch.NFD_LABELS, "cpu-model.id"))
                .andThen(annotation(BOOKS_A.labels(), AdmissionPolicyTest.OWNED + ",feature.node.kubernetes.io/cpu-model.id")));
        assertStopped(b, AGENT_B, "and never one another install lists, not: feature.node.kubernetes.io/cpu-model.id", handed,
                Step.node(annotation(BOOKS_B.labels(), "feature.node.kubernetes.io/cpu-model.id")));
        // a key A still lists while its label is gone (an admin removed it): B cannot create it to own it
        Map<String, Object> gone = node(annotation(BOOKS_A.labels(), AdmissionPolicyTest.OWNED + ",feature.node.kubernetes.io/team-x"));
        assertStopped(b, AGENT_B, "and never one another install lists, not: feature.node.kubernetes.io/team-x", gone,
                Step.node(label("feature.node.kubernetes.io/team-x", "1").andThen(annotation(BOOKS_B.labels(),
                        "feature.node.kubernetes.io/team-x"))));
        // the same for taints and extended resources, where B may write them
        Map<String, String> outputs = new java.util.HashMap<>(b.crb().getMetadata().getAnnotations());
        outputs.put(io.nodelabeller.label.WriteScope.TAINTS, "true");
        outputs.put(io.nodelabeller.label.WriteScope.EXTENDED_RESOURCES, "true");
        Installed bOutputs = b.withScope(outputs);
        Map<String, Object> withTaint = node(annotation(BOOKS_A.taints(), "feature.node.kubernetes.io/gpu:NoSchedule")
                .andThen(n -> map(n, "spec").put("taints", List.of(Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule"),
                        Map.of("key", "feature.node.kubernetes.io/gpu", "effect", "NoSchedule")))));
        assertStopped(bOutputs, AGENT_B, "not: feature.node.kubernetes.io/gpu:NoSchedule", withTaint,
                Step.node(n -> map(n, "spec").put("taints", List.of(Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule")))));
        assertStopped(bOutputs, AGENT_B, "and never one another install lists, not: feature.node.kubernetes.io/gpu:NoSchedule",
                withTaint, Step.node(annotation(BOOKS_B.taints(), "feature.node.kubernetes.io/gpu:NoSchedule")));
        Map<String, Object> withResource = node(annotation(BOOKS_A.extendedResources(), "feature.node.kubernetes.io/widgets")
                .andThen(n -> map(map(n, "status"), "capacity").put("feature.node.kubernetes.io/widgets", "4"))
                .andThen(n -> map(map(n, "status"), "allocatable").put("feature.node.kubernetes.io/widgets", "4")));
        assertStopped(bOutputs, AGENT_B, "not: feature.node.kubernetes.io/widgets", withResource,
                Step.status(n -> map(map(n, "status"), "capacity").put("feature.node.kubernetes.io/widgets", "0")));
    }

    /** What the agent of a named install does when another install's keys are in its way: it leaves them alone. */
    @Test
    void anHonestAgentNeverClaimsAKeyAnotherInstallLists() {
        Map<String, Object> handed = node(label("feature.node.kubernetes.io/cpu-model.id", "143")
                .andThen(annotation(NodePatch.NFD_LABELS, "cpu-model.id"))
                .andThen(annotation(BOOKS_A.labels(), "feature.node.kubernetes.io/cpu-model.id,feature.node.kubernetes.io/team-x")));
        NodePatch.Plan plan = NodePatch.plan(AdmissionPolicyTest.asPatchNode(handed), NodePatch.Desired.labels(
                m("feature.node.kubernetes.io/cpu-model.id", "150", "feature.node.kubernetes.io/team-x", "1")), BOOKS_B);
        assertEquals(List.of(), plan.node());
        assertEquals(List.of("label feature.node.kubernetes.io/cpu-model.id", "label feature.node.kubernetes.io/team-x"),
                List.copyOf(plan.leftAlone()));
    }

    private static void assertStopped(Installed policy, User user, String text, Map<String, Object> start, Step... steps) {
        Decision d = attack(policy, user, start, steps);
        assertNotNull(d, "every step was admitted");
        assertDenied(d, text);
    }

    // ---- a listed key is one the agent has: never kept listed after it is gone ----

    @Test
    void aKeyStaysListedOnlyWhileTheNodeHasIt() {
        Installed outputs = AdmissionPolicyTest.WITH_TAINTS_AND_RESOURCES;
        String msg = "may list in its tracking annotations only keys the node has after the write";
        String owned = AdmissionPolicyTest.OWNED + ",feature.node.kubernetes.io/team-x";
        // created and listed, then removed but kept listed, so that a team's later label of that name would be its own
        assertStopped(outputs, AGENT_A, msg, node(n -> { }),
                Step.node(label("feature.node.kubernetes.io/team-x", "1").andThen(AdmissionPolicyTest.managed(owned))),
                Step.node(label("feature.node.kubernetes.io/team-x", null)));
        // the same with a taint (an admin's dedicated taint of that name would later be its own)
        assertStopped(outputs, AGENT_A, msg, node(n -> { }),
                Step.node(annotation(NodePatch.MANAGED_TAINTS, "feature.node.kubernetes.io/dedicated:NoSchedule")
                        .andThen(n -> map(n, "spec").put("taints", List.of(Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule"),
                                Map.of("key", "feature.node.kubernetes.io/dedicated", "effect", "NoSchedule"))))),
                Step.node(n -> map(n, "spec").put("taints", List.of(Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule")))));
        // and a rule annotation, and an extended resource
        assertStopped(outputs, AGENT_A, msg, node(n -> { }),
                Step.node(annotation("feature.node.kubernetes.io/note", "x").andThen(annotation(NodePatch.MANAGED_ANNOTATIONS,
                        "feature.node.kubernetes.io/note"))),
                Step.node(annotation("feature.node.kubernetes.io/note", null)));
        assertStopped(outputs, AGENT_A, msg, node(n -> { }),
                Step.status(annotation(NodePatch.MANAGED_EXTENDED_RESOURCES, "feature.node.kubernetes.io/widgets")
                        .andThen(n -> map(map(n, "status"), "capacity").put("feature.node.kubernetes.io/widgets", "4"))),
                Step.status(n -> map(map(n, "status"), "capacity").remove("feature.node.kubernetes.io/widgets")));
        // what the agent does: remove and unlist in one write, and unlist what someone else removed
        assertNull(attack(outputs, AGENT_A, node(n -> { }),
                Step.node(label("feature.node.kubernetes.io/team-x", "1").andThen(AdmissionPolicyTest.managed(owned))),
                Step.node(label("feature.node.kubernetes.io/team-x", null).andThen(AdmissionPolicyTest.managed(AdmissionPolicyTest.OWNED)))));
        Map<String, Object> removedByAnAdmin = node(AdmissionPolicyTest.managed(owned));
        Map<String, Object> agent = agentWrites(outputs, removedByAnAdmin, NodePatch.Desired.labels(
                m("feature.node.kubernetes.io/kernel-version.major", "6", "feature.node.kubernetes.io/pci-0300_1af4.present", "true")));
        assertEquals(AdmissionPolicyTest.OWNED, ((Map<?, ?>) ((Map<?, ?>) agent.get("metadata")).get("annotations"))
                .get(NodePatch.MANAGED_ANNOTATION));
        // a kind switched off keeps its list, less what is gone from the node (the policy would refuse the stale entry)
        Map<String, Object> staleTaint = node(annotation(NodePatch.MANAGED_TAINTS, "feature.node.kubernetes.io/gone:NoSchedule"));
        Map<String, Object> cleaned = agentWrites(AdmissionPolicyTest.BASE, staleTaint, NodePatch.Desired.labels(
                m("feature.node.kubernetes.io/kernel-version.major", "7", "feature.node.kubernetes.io/pci-0300_1af4.present", "true")));
        assertFalse(((Map<?, ?>) ((Map<?, ?>) cleaned.get("metadata")).get("annotations")).containsKey(NodePatch.MANAGED_TAINTS));
    }

    // ---- metadata.managedFields: never forged, only what the field manager records for the agent's own keys ----

    /**
     * A node as a cluster leaves it: the kubelet's entries (its registration, its status), the node controllers',
     * kubectl label's, a GitOps tool's server-side apply (a label and the taints), and nfd-master's, in fieldsV1 as the
     * API server writes them.
     */
    static Map<String, Object> managedNode() {
        List<Map<String, Object>> fields = List.of(
                entry("kubelet", "Update", null, Map.of(
                        "f:metadata", Map.of("f:labels", Map.of(".", Map.of(), "f:kubernetes.io/hostname", Map.of())),
                        "f:spec", Map.of("f:podCIDR", Map.of()))),
                entry("kubelet", "Update", "status", Map.of("f:status", Map.of(
                        "f:conditions", Map.of(".", Map.of(), "k:{\"type\":\"Ready\"}", Map.of(".", Map.of(), "f:status", Map.of())),
                        "f:nodeInfo", Map.of("f:kubeletVersion", Map.of()),
                        "f:capacity", Map.of("f:cpu", Map.of()),
                        "f:allocatable", Map.of("f:cpu", Map.of())))),
                entry("kube-controller-manager", "Update", null, Map.of("f:spec", Map.of("f:taints", Map.of()))),
                entry("nfd-master", "Update", null, Map.of("f:metadata", Map.of(
                        "f:annotations", Map.of("f:nfd.node.kubernetes.io/feature-labels", Map.of()),
                        "f:labels", Map.of("f:feature.node.kubernetes.io/cpu-model.id", Map.of())))),
                entry("argocd-controller", "Apply", null, Map.of(
                        "f:metadata", Map.of("f:labels", Map.of("f:team", Map.of())),
                        "f:spec", Map.of("f:unschedulable", Map.of()))));
        return node(label("team", "ml").andThen(label("feature.node.kubernetes.io/cpu-model.id", "143"))
                .andThen(annotation(NodePatch.NFD_LABELS, "cpu-model.id"))
                .andThen(n -> map(n, "metadata").put("managedFields", fields)));
    }

    static Map<String, Object> entry(String manager, String operation, String subresource, Map<String, Object> fields) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("manager", manager);
        e.put("operation", operation);
        e.put("apiVersion", "v1");
        e.put("time", "2026-11-01T08:00:00Z");
        e.put("fieldsType", "FieldsV1");
        e.put("fieldsV1", fields);
        if (subresource != null) {
            e.put("subresource", subresource);
        }
        return e;
    }

    /** The agent's own writes, each with the managedFields the field manager records for it, pass. */
    @Test
    void theFieldManagersRecordOfTheAgentsWritesPasses() {
        Installed outputs = AdmissionPolicyTest.WITH_TAINTS_AND_RESOURCES;
        NodePatch.Desired desired = new NodePatch.Desired(
                m("feature.node.kubernetes.io/cpu-model.id", "150", "feature.node.kubernetes.io/kernel-version.major", "6",
                        "nvidia.com/gpu.present", "true"),
                m("feature.node.kubernetes.io/owner", "team-a"),
                m("feature.node.kubernetes.io/dedicated:NoSchedule", "gpu"),
                m("feature.node.kubernetes.io/widgets", "4"));
        Map<String, Object> labelled = agentWrites(outputs, managedNode(), desired); // take-over of nfd-master's label included
        List<?> entries = (List<?>) ((Map<?, ?>) labelled.get("metadata")).get("managedFields");
        assertTrue(entries.stream().anyMatch(e -> ((Map<?, ?>) e).get("manager").equals("fabric8-kubernetes-client")), entries.toString());
        assertFalse(entries.stream().filter(e -> ((Map<?, ?>) e).get("manager").equals("nfd-master")).findFirst().orElseThrow()
                .toString().contains("cpu-model.id"), "the label the agent took over and changed is no longer nfd-master's: " + entries);
        Map<String, Object> changed = agentWrites(outputs, labelled, new NodePatch.Desired(m("feature.node.kubernetes.io/kernel-version.major",
                "7"), m(), m(), m()));
        agentWrites(outputs, changed, NodePatch.Desired.nothing());
    }

    /**
     * The API server merges the oldest update entries into one named ancient-changes when a write would make more than
     * ten (kubernetes managedfields/internal/capmanagers.go): on a node whose entries are ten updates, the agent's
     * write makes the server merge, and that merge is the server's own, so the write passes.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theApiServersMergeOfOldUpdatesIntoAncientChangesPasses() {
        List<Map<String, Object>> fields = new ArrayList<>();
        Map<String, Object> labels = new LinkedHashMap<>();
        for (int i = 0; i < 10; i++) {
            fields.add(entry("team-" + i, "Update", null, Map.of("f:metadata", Map.of("f:labels",
                    Map.of("f:example.com/team-" + i, Map.of())))));
            ((Map<String, Object>) fields.get(i)).put("time", String.format("2026-11-01T08:%02d:00Z", i));
            labels.put("example.com/team-" + i, "t" + i);
        }
        Map<String, Object> start = node(n -> {
            map(n, "metadata").put("labels", labels);
            map(n, "metadata").remove("annotations");
            map(n, "metadata").put("managedFields", fields);
        });
        Map<String, Object> after = agentWrites(AdmissionPolicyTest.BASE, start, NodePatch.Desired.labels(
                m("feature.node.kubernetes.io/x", "1")));
        List<Map<String, Object>> entries = (List<Map<String, Object>>) ((Map<String, Object>) after.get("metadata")).get("managedFields");
        assertTrue(entries.stream().anyMatch(e -> e.get("manager").equals("ancient-changes")), "merged by the server: " + entries);
        assertTrue(entries.stream().anyMatch(e -> e.get("manager").equals("fabric8-kubernetes-client")), entries.toString());
    }

    @Test
    void forgedManagedFieldsAreRefused() {
        String msg = "may not write metadata.managedFields";
        Map<String, Object> start = managedNode();
        // an applier's entry claiming the taints and the hostname label: the admin's next server-side apply deletes them
        Map<String, Object> hostnameAndTaints = Map.of("f:metadata", Map.of("f:labels", Map.of("f:kubernetes.io/hostname", Map.of())),
                "f:spec", Map.of("f:taints", Map.of()));
        assertForged(msg + " (entries added or grown beyond its own keys: Apply/kubectl/", start,
                fields -> fields.add(entry("kubectl", "Apply", null, hostnameAndTaints)));
        // even one that claims only a label
        Map<String, Object> hostname = Map.of("f:metadata", Map.of("f:labels", Map.of("f:kubernetes.io/hostname", Map.of())));
        assertForged(msg, start, fields -> fields.add(entry("kubectl", "Apply", null, hostname)));
        // the GitOps tool's entry grown by a label or the taints
        assertForged("Apply/argocd-controller/", start, fields -> fields.set(4, entry("argocd-controller", "Apply", null,
                Map.of("f:metadata", Map.of("f:labels", Map.of("f:team", Map.of(), "f:kubernetes.io/hostname", Map.of())),
                        "f:spec", Map.of("f:unschedulable", Map.of())))));
        assertForged("Apply/argocd-controller/", start, fields -> fields.set(4, entry("argocd-controller", "Apply", null,
                Map.of("f:metadata", Map.of("f:labels", Map.of("f:team", Map.of())), "f:spec", Map.of("f:unschedulable", Map.of(),
                        "f:taints", Map.of())))));
        // ... or dropped, so that what it owns is no longer deleted when it stops applying it
        assertForged("entries removed: Apply/argocd-controller/", start, fields -> fields.remove(4));
        // an update entry grown outside labels, annotations, taints, capacity and allocatable, or a new one
        assertForged("Update/kubelet//v1", start, fields -> fields.set(0, entry("kubelet", "Update", null, Map.of("f:metadata",
                Map.of("f:labels", Map.of(".", Map.of(), "f:kubernetes.io/hostname", Map.of())),
                "f:spec", Map.of("f:podCIDR", Map.of(), "f:providerID", Map.of())))));
        assertForged("Update/evil//v1", start, fields -> fields.add(entry("evil", "Update", null,
                Map.of("f:spec", Map.of("f:unschedulable", Map.of())))));
        // all of them reset (a client sends managedFields: [{}])
        assertForged("entries removed", start, List::clear);
    }

    /** One write of the agent's labels that also changes the managedFields as {@code forge} says: refused. */
    @SuppressWarnings("unchecked")
    private static void assertForged(String text, Map<String, Object> start, Consumer<List<Map<String, Object>>> forge) {
        Map<String, Object> next = copy(start);
        map(next, "metadata").put("labels", new LinkedHashMap<>((Map<String, Object>) map(next, "metadata").get("labels")));
        List<Map<String, Object>> fields = new ArrayList<>((List<Map<String, Object>>) map(next, "metadata").get("managedFields"));
        forge.accept(fields);
        map(next, "metadata").put("managedFields", fields);
        Decision d = admit(AdmissionPolicyTest.BASE, AdmissionRequests.nodeUpdate("n1", null, AGENT_A), next, start);
        assertDenied(d, text);
    }

    // ---- nfd-compat: what nfd-master can make labels of ----

    /**
     * A NodeFeature's {@code local.label} and {@code local.feature} names become label keys as they are through a
     * pass-through NodeFeatureRule ({@code labelsTemplate: "{{ range .local.label }}{{ .Name }}={{ .Value }}..."}):
     * they pass the write scope like spec.labels. Other features are facts the cluster's rules read.
     */
    @Test
    void aNodeFeaturesLocalFeaturesPassTheWriteScope() {
        for (String feature : List.of("local.label", "local.feature")) {
            for (String key : List.of("nvidia.com/gpu.deploy.driver", "nvidia.com/mig.config", "example.com/rack", "kubernetes.io/hostname")) {
                Decision d = AdmissionPolicyTest.writeNodeFeature("CREATE", AGENT_A, nodeFeature(Map.of(feature, Map.of(key, "x"))), null);
                assertDenied(d, "not: " + key);
            }
            assertAllowed(AdmissionPolicyTest.writeNodeFeature("CREATE", AGENT_A,
                    nodeFeature(Map.of(feature, Map.of("rack", "r12", "feature.node.kubernetes.io/pool", "a"))), null));
        }
        assertAllowed(AdmissionPolicyTest.writeNodeFeature("CREATE", AGENT_A, nodeFeature(Map.of("kernel.version",
                Map.of("full", "6.8.0-45-generic"))), null));
        // with the domain in the install's write scope
        Map<String, String> scope = new java.util.HashMap<>(AdmissionPolicyTest.NODE_FEATURE.crb().getMetadata().getAnnotations());
        scope.put(io.nodelabeller.label.WriteScope.LABEL_DOMAINS, "example.com");
        assertAllowed(admit(AdmissionPolicyTest.NODE_FEATURE.withScope(scope), AdmissionRequests.nodeFeature("CREATE", "n1",
                "node-labeller", AGENT_A), nodeFeature(Map.of("local.label", Map.of("example.com/rack", "r12"))), null));
    }

    /** An NFD NodeFeature of node n1 with {@code attributes} (feature → elements) in spec.features. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> nodeFeature(Map<String, Map<String, String>> attributes) {
        Map<String, Object> nf = new LinkedHashMap<>(AdmissionPolicyTest.nodeFeature("n1", "n1"));
        Map<String, Object> attrs = new LinkedHashMap<>();
        attributes.forEach((feature, elements) -> attrs.put(feature, Map.of("elements", elements)));
        Map<String, Object> spec = new LinkedHashMap<>((Map<String, Object>) nf.get("spec"));
        spec.put("features", Map.of("flags", Map.of(), "attributes", attrs, "instances", Map.of()));
        nf.put("spec", spec);
        return nf;
    }
}
