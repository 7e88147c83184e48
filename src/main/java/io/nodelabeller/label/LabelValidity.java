package io.nodelabeller.label;

import io.nodelabeller.config.yaml.Checks;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The validity rules every label passes: Kubernetes' qualified-name and label-value syntax, and
 * the namespace policy (kubernetes.io and k8s.io denied except the NFD namespaces; extra allowed and denied
 * namespaces from config), and the control keys of other components, which no labeller may write. The single
 * place where a label is judged.
 *
 * <p>{@code nvidia.com} and its subdomains belong to NVIDIA's operators, whose controllers act on many keys there
 * (the GPU Operator's {@code gpu.deploy.*}, {@code cc.mode}, {@code vgpu.config}, the Network Operator's
 * {@code network.nvidia.com/operator.*}, ...): under {@code nvidia.com} itself only labels are produced, never a control
 * key ({@link #isControlKey}), and nothing at all under its subdomains, whatever {@code core.extraLabelNs} says. Which
 * keys there are written is the install's write scope ({@link WriteScope}: the GPU labels and an explicit list), which
 * the shipped admission policy enforces too.
 */
public final class LabelValidity {

    public static final String NFD_PREFIX = "feature.node.kubernetes.io/";

    private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(Checks.DNS1123_SUBDOMAIN);
    private static final List<String> ALWAYS_DENIED = List.of("node-role.kubernetes.io", "node-restriction.kubernetes.io");
    private static final List<String> DEFAULT_DENIED = List.of("kubernetes.io", "k8s.io");

    /**
     * Keys that other components read as commands (the GPU Operator's {@code nvidia.com/gpu.deploy.*},
     * {@code cc.mode*}, {@code vgpu.config*} and {@code gpu.workload.config}, the MIG manager's {@code mig.config*},
     * the device plugin's per-node {@code device-plugin.config}, upgrade controllers' keys): a label rule that wrote one
     * could tear down GPU operands or repartition GPUs. The shipped admission policy refuses them too, whatever an
     * install's write scope lists.
     */
    static final List<String> CONTROL_PREFIXES = List.of("nvidia.com/gpu.deploy.", "nvidia.com/mig.config",
            "nvidia.com/cc.mode", "nvidia.com/vgpu.config");
    static final List<String> CONTROL_KEYS = List.of("nvidia.com/device-plugin.config", "nvidia.com/gpu.workload.config");
    static final String CONTROL_WORD = "upgrade";

    /** NVIDIA's domain: labels only there, nothing under its subdomains. */
    public static final String NVIDIA_DOMAIN = "nvidia.com";

    private final List<String> extraAllowed;
    private final List<String> extraDenied;

    public LabelValidity(List<String> extraAllowed, List<String> extraDenied) {
        this.extraAllowed = List.copyOf(extraAllowed);
        this.extraDenied = List.copyOf(extraDenied);
    }

    /** The default namespace policy. */
    public static LabelValidity defaults() {
        return new LabelValidity(List.of(), List.of());
    }

    /** nfd-master's limit on a feature annotation's value (FeatureAnnotationValueSizeLimit). */
    public static final int ANNOTATION_VALUE_LIMIT = 1024;
    /** Kubernetes' taint effects (core/v1 TaintEffect). */
    public static final List<String> TAINT_EFFECTS = List.of("NoSchedule", "PreferNoSchedule", "NoExecute");

    /**
     * Why an output of {@code kind} may not be sent, or null when it may. Keys follow the label key rules (namespace
     * policy and control keys included) for every kind; values: a label's or a taint's value is a label value, an
     * annotation's at most {@value #ANNOTATION_VALUE_LIMIT} characters, an extended resource's a whole, non-negative
     * Kubernetes quantity. A taint's key is {@code key:effect}.
     */
    public String problem(LabelSet.Kind kind, String key, String value) {
        switch (kind) {
            case LABEL:
                return problem(key, value);
            case TAINT: {
                int colon = key == null ? -1 : key.lastIndexOf(':');
                if (colon < 0 || !TAINT_EFFECTS.contains(key.substring(colon + 1))) {
                    return "effect must be one of " + String.join(", ", TAINT_EFFECTS);
                }
                String nvidia = nvidiaProblem(kind, key.substring(0, colon));
                return nvidia != null ? nvidia : problem(key.substring(0, colon), value);
            }
            case ANNOTATION: {
                String keyProblem = keyProblem(kind, key);
                if (keyProblem != null) {
                    return keyProblem;
                }
                return value == null ? "value is missing" : value.length() > ANNOTATION_VALUE_LIMIT
                        ? "value longer than " + ANNOTATION_VALUE_LIMIT + " characters" : null;
            }
            default: {
                String keyProblem = keyProblem(kind, key);
                if (keyProblem != null) {
                    return keyProblem;
                }
                return Quantities.whole(value) == null
                        ? "value '" + value + "' is not a whole, non-negative quantity (e.g. 4, 2k, 1Gi)" : null;
            }
        }
    }

    /** Why the label {@code key=value} may not be sent, or null when it may. */
    public String problem(String key, String value) {
        String keyProblem = keyProblem(LabelSet.Kind.LABEL, key);
        if (keyProblem != null) {
            return keyProblem;
        }
        if (value == null) {
            return "value is missing";
        }
        if (value.length() > 63) {
            return "value longer than 63 characters";
        }
        if (!value.isEmpty() && !NAME.matcher(value).matches()) {
            return "value '" + value + "' has characters outside [-A-Za-z0-9_.] or does not start and end alphanumeric";
        }
        return null;
    }

    /** Why {@code key} is not a valid, allowed key for an output of {@code kind}, or null. */
    private String keyProblem(LabelSet.Kind kind, String key) {
        String problem = keyProblem(key);
        return problem != null ? problem : nvidiaProblem(kind, key);
    }

    /**
     * Why an output of {@code kind} may not have {@code key} because of NVIDIA's domain, or null: labels only under
     * nvidia.com (which ones, the write scope says), nothing under its subdomains.
     */
    private String nvidiaProblem(LabelSet.Kind kind, String key) {
        int slash = key == null ? -1 : key.indexOf('/');
        String ns = slash < 0 ? "" : key.substring(0, slash).toLowerCase(Locale.ROOT);
        if (!within(ns, NVIDIA_DOMAIN)) {
            return null;
        }
        if (ns.equals(NVIDIA_DOMAIN) && kind == LabelSet.Kind.LABEL) {
            return null;
        }
        return (kind == LabelSet.Kind.LABEL ? "" : "a " + kind + " ") + "under " + ns + " nothing but "
                + NVIDIA_DOMAIN + " labels is written (NVIDIA's operators act on the other keys there)";
    }

    /** Why {@code key} is not a valid, allowed label key, or null. */
    public String keyProblem(String key) {
        if (key == null || key.isEmpty()) {
            return "key is empty";
        }
        int slash = key.indexOf('/');
        String name = slash < 0 ? key : key.substring(slash + 1);
        if (name.isEmpty() || name.length() > 63) {
            return "name part must be 1 to 63 characters";
        }
        if (!NAME.matcher(name).matches()) {
            return "name '" + name + "' has characters outside [-A-Za-z0-9_.] or does not start and end alphanumeric";
        }
        if (slash < 0) {
            return "key has no prefix (namespace)";
        }
        String ns = key.substring(0, slash);
        if (ns.length() > 253 || !DNS1123_SUBDOMAIN.matcher(ns).matches()) {
            return "prefix '" + ns + "' is not a DNS-1123 subdomain of at most 253 characters";
        }
        if (!allowed(ns)) {
            return "namespace '" + ns + "' is not allowed";
        }
        if (isControlKey(key)) {
            return "'" + key + "' is a control key that other components act on (GPU Operator, MIG manager, device plugin,"
                    + " upgrades); no labeller writes it";
        }
        return null;
    }

    /** Whether {@code key} is one of the control keys no labeller writes. */
    public static boolean isControlKey(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return CONTROL_PREFIXES.stream().anyMatch(k::startsWith) || CONTROL_KEYS.contains(k) || k.contains(CONTROL_WORD);
    }

    /** Whether namespace {@code ns} may carry labels. */
    public boolean allowed(String ns) {
        String n = ns.toLowerCase(Locale.ROOT);
        if (ALWAYS_DENIED.stream().anyMatch(d -> within(n, d))) {
            return false;
        }
        if (extraAllowed.stream().anyMatch(a -> matches(n, a))) {
            return true;
        }
        if (extraDenied.stream().anyMatch(d -> matches(n, d))) {
            return false;
        }
        if (WriteScope.NFD_DOMAINS.stream().anyMatch(a -> within(n, a))) {
            return true;
        }
        return DEFAULT_DENIED.stream().noneMatch(d -> within(n, d));
    }

    /** {@code ns} is {@code domain} or one of its subdomains. */
    static boolean within(String ns, String domain) {
        return ns.equals(domain) || ns.endsWith("." + domain);
    }

    /** An exact namespace, or "*.suffix" for any namespace ending in ".suffix". */
    private static boolean matches(String ns, String pattern) {
        String p = pattern.toLowerCase(Locale.ROOT);
        return p.startsWith("*") ? ns.endsWith(p.substring(1)) : ns.equals(p);
    }
}
