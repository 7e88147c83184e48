package io.nodelabeller.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.w3c.dom.Element;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.List;

/** The shipped manifests, rendered and turned into fabric8 model objects. */
public final class Manifests {

    static final Path ROOT = Path.of("manifests");
    static final List<String> VARIANTS = List.of("base", "overlays/gpu", "overlays/nfd-compat", "overlays/job",
            "overlays/taints-and-extended-resources");
    static final Path CHART = ROOT.resolve("helm/node-labeller");
    static final KubernetesSerialization K8S = new KubernetesSerialization();

    /** The kinds we ship that are cluster-scoped in the Kubernetes API: they must carry no metadata.namespace. */
    static final java.util.Set<String> CLUSTER_SCOPED = java.util.Set.of("Namespace", "ClusterRole", "ClusterRoleBinding",
            "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "RuntimeClass", "PriorityClass");

    /** Every cluster-scoped object without a namespace, every other one in {@code namespace}. */
    static void assertNamespaces(List<HasMetadata> objects, String namespace, String what) {
        for (HasMetadata o : objects) {
            String id = what + ": " + o.getKind() + " " + o.getMetadata().getName();
            if (CLUSTER_SCOPED.contains(o.getKind())) {
                org.junit.jupiter.api.Assertions.assertNull(o.getMetadata().getNamespace(), id + " is cluster-scoped");
            } else {
                org.junit.jupiter.api.Assertions.assertEquals(namespace, o.getMetadata().getNamespace(), id);
            }
        }
    }

    /** Host paths the agent reads (the sources' host files + the local source's features.d), each mounted at /host + path. */
    static final List<String> HOST_PATHS = List.of("/sys", "/proc/cpuinfo", "/proc/sys/kernel/osrelease", "/proc/sys/kernel/random/boot_id", "/proc/modules",
            "/proc/swaps", "/etc/os-release", "/boot", "/usr/lib",
            "/lib/modules", "/etc/kubernetes/node-feature-discovery/features.d");

    /**
     * The GPU agent's request for every GPU as a volume mount, which the container toolkit takes where it ignores
     * NVIDIA_VISIBLE_DEVICES in unprivileged containers: /dev/null at /var/run/nvidia-container-devices/all
     * (nvidia-container-toolkit internal/config/image/cuda_image.go, DeviceListAsVolumeMountsRoot; the device plugin's
     * kind demo mounts it so).
     */
    static final String DEVICE_REQUEST_VOLUME = "nvidia-devices-all";

    /** {@code ds} requests every GPU as a read-only mount of the host's /dev/null, a character device. */
    static void assertDeviceRequestOnlyOnTheGpuAgent(DaemonSet ds) {
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        io.fabric8.kubernetes.api.model.Volume v = pod.getVolumes().stream()
                .filter(x -> x.getName().equals(DEVICE_REQUEST_VOLUME)).findFirst().orElseThrow();
        org.junit.jupiter.api.Assertions.assertEquals("/dev/null", v.getHostPath().getPath());
        org.junit.jupiter.api.Assertions.assertEquals("CharDevice", v.getHostPath().getType());
        io.fabric8.kubernetes.api.model.VolumeMount m = pod.getContainers().get(0).getVolumeMounts().stream()
                .filter(x -> x.getName().equals(DEVICE_REQUEST_VOLUME)).findFirst().orElseThrow();
        org.junit.jupiter.api.Assertions.assertEquals("/var/run/nvidia-container-devices/all", m.getMountPath());
        org.junit.jupiter.api.Assertions.assertEquals(Boolean.TRUE, m.getReadOnly());
    }

    private Manifests() {
    }

    public static List<HasMetadata> render(String variant) {
        return Kustomize.render(ROOT.resolve(variant)).stream().map(r -> toModel(r.object())).toList();
    }

    /** The fenced block of {@code doc} that begins with the line {@code firstLine}, the doc's indentation removed. */
    static String docBlock(Path doc, String firstLine) throws java.io.IOException {
        String text = java.nio.file.Files.readString(doc);
        int start = text.indexOf(firstLine);
        org.junit.jupiter.api.Assertions.assertTrue(start > 0, doc + " has " + firstLine);
        int lineStart = text.lastIndexOf('\n', start) + 1;
        String indent = text.substring(lineStart, start);
        return text.substring(lineStart, text.indexOf("```", start)).lines()
                .map(l -> l.startsWith(indent) ? l.substring(indent.length()) : l.strip())
                .collect(java.util.stream.Collectors.joining("\n"));
    }

    /**
     * The kustomization {@code doc} prints in the block beginning with {@code firstLine}, as a user would use it: written
     * to {@code dir} (its {@code ../../manifests/} made this checkout's manifests) and rendered.
     */
    static List<HasMetadata> renderDocumented(Path doc, String firstLine, Path dir) throws java.io.IOException {
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.Files.writeString(dir.resolve("kustomization.yaml"), docBlock(doc, firstLine)
                .replace("../../manifests/", ROOT.toAbsolutePath() + "/"));
        return Kustomize.render(dir).stream().map(r -> toModel(r.object())).toList();
    }

    /**
     * The vGPU scan's container (docs/gpu.md, "vGPU"): root with SYS_ADMIN, the least that makes the capability
     * effective, and nothing more — every other capability dropped, not privileged, no privilege escalation.
     */
    static void assertRootWithSysAdminOnly(io.fabric8.kubernetes.api.model.Container c) {
        var sc = c.getSecurityContext();
        org.junit.jupiter.api.Assertions.assertEquals(0L, sc.getRunAsUser());
        org.junit.jupiter.api.Assertions.assertEquals(false, sc.getRunAsNonRoot());
        org.junit.jupiter.api.Assertions.assertEquals(List.of("SYS_ADMIN"), sc.getCapabilities().getAdd());
        org.junit.jupiter.api.Assertions.assertEquals(List.of("ALL"), sc.getCapabilities().getDrop());
        org.junit.jupiter.api.Assertions.assertEquals(false, sc.getPrivileged());
        org.junit.jupiter.api.Assertions.assertEquals(false, sc.getAllowPrivilegeEscalation());
    }

    static HasMetadata toModel(JsonNode node) {
        return K8S.unmarshal(node.toString());
    }

    /** Every object of a YAML stream (one document gives a list of one). */
    @SuppressWarnings("unchecked")
    static List<HasMetadata> parseAll(String yaml) {
        Object parsed = K8S.unmarshal(new java.io.ByteArrayInputStream(yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return parsed instanceof List<?> list ? (List<HasMetadata>) list : List.of((HasMetadata) parsed);
    }

    static <T extends HasMetadata> List<T> ofKind(List<HasMetadata> objects, Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type, String name) {
        List<T> found = ofKind(objects, type).stream().filter(o -> o.getMetadata().getName().equals(name)).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one " + type.getSimpleName() + " " + name + ", found " + found.size());
        }
        return found.get(0);
    }

    /** The pod spec of a DaemonSet or Job. */
    static PodSpec podSpec(HasMetadata workload) {
        if (workload instanceof DaemonSet ds) {
            return ds.getSpec().getTemplate().getSpec();
        }
        if (workload instanceof Job job) {
            return job.getSpec().getTemplate().getSpec();
        }
        throw new IllegalArgumentException("not a workload: " + workload.getKind());
    }

    static List<HasMetadata> workloads(List<HasMetadata> objects) {
        return objects.stream().filter(o -> o instanceof DaemonSet || o instanceof Job).toList();
    }

    /** The config.yaml of the base ConfigMap, as shipped. */
    static String shippedConfig() {
        return one(render("base"), ConfigMap.class, "node-labeller-config").getData().get("config.yaml");
    }

    /** The project version, from the pom (the image tag must be this). */
    static String projectVersion() {
        try {
            var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());
            var children = doc.getDocumentElement().getChildNodes();
            for (int i = 0; i < children.getLength(); i++) {
                if (children.item(i) instanceof Element e && e.getTagName().equals("version")) {
                    return e.getTextContent().trim();
                }
            }
            throw new IllegalStateException("pom.xml has no project version");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
