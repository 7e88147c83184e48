package io.nodelabeller.source.cpu;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * NFD's {@code cpu} source, read from the host's files only: {@code cpu.cpuid} (flags, NFD's names, see
 * {@link CpuidFlags}; on arm64 {@link CpuArm64}) and {@code cpu.model} from {@code /proc/cpuinfo}; {@code cpu.topology},
 * {@code cpu.pstate}, {@code cpu.cstate}, {@code cpu.rdt} and {@code cpu.security} from sysfs and the same flags. On
 * x86-64, when the host tree is the machine the agent runs on (the same boot id), also what only the CPUID
 * instruction tells ({@link CpuidReading}): {@code cpu.model.hypervisor} in a VM, the CPUID-only flags and
 * {@code AVX10_VERSION}, and {@code cpu.sst} (SST-BF). A tree from another machine gets none of these from the
 * processor the agent happens to run on.
 */
public final class CpuSource implements Source {

    /** The source's name: its line in the catalog, the first part of its feature keys, the tag of its labels. */
    public static final String NAME = "cpu";

    static final String CPUINFO = "/proc/cpuinfo";

    private final Cpuid.Access cpuid;

    public CpuSource() {
        this(Cpuid.RUNNING);
    }

    CpuSource(Cpuid.Access cpuid) {
        this.cpuid = cpuid;
    }

    @Override
    public Features discover(HostFs host, Warnings warnings) {
        Features.Builder b = Features.builder(NAME);
        Set<String> kernelFlags = Set.of();
        CpuInfo info = null;
        if (host.exists(CPUINFO)) {
            try {
                try (var in = host.reader(CPUINFO)) {
                    info = CpuInfo.parse(in);
                }
            } catch (IOException | RuntimeException e) {
                warnings.warn("cannot read " + CPUINFO + " (" + HostFs.reason(e) + "): no cpu.cpuid or cpu.model");
            }
        } else {
            warnings.warn("no " + CPUINFO + " under the host root: no cpu.cpuid or cpu.model");
        }
        if (info != null && CpuArm64.is(info)) {
            // arm64: NFD's cpuid flags and model only; its P-state, C-state, RDT and security parts are x86-only
            b.flags("cpuid", CpuArm64.cpuid(info.features()));
            b.origin("cpuid", host.path(CPUINFO) + " (Features of the first processor)");
            put(b, "model", CpuArm64.model(info, host), host.path(CpuArm64.MIDR) + ", " + host.path(CPUINFO));
            put(b, "topology", CpuSysfs.topology(host), host.path(CpuSysfs.CPU_DIR) + "/cpu*/topology");
            return b.build();
        }
        CpuidReading leaves = info == null ? null : cpuid(host, warnings);
        if (info != null) {
            kernelFlags = info.flags();
            model(info, leaves, b, warnings, host);
        }
        if (info != null && !kernelFlags.isEmpty()) {
            String vendor = info.get("vendor_id") == null ? null : CpuVendor.name(info.get("vendor_id"));
            int cores = info.number("cpu cores");
            int siblings = info.number("siblings");
            int threadsPerCore = cores > 0 && siblings > 0 ? siblings / cores : -1;
            Set<String> flags = new TreeSet<>(CpuidFlags.translate(kernelFlags, vendor, info.number("cpu family"),
                    info.number("model"), threadsPerCore));
            String origin = host.path(CPUINFO) + " (flags of the first processor)";
            if (leaves != null) {
                flags.addAll(leaves.flags());
                if (!leaves.flags().isEmpty()) {
                    origin += " and CPUID leaves 7.1, 0x24 of the running processor";
                }
                if (leaves.avx10Version() > 0) {
                    b.attribute("cpuid", "AVX10_VERSION", Integer.toString(leaves.avx10Version()));
                }
            }
            b.flags("cpuid", flags);
            b.origin("cpuid", origin);
        } else if (info != null) {
            warnings.warn(CPUINFO + " has no flags line: no cpu.cpuid");
        }
        if (leaves != null) {
            put(b, "sst", CpuSysfs.sstBf(host, leaves.nominalBaseMhz(), warnings),
                    "CPUID leaf 0x16 (nominal base frequency), " + host.path(CpuSysfs.CPU_DIR) + "/cpu*/cpufreq/base_frequency");
        }
        put(b, "topology", CpuSysfs.topology(host), host.path(CpuSysfs.CPU_DIR) + "/cpu*/topology");
        put(b, "pstate", CpuSysfs.pstate(host, warnings), host.path(CpuSysfs.CPU_DIR) + "/intel_pstate, cpufreq");
        put(b, "cstate", CpuSysfs.cstate(host, warnings), host.path("/sys/module/intel_idle/parameters/max_cstate").toString());
        put(b, "rdt", CpuSysfs.rdt(host, kernelFlags), host.path(CPUINFO) + " flags, " + host.path("/sys/fs/resctrl/info/L3"));
        put(b, "security", CpuSysfs.security(host, kernelFlags), host.path("/sys") + " (module parameters, misc cgroup) and cpuinfo flags");
        return b.build();
    }

    /** CPUID of the processor the host tree describes, or null (with a warning only when it should have worked). */
    private CpuidReading cpuid(HostFs host, Warnings warnings) {
        try {
            return CpuidReading.read(cpuid.forHost(host));
        } catch (Cpuid.Unavailable e) {
            if (!e.expected()) {
                warnings.warn(e.getMessage() + ": no cpu.model.hypervisor in a VM, no CPUID-only flags, no cpu.sst");
            }
            return null;
        }
    }

    /** {@code cpu.model}: vendor_id, family, id and hypervisor (from CPUID; without it, none on bare metal). */
    private static void model(CpuInfo info, CpuidReading leaves, Features.Builder b, Warnings warnings, HostFs host) {
        boolean any = false;
        if (info.get("vendor_id") != null) {
            b.attribute("model", "vendor_id", CpuVendor.name(info.get("vendor_id")));
            any = true;
        }
        for (String[] field : new String[][] {{"cpu family", "family"}, {"model", "id"}}) {
            String raw = info.get(field[0]);
            if (raw == null) {
                continue;
            }
            int n = info.number(field[0]);
            if (n < 0) {
                warnings.warn(CPUINFO + ": '" + field[0] + "' is not a number ('" + raw + "'), cpu.model." + field[1] + " left out");
                continue;
            }
            b.attribute("model", field[1], Integer.toString(n));
            any = true;
        }
        // NFD names the hypervisor from a CPUID leaf that /proc/cpuinfo does not show: without CPUID only bare metal
        // ("none": no hypervisor flag) is known, and the attribute is left out in a VM.
        String origin = host.path(CPUINFO).toString();
        if (leaves != null) {
            b.attribute("model", "hypervisor", leaves.hypervisor());
            origin += ", CPUID leaves 1 and 0x40000000 of the running processor";
            any = true;
        } else if (info.get("flags") != null && !info.flags().contains("hypervisor")) {
            b.attribute("model", "hypervisor", "none");
            any = true;
        }
        if (any) {
            b.origin("model", origin);
        }
    }

    private static void put(Features.Builder b, String feature, Map<String, String> attributes, String origin) {
        if (!attributes.isEmpty()) {
            b.attributes(feature, attributes);
            b.origin(feature, origin);
        }
    }
}
