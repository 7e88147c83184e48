package io.nodelabeller.label;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What an install's agent may write to the cluster: the keys of labels, annotations, taints and extended resources,
 * and whether taints and extended resources at all. An allowlist, the same one the install's admission policies
 * enforce: both read it from the install's ClusterRoleBinding (its annotations, {@link #ANNOTATIONS}), so the agent
 * and its policy agree by construction, and the agent drops (with one warning) what the policy would refuse instead of
 * sending a patch that the API server denies whole.
 *
 * <p>Allowed: keys in {@code feature.node.kubernetes.io} and {@code profile.node.kubernetes.io} (NFD's namespaces) and
 * their subdomains; keys in the domains of {@value #LABEL_DOMAINS} and their subdomains, except the reserved ones
 * ({@code nvidia.com}, {@code kubernetes.io}, {@code k8s.io}, {@code node-labeller.io} and their subdomains); under
 * {@code nvidia.com} exactly node-labeller's GPU labels and the keys of {@value #NVIDIA_KEYS}, as labels only. Never: a
 * control key of NVIDIA's operators or an upgrade controller ({@link LabelValidity#isControlKey}), a key one of
 * {@value #DENIED_KEYS} finds (RE2, unanchored), a taint unless {@value #TAINTS} is {@code true}, an extended resource
 * unless {@value #EXTENDED_RESOURCES} is {@code true}.
 *
 * @param labelDomains      the domains of {@value #LABEL_DOMAINS}, reserved ones left out
 * @param nvidiaKeys        the exact keys of {@value #NVIDIA_KEYS}, control keys and keys outside nvidia.com left out
 * @param deniedKeys        the patterns of {@value #DENIED_KEYS}
 * @param taints            whether taints may be written
 * @param extendedResources whether extended resources may be written
 * @param gpuAgent          the service account {@value #GPU_AGENT} names (the install's GPU agent); empty where it has
 *                          one agent
 * @param source            where the scope was read, for messages ("ClusterRoleBinding node-labeller")
 */
public record WriteScope(List<String> labelDomains, Set<String> nvidiaKeys, List<Pattern> deniedKeys, boolean taints,
                         boolean extendedResources, String gpuAgent, String source) {

    /** Comma-separated domains whose keys (and their subdomains') may be written. */
    public static final String LABEL_DOMAINS = "node-labeller.io/label-domains";
    /** Comma-separated exact nvidia.com keys that may be written as labels besides the GPU labels. */
    public static final String NVIDIA_KEYS = "node-labeller.io/nvidia-keys";
    /** RE2 patterns, one per line, of keys never written. */
    public static final String DENIED_KEYS = "node-labeller.io/denied-keys";
    /** "true": rules' taints may be written. */
    public static final String TAINTS = "node-labeller.io/taints";
    /** "true": rules' extended resources may be written. */
    public static final String EXTENDED_RESOURCES = "node-labeller.io/extended-resources";
    /**
     * The service account (a subject of the binding) of the install's GPU agent, where it has two agents: that account
     * writes only the GPU agent's labels, every other subject none of them (the admission policies' rule; {@code
     * publish.Install} keeps an agent whose role is not its identity's from publishing).
     */
    public static final String GPU_AGENT = "node-labeller.io/gpu-agent";
    /**
     * The most characters of {@value #DENIED_KEYS} patterns in all that an install supports: the admission policy
     * checks every key a write adds against each pattern, at a cost that grows with keys × pattern length, and the
     * agent spreads its writes so that each stays within the API server's limit (publish.WriteBudget); this bound keeps
     * the largest node's first labelling to a few dozen writes (docs/performance.md).
     */
    public static final int MAX_DENIED_KEYS_LENGTH = 4096;
    /** Every annotation of the write scope. */
    public static final List<String> ANNOTATIONS = List.of(LABEL_DOMAINS, NVIDIA_KEYS, DENIED_KEYS, TAINTS, EXTENDED_RESOURCES);

    /** NFD's own namespaces, always allowed. */
    public static final List<String> NFD_DOMAINS = List.of("feature.node.kubernetes.io", "profile.node.kubernetes.io");
    /** Never allowed through {@value #LABEL_DOMAINS}. */
    public static final List<String> RESERVED_DOMAINS = List.of("nvidia.com", "kubernetes.io", "k8s.io", "node-labeller.io");
    /**
     * nvidia.com keys besides the GPU labels in the shipped scope: the capabilities the GPU Operator's opt-in
     * NodeFeatureRules set (GPUDirect RDMA's peer memory, GPUDirect Storage, GDRCopy).
     */
    public static final List<String> DEFAULT_NVIDIA_KEYS = List.of("nvidia.com/gdrcopy.capable", "nvidia.com/gds.capable",
            "nvidia.com/peermem.capable");

    public WriteScope {
        labelDomains = List.copyOf(labelDomains);
        nvidiaKeys = Collections.unmodifiableSet(new LinkedHashSet<>(nvidiaKeys));
        deniedKeys = List.copyOf(deniedKeys);
    }

    /**
     * The scope that the annotations of a ClusterRoleBinding give ({@code source} names it). A missing annotation
     * means: nothing more (no domain, no nvidia.com key, no denied key, no taint, no extended resource). Entries the
     * policy would ignore (a reserved domain, a key outside nvidia.com or a control key) are left out here too;
     * {@link #ignored} names them.
     *
     * @throws IllegalArgumentException when a pattern of {@value #DENIED_KEYS} is not RE2
     */
    public static WriteScope of(Map<String, String> annotations, String source) {
        Map<String, String> a = annotations == null ? Map.of() : annotations;
        List<String> domains = new ArrayList<>();
        for (String d : split(a.get(LABEL_DOMAINS), ",")) {
            String domain = d.startsWith("*.") ? d.substring(2) : d;
            if (!reserved(domain) && !domains.contains(domain)) {
                domains.add(domain);
            }
        }
        Set<String> nvidia = new LinkedHashSet<>();
        for (String k : split(a.get(NVIDIA_KEYS), ",")) {
            if (nvidiaKey(k)) {
                nvidia.add(k);
            }
        }
        List<Pattern> denied = new ArrayList<>();
        int length = split(a.get(DENIED_KEYS), "\n").stream().mapToInt(String::length).sum();
        if (length > MAX_DENIED_KEYS_LENGTH) {
            throw new IllegalArgumentException(source + ": annotation " + DENIED_KEYS + ": " + length + " characters of"
                    + " patterns, more than the " + MAX_DENIED_KEYS_LENGTH + " supported (the admission policy's cost per"
                    + " key grows with them)");
        }
        for (String p : split(a.get(DENIED_KEYS), "\n")) {
            try {
                denied.add(Pattern.compile(p));
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException(source + ": annotation " + DENIED_KEYS + ": '" + p + "' is not RE2: "
                        + e.getDescription());
            }
        }
        return new WriteScope(domains, nvidia, denied, "true".equals(a.get(TAINTS)), "true".equals(a.get(EXTENDED_RESOURCES)),
                a.getOrDefault(GPU_AGENT, "").trim(), source);
    }

    /** The entries of the annotations that are not part of the scope (a reserved domain, a non-nvidia or control key). */
    public static List<String> ignored(Map<String, String> annotations) {
        Map<String, String> a = annotations == null ? Map.of() : annotations;
        List<String> out = new ArrayList<>();
        for (String d : split(a.get(LABEL_DOMAINS), ",")) {
            if (reserved(d.startsWith("*.") ? d.substring(2) : d)) {
                out.add(LABEL_DOMAINS + ": " + d + " (a reserved domain)");
            }
        }
        for (String k : split(a.get(NVIDIA_KEYS), ",")) {
            if (!nvidiaKey(k)) {
                out.add(NVIDIA_KEYS + ": " + k + " (not an exact nvidia.com/ key, or another component's control key)");
            }
        }
        return out;
    }

    private static List<String> split(String value, String separator) {
        if (value == null) {
            return List.of();
        }
        return Arrays.stream(value.split(separator)).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static boolean reserved(String domain) {
        String d = domain.toLowerCase(Locale.ROOT);
        return RESERVED_DOMAINS.stream().anyMatch(r -> LabelValidity.within(d, r));
    }

    private static boolean nvidiaKey(String key) {
        return key.startsWith(LabelValidity.NVIDIA_DOMAIN + "/") && key.indexOf('/') == key.lastIndexOf('/')
                && !LabelValidity.isControlKey(key);
    }

    /**
     * Why the output {@code key} of {@code kind} is outside this scope, or null when it may be written. A taint's key
     * is {@code key:effect}; {@code gpuLabel} says whether a key is one of node-labeller's GPU labels.
     */
    public String problem(LabelSet.Kind kind, String key, java.util.function.Predicate<String> gpuLabel) {
        if (kind == LabelSet.Kind.TAINT && !taints) {
            return "taints are not in the write scope (" + TAINTS + " on " + source + ")";
        }
        if (kind == LabelSet.Kind.EXTENDED_RESOURCE && !extendedResources) {
            return "extended resources are not in the write scope (" + EXTENDED_RESOURCES + " on " + source + ")";
        }
        String k = kind == LabelSet.Kind.TAINT && key.lastIndexOf(':') > 0 ? key.substring(0, key.lastIndexOf(':')) : key;
        if (LabelValidity.isControlKey(k)) {
            return "another component's control key: never written";
        }
        for (Pattern p : deniedKeys) {
            if (p.matcher(k).find()) {
                return "denied by " + DENIED_KEYS + " on " + source + " ('" + p.pattern() + "')";
            }
        }
        int slash = k.indexOf('/');
        String domain = slash < 0 ? "" : k.substring(0, slash).toLowerCase(Locale.ROOT);
        if (domain.equals(LabelValidity.NVIDIA_DOMAIN)) {
            if (kind == LabelSet.Kind.LABEL && (gpuLabel.test(k) || nvidiaKeys.contains(k))) {
                return null;
            }
            return "under nvidia.com only node-labeller's GPU labels and the keys of " + NVIDIA_KEYS + " on " + source
                    + " are written, as labels";
        }
        if (NFD_DOMAINS.stream().anyMatch(d -> LabelValidity.within(domain, d))) {
            return null;
        }
        if (!reserved(domain) && labelDomains.stream().anyMatch(d -> LabelValidity.within(domain, d))) {
            return null;
        }
        return "domain '" + domain + "' is not in the write scope (" + LABEL_DOMAINS + " on " + source + ")";
    }
}
