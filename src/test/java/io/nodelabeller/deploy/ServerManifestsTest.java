package io.nodelabeller.deploy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ExpressionWarning;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodelabeller.testing.ControlPlane;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Every way of installing node-labeller, as {@code kubectl apply -k} (real kustomize) and {@code helm install} render it,
 * applied by server-side apply to a real kube-apiserver serving as the oldest supported release (1.33) and as the newest:
 * each object is accepted (an admission policy whose CEL does not compile in the server's environment is refused here),
 * and kube-controller-manager's type checking of every admission policy against the Node and NodeFeature schemas
 * reports no warning.
 */
class ServerManifestsTest {

    /** The NodeFeature and NodeFeatureRule CRDs of NFD v0.19 (what nfd-compat and the NodeFeature policy act on). */
    static final Path NFD_CRDS = Path.of("src/test/resources/nfd/nfd-api-crds.yaml");

    /** Applies NFD's CRDs (waiting until they are established); a refusal is added to {@code refused}. */
    static void applyNfdCrds(KubernetesClient admin, List<String> refused) {
        try {
            apply(admin, "NFD's CRDs", Manifests.parseAll(Files.readString(NFD_CRDS)), refused);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Every kustomization under manifests/ (each can be applied alone), relative to manifests/. */
    static List<String> kustomizations() throws Exception {
        try (Stream<Path> files = Files.walk(Manifests.ROOT)) {
            return files.filter(p -> p.getFileName().toString().equals("kustomization.yaml"))
                    .map(p -> Manifests.ROOT.relativize(p.getParent()).toString()).sorted().toList();
        }
    }

    /** The Helm chart's variants: the values that change which objects it renders or what the policy reads. */
    static final Map<String, Map<String, Object>> HELM = new LinkedHashMap<>();

    static {
        HELM.put("default", Map.of());
        HELM.put("gpu", Map.of("gpu.enabled", true));
        HELM.put("nfd-compat", Map.of("nfdCompat.enabled", true, "gpu.enabled", true));
        HELM.put("taints and extended resources", Map.of("config.publish.taints", true, "config.publish.extendedResources", true,
                "writeScope.labelDomains[0]", "example.com", "writeScope.deniedKeys[0]", "secret"));
    }

    @ParameterizedTest(name = "Kubernetes {0}")
    @ValueSource(strings = {"1.33", "newest"})
    void everyInstallIsAcceptedWholeWithNoTypeCheckingWarnings(String version) throws Exception {
        ControlPlane cp = ControlPlane.shared(version.equals("newest") ? null : version);
        cp.startTypeChecking();
        KubernetesClient admin = cp.admin();
        List<String> refused = new ArrayList<>();
        applyNfdCrds(admin, refused);
        // the GPU Operator's namespace, where the time-slicing example puts the device plugin's config
        apply(admin, "the GPU Operator", Manifests.parseAll("""
                apiVersion: v1
                kind: Namespace
                metadata: {name: gpu-operator}
                """), refused);
        int policies = 0;
        for (String variant : kustomizations()) {
            String yaml = Files.readString(renderWithKubectl(variant));
            // the job overlay's placeholder, which its kustomization.yaml says to replace
            List<HasMetadata> objects = Manifests.parseAll(yaml.replace("REPLACE_WITH_NODE_NAME", "node-1"));
            policies += assertTypeChecked(admin, variant, apply(admin, variant, objects, refused));
        }
        int release = 0;
        for (Map.Entry<String, Map<String, Object>> helm : HELM.entrySet()) {
            // each release in a namespace of its own (the kustomize installs hold node-labeller), which helm expects to exist
            String namespace = "helm-" + release++;
            apply(admin, "helm " + helm.getKey(), Manifests.parseAll("apiVersion: v1\nkind: Namespace\nmetadata: {name: "
                    + namespace + "}\n"), refused);
            List<HasMetadata> objects = HelmChartTest.template(namespace, helm.getValue());
            policies += assertTypeChecked(admin, "helm " + helm.getKey(), apply(admin, "helm " + helm.getKey(), objects, refused));
        }
        assertEquals(List.of(), refused);
        assertFalse(policies < 8, "every install that ships a policy was type-checked: " + policies);
    }

    private static Path renderWithKubectl(String variant) throws Exception {
        Path out = Files.createTempFile("kustomize", ".yaml");
        out.toFile().deleteOnExit();
        Process p = ManifestsTest.kubectlKustomize(variant, out);
        p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(0, p.exitValue(), "kubectl kustomize " + variant);
        return out;
    }

    /**
     * Server-side apply of every object (namespaces and CRDs first, as their users need them); refusals collected.
     * Returns the objects accepted.
     */
    static List<HasMetadata> apply(KubernetesClient admin, String what, List<HasMetadata> objects, List<String> refused) {
        List<HasMetadata> accepted = new ArrayList<>();
        List<HasMetadata> ordered = new ArrayList<>(objects);
        ordered.sort(Comparator.comparingInt(o -> o.getKind().equals("Namespace") || o.getKind().equals("CustomResourceDefinition") ? 0 : 1));
        for (HasMetadata o : ordered) {
            try {
                admin.resource(o).fieldManager("kubectl").forceConflicts().serverSideApply();
                accepted.add(o);
                if (o.getKind().equals("CustomResourceDefinition")) {
                    admin.apiextensions().v1().customResourceDefinitions().withName(o.getMetadata().getName())
                            .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions() != null
                                    && c.getStatus().getConditions().stream().anyMatch(x -> x.getType().equals("Established")
                                    && x.getStatus().equals("True")), 30, java.util.concurrent.TimeUnit.SECONDS);
                }
            } catch (KubernetesClientException e) {
                refused.add(what + ": " + o.getKind() + " " + o.getMetadata().getName() + ": " + e.getStatus().getMessage());
            }
        }
        return accepted;
    }

    /**
     * Waits for kube-controller-manager to type-check each admission policy of {@code objects} as it now is on the
     * server (status.observedGeneration reaches its generation), then asserts no warnings. Returns how many.
     */
    static int assertTypeChecked(KubernetesClient admin, String what, List<HasMetadata> objects) {
        int n = 0;
        for (HasMetadata o : objects) {
            if (!(o instanceof ValidatingAdmissionPolicy)) {
                continue;
            }
            ValidatingAdmissionPolicy checked = admin.admissionRegistration().v1().validatingAdmissionPolicies()
                    .withName(o.getMetadata().getName()).waitUntilCondition(p -> p != null && p.getStatus() != null
                            && p.getStatus().getTypeChecking() != null
                            && p.getMetadata().getGeneration().equals(p.getStatus().getObservedGeneration()),
                            60, java.util.concurrent.TimeUnit.SECONDS);
            List<ExpressionWarning> warnings = checked.getStatus().getTypeChecking().getExpressionWarnings();
            assertEquals(List.of(), warnings == null ? List.of() : warnings.stream()
                    .map(w -> w.getFieldRef() + ": " + w.getWarning()).toList(), what + ": " + o.getMetadata().getName());
            n++;
        }
        return n;
    }
}
