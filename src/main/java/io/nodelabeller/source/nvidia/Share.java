package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.DevicePluginConfig;
import io.nodelabeller.config.ReplicatedResource;

/**
 * How the device plugin shares one resource ({@code nvidia.com/gpu}, {@code nvidia.com/mig-1g.5gb}), as GFD
 * derives it: replicas from the matching sharing entry (at least 2; 1 without one), its strategy, and the
 * {@code -SHARED} product suffix when shared and not renamed.
 */
record Share(int replicas, String strategy, boolean sharedSuffix, String evidence) {

    /** A MIG-enabled parent GPU: never shared as a whole (replicas 0). */
    static Share migParent(String where) {
        return new Share(0, "none", false, "MIG enabled on " + where + " (nvmlDeviceGetMigMode current = 1): the full GPU "
                + "is not a schedulable resource");
    }

    static Share of(DevicePluginConfig dp, String resource) {
        ReplicatedResource r = dp.sharing().resource(resource);
        if (r == null) {
            String why = dp.given() ? "no sharing entry for " + resource + " in " + dp.origin()
                    : "no device plugin config (--device-plugin-config / devicePlugin:), so no sharing";
            return new Share(1, "none", false, why);
        }
        // a sharing entry has at least 2 replicas: the config refuses fewer at load, as the device plugin does
        String section = dp.sharing().mps() != null ? "sharing.mps" : "sharing.timeSlicing";
        return new Share(r.replicas(), dp.sharing().strategy(), !r.renamed(), section + " " + resource + ": replicas " + r.replicas()
                + (r.renamed() ? ", advertised as " + r.rename() : ", not renamed") + (dp.origin() == null ? "" : " in " + dp.origin()));
    }
}
