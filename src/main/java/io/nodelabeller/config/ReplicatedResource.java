package io.nodelabeller.config;

import io.nodelabeller.config.yaml.Checks;
import io.nodelabeller.config.yaml.YamlNode;
import java.util.regex.Pattern;

/**
 * One entry of {@code sharing.timeSlicing.resources} / {@code sharing.mps.resources}: resource {@code name}
 * (normalised to {@code nvidia.com/<name>}), optional {@code rename}, the {@code devices} it covers and the
 * number of {@code replicas} (at least 2).
 */
public record ReplicatedResource(String name, String rename, ReplicatedDevices devices, int replicas) {

    public static final String PREFIX = "nvidia.com";
    private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(Checks.DNS1123_SUBDOMAIN);

    /** Whether the plugin advertises this resource under another name (then GFD adds no -SHARED suffix). */
    public boolean renamed() {
        return rename != null && !rename.isEmpty();
    }

    /**
     * {@code name} as the device plugin normalises it ({@code gpu} → {@code nvidia.com/gpu}), or the reason it is
     * not a valid resource name.
     */
    static String normalise(String name, StringBuilder problem) {
        String prefix = PREFIX;
        String local = name;
        int slash = name.indexOf('/');
        if (slash >= 0) {
            prefix = name.substring(0, slash);
            local = name.substring(slash + 1);
        }
        if (!prefix.equals(PREFIX)) {
            problem.append("invalid prefix '").append(prefix).append("', must be '").append(PREFIX).append("'");
            return null;
        }
        String full = PREFIX + "/" + local;
        if (full.length() > 63) {
            problem.append("fully-qualified resource name must be 63 characters or less, '").append(full)
                    .append("' has ").append(full.length());
            return null;
        }
        if (local.length() > 253 || !DNS1123_SUBDOMAIN.matcher(local).matches()) {
            problem.append("incorrect format for resource name '").append(name)
                    .append("' (expected a lowercase DNS-1123 subdomain after nvidia.com/)");
            return null;
        }
        return full;
    }

    /** Reads one entry; null when it is unusable (every problem recorded). */
    static ReplicatedResource read(YamlNode n) {
        if (!n.objectIgnoringUnknown("name", "rename", "devices", "replicas")) {
            if (n.isMissing()) {
                n.problem("expected a mapping with name and replicas");
            }
            return null;
        }
        String name = resourceName(n.child("name"), true);
        String rename = resourceName(n.child("rename"), false);
        ReplicatedDevices devices = ReplicatedDevices.read(n.child("devices"));
        YamlNode r = n.child("replicas");
        int replicas = 0;
        if (r.isMissing()) {
            r.problem("no replicas specified (expected an integer of at least 2)");
        } else {
            replicas = r.integer(0, Integer.MIN_VALUE, Integer.MAX_VALUE);
            if (replicas < 2 && r.json().isIntegralNumber()) {
                r.problem("number of replicas must be >= 2, got " + replicas);
            }
        }
        if (name == null || replicas < 2) {
            return null;
        }
        return new ReplicatedResource(name, rename, devices, replicas);
    }

    private static String resourceName(YamlNode n, boolean required) {
        if (n.isMissing()) {
            if (required) {
                n.problem("no resource name specified");
            }
            return null;
        }
        String text = n.string(null);
        if (text == null) {
            return null;
        }
        StringBuilder problem = new StringBuilder();
        String full = normalise(text, problem);
        if (full == null) {
            n.problem(problem.toString());
        }
        return full;
    }
}
