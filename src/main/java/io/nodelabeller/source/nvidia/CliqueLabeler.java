package io.nodelabeller.source.nvidia;


import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code gpu.clique} = {@code <clusterUuid>.<cliqueId>} when every fabric-attached GPU (fabric state COMPLETED,
 * non-zero cluster UUID) agrees on both; absent when none is attached or they disagree.
 */
final class CliqueLabeler extends GpuLabeler {

    /** NVML_GPU_FABRIC_STATE_COMPLETED. */
    private static final int COMPLETED = 3;
    private static final String ZERO_UUID = "00000000-0000-0000-0000-000000000000";

    @Override
    void label(GpuFacts facts, Out out) {
        List<GpuFacts.Gpu> attached = facts.gpus().stream().filter(g -> g.fabric() != null
                && Integer.valueOf(COMPLETED).equals(g.fabric().state()) && g.fabric().clusterUuid() != null
                && !g.fabric().clusterUuid().equals(ZERO_UUID) && g.fabric().cliqueId() != null
                && (g.fabric().status() == null || g.fabric().status() == 0)).toList();
        if (attached.isEmpty()) {
            return;
        }
        Set<String> uuids = new TreeSet<>();
        Set<String> cliques = new TreeSet<>();
        attached.forEach(g -> {
            uuids.add(g.fabric().clusterUuid());
            cliques.add(String.valueOf(g.fabric().cliqueId()));
        });
        String where = Names.gpus(attached.stream().map(GpuFacts.Gpu::index).toList());
        if (uuids.size() != 1 || cliques.size() != 1) {
            out.note("fabric-attached GPUs disagree (cluster UUIDs " + uuids + ", clique IDs " + cliques + " on " + where
                    + "); nvidia.com/gpu.clique is omitted");
            return;
        }
        String uuid = uuids.iterator().next();
        String clique = cliques.iterator().next();
        out.put("gpu.clique", uuid + "." + clique, "nvmlDeviceGetGpuFabricInfo clusterUuid = " + uuid + ", cliqueId = "
                + clique + ", state COMPLETED (" + where + ")");
    }
}
