package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sharing.timeSlicing} or {@code sharing.mps}: the resources the device plugin shares.
 *
 * @param failRequestsGreaterThanOne null when unset (for MPS the plugin then takes true)
 */
public record ReplicatedResources(boolean renameByDefault, Boolean failRequestsGreaterThanOne,
                                  List<ReplicatedResource> resources) {

    public ReplicatedResources {
        resources = List.copyOf(resources);
    }

    /** Whether some resource is replicated (replicas > 1). */
    public boolean replicated() {
        return resources.stream().anyMatch(r -> r.replicas() > 1);
    }

    /** The resource named {@code name} (e.g. {@code nvidia.com/gpu}), or null. */
    public ReplicatedResource resource(String name) {
        return resources.stream().filter(r -> name.equals(r.name())).findFirst().orElse(null);
    }

    /**
     * What the device plugin (and GFD) make of this section before use: an explicit {@code rename} or
     * {@code devices} is not supported yet, so every resource is renamed to {@code <name>.shared} exactly
     * when {@code renameByDefault} is true, and covers all devices.
     */
    public ReplicatedResources effective() {
        List<ReplicatedResource> out = new ArrayList<>();
        for (ReplicatedResource r : resources) {
            out.add(new ReplicatedResource(r.name(), renameByDefault ? r.name() + ".shared" : null,
                    ReplicatedDevices.ALL, r.replicas()));
        }
        return new ReplicatedResources(renameByDefault, failRequestsGreaterThanOne, out);
    }

    static ReplicatedResources read(YamlNode n, boolean mps) {
        n.objectIgnoringUnknown("renameByDefault", "failRequestsGreaterThanOne", "resources");
        boolean renameByDefault = n.child("renameByDefault").bool(false);
        YamlNode f = n.child("failRequestsGreaterThanOne");
        Boolean fail = f.isMissing() ? (mps ? Boolean.TRUE : null) : Boolean.valueOf(f.bool(false));
        YamlNode list = n.child("resources");
        List<ReplicatedResource> resources = new ArrayList<>();
        if (list.isMissing() || (list.json().isArray() && list.json().isEmpty())) {
            list.problem("no resources specified (expected a non-empty list of {name, replicas})");
        }
        for (YamlNode e : list.elements()) {
            ReplicatedResource r = ReplicatedResource.read(e);
            if (r != null) {
                resources.add(r);
            }
        }
        return new ReplicatedResources(renameByDefault, fail, resources);
    }
}
