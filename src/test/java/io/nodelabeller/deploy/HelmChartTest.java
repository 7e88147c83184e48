package io.nodelabeller.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.nodelabeller.deploy.Manifests.ofKind;
import static io.nodelabeller.deploy.Manifests.one;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Helm chart, rendered and linted in-process (helm-java), must produce what the kustomize manifests produce:
 * same RBAC, same pod specs (mounts, security context, probes, args, resources), same configs, same admission policy.
 */
class HelmChartTest {

    /** Renders the chart as release "node-labeller" in namespace "node-labeller" (the kustomize defaults). */
    static List<HasMetadata> template(Map<String, Object> values) {
        return template("node-labeller", values);
    }

    static List<HasMetadata> template(String namespace, Map<String, Object> values) {
        TemplateCommand t = new Helm(Manifests.CHART).template().withName("node-labeller").withNamespace(namespace)
                .withKubeVersion("1.33.0");
        values.forEach(t::set);
        return Manifests.parseAll(t.call());
    }

    @Test
    void lintPasses() {
        LintResult r = new Helm(Manifests.CHART).lint().strict().call();
        assertFalse(r.isFailed(), String.join("\n", r.getMessages()));
    }

    /** Only the admission policy needs 1.33: older clusters install with it off, and get a message saying so. */
    @Test
    void olderClustersNeedTheAdmissionPolicyOff() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> new Helm(Manifests.CHART).template().withKubeVersion("1.32.9").call());
        assertTrue(e.getMessage().contains("admissionPolicy.enabled needs Kubernetes 1.33 or later")
                && e.getMessage().contains("set admissionPolicy.enabled=false"), e.getMessage());
        List<HasMetadata> old = Manifests.parseAll(new Helm(Manifests.CHART).template().withName("node-labeller")
                .withNamespace("node-labeller").withKubeVersion("1.32.9").set("admissionPolicy.enabled", false).call());
        assertEquals(1, ofKind(old, DaemonSet.class).size());
        assertTrue(ofKind(old, ValidatingAdmissionPolicy.class).isEmpty());
    }

    /**
     * core.extraLabelNs of the config reaches the policy's allowed domains: no patch 403s until both are edited. NFD's
     * namespace is always allowed, and a reserved domain never (under nvidia.com, only the GPU labels, always).
     */
    @Test
    void extraLabelNamespacesOfTheConfigAreAllowedByThePolicy(@TempDir Path tmp) throws Exception {
        List<HasMetadata> helm = templateWith(tmp, "config: {core: {extraLabelNs: [example.com, \"*.corp.example\", nvidia.com,"
                + " network.nvidia.com, node-role.kubernetes.io, feature.node.kubernetes.io]}}\n");
        assertEquals("example.com,corp.example", scope(helm).get(io.nodelabeller.label.WriteScope.LABEL_DOMAINS));
    }

    /** The write scope: the annotations of the release's ClusterRoleBinding. */
    private static Map<String, String> scope(List<HasMetadata> objects) {
        return ofKind(objects, io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class).get(0).getMetadata().getAnnotations();
    }

    /**
     * Each release polices exactly its own agent: its policy's parameter is its own ClusterRoleBinding, which binds its
     * own service account. Release A's policy does not apply to release B's agent (which writes its own domain and
     * taint), nor, with serviceAccount.name=node, to the cluster's node controllers, CNI or nfd-master.
     */
    @Test
    void eachReleasePolicesOnlyItsOwnAgent(@TempDir Path tmp) throws Exception {
        List<HasMetadata> a = new ArrayList<>(Manifests.parseAll(new Helm(Manifests.CHART).template().withName("a")
                .withNamespace("labellers").withKubeVersion("1.33.0").set("serviceAccount.name", "node").call()));
        Path bValues = Files.createTempFile(tmp, "values", ".yaml");
        Files.writeString(bValues, "config: {core: {extraLabelNs: [example.com]}, publish: {taints: true}}\n");
        List<HasMetadata> b = Manifests.parseAll(new Helm(Manifests.CHART).template().withName("b")
                .withNamespace("labellers").withKubeVersion("1.33.0").withValuesFile(bValues).call());
        List<HasMetadata> cluster = new ArrayList<>(a);
        cluster.addAll(b);
        AdmissionPolicyTest.Installed policyA = AdmissionPolicyTest.Installed.of(cluster, "a-node-labeller-own-node-labels");
        AdmissionPolicyTest.Installed policyB = AdmissionPolicyTest.Installed.of(cluster, "b-node-labeller-own-node-labels");
        var agentA = AdmissionRequests.User.serviceAccount("labellers", "node", "n1");
        var agentB = AdmissionRequests.User.serviceAccount("labellers", "b-node-labeller", "n1");
        Map<String, Object> before = AdmissionPolicyTest.node(n -> { });
        io.nodelabeller.publish.Bookkeeping bBooks = io.nodelabeller.publish.Bookkeeping.of("b-node-labeller");
        Map<String, Object> bWrites = AdmissionPolicyTest.node(AdmissionPolicyTest.label("example.com/rack", "r1")
                .andThen(AdmissionPolicyTest.annotation(bBooks.labels(), "example.com/rack"))
                .andThen(AdmissionPolicyTest.annotation(bBooks.taints(), "example.com/dedicated:NoSchedule"))
                .andThen(n -> AdmissionPolicyTest.map(n, "spec").put("taints", List.of(Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule"),
                        Map.of("key", "example.com/dedicated", "effect", "NoSchedule")))));
        assertTrue(AdmissionPolicyTest.admit(policyA, AdmissionRequests.nodeUpdate("n1", null, agentB), bWrites, before).allowed());
        AdmissionPolicyTest.assertAllowed(AdmissionPolicyTest.admit(policyB, AdmissionRequests.nodeUpdate("n1", null, agentB), bWrites, before));
        AdmissionPolicyTest.assertDenied(AdmissionPolicyTest.admit(policyA, AdmissionRequests.nodeUpdate("n1", null, agentA), bWrites, before),
                "not: example.com/rack");
        for (var controller : List.of(AdmissionRequests.User.serviceAccount("kube-system", "node-controller", "n1"),
                AdmissionRequests.User.serviceAccount("kube-system", "node-ipam-controller", "n1"),
                AdmissionRequests.User.serviceAccount("calico-system", "calico-node", "n1"),
                AdmissionRequests.User.serviceAccount("node-feature-discovery", "nfd-master", "n1"))) {
            Map<String, Object> write = AdmissionPolicyTest.node(n -> {
                AdmissionPolicyTest.map(n, "spec").put("podCIDR", "10.244.9.0/24"); // set once, from none
                AdmissionPolicyTest.map(n, "spec").put("taints", List.of(Map.of("key", "node.kubernetes.io/not-ready", "effect", "NoExecute")));
            });
            assertTrue(AdmissionPolicyTest.admit(policyA, AdmissionRequests.nodeUpdate("n1", null, controller), write, before).allowed(),
                    controller.username());
        }
    }

    /**
     * config.publish.taints / extendedResources switch the rule outputs on in the agent and, with them, in the policy
     * and RBAC (nodes/status): the same objects as overlays/taints-and-extended-resources.
     */
    @Test
    void taintsAndExtendedResourcesOfTheConfigReachPolicyAndRbac(@TempDir Path tmp) throws Exception {
        List<HasMetadata> helm = templateWith(tmp, "config: {publish: {taints: true, extendedResources: true}}\n");
        List<HasMetadata> kustomize = Manifests.render("overlays/taints-and-extended-resources");
        assertEquals(ofKind(kustomize, ClusterRole.class).get(0).getRules(), ofKind(helm, ClusterRole.class).get(0).getRules());
        assertEquals(ofKind(kustomize, ValidatingAdmissionPolicy.class).get(0).getSpec().getVariables(),
                ofKind(helm, ValidatingAdmissionPolicy.class).get(0).getSpec().getVariables());
        List<HasMetadata> plain = templateWith(tmp, "config: {publish: {taints: false}}\n");
        assertEquals(ofKind(Manifests.render("base"), ClusterRole.class).get(0).getRules(),
                ofKind(plain, ClusterRole.class).get(0).getRules());
    }

    /** With nfdCompat.namespace the NodeFeatures are written there, while the pod to read for its DaemonSet is ours. */
    @Test
    void nfdCompatNamespaceGrantsPodReadsWhereThePodRuns() {
        List<HasMetadata> helm = template("node-labeller", Map.of("nfdCompat.enabled", true, "nfdCompat.namespace", "nfd"));
        var roles = ofKind(helm, io.fabric8.kubernetes.api.model.rbac.Role.class);
        var nodeFeatures = roles.stream().filter(r -> r.getRules().stream().anyMatch(x -> x.getResources().contains("nodefeatures"))).toList();
        var pods = roles.stream().filter(r -> r.getRules().stream().anyMatch(x -> x.getResources().contains("pods"))).toList();
        assertEquals(List.of("nfd"), nodeFeatures.stream().map(r -> r.getMetadata().getNamespace()).toList());
        assertEquals(List.of("node-labeller"), pods.stream().map(r -> r.getMetadata().getNamespace()).toList());
        for (var binding : ofKind(helm, io.fabric8.kubernetes.api.model.rbac.RoleBinding.class)) {
            assertTrue(roles.stream().anyMatch(r -> r.getMetadata().getName().equals(binding.getRoleRef().getName())
                    && r.getMetadata().getNamespace().equals(binding.getMetadata().getNamespace())), binding.getMetadata().getName());
        }
    }

    /** The conventions of the NFD and device-plugin charts: names, namespace, service account, pod extras. */
    @Test
    void chartConventionsReachTheObjects(@TempDir Path tmp) throws Exception {
        Path values = tmp.resolve("values.yaml");
        Files.writeString(values, """
                fullnameOverride: labeller
                namespaceOverride: infra
                serviceAccount: {name: gpu-node-labeller, annotations: {example.com/owner: platform}}
                podLabels: {team: platform}
                podAnnotations: {example.com/scrape: "true"}
                extraEnv: [{name: NODE_LABELLER_LOG_LEVEL, value: DEBUG}]
                extraArgs: [--no-timestamp]
                updateStrategy: {type: OnDelete}
                securityContext: {runAsNonRoot: true, runAsUser: 1000, readOnlyRootFilesystem: true}
                """);
        List<HasMetadata> helm = Manifests.parseAll(new Helm(Manifests.CHART).template().withName("rel")
                .withNamespace("node-labeller").withKubeVersion("1.33.0").withValuesFile(values).call());
        DaemonSet ds = one(helm, DaemonSet.class, "labeller");
        assertEquals("infra", ds.getMetadata().getNamespace());
        var pod = ds.getSpec().getTemplate();
        assertEquals("gpu-node-labeller", pod.getSpec().getServiceAccountName());
        assertEquals("platform", pod.getMetadata().getLabels().get("team"));
        assertEquals("true", pod.getMetadata().getAnnotations().get("example.com/scrape"));
        var container = pod.getSpec().getContainers().get(0);
        assertTrue(container.getArgs().contains("--no-timestamp"), container.getArgs().toString());
        assertTrue(container.getEnv().stream().anyMatch(e -> e.getName().equals("NODE_LABELLER_LOG_LEVEL")));
        assertEquals("OnDelete", ds.getSpec().getUpdateStrategy().getType());
        assertEquals(1000L, container.getSecurityContext().getRunAsUser());
        var sa = one(helm, io.fabric8.kubernetes.api.model.ServiceAccount.class, "gpu-node-labeller");
        assertEquals("infra", sa.getMetadata().getNamespace());
        assertEquals("platform", sa.getMetadata().getAnnotations().get("example.com/owner"));
        var binding = ofKind(helm, io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class).get(0);
        assertEquals("gpu-node-labeller", binding.getSubjects().get(0).getName());
        assertEquals("infra", binding.getSubjects().get(0).getNamespace());
        // the policy restricts the account the agent uses: its parameter is this binding
        AdmissionPolicyTest.Installed policy = AdmissionPolicyTest.Installed.of(helm, "own-node-labels");
        assertEquals(binding.getMetadata().getName(), policy.binding().getSpec().getParamRef().getName());
        AdmissionPolicyTest.assertDenied(AdmissionPolicyTest.admit(policy, AdmissionRequests.nodeUpdate("n1", null,
                AdmissionRequests.User.serviceAccount("infra", "gpu-node-labeller", "n1")),
                AdmissionPolicyTest.node(AdmissionPolicyTest.label("example.com/x", "1")), AdmissionPolicyTest.node(n -> { })),
                "not: example.com/x");

        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> template(
                Map.of("serviceAccount.create", false)));
        assertTrue(e.getMessage().contains("the agent needs its own"), e.getMessage());
    }

    /** metrics.podMonitor.enabled: a PodMonitor scraping the agents' /metrics port, off by default. */
    @Test
    void anOptionalPodMonitorScrapesTheAgents() {
        assertTrue(template(Map.of()).stream().noneMatch(o -> o.getKind().equals("PodMonitor")));
        HasMetadata monitor = template(Map.of("metrics.podMonitor.enabled", true, "metrics.podMonitor.labels.release", "prom"))
                .stream().filter(o -> o.getKind().equals("PodMonitor")).findFirst().orElseThrow();
        JsonNode spec = yaml(Manifests.K8S.asYaml(monitor)).path("spec");
        assertEquals("http", spec.path("podMetricsEndpoints").path(0).path("port").asText());
        assertEquals("/metrics", spec.path("podMetricsEndpoints").path(0).path("path").asText());
        assertEquals("node-labeller", spec.path("selector").path("matchLabels").path("app.kubernetes.io/name").asText());
        assertEquals("prom", monitor.getMetadata().getLabels().get("release"));
        assertEquals("http", one(template(Map.of()), DaemonSet.class, "node-labeller").getSpec().getTemplate().getSpec()
                .getContainers().get(0).getPorts().get(0).getName(), "the port the PodMonitor names");
    }

    /** values.schema.json: a misspelt value fails the install instead of being ignored. */
    @Test
    void aTypoInTheValuesIsRefused() {
        for (Map<String, Object> typo : List.<Map<String, Object>>of(Map.of("gpu.enable", true), Map.of("imagee.tag", "1"),
                Map.of("admissionPolicy.labelDomains[0]", "example.com"), Map.of("writeScope.labelDomain[0]", "example.com"),
                Map.of("writeScope.nvidiaKeys[0]", "nvidia.com"), Map.of("image.pullPolicy", "Sometimes"))) {
            var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> template(typo));
            assertTrue(e.getMessage().contains("values don't meet the specifications of the schema"), typo + ": " + e.getMessage());
        }
    }

    /**
     * MIG strategies other than none give the GPU DaemonSet the MIG monitor capability, as GFD's chart does
     * (k8s-device-plugin deployments/helm: NVIDIA_MIG_MONITOR_DEVICES=all and SYS_ADMIN), and nothing else: the
     * container toolkit's hook refuses the variable unless SYS_ADMIN is in the bounding set
     * (nvidia-container-toolkit cmd/nvidia-container-runtime-hook/container_config.go), the user stays 65534.
     */
    @Test
    void migStrategiesGiveOnlyTheGpuDaemonSetTheMigMonitorCapability(@TempDir Path tmp) throws Exception {
        for (String strategy : List.of("none", "single", "mixed")) {
            List<HasMetadata> helm = templateWith(tmp, "gpu: {enabled: true}\ndevicePluginConfig: {version: v1, flags: "
                    + "{migStrategy: " + strategy + "}}\n");
            for (DaemonSet ds : ofKind(helm, DaemonSet.class)) {
                var c = ds.getSpec().getTemplate().getSpec().getContainers().get(0);
                boolean monitor = ds.getMetadata().getName().endsWith("-gpu") && !strategy.equals("none");
                assertEquals(monitor, c.getEnv().stream().anyMatch(e -> e.getName().equals("NVIDIA_MIG_MONITOR_DEVICES")
                        && "all".equals(e.getValue())), strategy + " " + ds.getMetadata().getName());
                var caps = c.getSecurityContext().getCapabilities();
                assertEquals(monitor ? List.of("SYS_ADMIN") : List.of(), caps.getAdd() == null ? List.of() : caps.getAdd(),
                        strategy + " " + ds.getMetadata().getName());
                assertEquals(List.of("ALL"), caps.getDrop());
                assertEquals(65534L, c.getSecurityContext().getRunAsUser());
                assertEquals(false, c.getSecurityContext().getAllowPrivilegeEscalation());
            }
        }
        List<HasMetadata> helm = templateWith(tmp, "gpu: {enabled: true, migMonitor: true}\n");
        assertEquals(List.of("SYS_ADMIN"), one(helm, DaemonSet.class, "node-labeller-gpu").getSpec().getTemplate().getSpec()
                .getContainers().get(0).getSecurityContext().getCapabilities().getAdd());
    }

    /**
     * gpu.migStrategy is the GPU Operator's way (MIG_STRATEGY on the GPU DaemonSet, over the device plugin config's
     * flags.migStrategy, as for GFD): it reaches the GPU agent only, and with it the MIG monitor capability.
     */
    @Test
    void theMigStrategyOfTheClusterPolicyReachesTheGpuAgentAsGfdGetsIt(@TempDir Path tmp) throws Exception {
        List<HasMetadata> helm = templateWith(tmp, "gpu: {enabled: true, migStrategy: single}\n"
                + "devicePluginConfig: {version: v1, flags: {migStrategy: none}}\n");
        var gpu = one(helm, DaemonSet.class, "node-labeller-gpu").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertTrue(gpu.getEnv().stream().anyMatch(e -> e.getName().equals("MIG_STRATEGY") && "single".equals(e.getValue())));
        assertTrue(gpu.getEnv().stream().anyMatch(e -> e.getName().equals("NVIDIA_MIG_MONITOR_DEVICES")));
        var plain = one(helm, DaemonSet.class, "node-labeller").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertTrue(plain.getEnv().stream().noneMatch(e -> e.getName().equals("MIG_STRATEGY")));
        assertTrue(one(templateWith(tmp, "gpu: {enabled: true}\n"), DaemonSet.class, "node-labeller-gpu").getSpec().getTemplate()
                .getSpec().getContainers().get(0).getEnv().stream().noneMatch(e -> e.getName().equals("MIG_STRATEGY")));
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> templateWith(tmp, "gpu: {migStrategy: Single}\n"));
        assertTrue(e.getMessage().contains("values don't meet the specifications of the schema"), e.getMessage());
    }

    /**
     * gpu.vgpu: the GPU DaemonSet alone reads config-gpu.yaml (the config with sources.nvidia.vgpu on, the rest the
     * same) and runs as root with SYS_ADMIN, the least that gives an effective CAP_SYS_ADMIN (the kernel's condition for
     * the whole PCI configuration space, drivers/pci/pci-sysfs.c); the plain DaemonSet is unchanged. Without
     * gpu.enabled it is refused, not ignored.
     */
    @Test
    void vgpuGivesOnlyTheGpuDaemonSetTheScanAndWhatItNeeds(@TempDir Path tmp) throws Exception {
        List<HasMetadata> helm = templateWith(tmp, "gpu: {enabled: true, vgpu: true}\nconfig: {core: {sleepInterval: 30s}}\n");
        var gpu = one(helm, DaemonSet.class, "node-labeller-gpu").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertTrue(gpu.getArgs().contains("--config=/etc/node-labeller/config-gpu.yaml"), gpu.getArgs().toString());
        Manifests.assertRootWithSysAdminOnly(gpu);
        var plain = one(helm, DaemonSet.class, "node-labeller").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertTrue(plain.getArgs().contains("--config=/etc/node-labeller/config.yaml"), plain.getArgs().toString());
        assertEquals(65534L, plain.getSecurityContext().getRunAsUser());
        assertTrue(plain.getSecurityContext().getCapabilities().getAdd().isEmpty());

        var data = one(helm, ConfigMap.class, "node-labeller-config").getData();
        io.nodelabeller.config.Config plainConfig = io.nodelabeller.catalog.Catalog.configLoader().parse("config.yaml", data.get("config.yaml"));
        io.nodelabeller.config.Config gpuConfig = io.nodelabeller.catalog.Catalog.configLoader().parse("config-gpu.yaml", data.get("config-gpu.yaml"));
        var section = io.nodelabeller.source.nvidia.NvidiaConfig.SECTION;
        assertEquals(false, plainConfig.sources().get(section).vgpu());
        assertEquals(true, gpuConfig.sources().get(section).vgpu());
        assertEquals(plainConfig.core(), gpuConfig.core(), "the same config otherwise");

        assertFalse(one(templateWith(tmp, "gpu: {enabled: true}\n"), ConfigMap.class, "node-labeller-config").getData()
                .containsKey("config-gpu.yaml"));
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> templateWith(tmp, "gpu: {vgpu: true}\n"));
        assertTrue(e.getMessage().contains("gpu.vgpu needs gpu.enabled"), e.getMessage());
    }

    /**
     * devicePluginConfigs: the device plugin's named configs mounted as a directory in the GPU agent's pods, the node
     * label picks one. The host agent's pods neither mount nor name them: a missing or misnamed ConfigMap of the GPU
     * stack never holds a host agent in ContainerCreating.
     */
    @Test
    void namedDevicePluginConfigsReplaceTheSingleFile(@TempDir Path tmp) throws Exception {
        List<HasMetadata> helm = templateWith(tmp, "gpu: {enabled: true}\ndevicePluginConfigs: {configMap: time-slicing-config, default: any}\n");
        var host = one(helm, DaemonSet.class, "node-labeller").getSpec().getTemplate().getSpec();
        assertTrue(host.getVolumes().stream().noneMatch(v -> v.getConfigMap() != null
                && "time-slicing-config".equals(v.getConfigMap().getName())), host.getVolumes().toString());
        assertTrue(host.getContainers().get(0).getArgs().stream().noneMatch(a -> a.startsWith("--device-plugin-config-dir")));
        assertEquals("host", host.getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals("NODE_LABELLER_ROLE")).findFirst().orElseThrow().getValue());
        for (DaemonSet ds : List.of(one(helm, DaemonSet.class, "node-labeller-gpu"))) {
            var pod = ds.getSpec().getTemplate().getSpec();
            var c = pod.getContainers().get(0);
            assertTrue(c.getArgs().containsAll(List.of("--device-plugin-config-dir=/etc/device-plugin-configs",
                    "--device-plugin-default-config=any")), c.getArgs().toString());
            assertTrue(c.getArgs().stream().noneMatch(a -> a.startsWith("--device-plugin-config=")), c.getArgs().toString());
            assertTrue(c.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/etc/device-plugin-configs")
                    && m.getReadOnly()));
            assertTrue(pod.getVolumes().stream().anyMatch(v -> v.getConfigMap() != null
                    && "time-slicing-config".equals(v.getConfigMap().getName())));
            // the arguments are ones node-labeller run accepts
            String[] args = c.getArgs().stream().map(a -> a.replace("/etc/device-plugin-configs", tmp.toString())
                    .replace("/etc/node-labeller/config.yaml", "/dev/null/none")).toArray(String[]::new);
            picocli.CommandLine cl = io.nodelabeller.cli.Main.commandLine(args);
            cl.parseArgs(args);
        }
    }

    /** Settings the agent applies live do not roll the pods; the ones it reads only at start do. */
    @Test
    void onlyRestartOnlySettingsRollThePods(@TempDir Path tmp) throws Exception {
        java.util.function.Function<List<HasMetadata>, String> checksum = helm -> ofKind(helm, DaemonSet.class).get(0)
                .getSpec().getTemplate().getMetadata().getAnnotations().get("checksum/restart-only-config");
        String base = checksum.apply(templateWith(tmp, "config: {core: {sleepInterval: 60s}}\n"));
        assertEquals(base, checksum.apply(templateWith(tmp, "config: {core: {sleepInterval: 30s, labelWhiteList: '^gpu'}}\n"
                + "devicePluginConfig: {version: v1, flags: {migStrategy: single}}\n")), "applied live: no roll");
        for (String restartOnly : List.of("config: {publish: {staleAfter: 5}}\n", "config: {daemon: {runtimeMetrics: true}}\n",
                "config: {core: {noPublish: true}}\n", "config: {core: {ownerRefs: [node]}}\n")) {
            assertTrue(!base.equals(checksum.apply(templateWith(tmp, restartOnly))), restartOnly);
        }
    }

    /**
     * A user's node affinity is kept with gpu.enabled: the host agent has it as it is, the GPU agent gets the GPU
     * condition added to each of its terms.
     */
    @Test
    void aUserAffinityIsKeptWithGpuEnabled(@TempDir Path tmp) throws Exception {
        List<HasMetadata> helm = templateWith(tmp, """
                gpu: {enabled: true}
                affinity:
                  nodeAffinity:
                    requiredDuringSchedulingIgnoredDuringExecution:
                      nodeSelectorTerms:
                        - matchExpressions: [{key: pool, operator: In, values: [training]}]
                  podAntiAffinity: {}
                """);
        DaemonSet plain = one(helm, DaemonSet.class, "node-labeller");
        DaemonSet gpu = one(helm, DaemonSet.class, "node-labeller-gpu");
        java.util.function.Function<Map<String, String>, Map<String, String>> inPool = node -> {
            Map<String, String> m = new TreeMap<>(node);
            m.put("pool", "training");
            return m;
        };
        assertEquals(ManifestsTest.BOTH_WHERE_ALLOWED,
                ManifestsTest.GPU_NODE_STATES.stream().map(n -> ManifestsTest.agentOn(plain, gpu, inPool.apply(n))).toList(),
                "in the user's pool: as without an affinity of one's own");
        assertEquals(java.util.Collections.nCopies(ManifestsTest.GPU_NODE_STATES.size(), "none"),
                ManifestsTest.GPU_NODE_STATES.stream().map(n -> ManifestsTest.agentOn(plain, gpu, n)).toList(),
                "outside the pool: neither");
        for (DaemonSet ds : List.of(plain, gpu)) {
            assertEquals("linux", ds.getSpec().getTemplate().getSpec().getNodeSelector().get("kubernetes.io/os"));
        }
    }

    /**
     * gpu.deployClient: the GPU agent follows the GPU Operator's gate for GPU clients. "optional" (default) as the
     * kustomize overlay: where the label is true or absent. "required": a nodeSelector on it, the form
     * k8s-driver-manager waits for before it unloads the driver (internal/kubernetes/client.go,
     * WaitForPodsWithNodeSelector looks at spec.nodeSelector keys only), at the price of GPU nodes without the label.
     */
    @Test
    void theGpuAgentFollowsTheOperatorsGateForGpuClients(@TempDir Path tmp) throws Exception {
        List<HasMetadata> optional = templateWith(tmp, "gpu: {enabled: true}\n");
        assertEquals(ManifestsTest.BOTH_WHERE_ALLOWED, ManifestsTest.GPU_NODE_STATES.stream()
                .map(n -> ManifestsTest.agentOn(one(optional, DaemonSet.class, "node-labeller"),
                        one(optional, DaemonSet.class, "node-labeller-gpu"), n)).toList());
        assertEquals(ofKind(Manifests.render("overlays/gpu"), DaemonSet.class).stream().map(ds -> ds.getSpec().getTemplate()
                        .getSpec().getAffinity()).toList(),
                ofKind(optional, DaemonSet.class).stream().map(ds -> ds.getSpec().getTemplate().getSpec().getAffinity()).toList(),
                "the chart and the kustomize overlay select the same nodes the same way");

        List<HasMetadata> required = templateWith(tmp, "gpu: {enabled: true, deployClient: required}\n");
        DaemonSet gpu = one(required, DaemonSet.class, "node-labeller-gpu");
        assertEquals("true", gpu.getSpec().getTemplate().getSpec().getNodeSelector().get("nvidia.com/gpu.deploy.client"));
        assertEquals(ManifestsTest.ONLY_WHERE_THE_CLIENT_GATE_IS_OPEN, ManifestsTest.GPU_NODE_STATES.stream()
                .map(n -> ManifestsTest.agentOn(one(required, DaemonSet.class, "node-labeller"), gpu, n)).toList());
        assertFalse(one(required, DaemonSet.class, "node-labeller").getSpec().getTemplate().getSpec().getNodeSelector()
                .containsKey("nvidia.com/gpu.deploy.client"));
    }

    @Test
    void chartVersionsAreTheProjectVersion() {
        JsonNode chart = Kustomize.read(Manifests.CHART.resolve("Chart.yaml")).get(0);
        assertEquals(Manifests.projectVersion(), chart.path("version").asText());
        assertEquals(Manifests.projectVersion(), chart.path("appVersion").asText());
    }

    @Test
    void clusterScopedObjectsHaveNoNamespace() {
        Manifests.assertNamespaces(template("gpu-system", Map.of()), "gpu-system", "chart defaults");
        Manifests.assertNamespaces(template("gpu-system", Map.of("gpu.enabled", true, "nfdCompat.enabled", true)), "gpu-system",
                "chart with gpu and nfdCompat");
    }

    @Test
    void defaultsAgreeWithTheKustomizeBase() {
        assertAgree(Manifests.render("base"), template(Map.of()));
    }

    @Test
    void gpuEnabledAgreesWithTheGpuOverlay() {
        List<HasMetadata> helm = template(Map.of("gpu.enabled", true));
        assertEquals(2, ofKind(helm, DaemonSet.class).size());
        assertAgree(Manifests.render("overlays/gpu"), helm);
    }

    @Test
    void nfdCompatAgreesWithTheNfdCompatOverlay() {
        List<HasMetadata> kustomize = Manifests.render("overlays/nfd-compat");
        List<HasMetadata> helm = template(Map.of("nfdCompat.enabled", true));
        // GFD's labels stay when GFD goes: the GPU agent comes with nfd-compat by default (gpu.enabled: auto)
        assertEquals(List.of("node-labeller", "node-labeller-gpu"),
                ofKind(helm, DaemonSet.class).stream().map(d -> d.getMetadata().getName()).toList());
        assertEquals(1, ofKind(template(Map.of("nfdCompat.enabled", true, "gpu.enabled", false)), DaemonSet.class).size());
        assertAgree(kustomize, helm);
        assertEquals(one(kustomize, Role.class, "node-labeller-nodefeatures").getRules(),
                one(helm, Role.class, "node-labeller-nodefeatures").getRules());
        assertEquals("node-labeller", one(helm, Role.class, "node-labeller-nodefeatures").getMetadata().getNamespace());
    }

    @Test
    void valuesReachTheObjects(@TempDir Path tmp) throws Exception {
        List<HasMetadata> helm = templateWith(tmp, """
                image: {tag: 9.9.9}
                writeScope: {labelDomains: [feature.node.kubernetes.io, nvidia.com, example.com], deniedKeys: ["^a", "b$"],
                  nvidiaKeys: [nvidia.com/gds.capable]}
                resources: {limits: {memory: 300Mi}}
                config: {core: {sleepInterval: 30s}}
                """);
        var container = one(helm, DaemonSet.class, "node-labeller").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertTrue(container.getImage().endsWith(":9.9.9"), container.getImage());
        assertEquals("300Mi", container.getResources().getLimits().get("memory").toString());
        assertEquals(Map.of(io.nodelabeller.label.WriteScope.LABEL_DOMAINS, "example.com",
                io.nodelabeller.label.WriteScope.DENIED_KEYS, "^a\nb$", io.nodelabeller.label.WriteScope.NVIDIA_KEYS,
                "nvidia.com/gds.capable", io.nodelabeller.label.WriteScope.TAINTS, "false",
                io.nodelabeller.label.WriteScope.EXTENDED_RESOURCES, "false"), scope(helm));
        JsonNode config = yaml(one(helm, ConfigMap.class, "node-labeller-config").getData().get("config.yaml"));
        assertEquals("30s", config.path("core").path("sleepInterval").asText());
        assertTrue(ofKind(template(Map.of("admissionPolicy.enabled", false)), ValidatingAdmissionPolicy.class).isEmpty());
    }

    /** Same RBAC rules, DaemonSets (pod spec and update strategy), config files and admission policy. */
    static void assertAgree(List<HasMetadata> kustomize, List<HasMetadata> helm) {
        assertEquals(ofKind(kustomize, ClusterRole.class).stream().map(ClusterRole::getRules).toList(),
                ofKind(helm, ClusterRole.class).stream().map(ClusterRole::getRules).toList());
        assertEquals(names(kustomize), names(helm));
        for (DaemonSet k : ofKind(kustomize, DaemonSet.class)) {
            DaemonSet h = one(helm, DaemonSet.class, k.getMetadata().getName());
            assertEquals(Manifests.K8S.asYaml(k.getSpec().getTemplate().getSpec()), Manifests.K8S.asYaml(h.getSpec().getTemplate().getSpec()),
                    k.getMetadata().getName());
            assertEquals(k.getSpec().getTemplate().getSpec(), h.getSpec().getTemplate().getSpec());
            assertEquals(k.getSpec().getUpdateStrategy(), h.getSpec().getUpdateStrategy());
            assertEquals(k.getSpec().getSelector().getMatchLabels().get("app.kubernetes.io/component"),
                    h.getSpec().getSelector().getMatchLabels().get("app.kubernetes.io/component"));
        }
        ConfigMap kc = one(kustomize, ConfigMap.class, "node-labeller-config");
        ConfigMap hc = one(helm, ConfigMap.class, "node-labeller-config");
        assertEquals(kc.getData().keySet(), hc.getData().keySet());
        kc.getData().forEach((file, text) -> assertEquals(yaml(text), yaml(hc.getData().get(file)), file));
        assertEquals(ofKind(kustomize, ValidatingAdmissionPolicy.class).stream().map(ValidatingAdmissionPolicy::getSpec).toList(),
                ofKind(helm, ValidatingAdmissionPolicy.class).stream().map(ValidatingAdmissionPolicy::getSpec).toList());
        assertEquals(scope(kustomize), scope(helm), "the write scope");
        // the same identities: whom the binding binds, and which of them is the GPU agent
        assertEquals(ofKind(kustomize, io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class).get(0).getSubjects(),
                ofKind(helm, io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class).get(0).getSubjects());
        ManifestsTest.assertRolesAreTheirIdentities(helm, "helm");
    }

    /** kind/name of every object; Helm leaves the Namespace to `--create-namespace`. */
    private static Map<String, String> names(List<HasMetadata> objects) {
        Map<String, String> m = new TreeMap<>();
        objects.stream().filter(o -> !o.getKind().equals("Namespace"))
                .forEach(o -> m.put(o.getKind() + "/" + o.getMetadata().getName(), String.valueOf(o.getMetadata().getNamespace())));
        return m;
    }

    private static JsonNode yaml(String text) {
        try {
            return Kustomize.YAML.readTree(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** The chart rendered as release node-labeller in namespace node-labeller on Kubernetes 1.33 with {@code values}. */
    private static List<HasMetadata> templateWith(Path tmp, String values) throws Exception {
        Path file = Files.createTempFile(tmp, "values", ".yaml");
        Files.writeString(file, values);
        return Manifests.parseAll(new Helm(Manifests.CHART).template().withName("node-labeller")
                .withNamespace("node-labeller").withKubeVersion("1.33.0").withValuesFile(file).call());
    }
}
