package io.nodelabeller.deploy;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.label.WriteScope;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.nodelabeller.cli.Main;
import io.nodelabeller.config.Config;
import io.nodelabeller.config.ConfigLoader;
import io.nodelabeller.config.DaemonConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.nodelabeller.deploy.Manifests.one;
import static io.nodelabeller.deploy.Manifests.ofKind;
import static io.nodelabeller.deploy.Manifests.podSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Invariants of every shipped manifest (kustomize base and overlays, examples). */
class ManifestsTest {

    private static final Set<String> PLAIN_YAML = Set.of("Chart.yaml", "values.yaml", "config.yaml", "device-plugin-config.yaml",
            "kustomizeconfig.yaml", "node-rules.yaml");

    static Stream<String> variants() {
        return Manifests.VARIANTS.stream();
    }

    /** The variants that patch nodes (nfd-compat publishes NodeFeatures instead and has no node permissions). */
    static Stream<String> nodeWritingVariants() {
        return variants().filter(v -> !v.equals("overlays/nfd-compat"));
    }

    /** Users' overlays that install into kube-system (relative to manifests/, as the variants are). */
    static final List<String> OTHER_NAMESPACE = List.of("../src/test/resources/kustomize/other-namespace",
            "../src/test/resources/kustomize/other-namespace-nfd-compat");

    static Stream<String> kustomizations() {
        return Stream.concat(variants(), OTHER_NAMESPACE.stream());
    }

    /**
     * Installed into another namespace by a user's overlay ({@code namespace: kube-system} over nfd-compat): every
     * binding still names the agent's service account where it now lives, and the admission policy (which matches
     * the account in any namespace) is unchanged, so the agent stays bound and policed.
     */
    @Test
    void aNamespaceChangeKeepsTheAgentBoundAndPoliced() {
        List<HasMetadata> objects = Manifests.render(OTHER_NAMESPACE.get(0));
        ServiceAccount sa = ofKind(objects, ServiceAccount.class).get(0);
        assertEquals("kube-system", sa.getMetadata().getNamespace());
        ClusterRoleBinding crb = ofKind(objects, ClusterRoleBinding.class).get(0);
        assertEquals(List.of("kube-system/node-labeller"), crb.getSubjects().stream().map(s -> s.getNamespace() + "/" + s.getName()).toList());
        assertRolesAreTheirIdentities(objects, OTHER_NAMESPACE.get(0));
        for (HasMetadata w : Manifests.workloads(objects)) {
            assertEquals("kube-system", w.getMetadata().getNamespace());
        }
        assertEquals(ofKind(Manifests.render("base"), ValidatingAdmissionPolicy.class).get(0).getSpec(),
                ofKind(objects, ValidatingAdmissionPolicy.class).get(0).getSpec());

        List<HasMetadata> nfd = Manifests.render(OTHER_NAMESPACE.get(1));
        RoleBinding rb = ofKind(nfd, RoleBinding.class).get(0);
        assertEquals("kube-system", rb.getMetadata().getNamespace());
        assertEquals(List.of("kube-system/node-labeller", "kube-system/node-labeller-gpu"),
                rb.getSubjects().stream().map(s -> s.getNamespace() + "/" + s.getName()).toList());
        assertRolesAreTheirIdentities(nfd, OTHER_NAMESPACE.get(1));
        assertEquals("kube-system", ofKind(nfd, Role.class).get(0).getMetadata().getNamespace());
        assertEquals(ofKind(Manifests.render("overlays/nfd-compat"), ValidatingAdmissionPolicy.class).get(0).getSpec(),
                ofKind(nfd, ValidatingAdmissionPolicy.class).get(0).getSpec());
    }

    static Stream<Path> yamlFiles() throws IOException {
        try (Stream<Path> files = Files.walk(Manifests.ROOT)) {
            return files.filter(p -> p.toString().endsWith(".yaml"))
                    .filter(p -> !p.startsWith(Manifests.CHART.resolve("templates"))) // Go templates: HelmChartTest
                    .sorted().toList().stream();
        }
    }

    /** Kinds of other projects' CRDs the examples use (not in fabric8's model), with their apiVersion. */
    private static final Map<String, String> CUSTOM_KINDS = Map.of("PrometheusRule", "monitoring.coreos.com/v1");

    @ParameterizedTest
    @MethodSource("yamlFiles")
    void everyYamlFileParses(Path file) {
        List<JsonNode> docs = Kustomize.read(file);
        assertFalse(docs.isEmpty(), file + " is empty");
        for (JsonNode doc : docs) {
            if (!doc.has("kind")) {
                // Not a Kubernetes object: only these plain YAML files are expected.
                assertTrue(PLAIN_YAML.contains(file.getFileName().toString()), file + " has no kind");
                continue;
            }
            if (!file.getFileName().toString().equals("kustomization.yaml") && !file.startsWith(Manifests.CHART)) {
                HasMetadata o = Manifests.toModel(doc);
                String crdApi = CUSTOM_KINDS.get(doc.path("kind").asText());
                if (crdApi != null) {
                    assertEquals(crdApi, doc.path("apiVersion").asText(), file + ": apiVersion of " + doc.path("kind"));
                } else {
                    assertFalse(o instanceof GenericKubernetesResource, file + ": " + doc.path("kind") + " is not a known kind");
                }
                assertNotNull(o.getMetadata().getName(), file + ": object without a name");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("nodeWritingVariants")
    void rbacIsExactlyGetListWatchPatchOnNodesAndReadingNodeFeatureRules(String variant) {
        List<HasMetadata> objects = Manifests.render(variant);
        List<ClusterRole> roles = ofKind(objects, ClusterRole.class);
        assertEquals(1, roles.size(), variant);
        ClusterRoleBinding binding = ofKind(objects, ClusterRoleBinding.class).get(0);
        List<String> expected = new java.util.ArrayList<>(List.of(identityRule(binding), "[] [nodes] [get, list, patch, watch] []",
                "[nfd.k8s-sigs.io] [nodefeaturerules] [get, list, watch] []",
                "[resource.k8s.io] [resourceslices] [get, list, watch] []"));
        if (variant.equals("overlays/taints-and-extended-resources")) {
            expected.add("[] [nodes/status] [patch] []"); // extended resources live in status.capacity
        }
        assertEquals(expected, rules(roles.get(0)), variant);

        assertEquals(roles.get(0).getMetadata().getName(), binding.getRoleRef().getName());
        assertRolesAreTheirIdentities(objects, variant);
    }

    /**
     * The install's binding binds exactly the variant's service accounts, every workload runs as one of them in its
     * namespace, and each agent's {@code NODE_LABELLER_ROLE} is the role its account has in the admission policies: the
     * account {@value WriteScope#GPU_AGENT} names runs the GPU agent, every other one the host agent; without that
     * annotation one agent writes all (and may run with any role).
     */
    static void assertRolesAreTheirIdentities(List<HasMetadata> objects, String variant) {
        ClusterRoleBinding binding = ofKind(objects, ClusterRoleBinding.class).get(0);
        assertEquals(ofKind(objects, ServiceAccount.class).stream()
                        .map(a -> a.getMetadata().getNamespace() + "/" + a.getMetadata().getName()).sorted().toList(),
                binding.getSubjects().stream().map(x -> x.getNamespace() + "/" + x.getName()).sorted().toList(), variant);
        String gpuAgent = binding.getMetadata().getAnnotations().get(WriteScope.GPU_AGENT);
        for (HasMetadata w : Manifests.workloads(objects)) {
            String account = podSpec(w).getServiceAccountName();
            assertTrue(binding.getSubjects().stream().anyMatch(x -> x.getName().equals(account)
                    && x.getNamespace().equals(w.getMetadata().getNamespace())), variant + ": " + w.getMetadata().getName());
            String role = podSpec(w).getContainers().get(0).getEnv().stream().filter(e -> e.getName().equals("NODE_LABELLER_ROLE"))
                    .map(EnvVar::getValue).findFirst().orElse("all");
            if (gpuAgent != null) {
                assertEquals(account.equals(gpuAgent) ? "gpu" : "host", role, variant + ": " + w.getMetadata().getName());
            }
        }
    }

    /**
     * The shipped write scope: NFD's namespaces only, the GPU Operator's three opt-in capabilities under nvidia.com,
     * no taint, no extended resource; every annotation parses, none is ignored; the chart's defaults are the same.
     */
    @ParameterizedTest
    @MethodSource("variants")
    void theShippedWriteScopeIsTheDefaultOne(String variant) {
        Map<String, String> annotations = ofKind(Manifests.render(variant), ClusterRoleBinding.class).get(0).getMetadata().getAnnotations();
        Set<String> expected = new java.util.HashSet<>(WriteScope.ANNOTATIONS);
        if (Manifests.workloads(Manifests.render(variant)).size() == 2) { // two agents: the GPU agent's account named
            expected.add(WriteScope.GPU_AGENT);
        }
        assertEquals(expected, annotations.keySet(), variant);
        WriteScope scope = WriteScope.of(annotations, variant);
        assertEquals(List.of(), WriteScope.ignored(annotations));
        assertEquals(List.of(), scope.labelDomains());
        assertEquals(Set.copyOf(WriteScope.DEFAULT_NVIDIA_KEYS), scope.nvidiaKeys());
        assertEquals(List.of(), scope.deniedKeys());
        assertEquals(variant.equals("overlays/taints-and-extended-resources"), scope.taints());
        assertEquals(variant.equals("overlays/taints-and-extended-resources"), scope.extendedResources());
        assertEquals(annotations.get(WriteScope.NVIDIA_KEYS), ofKind(HelmChartTest.template(Map.of()), ClusterRoleBinding.class).get(0)
                .getMetadata().getAnnotations().get(WriteScope.NVIDIA_KEYS));
    }

    /** A role's rules as "apiGroups resources verbs resourceNames", each verb once. */
    static List<String> rules(ClusterRole role) {
        return role.getRules().stream().map(r -> {
            assertEquals(Set.copyOf(r.getVerbs()).size(), r.getVerbs().size());
            return r.getApiGroups() + " " + r.getResources() + " " + new java.util.TreeSet<>(r.getVerbs()) + " "
                    + (r.getResourceNames() == null ? List.of() : r.getResourceNames());
        }).toList();
    }

    /** The agent's one permission in every variant: reading its own install's ClusterRoleBinding, by name. */
    static String identityRule(ClusterRoleBinding binding) {
        return "[rbac.authorization.k8s.io] [clusterrolebindings] [get] [" + binding.getMetadata().getName() + "]";
    }

    @ParameterizedTest
    @MethodSource("variants")
    void podsRunNonRootUnprivilegedAndReadOnly(String variant) {
        List<HasMetadata> workloads = Manifests.workloads(Manifests.render(variant));
        assertFalse(workloads.isEmpty());
        for (HasMetadata w : workloads) {
            String where = variant + " " + w.getMetadata().getName();
            PodSpec pod = podSpec(w);
            assertFalse(Boolean.TRUE.equals(pod.getHostNetwork()) || Boolean.TRUE.equals(pod.getHostPID())
                    || Boolean.TRUE.equals(pod.getHostIPC()), where);
            assertEquals("RuntimeDefault", pod.getSecurityContext().getSeccompProfile().getType(), where);
            assertEquals(Boolean.TRUE, pod.getSecurityContext().getRunAsNonRoot(), where);
            assertEquals(65534L, pod.getSecurityContext().getRunAsUser(), where);
            for (Container c : pod.getContainers()) {
                var sc = c.getSecurityContext();
                assertEquals(Boolean.TRUE, sc.getRunAsNonRoot(), where);
                assertEquals(65534L, sc.getRunAsUser(), where);
                assertEquals(Boolean.FALSE, sc.getPrivileged(), where);
                assertEquals(Boolean.FALSE, sc.getAllowPrivilegeEscalation(), where);
                assertEquals(Boolean.TRUE, sc.getReadOnlyRootFilesystem(), where);
                assertEquals(List.of("ALL"), sc.getCapabilities().getDrop(), where);
                assertTrue(sc.getCapabilities().getAdd() == null || sc.getCapabilities().getAdd().isEmpty(), where);
                assertNotNull(c.getResources().getRequests().get("memory"), where);
                assertNotNull(c.getResources().getLimits().get("memory"), where);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("variants")
    void hostDirectoriesAreMountedReadOnlyUnderHost(String variant) {
        for (HasMetadata w : Manifests.workloads(Manifests.render(variant))) {
            String where = variant + " " + w.getMetadata().getName();
            PodSpec pod = podSpec(w);
            Map<String, String> hostPathOf = pod.getVolumes().stream().filter(v -> v.getHostPath() != null)
                    .filter(v -> !v.getName().equals(Manifests.DEVICE_REQUEST_VOLUME)) // the GPU agent's: checked below
                    .collect(Collectors.toMap(Volume::getName, v -> v.getHostPath().getPath()));
            assertEquals(new TreeSet<>(Manifests.HOST_PATHS), new TreeSet<>(hostPathOf.values()), where);
            Container c = pod.getContainers().get(0);
            Map<String, String> mounted = new TreeMap<>();
            for (VolumeMount m : c.getVolumeMounts()) {
                if (hostPathOf.containsKey(m.getName())) {
                    assertEquals(Boolean.TRUE, m.getReadOnly(), where + ": " + m.getMountPath() + " must be read-only");
                    mounted.put(hostPathOf.get(m.getName()), m.getMountPath());
                } else {
                    assertFalse(m.getMountPath().startsWith("/host"), where + ": " + m.getMountPath());
                }
            }
            for (String path : Manifests.HOST_PATHS) {
                assertEquals("/host" + path, mounted.get(path), where + ": mount of " + path);
            }
            if (w instanceof DaemonSet ds && "nvidia".equals(pod.getRuntimeClassName())) {
                Manifests.assertDeviceRequestOnlyOnTheGpuAgent(ds);
            } else {
                assertTrue(pod.getVolumes().stream().noneMatch(v -> v.getName().equals(Manifests.DEVICE_REQUEST_VOLUME)), where);
            }
            // least privilege: no host directory that shows processes (the whole /proc), and directories read-only
            // all the way down where the kubelet can do it
            assertFalse(hostPathOf.containsValue("/proc"), where + ": the whole host /proc is mounted");
            for (VolumeMount m : c.getVolumeMounts()) {
                String hostPath = hostPathOf.get(m.getName());
                if (hostPath != null && !hostPath.startsWith("/proc/") && !hostPath.equals("/etc/os-release")) {
                    assertEquals("IfPossible", m.getRecursiveReadOnly(), where + ": " + m.getMountPath());
                }
            }
            // The only writable place: an emptyDir at /tmp (JNA, java.io.tmpdir; bin/jvm.options).
            VolumeMount tmp = c.getVolumeMounts().stream().filter(m -> m.getMountPath().equals("/tmp")).findFirst().orElseThrow();
            Volume tmpVolume = pod.getVolumes().stream().filter(v -> v.getName().equals(tmp.getName())).findFirst().orElseThrow();
            assertNotNull(tmpVolume.getEmptyDir(), where);
            assertEquals(List.of(tmp), c.getVolumeMounts().stream().filter(m -> !Boolean.TRUE.equals(m.getReadOnly())).toList(),
                    where + ": only /tmp may be writable");
        }
    }

    @ParameterizedTest
    @MethodSource("variants")
    void nodeNameComesFromTheDownwardApi(String variant) {
        for (HasMetadata w : Manifests.workloads(Manifests.render(variant))) {
            EnvVar nodeName = podSpec(w).getContainers().get(0).getEnv().stream()
                    .filter(e -> e.getName().equals("NODE_NAME")).findFirst().orElseThrow();
            assertEquals("spec.nodeName", nodeName.getValueFrom().getFieldRef().getFieldPath());
        }
    }

    @ParameterizedTest
    @MethodSource("variants")
    void imageTagIsTheProjectVersion(String variant) {
        String version = Manifests.projectVersion();
        for (HasMetadata w : Manifests.workloads(Manifests.render(variant))) {
            String image = podSpec(w).getContainers().get(0).getImage();
            assertTrue(image.endsWith(":" + version), variant + ": " + image + " is not tagged " + version);
        }
    }

    @ParameterizedTest
    @MethodSource("variants")
    void argsAreRealOptionsAndPointAtTheMountedFiles(String variant) throws Exception {
        List<HasMetadata> objects = Manifests.render(variant);
        ConfigMap cm = one(objects, ConfigMap.class, "node-labeller-config");
        for (HasMetadata w : Manifests.workloads(objects)) {
            PodSpec pod = podSpec(w);
            Container c = pod.getContainers().get(0);
            CommandLine.ParseResult parsed = parse(c.getArgs());
            assertEquals(w instanceof Job ? "once" : "run", c.getArgs().get(0));
            assertEquals(Path.of("/host"), parsed.subcommand().matchedOptionValue("--host-root", null));
            // --config and --device-plugin-config name keys of the ConfigMap, at its mount path.
            String configMount = c.getVolumeMounts().stream().filter(m -> pod.getVolumes().stream()
                    .anyMatch(v -> v.getName().equals(m.getName()) && v.getConfigMap() != null)).findFirst().orElseThrow().getMountPath();
            for (String option : List.of("--config", "--device-plugin-config")) {
                Path file = parsed.subcommand().matchedOptionValue(option, null);
                assertNotNull(file, option);
                assertEquals(Path.of(configMount), file.getParent(), option);
                assertTrue(cm.getData().containsKey(file.getFileName().toString()), option + " " + file);
            }
        }
    }

    /** Parses container args with the real CLI: an unknown command or option fails the test. */
    static CommandLine.ParseResult parse(List<String> args) {
        CommandLine cli = Main.commandLine();
        assertNotNull(cli.getSubcommands().get(args.get(0)), "no command " + args.get(0));
        return cli.parseArgs(args.toArray(String[]::new));
    }

    @ParameterizedTest
    @MethodSource("variants")
    void shippedConfigIsValidAndProbesUseItsPort(String variant) throws Exception {
        List<HasMetadata> objects = Manifests.render(variant);
        Config config = Catalog.configLoader().parse(variant + " ConfigMap config.yaml",
                one(objects, ConfigMap.class, "node-labeller-config").getData().get("config.yaml"));
        assertEquals(DaemonConfig.DEFAULT.port(), config.daemon().port(), "the manifests assume the default port");
        for (DaemonSet ds : ofKind(objects, DaemonSet.class)) {
            Container c = ds.getSpec().getTemplate().getSpec().getContainers().get(0);
            assertProbe(c, c.getLivenessProbe().getHttpGet(), "/healthz", config.daemon().port());
            assertProbe(c, c.getReadinessProbe().getHttpGet(), "/readyz", config.daemon().port());
        }
    }

    static void assertProbe(Container c, HTTPGetAction get, String path, int port) {
        assertEquals(path, get.getPath());
        int resolved = get.getPort().getIntVal() != null ? get.getPort().getIntVal()
                : c.getPorts().stream().filter(p -> p.getName().equals(get.getPort().getStrVal())).findFirst().orElseThrow()
                .getContainerPort();
        assertEquals(port, resolved, path);
    }

    @ParameterizedTest
    @MethodSource("variants")
    void daemonSetsRollAndRunEverywhereAsNodeCritical(String variant) {
        for (DaemonSet ds : ofKind(Manifests.render(variant), DaemonSet.class)) {
            assertEquals("RollingUpdate", ds.getSpec().getUpdateStrategy().getType());
            PodSpec pod = ds.getSpec().getTemplate().getSpec();
            assertEquals("system-node-critical", pod.getPriorityClassName());
            assertTrue(pod.getTolerations().stream().anyMatch(t -> "Exists".equals(t.getOperator()) && t.getKey() == null),
                    "tolerates every taint");
            assertTrue(ds.getSpec().getSelector().getMatchLabels().entrySet().stream()
                    .allMatch(e -> e.getValue().equals(ds.getSpec().getTemplate().getMetadata().getLabels().get(e.getKey()))));
        }
    }

    /**
     * kustomize's {@code namespace:} would also stamp the admission policy and its binding (it does not know they
     * are cluster-scoped), so no kustomization of ours sets one; {@link Kustomize} makes kustomize's mistake too.
     */
    @ParameterizedTest
    @MethodSource("variants")
    void clusterScopedObjectsHaveNoNamespace(String variant) {
        Manifests.assertNamespaces(Manifests.render(variant), "node-labeller", variant);
    }

    @ParameterizedTest
    @MethodSource("nodeWritingVariants")
    void admissionPolicyBindsTheAgentsServiceAccountToItsOwnNode(String variant) throws Exception {
        List<HasMetadata> objects = Manifests.render(variant);
        ValidatingAdmissionPolicy policy = ofKind(objects, ValidatingAdmissionPolicy.class).get(0);
        ValidatingAdmissionPolicyBinding binding = ofKind(objects, ValidatingAdmissionPolicyBinding.class).get(0);
        assertEquals(policy.getMetadata().getName(), binding.getSpec().getPolicyName());
        assertEquals(List.of("Deny"), binding.getSpec().getValidationActions());
        // the parameter is the ClusterRoleBinding that grants the agent's account its permissions
        assertEquals("ClusterRoleBinding", policy.getSpec().getParamKind().getKind());
        ClusterRoleBinding crb = Manifests.one(objects, ClusterRoleBinding.class, binding.getSpec().getParamRef().getName());
        assertEquals(ofKind(objects, ServiceAccount.class).stream().map(a -> a.getMetadata().getNamespace() + "/"
                + a.getMetadata().getName()).sorted().toList(), crb.getSubjects().stream().map(x -> x.getNamespace() + "/"
                + x.getName()).sorted().toList());
        String all = Manifests.K8S.asJson(policy.getSpec());
        assertTrue(all.contains("request.userInfo.extra['authentication.kubernetes.io/node-name']"));
        assertTrue(all.contains("'managed-labels'"));
        // the write scope's switches, on the install's binding (which the agent reads too), agree with the config's
        boolean outputs = variant.equals("overlays/taints-and-extended-resources");
        assertEquals(Map.of(WriteScope.TAINTS, String.valueOf(outputs), WriteScope.EXTENDED_RESOURCES, String.valueOf(outputs)),
                Map.of(WriteScope.TAINTS, crb.getMetadata().getAnnotations().get(WriteScope.TAINTS),
                        WriteScope.EXTENDED_RESOURCES, crb.getMetadata().getAnnotations().get(WriteScope.EXTENDED_RESOURCES)),
                variant);
        Config config = Catalog.configLoader().parse(variant, one(objects, ConfigMap.class, "node-labeller-config").getData().get("config.yaml"));
        assertEquals(outputs, config.publish().taints(), variant);
        assertEquals(outputs, config.publish().extendedResources(), variant);
        assertEquals(Set.of("nodes", "nodes/status"), Set.copyOf(policy.getSpec().getMatchConstraints().getResourceRules().get(0).getResources()));
    }

    @Test
    void gpuOverlayHandsGpuNodesToAnAgentOnTheNvidiaRuntime() {
        List<HasMetadata> objects = Manifests.render("overlays/gpu");
        DaemonSet plain = one(objects, DaemonSet.class, "node-labeller");
        DaemonSet gpu = one(objects, DaemonSet.class, "node-labeller-gpu");
        PodSpec gpuPod = gpu.getSpec().getTemplate().getSpec();
        assertEquals("nvidia", gpuPod.getRuntimeClassName());
        assertEquals(null, plain.getSpec().getTemplate().getSpec().getRuntimeClassName());
        Map<String, String> env = gpuPod.getContainers().get(0).getEnv().stream().filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
        assertEquals("all", env.get("NVIDIA_VISIBLE_DEVICES"));
        assertEquals("utility", env.get("NVIDIA_DRIVER_CAPABILITIES"));
        // The host agent on every node, GPU nodes included, whatever the GPU stack does: the host labels never wait
        // for it. The GPU agent joins where gpu.present=true, and leaves while the GPU Operator pauses GPU clients for
        // a driver upgrade or a MIG change (nobody touches the GPU labels meanwhile).
        assertEquals(BOTH_WHERE_ALLOWED, GPU_NODE_STATES.stream().map(node -> agentOn(plain, gpu, node)).toList());
        Map<String, String> hostEnv = plain.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getValue() != null).collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
        assertEquals("host", hostEnv.get("NODE_LABELLER_ROLE"));
        assertEquals("gpu", env.get("NODE_LABELLER_ROLE"));
        assertEquals(hostEnv.get("NODE_LABELLER_INSTANCE"), env.get("NODE_LABELLER_INSTANCE"), "one install");
        // each its own identity: the GPU agent's account is the one the install's binding names as its GPU agent
        assertEquals("node-labeller", plain.getSpec().getTemplate().getSpec().getServiceAccountName());
        assertEquals(ofKind(objects, ClusterRoleBinding.class).get(0).getMetadata().getAnnotations().get(WriteScope.GPU_AGENT),
                gpuPod.getServiceAccountName());
        assertRolesAreTheirIdentities(objects, "overlays/gpu");
        // the hardened toolkit (no NVIDIA_VISIBLE_DEVICES from unprivileged containers) takes the volume-mount request
        Manifests.assertDeviceRequestOnlyOnTheGpuAgent(gpu);
        // Two DaemonSets must not select each other's pods.
        assertNotEquals(plain.getSpec().getSelector().getMatchLabels(), gpu.getSpec().getSelector().getMatchLabels());
        assertFalse(gpu.getSpec().getTemplate().getMetadata().getLabels().entrySet()
                .containsAll(plain.getSpec().getSelector().getMatchLabels().entrySet()));
        // Same container otherwise.
        assertEquals(plain.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs(), gpuPod.getContainers().get(0).getArgs());
        assertEquals(plain.getSpec().getTemplate().getSpec().getVolumes(), gpuPod.getVolumes().stream()
                .filter(v -> !v.getName().equals(Manifests.DEVICE_REQUEST_VOLUME)).toList());
    }

    /** docs/security.md's table of host paths is the list the manifests mount: a new one is documented there too. */
    @Test
    void securityMdListsExactlyTheMountedHostPaths() throws Exception {
        Set<String> documented = new TreeSet<>();
        for (String line : Files.readString(Path.of("docs/security.md")).lines().filter(l -> l.startsWith("| `/")).toList()) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("`(/[^`]*)`").matcher(line.substring(0, line.indexOf(" |", 2)));
            while (m.find()) {
                documented.add(m.group(1));
            }
        }
        assertEquals(new TreeSet<>(Manifests.HOST_PATHS), documented);
    }

    /**
     * docs/gpu.md's kustomize overlay for vGPU labels, as printed there, on the shipped gpu overlay: the GPU DaemonSet
     * reads config-gpu.yaml (the shipped config plus sources.nvidia.vgpu, nothing else different) and runs as root with
     * SYS_ADMIN; the plain DaemonSet is as shipped.
     */
    @Test
    void theDocumentedVgpuOverlayScansOnlyInTheGpuDaemonSet(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        List<HasMetadata> objects = Manifests.renderDocumented(Path.of("docs/gpu.md"), "# kustomization.yaml (vgpu)", tmp);
        List<HasMetadata> shipped = Manifests.render("overlays/gpu");

        Container gpu = one(objects, DaemonSet.class, "node-labeller-gpu").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals("--config=/etc/node-labeller/config-gpu.yaml", gpu.getArgs().get(1));
        Manifests.assertRootWithSysAdminOnly(gpu);
        assertEquals(one(shipped, DaemonSet.class, "node-labeller"), one(objects, DaemonSet.class, "node-labeller"));

        Map<String, String> data = one(objects, ConfigMap.class, "node-labeller-config").getData();
        Config plain = Catalog.configLoader().parse("config.yaml", data.get("config.yaml"));
        Config withVgpu = Catalog.configLoader().parse("config-gpu.yaml", data.get("config-gpu.yaml"));
        var section = io.nodelabeller.source.nvidia.NvidiaConfig.SECTION;
        assertEquals(true, withVgpu.sources().get(section).vgpu());
        assertEquals(plain, Catalog.configLoader().parse("config-gpu.yaml", data.get("config-gpu.yaml")
                .replace("  nvidia:\n    vgpu: true\n", "")), "the shipped config otherwise");
    }

    /**
     * docs/gpu.md's kustomize overlay that makes gpu.deploy.client required, as printed there: the GPU agent only where
     * the Operator set it to true, and a nodeSelector key, which k8s-driver-manager waits for.
     */
    @Test
    void theDocumentedRequiredClientGateRunsTheGpuAgentOnlyWhereTheOperatorAllows(@org.junit.jupiter.api.io.TempDir Path tmp)
            throws Exception {
        List<HasMetadata> objects = Manifests.renderDocumented(Path.of("docs/gpu.md"),
                "# kustomization.yaml (gpu.deploy.client required)", tmp);
        DaemonSet gpu = one(objects, DaemonSet.class, "node-labeller-gpu");
        assertEquals("true", gpu.getSpec().getTemplate().getSpec().getNodeSelector().get("nvidia.com/gpu.deploy.client"));
        assertEquals(ONLY_WHERE_THE_CLIENT_GATE_IS_OPEN, GPU_NODE_STATES.stream()
                .map(n -> agentOn(one(objects, DaemonSet.class, "node-labeller"), gpu, n)).toList());
    }

    /**
     * Node label states, as the GPU Operator leaves them (gpu-operator controllers/state_manager.go, gpuStateLabels;
     * nodelabeling_controller.go), in order: a CPU node; a CPU node under the Operator; a GPU node without the
     * Operator; a container node of the Operator 26.7+ (GFD's deploy label and gpu.deploy.client true); the same while
     * k8s-driver-manager upgrades the driver (cmd/driver-manager/main.go, maybeSetPaused: paused-for-driver-upgrade) and
     * while mig-manager changes the MIG layout (paused-for-mig-change); GPU clients switched off (false); a container
     * node of an Operator older than 26.7 (no gpu.deploy.client); a vm-passthrough node (KubeVirt), one of a kata
     * sandbox whose workload config is the ClusterPolicy's default (no gpu.workload.config label); a vm-vgpu node;
     * operands switched off (gpu.deploy.operands=false: every deploy label removed); a DRA node (GPUCluster: no GFD).
     */
    static final List<Map<String, String>> GPU_NODE_STATES = List.of(
            Map.of("kubernetes.io/os", "linux"),
            Map.of("kubernetes.io/os", "linux", "nvidia.com/gpu.deploy.driver", "false"),
            Map.of("kubernetes.io/os", "linux", "nvidia.com/gpu.present", "true"),
            operatorNode("container", "true", "true"),
            operatorNode("container", "paused-for-driver-upgrade", "paused-for-driver-upgrade"),
            operatorNode("container", "paused-for-mig-change", "paused-for-mig-change"),
            operatorNode("container", "true", "false"),
            operatorNode("container", "true", null),
            Map.of("kubernetes.io/os", "linux", "nvidia.com/gpu.present", "true", "nvidia.com/gpu.workload.config",
                    "vm-passthrough", "nvidia.com/gpu-operator.resource-allocation.mode", "device-plugin",
                    "nvidia.com/gpu.deploy.sandbox-device-plugin", "true", "nvidia.com/gpu.deploy.vfio-manager", "true",
                    "nvidia.com/gpu.deploy.sandbox-validator", "true"),
            Map.of("kubernetes.io/os", "linux", "nvidia.com/gpu.present", "true",
                    "nvidia.com/gpu.deploy.kata-sandbox-device-plugin", "true", "nvidia.com/gpu.deploy.vfio-manager", "true",
                    "nvidia.com/gpu.deploy.kata-manager", "true"),
            Map.of("kubernetes.io/os", "linux", "nvidia.com/gpu.present", "true", "nvidia.com/gpu.workload.config", "vm-vgpu",
                    "nvidia.com/gpu.deploy.sandbox-device-plugin", "true", "nvidia.com/gpu.deploy.vgpu-manager", "true",
                    "nvidia.com/gpu.deploy.vgpu-device-manager", "true"),
            Map.of("kubernetes.io/os", "linux", "nvidia.com/gpu.present", "true", "nvidia.com/gpu.deploy.operands", "false",
                    "nvidia.com/gpu-operator.resource-allocation.mode", "device-plugin"),
            Map.of("kubernetes.io/os", "linux", "nvidia.com/gpu.present", "true",
                    "nvidia.com/gpu-operator.resource-allocation.mode", "dra", "nvidia.com/gpu.deploy.dra-driver", "true"));

    /** A container-workload GPU node of the Operator: its GFD deploy label and gpu.deploy.client (null: not set). */
    private static Map<String, String> operatorNode(String workload, String gfd, String client) {
        Map<String, String> m = new java.util.TreeMap<>(Map.of("kubernetes.io/os", "linux", "nvidia.com/gpu.present", "true",
                "nvidia.com/gpu.deploy.gpu-feature-discovery", gfd, "nvidia.com/gpu.deploy.driver", "true",
                "nvidia.com/gpu.deploy.device-plugin", "true", "nvidia.com/gpu.deploy.container-toolkit", "true"));
        if (client != null) {
            m.put("nvidia.com/gpu.deploy.client", client);
            m.put("nvidia.com/gpu-operator.resource-allocation.mode", "device-plugin");
        }
        if (!workload.equals("container")) {
            m.put("nvidia.com/gpu.workload.config", workload);
        }
        return m;
    }

    /**
     * Which agents run on a node with {@code labels}: "host", "host+gpu", "none", or "gpu" (a defect: GPU labels
     * maintained while the host labels are not).
     */
    static String agentOn(DaemonSet host, DaemonSet gpu, Map<String, String> labels) {
        boolean h = io.nodelabeller.testing.NodeAffinity.selects(host.getSpec().getTemplate().getSpec(), labels);
        boolean g = io.nodelabeller.testing.NodeAffinity.selects(gpu.getSpec().getTemplate().getSpec(), labels);
        return h && g ? "host+gpu" : h ? "host" : g ? "gpu" : "none";
    }

    /**
     * Every node state gets the host agent; the GPU agent joins where the Operator would run GFD, and on GPU nodes
     * without the Operator.
     */
    static final List<String> BOTH_WHERE_ALLOWED = List.of("host", "host", "host+gpu", "host+gpu", "host", "host", "host",
            "host+gpu", "host", "host", "host", "host", "host");
    /** With gpu.deploy.client required: the GPU agent only where the Operator 26.7+ lets GPU clients run. */
    static final List<String> ONLY_WHERE_THE_CLIENT_GATE_IS_OPEN = List.of("host", "host", "host", "host+gpu", "host", "host",
            "host", "host", "host", "host", "host", "host", "host");

    @Test
    void nfdCompatOverlayPublishesNodeFeaturesWithANamespacedRole() throws Exception {
        List<HasMetadata> objects = Manifests.render("overlays/nfd-compat");
        Config config = Catalog.configLoader().parse("nfd-compat", one(objects, ConfigMap.class, "node-labeller-config").getData().get("config.yaml"));
        assertTrue(config.publish().nodeFeature().enabled());
        assertFalse(config.publish().node(), "nfd-master writes the labels");
        Role role = ofKind(objects, Role.class).get(0);
        // the NodeFeatures go where the agent runs (POD_NAMESPACE), which is where its Role is, whatever namespace
        // a user's overlay moves it to
        assertEquals("", config.publish().nodeFeature().namespace());
        DaemonSet ds = ofKind(objects, DaemonSet.class).get(0);
        assertEquals(ds.getMetadata().getNamespace(), role.getMetadata().getNamespace());
        EnvVar podNamespace = ds.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals("POD_NAMESPACE")).findFirst().orElseThrow();
        assertEquals("metadata.namespace", podNamespace.getValueFrom().getFieldRef().getFieldPath());
        PolicyRule rule = role.getRules().get(0);
        assertEquals(List.of("nfd.k8s-sigs.io"), rule.getApiGroups());
        assertEquals(List.of("nodefeatures"), rule.getResources());
        assertEquals(List.of("get", "create", "update"), rule.getVerbs(), "what NodeFeaturePublisher sends");
        // nfd-master writes the labels: no permission on nodes at all, and a policy on NodeFeatures instead, whose
        // parameter is the install's ClusterRoleBinding, which grants nothing but reading itself
        ClusterRoleBinding identity = ofKind(objects, ClusterRoleBinding.class).get(0);
        assertEquals(List.of(identityRule(identity)), rules(ofKind(objects, ClusterRole.class).get(0)));
        assertEquals(identity.getMetadata().getName(), ofKind(objects, ValidatingAdmissionPolicyBinding.class).get(0)
                .getSpec().getParamRef().getName());
        assertEquals(List.of("nodefeatures"), ofKind(objects, ValidatingAdmissionPolicy.class).stream()
                .flatMap(p -> p.getSpec().getMatchConstraints().getResourceRules().stream())
                .flatMap(r -> r.getResources().stream()).toList());
        RoleBinding rb = ofKind(objects, RoleBinding.class).get(0);
        assertEquals(role.getMetadata().getName(), rb.getRoleRef().getName());
        assertEquals(ofKind(objects, ServiceAccount.class).get(0).getMetadata().getName(), rb.getSubjects().get(0).getName());
        // Everything but publishing is the base config.
        Config base = Catalog.configLoader().parse("base", Manifests.shippedConfig());
        assertEquals(base.core().sleepInterval(), config.core().sleepInterval());
        assertEquals(base.sources(), config.sources());
    }

    @Test
    void jobOverlayRunsOnceWithoutADaemonSet() {
        List<HasMetadata> objects = Manifests.render("overlays/job");
        assertTrue(ofKind(objects, DaemonSet.class).isEmpty());
        Job job = ofKind(objects, Job.class).get(0);
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        assertEquals("Never", pod.getRestartPolicy());
        assertEquals("REPLACE_WITH_NODE_NAME", pod.getNodeName(), "the documented placeholder");
        assertEquals("once", pod.getContainers().get(0).getArgs().get(0));
    }

    /** {@code dir} (relative to manifests/) as real kustomize renders it. */
    static List<HasMetadata> renderWithKubectl(String dir) throws Exception {
        Path out = Files.createTempFile("kustomize", ".yaml");
        try {
            Process p = kubectlKustomize(dir, out);
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), "kubectl kustomize " + dir);
            return Manifests.parseAll(Files.readString(out));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /**
     * {@code kubectl kustomize DIR > out}. Without kubectl the comparison with real kustomize is skipped loudly on a
     * developer's machine and fails under {@code CI=true}: CI never passes by skipping it.
     */
    static Process kubectlKustomize(String dir, Path out) throws IOException {
        try {
            return new ProcessBuilder("kubectl", "kustomize", Manifests.ROOT.resolve(dir).toString())
                    .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            Files.deleteIfExists(out);
            io.nodelabeller.testing.Prerequisites.require(false, "kubectl not installed: " + dir + " not rendered with real kustomize");
            throw new IllegalStateException("unreachable");
        }
    }

    /**
     * Where kubectl (which embeds kustomize) is installed, the real kustomize must render exactly what
     * {@link Kustomize} renders, so the invariants above hold for what users apply.
     */
    @ParameterizedTest
    @MethodSource("kustomizations")
    void rendererAgreesWithKubectlKustomize(String variant) throws Exception {
        Path out = Files.createTempFile("kustomize", ".yaml");
        Process p = kubectlKustomize(variant, out);
        try {
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), "kubectl kustomize " + variant);
            Map<String, HasMetadata> real = byId(Manifests.parseAll(Files.readString(out)));
            Map<String, HasMetadata> ours = byId(Manifests.render(variant));
            assertEquals(real.keySet(), ours.keySet());
            for (String id : real.keySet()) {
                if (!real.get(id).equals(ours.get(id))) { // model equality: map order does not matter
                    assertEquals(Manifests.K8S.asYaml(real.get(id)), Manifests.K8S.asYaml(ours.get(id)), id);
                }
            }
        } finally {
            Files.delete(out);
        }
    }

    /** The examples use configMapGenerator (beyond {@link Kustomize}): real kustomize, where installed. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"examples/time-slicing", "examples/custom-rule"})
    void examplesRenderWithKubectlKustomize(String example) throws Exception {
        Path out = Files.createTempFile("kustomize", ".yaml");
        try {
            Process p = kubectlKustomize(example, out);
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), "kubectl kustomize " + example);
            ConfigMap cm = one(Manifests.parseAll(Files.readString(out)), ConfigMap.class, "node-labeller-config");
            Path dir = Manifests.ROOT.resolve(example);
            for (String key : cm.getData().keySet()) {
                if (Files.exists(dir.resolve(key))) {
                    assertEquals(Files.readString(dir.resolve(key)), cm.getData().get(key), key);
                }
            }
            assertTrue(cm.getData().keySet().stream().anyMatch(key -> Files.exists(dir.resolve(key))), "example file merged");
        } finally {
            Files.delete(out);
        }
    }

    private static Map<String, HasMetadata> byId(List<HasMetadata> objects) {
        Map<String, HasMetadata> m = new TreeMap<>();
        objects.forEach(o -> m.put(o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName(), o));
        assertEquals(objects.size(), m.size(), "duplicate objects");
        return m;
    }

    @Test
    void timeSlicingExampleIsAValidDevicePluginConfig() {
        JsonNode c = Kustomize.read(Manifests.ROOT.resolve("examples/time-slicing/device-plugin-config.yaml")).get(0);
        assertEquals("v1", c.path("version").asText());
        JsonNode resources = c.path("sharing").path("timeSlicing").path("resources");
        assertFalse(resources.isEmpty());
        for (JsonNode r : resources) {
            assertTrue(r.path("name").asText().startsWith("nvidia.com/"), r.toString());
            assertTrue(r.path("replicas").asInt() >= 2, "the device plugin rejects replicas < 2: " + r);
        }
        // The same file goes to both ConfigMaps (node-labeller's and the device plugin's).
        JsonNode k = Kustomize.read(Manifests.ROOT.resolve("examples/time-slicing/kustomization.yaml")).get(0);
        assertEquals(2, k.path("configMapGenerator").size());
        for (JsonNode g : k.path("configMapGenerator")) {
            assertTrue(g.path("files").get(0).asText().endsWith("device-plugin-config.yaml"), g.toString());
        }
    }

    @Test
    void customRuleExampleIsAValidConfig() throws Exception {
        Config config = Catalog.configLoader().load(Manifests.ROOT.resolve("examples/custom-rule/config.yaml"));
        assertEquals(DaemonConfig.DEFAULT.port(), config.daemon().port());
    }

    @Test
    void kustomizeImageTagIsTheProjectVersion() {
        for (String dir : List.of("base/agent", "overlays/job")) {
            JsonNode k = Kustomize.read(Manifests.ROOT.resolve(dir).resolve("kustomization.yaml")).get(0);
            assertEquals(Manifests.projectVersion(), k.path("images").get(0).path("newTag").asText(), dir);
        }
    }
}
