package io.nodelabeller.publish;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The tracking annotations of one install: which labels, annotations, taints and extended resources its agent owns on
 * a node. Each install keeps its own, as NFD's {@code -instance} does, so that two installs on one node never remove,
 * change or unlist each other's keys (the admission policy lets an agent touch only its own install's annotations).
 *
 * <p>An install is named by its ClusterRoleBinding (the admission policies' parameter; {@code --instance}): the default
 * name, {@value #DEFAULT_INSTANCE}, keeps {@code node-labeller.io/managed-*}; any other name {@code X} gets
 * {@code X.node-labeller.io/managed-*}.
 *
 * @param instance          the install's name
 * @param labels            its {@code managed-labels} annotation
 * @param annotations       its {@code managed-annotations} annotation
 * @param taints            its {@code managed-taints} annotation (entries {@code key:effect})
 * @param extendedResources its {@code managed-extended-resources} annotation
 */
public record Bookkeeping(String instance, String labels, String annotations, String taints, String extendedResources) {

    /** The domain of every install's tracking annotations. */
    public static final String DOMAIN = "node-labeller.io";
    /** The install name whose annotations carry no prefix: the name of the shipped manifests' ClusterRoleBinding. */
    public static final String DEFAULT_INSTANCE = "node-labeller";
    /** An install name: the first part of a DNS subdomain (lower case, digits, '-' and '.'). */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    /** Any install's tracking annotation: {@code [<name>.]node-labeller.io/managed-<kind>}. */
    private static final Pattern ANY = Pattern.compile(
            "([a-z0-9]([-a-z0-9.]*[a-z0-9])?\\.)?node-labeller\\.io/managed-(labels|annotations|taints|extended-resources)");
    /** The default install's annotations. */
    public static final Bookkeeping DEFAULT = of(DEFAULT_INSTANCE);

    /** The annotations of install {@code instance}; null or empty means the default install. */
    public static Bookkeeping of(String instance) {
        String name = instance == null || instance.isBlank() ? DEFAULT_INSTANCE : instance.trim();
        String problem = problem(name);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        String prefix = name.equals(DEFAULT_INSTANCE) ? DOMAIN + "/" : name + "." + DOMAIN + "/";
        return new Bookkeeping(name, prefix + "managed-labels", prefix + "managed-annotations", prefix + "managed-taints",
                prefix + "managed-extended-resources");
    }

    /** Why {@code name} cannot name an install (its annotations' prefix must be a DNS subdomain), or null. */
    public static String problem(String name) {
        if (!NAME.matcher(name).matches() || name.contains("..")) {
            return "install name '" + name + "' is not a DNS subdomain (lower-case letters, digits, '-' and '.'):"
                    + " it prefixes the tracking annotations (<name>." + DOMAIN + "/managed-labels)";
        }
        if (name.length() + DOMAIN.length() + 1 > 253) {
            return "install name '" + name + "' is too long: <name>." + DOMAIN + " must be at most 253 characters";
        }
        return null;
    }

    /** Its four annotations, in the order a patch writes them. */
    public List<String> all() {
        return List.of(labels, annotations, taints, extendedResources);
    }

    /** Whether {@code key} is a tracking annotation of any install (this one or another). */
    public static boolean isTracking(String key) {
        return key != null && ANY.matcher(key).matches();
    }

    /**
     * The keys other installs list in their tracking annotation of the same kind as {@code own} (one of this record's
     * four): never claimed by this install, even when nfd-master hands them over.
     */
    public Set<String> listedByOthers(Map<String, String> annotations, String own) {
        String suffix = own.substring(own.indexOf('/'));
        Set<String> out = new TreeSet<>();
        if (annotations != null) {
            annotations.forEach((key, value) -> {
                if (!key.equals(own) && key.endsWith(suffix) && isTracking(key)) {
                    out.addAll(NodePatch.owned(annotations, key));
                }
            });
        }
        return out;
    }
}
