package io.nodelabeller.source.cpu;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuSourceTest {

    @TempDir
    Path root;

    private final List<String> warnings = new ArrayList<>();

    private Features discover(HostFs host) {
        return new CpuSource().discover(host, warnings::add);
    }

    private void write(String hostPath, String content) throws Exception {
        Path p = root.resolve(hostPath.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    @Test
    void dgxA100() {
        Features f = discover(Hosts.fs("gpu-server"));
        assertEquals(Map.of("vendor_id", "AMD", "family", "23", "id", "49", "hypervisor", "none"), f.attributes("cpu.model"));
        assertTrue(f.flags("cpu.cpuid").containsAll(List.of("AVX2", "AESNI", "FMA3", "SHA", "ADX", "SVM", "SEV", "SEV_ES",
                "HTT", "X86_64_V1", "X86_64_V2", "X86_64_V3")), f.flags("cpu.cpuid").toString());
        assertFalse(f.flags("cpu.cpuid").contains("X86_64_V4"), "Rome has no AVX-512");
        assertFalse(f.flags("cpu.cpuid").contains("AVX512F"));
        assertEquals(Map.of("hardware_multithreading", "true", "socket_count", "2"), f.attributes("cpu.topology"));
        assertEquals(Map.of("sev.enabled", "true", "sev.asids", "410", "sev.es.enabled", "true",
                "sev.encrypted_state_ids", "99"), f.attributes("cpu.security"));
        assertEquals(Map.of("RDTMON", "true", "RDTCMT", "true", "RDTMBM", "true", "RDTL3CA", "true", "RDTMBA", "true"),
                f.attributes("cpu.rdt"));
        assertTrue(f.attributes("cpu.pstate").isEmpty(), "no intel_pstate on AMD");
        assertTrue(f.attributes("cpu.cstate").isEmpty(), "acpi_idle is not intel_idle");
        assertTrue(f.origin("cpu.cpuid").endsWith("proc/cpuinfo (flags of the first processor)"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void cloudVmIsAGuestWithoutSmt() {
        Features f = discover(Hosts.fs("cloud-vm"));
        assertTrue(f.flags("cpu.cpuid").contains("HYPERVISOR"));
        assertTrue(f.flags("cpu.cpuid").contains("X86_64_V4"));
        assertNull(f.attribute("cpu.model", "hypervisor"), "the hypervisor's name is not in /proc/cpuinfo");
        assertEquals("false", f.attribute("cpu.topology", "hardware_multithreading"));
        assertEquals("1", f.attribute("cpu.topology", "socket_count"));
    }

    @Test
    void treeWithoutCpuFilesHasNoCpuFeatures() {
        Features f = discover(new HostFs(root));
        assertTrue(f.isEmpty(), f.toString());
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("no /proc/cpuinfo"));
    }

    @Test
    void intelPstateActiveWithOneGovernorAndTurbo() throws Exception {
        write("/sys/devices/system/cpu/intel_pstate/status", "active\n");
        write("/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
        for (int i = 0; i < 2; i++) {
            write("/sys/devices/system/cpu/cpufreq/policy" + i + "/affected_cpus", i + "\n");
            write("/sys/devices/system/cpu/cpufreq/policy" + i + "/scaling_governor", "performance\n");
        }
        write("/sys/devices/system/cpu/cpufreq/policy9/affected_cpus", "\n"); // no CPUs: ignored
        write("/sys/devices/system/cpu/cpufreq/policy9/scaling_governor", "powersave\n");
        assertEquals(Map.of("status", "active", "turbo", "true", "scaling_governor", "performance"),
                discover(new HostFs(root)).attributes("cpu.pstate"));

        write("/sys/devices/system/cpu/cpufreq/policy1/scaling_governor", "powersave\n");
        assertEquals(Map.of("status", "active", "turbo", "true"), discover(new HostFs(root)).attributes("cpu.pstate"),
                "governors disagree: none published");

        write("/sys/devices/system/cpu/intel_pstate/status", "passive\n");
        write("/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
        assertEquals(Map.of("status", "passive", "turbo", "false"), discover(new HostFs(root)).attributes("cpu.pstate"));

        write("/sys/devices/system/cpu/intel_pstate/status", "active\n");
        write("/sys/devices/system/cpu/cpufreq/policy1/affected_cpus", "\n");
        write("/sys/devices/system/cpu/cpufreq/policy0/affected_cpus", "\n");
        assertEquals(Map.of("status", "active", "turbo", "false", "scaling_governor", ""),
                discover(new HostFs(root)).attributes("cpu.pstate"), "no policy with CPUs: NFD's empty governor");

        write("/sys/devices/system/cpu/intel_pstate/status", "off\n");
        assertTrue(discover(new HostFs(root)).attributes("cpu.pstate").isEmpty());
    }

    @Test
    void intelIdleCstate() throws Exception {
        write("/sys/devices/system/cpu/cpuidle/current_driver", "intel_idle\n");
        write("/sys/module/intel_idle/parameters/max_cstate", "9\n");
        assertEquals(Map.of("enabled", "true"), discover(new HostFs(root)).attributes("cpu.cstate"));
        write("/sys/module/intel_idle/parameters/max_cstate", "0\n");
        assertEquals(Map.of("enabled", "false"), discover(new HostFs(root)).attributes("cpu.cstate"));
        write("/sys/devices/system/cpu/cpuidle/current_driver", "haltpoll\n");
        assertTrue(discover(new HostFs(root)).attributes("cpu.cstate").isEmpty());
    }

    @Test
    void sgxAndTdx() throws Exception {
        write("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
                + "flags\t\t: fpu sep sgx sgx_lc tdx_guest hypervisor\n\n");
        write("/sys/devices/system/node/node0/x86/sgx_total_bytes", "4096\n");
        write("/sys/devices/system/node/node1/x86/sgx_total_bytes", "8192\n");
        write("/sys/module/kvm_intel/parameters/tdx", "Y\n");
        write("/sys/fs/cgroup/misc.capacity", "tdx 31\n");
        Features f = discover(new HostFs(root));
        assertEquals(Map.of("sgx.enabled", "true", "sgx.epc", "12288", "tdx.enabled", "true", "tdx.total_keys", "31",
                "tdx.protected", "true"), f.attributes("cpu.security"));
        assertTrue(f.flags("cpu.cpuid").containsAll(List.of("SGX", "SGXLC", "TDX_GUEST")));
        assertEquals("Intel", f.attribute("cpu.model", "vendor_id"));
        assertEquals("143", f.attribute("cpu.model", "id"));
    }

    @Test
    void rdtClosidsFromResctrl() throws Exception {
        write("/proc/cpuinfo", "processor\t: 0\nflags\t\t: sep rdt_a cat_l3 cat_l2\n");
        write("/sys/fs/resctrl/info/L3/num_closids", "16\n");
        assertEquals(Map.of("RDTL3CA", "true", "RDTL3CA_NUM_CLOSID", "15", "RDTL2CA", "true"),
                discover(new HostFs(root)).attributes("cpu.rdt"));
    }

    @Test
    void vendorNamesAsKlauspost() {
        assertEquals("Intel", CpuVendor.name("GenuineIntel"));
        assertEquals("AMD", CpuVendor.name("AuthenticAMD"));
        assertEquals("Hygon", CpuVendor.name("HygonGenuine"));
        assertEquals("VendorUnknown", CpuVendor.name("Genuine Intel"));
    }

    /**
     * A large host's cpuinfo repeats the processor block for every logical CPU (here 3 MB: 256 blocks of the DGX's
     * first block with a long flags line). Only the first block is read: what the parse allocates is measured with
     * the JVM's per-thread allocation counter and stays far below the file's size, so a bigger file cannot exhaust
     * the production heap (-Xmx64m). docs/performance.md has the figure.
     */
    @Test
    void aHugeCpuinfoIsReadOnlyAsFarAsTheFirstProcessorBlock() throws Exception {
        String first = Files.readString(Hosts.root("gpu-server").resolve("proc/cpuinfo")).split("\n\n")[0];
        String block = first.replaceFirst("(?m)^flags\t\t: (.*)$", "flags\t\t: $1" + " xflag".repeat(1500));
        StringBuilder big = new StringBuilder();
        for (int cpu = 0; big.length() < 3 * 1024 * 1024; cpu++) {
            big.append(block.replaceFirst("processor\t: 0", "processor\t: " + cpu)).append("\n\n");
        }
        write("/proc/cpuinfo", big.toString());
        long size = Files.size(root.resolve("proc/cpuinfo"));
        assertTrue(size >= 3 * 1024 * 1024, "size " + size);

        HostFs host = new HostFs(root);
        discover(host); // warm up: class loading is not the parse's allocation
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        Features f = discover(host);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertEquals("AMD", f.attributes("cpu.model").get("vendor_id"));
        assertTrue(f.flags("cpu.cpuid").contains("AVX2"));
        assertTrue(allocated < size / 4, "allocated " + allocated + " bytes for a " + size + "-byte cpuinfo");
    }
}
