package io.nodelabeller.source.cpu;

import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source.Warnings;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The CPU features NFD reads from sysfs: topology, Intel P-state, Intel C-state and the confidential
 * computing switches. Each method returns the attributes of one feature, empty when the host does not
 * expose it (as NFD, which leaves the feature out).
 */
final class CpuSysfs {

    static final String CPU_DIR = "/sys/devices/system/cpu";
    private static final Pattern CPU_NAME = Pattern.compile("cpu\\d+");

    private CpuSysfs() {
    }

    /**
     * {@code hardware_multithreading} (some thread_siblings_list names more than one CPU) and
     * {@code socket_count} (distinct physical_package_id). Reads {@code cpu<N>/topology} of every CPU.
     */
    static Map<String, String> topology(HostFs host) {
        Map<String, String> out = new LinkedHashMap<>();
        boolean sawSiblings = false;
        boolean smt = false;
        Set<String> packages = new TreeSet<>();
        for (String cpu : host.listOrEmpty(CPU_DIR)) {
            if (!CPU_NAME.matcher(cpu).matches()) {
                continue;
            }
            Optional<String> siblings = host.readTrimmed(CPU_DIR + "/" + cpu + "/topology/thread_siblings_list");
            if (siblings.isPresent()) {
                sawSiblings = true;
                smt |= siblings.get().contains(",") || siblings.get().contains("-");
            }
            host.readTrimmed(CPU_DIR + "/" + cpu + "/topology/physical_package_id")
                    .filter(id -> id.matches("-?\\d{1,9}"))
                    .ifPresent(packages::add);
        }
        if (sawSiblings) {
            out.put("hardware_multithreading", Boolean.toString(smt));
        }
        if (!packages.isEmpty()) {
            out.put("socket_count", Integer.toString(packages.size()));
        }
        return out;
    }

    /**
     * SST-BF (Intel Speed Select Technology - Base Frequency), as NFD decides it (source/cpu/power_amd64.go):
     * {@code bf.enabled=true} when some CPU's {@code cpufreq/base_frequency} (kHz) is above the processor's nominal base
     * frequency (CPUID leaf 0x16, MHz); nothing otherwise. CPUs without the file are skipped; a file that is there
     * while CPUID gives no nominal frequency, or that is not a number, is a warning and no attribute, as in NFD.
     */
    static Map<String, String> sstBf(HostFs host, int nominalMhz, Warnings warnings) {
        for (String cpu : host.listOrEmpty(CPU_DIR)) {
            if (!CPU_NAME.matcher(cpu).matches()) {
                continue;
            }
            String file = CPU_DIR + "/" + cpu + "/cpufreq/base_frequency";
            Optional<String> base = host.readTrimmed(file);
            if (base.isEmpty()) {
                continue;
            }
            long khz;
            try {
                khz = Long.parseLong(base.get());
            } catch (NumberFormatException e) {
                warnings.warn("cpu.sst: " + file + " is not a number ('" + base.get() + "'): SST-BF not decided");
                return Map.of();
            }
            if (nominalMhz == 0) {
                warnings.warn("cpu.sst: CPUID gives no nominal base frequency (leaf 0x16) while " + file
                        + " is there: SST-BF not decided");
                return Map.of();
            }
            if (khz / 1000 > nominalMhz) {
                return Map.of("bf.enabled", "true");
            }
        }
        return Map.of();
    }

    /**
     * Intel P-state: {@code status}, {@code turbo} and, in active mode, {@code scaling_governor} when every
     * cpufreq policy that has CPUs agrees. Empty without intel_pstate or with status "off".
     */
    static Map<String, String> pstate(HostFs host, Warnings warnings) {
        Map<String, String> out = new LinkedHashMap<>();
        String dir = CPU_DIR + "/intel_pstate";
        if (!host.isDirectory(dir)) {
            return out;
        }
        String status;
        try {
            status = host.read(dir + "/status").trim();
        } catch (IOException | RuntimeException e) {
            warnings.warn("cpu.pstate: cannot read " + dir + "/status (" + HostFs.reason(e) + ")");
            return out;
        }
        if (status.equals("off")) {
            return out;
        }
        out.put("status", status);
        try {
            out.put("turbo", Boolean.toString(host.read(dir + "/no_turbo").trim().startsWith("0")));
        } catch (IOException | RuntimeException e) {
            warnings.warn("cpu.pstate: cannot read " + dir + "/no_turbo (" + HostFs.reason(e) + "), turbo left out");
        }
        if (!status.equals("active")) {
            return out;
        }
        if (!host.isDirectory(CPU_DIR + "/cpufreq")) {
            return out; // NFD gives up on the governor when it cannot list the policies
        }
        String governor = "";
        for (String policy : host.listOrEmpty(CPU_DIR + "/cpufreq")) {
            String p = CPU_DIR + "/cpufreq/" + policy;
            Optional<String> cpus = host.readTrimmed(p + "/affected_cpus");
            if (cpus.isEmpty() || cpus.get().isEmpty()) {
                continue;
            }
            Optional<String> g = host.readTrimmed(p + "/scaling_governor");
            if (g.isEmpty()) {
                continue;
            }
            if (!governor.isEmpty() && !governor.equals(g.get())) {
                return out; // policies disagree: NFD publishes no governor
            }
            governor = g.get();
        }
        out.put("scaling_governor", governor);
        return out;
    }

    /** Intel C-state: {@code enabled} = max_cstate > 0, only when the cpuidle driver is intel_idle. */
    static Map<String, String> cstate(HostFs host, Warnings warnings) {
        Map<String, String> out = new LinkedHashMap<>();
        Optional<String> driver = host.readTrimmed(CPU_DIR + "/cpuidle/current_driver");
        if (driver.isEmpty() || !driver.get().equals("intel_idle")) {
            return out;
        }
        String file = "/sys/module/intel_idle/parameters/max_cstate";
        Optional<String> max = host.readTrimmed(file);
        if (max.isEmpty() || !max.get().matches("-?\\d{1,9}")) {
            warnings.warn("cpu.cstate: " + file + " is missing or not an integer");
            return out;
        }
        out.put("enabled", Boolean.toString(Integer.parseInt(max.get()) > 0));
        return out;
    }

    /**
     * Confidential computing, as far as the host shows it: SGX (the kernel keeps the {@code sgx} flag only
     * when the firmware enabled it; EPC size from the per-node sgx_total_bytes), TDX host (kvm_intel's tdx
     * parameter) and guest ({@code tdx_guest} flag), AMD SEV / SEV-ES / SEV-SNP (kvm_amd's parameters), and
     * the key / ASID counts of the misc cgroup controller.
     */
    static Map<String, String> security(HostFs host, Set<String> kernelFlags) {
        Map<String, String> out = new LinkedHashMap<>();
        if (kernelFlags.contains("sgx")) {
            out.put("sgx.enabled", "true");
            long epc = 0;
            for (String node : host.listOrEmpty("/sys/devices/system/node")) {
                Optional<String> bytes = host.readTrimmed("/sys/devices/system/node/" + node + "/x86/sgx_total_bytes");
                if (bytes.isPresent() && bytes.get().matches("\\d{1,18}")) {
                    epc += Long.parseLong(bytes.get());
                }
            }
            if (epc > 0) {
                out.put("sgx.epc", Long.toString(epc));
            }
        }
        if (host.readTrimmed("/sys/module/kvm_intel/parameters/tdx").filter("Y"::equals).isPresent()) {
            out.put("tdx.enabled", "true");
            miscCapacity(host, "tdx").ifPresent(n -> out.put("tdx.total_keys", n));
        }
        if (kernelFlags.contains("tdx_guest")) {
            out.put("tdx.protected", "true");
        }
        if (kvmAmd(host, "sev")) {
            out.put("sev.enabled", "true");
            miscCapacity(host, "sev").ifPresent(n -> out.put("sev.asids", n));
        }
        if (kvmAmd(host, "sev_es")) {
            out.put("sev.es.enabled", "true");
            miscCapacity(host, "sev_es").ifPresent(n -> out.put("sev.encrypted_state_ids", n));
        }
        if (kvmAmd(host, "sev_snp")) {
            out.put("sev.snp.enabled", "true");
        }
        return out;
    }

    /**
     * Intel RDT / AMD PQoS, feature-only in NFD: monitoring (RDTMON, RDTCMT, RDTMBM) and allocation (RDTL3CA,
     * RDTL2CA, RDTMBA) from the kernel's flags for the same CPUID bits, and RDTL3CA_NUM_CLOSID (num_closids - 1)
     * when resctrl is mounted at /sys/fs/resctrl.
     */
    static Map<String, String> rdt(HostFs host, Set<String> kernelFlags) {
        Map<String, String> out = new LinkedHashMap<>();
        if (kernelFlags.contains("cqm")) {
            out.put("RDTMON", "true");
            if (kernelFlags.contains("cqm_occup_llc")) {
                out.put("RDTCMT", "true");
            }
            if (kernelFlags.contains("cqm_mbm_total")) {
                out.put("RDTMBM", "true");
            }
        }
        if (kernelFlags.contains("rdt_a")) {
            if (kernelFlags.contains("cat_l3")) {
                out.put("RDTL3CA", "true");
                host.readTrimmed("/sys/fs/resctrl/info/L3/num_closids")
                        .filter(n -> n.matches("\\d{1,9}") && Integer.parseInt(n) > 0)
                        .ifPresent(n -> out.put("RDTL3CA_NUM_CLOSID", Integer.toString(Integer.parseInt(n) - 1)));
            }
            if (kernelFlags.contains("cat_l2")) {
                out.put("RDTL2CA", "true");
            }
            if (kernelFlags.contains("mba")) {
                out.put("RDTMBA", "true");
            }
        }
        return out;
    }

    private static boolean kvmAmd(HostFs host, String parameter) {
        return host.readTrimmed("/sys/module/kvm_amd/parameters/" + parameter)
                .filter(v -> v.startsWith("1") || v.startsWith("Y"))
                .isPresent();
    }

    /** The capacity of {@code resource} in the cgroup v2 misc controller ("sev 509" lines). */
    private static Optional<String> miscCapacity(HostFs host, String resource) {
        for (String file : new String[] {"/sys/fs/cgroup/misc.capacity", "/sys/fs/cgroup/misc/misc.capacity"}) {
            for (String line : host.readLines(file)) {
                String[] parts = line.trim().split("\\s+");
                if (parts.length == 2 && parts[0].equals(resource) && parts[1].matches("\\d{1,18}")) {
                    return Optional.of(parts[1]);
                }
            }
        }
        return Optional.empty();
    }
}
