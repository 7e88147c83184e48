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
 * @param errorCode NVML's return code when not up and NVML gave one, else null
 */
public record NvmlState(boolean ran, boolean up, Boolean gpuOnPci, String error, Integer errorCode) {

    /** {@code NVML_ERROR_LIB_RM_VERSION_MISMATCH}: the library and the loaded kernel module are different versions. */
    static final int LIB_RM_VERSION_MISMATCH = 18;

    static final String NVML = "nvidia.nvml";
    static final String PCI_SOURCE = "pci";

    static NvmlState of(Snapshot snapshot) {
        String status = snapshot.features().attribute(NVML, "status");
        SourceStatus pci = snapshot.statuses().get(PCI_SOURCE);
        Boolean gpu = null;
        if (pci != null && pci.ok()) {
            gpu = NvidiaPci.anyIn(snapshot.features());
        }
        boolean up = "ok".equals(status);
        String code = status == null || up ? null : snapshot.features().attribute(NVML, "errorCode");
        return new NvmlState(status != null, up, gpu,
                status == null || up ? null : snapshot.features().attribute(NVML, "error"),
                code == null || !code.matches("-?\\d{1,9}") ? null : Integer.valueOf(code));
    }

    /**
     * NVML's library is not the loaded driver's (error 18): the driver was upgraded or reloaded after this process
     * loaded the library the container runtime gave it at creation. Nothing in this process can fix that; a new
     * container gets the new driver's library.
     */
    boolean libraryMismatch() {
        return ran && !up && errorCode != null && errorCode == LIB_RM_VERSION_MISMATCH;
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
