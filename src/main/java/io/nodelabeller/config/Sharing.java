package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;


/**
 * {@code sharing:} of the device plugin's config. Either part may be null (absent); GFD's rules for which one
 * applies are kept: MPS wins when its section is present.
 */
public record Sharing(ReplicatedResources timeSlicing, ReplicatedResources mps) {

    public static final Sharing NONE = new Sharing(null, null);

    /** {@code mps} when some MPS resource is replicated, else {@code time-slicing} when some time-sliced one is, else {@code none}. */
    public String strategy() {
        if (mps != null && mps.replicated()) {
            return "mps";
        }
        if (timeSlicing != null && timeSlicing.replicated()) {
            return "time-slicing";
        }
        return "none";
    }

    /** The section replicas are looked up in: {@code mps} whenever present (even if nothing is replicated), else {@code timeSlicing}. */
    public ReplicatedResources replicatedResources() {
        return mps != null ? mps : timeSlicing;
    }

    /** The sharing entry for resource {@code name}, or null. */
    public ReplicatedResource resource(String name) {
        ReplicatedResources r = replicatedResources();
        return r == null ? null : r.resource(name);
    }

    Sharing effective() {
        return new Sharing(timeSlicing == null ? null : timeSlicing.effective(), mps == null ? null : mps.effective());
    }

    static Sharing read(YamlNode n) {
        if (!n.objectIgnoringUnknown("timeSlicing", "mps")) {
            return NONE;
        }
        return new Sharing(
                n.child("timeSlicing").isMissing() ? null : ReplicatedResources.read(n.child("timeSlicing"), false),
                n.child("mps").isMissing() ? null : ReplicatedResources.read(n.child("mps"), true));
    }
}
