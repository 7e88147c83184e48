package io.nodelabeller.source.nvidia;


import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code gpu.mode} from the PCI classes of the NVIDIA GPUs only (a BMC's VGA chip does not count): all 0302 →
 * compute, all 0300 → graphics, anything else → unknown.
 */
final class ModeLabeler extends GpuLabeler {

    @Override
    void label(GpuFacts facts, Out out) {
        Map<String, Integer> classes = new TreeMap<>();
        facts.pciClasses().forEach(c -> classes.merge(c, 1, Integer::sum));
        String mode = "unknown";
        if (classes.keySet().equals(java.util.Set.of("0302"))) {
            mode = "compute";
        } else if (classes.keySet().equals(java.util.Set.of("0300"))) {
            mode = "graphics";
        }
        StringBuilder ev = new StringBuilder("PCI classes of NVIDIA display controllers:");
        if (classes.isEmpty()) {
            ev.append(" none found");
        }
        classes.forEach((c, n) -> ev.append(' ').append(c).append(" x").append(n));
        out.put("gpu.mode", mode, Out.NVML_AND_PCI, ev.toString());
    }
}
