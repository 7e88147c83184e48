package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The {@code devices} of a shared resource in the device plugin's config: {@code "all"}, a positive count, or a
 * list of GPU indices, MIG indices ({@code "0:1"}), GPU UUIDs, MIG UUIDs. Exactly one of the three is set.
 */
public record ReplicatedDevices(boolean all, int count, List<String> list) {

    public static final ReplicatedDevices ALL = new ReplicatedDevices(true, 0, List.of());

    private static final String UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
    private static final Pattern GPU_INDEX = Pattern.compile("[0-9]+");
    private static final Pattern MIG_INDEX = Pattern.compile("[0-9]+:[0-9]+");
    private static final Pattern GPU_UUID = Pattern.compile("GPU-" + UUID);
    private static final Pattern MIG_UUID = Pattern.compile("MIG-" + UUID + "|MIG-GPU-" + UUID + "/[0-9]+/[0-9]+");

    public ReplicatedDevices {
        list = List.copyOf(list);
    }

    /** What kind of device reference {@code ref} is ("gpu-index", "mig-index", "uuid"), or null when none. */
    public static String kind(String ref) {
        if (GPU_INDEX.matcher(ref).matches()) {
            return "gpu-index";
        }
        if (MIG_INDEX.matcher(ref).matches()) {
            return "mig-index";
        }
        if (GPU_UUID.matcher(ref).matches() || MIG_UUID.matcher(ref).matches()) {
            return "uuid";
        }
        return null;
    }

    static ReplicatedDevices read(YamlNode n) {
        if (n.isMissing()) {
            return ALL;
        }
        var json = n.json();
        if (json.isTextual()) {
            if (!json.asText().equals("all")) {
                n.problem("expected 'all', a positive count or a list of GPU indices/UUIDs, got '" + json.asText()
                        + "' (the only valid string is 'all')");
            }
            return ALL;
        }
        if (json.isNumber()) {
            if (!json.isIntegralNumber() || !json.canConvertToInt() || json.intValue() <= 0) {
                n.problem("expected a positive integer count of devices, got '" + json.asText() + "'");
                return ALL;
            }
            return new ReplicatedDevices(false, json.intValue(), List.of());
        }
        if (json.isArray()) {
            List<String> refs = new ArrayList<>();
            for (YamlNode e : n.elements()) {
                var v = e.json();
                String ref = v.isIntegralNumber() || v.isTextual() ? v.asText() : null;
                if (ref == null || kind(ref) == null) {
                    e.problem("expected a GPU index, a MIG index 'gpu:mig', GPU-<uuid>, MIG-<uuid> or "
                            + "MIG-GPU-<uuid>/<gi>/<ci>, got '" + v.asText() + "'");
                } else {
                    refs.add(ref);
                }
            }
            return new ReplicatedDevices(false, 0, refs);
        }
        n.problem("expected 'all', a positive count or a list of GPU indices/UUIDs");
        return ALL;
    }
}
