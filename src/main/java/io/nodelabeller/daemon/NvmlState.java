package io.nodelabeller.daemon;

import io.nodelabeller.feature.NvidiaPci;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.feature.SourceStatus;

/**
 * What one discovery says about NVML, for the {@code node_labeller_nvml_up} gauge and the device plugin's
 * {@code flags.failOnInitError}.
 *
 * @param ran     the nvidia source ran and reported an NVML status ({@code nvidia.nvml.status})
 * @param up      that status is {@code ok}: the library loaded and {@code nvmlInit_v2} succeeded
 * @param gpuOnPci an NVIDIA GPU (vendor 10de, class 0300 or 0302) is on the PCI bus; null when the pci source did
 *                not run or failed, so that nobody knows
 * @param error   NVML's error when not up, else null
 */
public record NvmlState(boolean ran, boolean up, Boolean gpuOnPci, String error) {

    static final String NVML = "nvidia.nvml";
    static final String PCI_SOURCE = "pci";

    static NvmlState of(Snapshot snapshot) {
        String status = snapshot.features().attribute(NVML, "status");
        SourceStatus pci = snapshot.statuses().get(PCI_SOURCE);
        Boolean gpu = null;
        if (pci != null && pci.ok()) {
            gpu = NvidiaPci.anyIn(snapshot.features());
        }
        return new NvmlState(status != null, "ok".equals(status), gpu,
                status == null || "ok".equals(status) ? null : snapshot.features().attribute(NVML, "error"));
    }

    /**
     * Whether {@code failOnInitError} makes this discovery fatal: NVML could not be initialised on a node with an
     * NVIDIA GPU. A node whose PCI scan found no NVIDIA GPU is spared (one DaemonSet and one config serve GPU and
     * CPU nodes alike); when the PCI scan did not run or failed, NVML's failure counts, as in GFD, which never
     * looks at PCI.
     */
    boolean initFailedOnGpuNode() {
        return ran && !up && !Boolean.FALSE.equals(gpuOnPci);
    }

    /** One line for the operator. */
    String describe() {
        return "NVML cannot be initialised (" + (error == null ? "unavailable" : error) + ")"
                + (gpuOnPci == null ? " and no PCI scan tells whether the node has an NVIDIA GPU"
                : " on a node with an NVIDIA GPU");
    }
}
