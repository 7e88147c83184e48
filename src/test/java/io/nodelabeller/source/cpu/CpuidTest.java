package io.nodelabeller.source.cpu;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * CPUID: what the cpu source takes from it (recorded answers: a real machine's, and processors' answers as Linux's
 * and Intel's documents give them), when it reads it at all (the host tree must be the running machine), and the
 * real instruction on this test machine.
 */
class CpuidTest {

    @TempDir
    Path root;

    private final List<String> warnings = new ArrayList<>();

    /** CPUID answers by leaf and sub-leaf; a leaf not recorded answers zeros. */
    record Recorded(Map<Long, int[]> leaves) implements Cpuid {
        static Recorded of(int[]... rows) {
            Map<Long, int[]> m = new HashMap<>();
            for (int[] r : rows) {
                m.put(((long) r[0] << 32) | r[1], new int[] {r[2], r[3], r[4], r[5]});
            }
            return new Recorded(m);
        }

        @Override
        public int[] query(int leaf, int subleaf) {
            return leaves.getOrDefault(((long) leaf << 32) | subleaf, new int[4]).clone();
        }
    }

    /**
     * Recorded on 2026-11-27 with {@link Cpuid.Native64} on the machine CI runs on: an AMD EPYC (family 25, model 1)
     * in a Firecracker VM (KVM): leaf 0 max 0xd, "AuthenticAMD"; leaf 1 ecx bit 31 set; leaf 0x40000000 "KVMKVMKVM".
     */
    static final Recorded EPYC_IN_FIRECRACKER = Recorded.of(
            new int[] {0x0, 0, 0x0000000d, 0x68747541, 0x444d4163, 0x69746e65},
            new int[] {0x1, 0, 0x00a00f11, 0x01020800, 0xfffa3203, 0x178bfbff},
            new int[] {0x7, 0, 0x00000000, 0x219c07ab, 0x00400684, 0x00000010},
            new int[] {0x7, 1, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
            new int[] {0x40000000, 0, 0x40000001, 0x4b4d564b, 0x564b4d56, 0x0000004d},
            new int[] {0x40000001, 0, 0x01007efb, 0x00000000, 0x00000000, 0x00000000});

    /** A 12-byte signature as ebx, ecx, edx hold it (little-endian, NUL-padded). */
    static int[] signatureLeaf(String signature) {
        byte[] b = new byte[12];
        byte[] s = signature.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(s, 0, b, 0, s.length);
        int[] r = new int[3];
        for (int i = 0; i < 3; i++) {
            r[i] = (b[4 * i] & 0xff) | (b[4 * i + 1] & 0xff) << 8 | (b[4 * i + 2] & 0xff) << 16 | (b[4 * i + 3] & 0xff) << 24;
        }
        return new int[] {0x40000000, 0, 0x40000001, r[0], r[1], r[2]};
    }

    /** A guest whose hypervisor answers leaf 0x40000000 with {@code signature}. */
    static Recorded guestOf(String signature) {
        return Recorded.of(new int[] {0, 0, 0xd, 0, 0, 0}, new int[] {1, 0, 0, 0, 1 << 31, 0}, signatureLeaf(signature));
    }

    @Test
    void theRecordedMachineIsAKvmGuestWithoutTheNewerFlags() {
        CpuidReading r = CpuidReading.read(EPYC_IN_FIRECRACKER);
        assertEquals(new CpuidReading("kvm", Set.of(), 0, 0), r);
        assertEquals("AuthenticAMD", CpuidReading.signature(0x68747541, 0x69746e65, 0x444d4163), "leaf 0 is ebx, edx, ecx");
    }

    /**
     * The signatures hypervisors answer, as Linux checks them: KVM "KVMKVMKVM\0\0\0" (arch/x86/include/uapi/asm/kvm_para.h,
     * KVM_SIGNATURE), Hyper-V "Microsoft Hv" (arch/x86/kernel/cpu/mshyperv.c), VMware "VMwareVMware"
     * (arch/x86/kernel/cpu/vmware.c), Xen "XenVMMXenVMM" (arch/x86/include/asm/xen/cpuid.h); QEMU's TCG "TCGTCGTCGTCG"
     * (target/i386/cpu.c); KVM with Hyper-V enlightenments "Linux KVM Hv"; bhyve "bhyve bhyve ". NFD's names are
     * klauspost's vendor names lower-cased; a signature klauspost does not know (Parallels' " lrpepyh  vr") is kept
     * with runs of other characters made one "_"; an empty one is "unknown".
     */
    @Test
    void hypervisorsAreNamedAsNfdNamesThem() {
        Map<String, String> expected = Map.of("KVMKVMKVM", "kvm", "Microsoft Hv", "msvm", "VMwareVMware", "vmware",
                "XenVMMXenVMM", "xenhvm", "TCGTCGTCGTCG", "qemu", "Linux KVM Hv", "kvm", "bhyve bhyve ", "bhyve",
                " lrpepyh  vr", "_lrpepyh_vr", "", "unknown", "ACRNACRNACRN", "acrn");
        expected.forEach((signature, name) ->
                assertEquals(name, CpuidReading.read(guestOf(signature)).hypervisor(), "'" + signature + "'"));
        assertEquals("a_b", CpuidReading.read(guestOf("a\u00e9\u00e9 b")).hypervisor(), "a run of anything else is one _");
    }

    @Test
    void withoutTheHypervisorBitItIsNoneWhateverLeaf0x40000000Says() {
        Recorded bareMetal = Recorded.of(new int[] {0, 0, 0xd, 0, 0, 0}, new int[] {1, 0, 0, 0, 0, 0}, signatureLeaf("KVMKVMKVM"));
        assertEquals("none", CpuidReading.read(bareMetal).hypervisor());
    }

    /**
     * AVX10 as Intel's AVX10 specification (document 355989) lays it out, for a processor with AVX10.1 at every vector
     * length (Granite Rapids) and for one with AVX10.2 and APX: CPUID.(7,1).edx bit 19 (AVX10) and bit 21 (APX_F);
     * CPUID.(0x24,0).ebx bits 0-7 the version, bits 16, 17, 18 the 128-, 256- and 512-bit lengths.
     */
    @Test
    void avx10AndTheOtherLeaf7Sub1Flags() {
        Recorded graniteRapids = Recorded.of(new int[] {0, 0, 0x24, 0, 0, 0}, new int[] {7, 1, 0, 0, 0, 1 << 19 | 1 << 4 | 1 << 5},
                new int[] {0x24, 0, 0, 0x00070001, 0, 0});
        assertEquals(new CpuidReading("none", Set.of("AVX10", "AVX10_128", "AVX10_256", "AVX10_512", "AVXVNNIINT8", "AVXNECONVERT"), 1, 0),
                CpuidReading.read(graniteRapids));
        Recorded avx10v2 = Recorded.of(new int[] {0, 0, 0x24, 0, 0, 0}, new int[] {7, 1, 0, 0, 0, 1 << 19 | 1 << 21 | 1 << 10},
                new int[] {0x24, 0, 0, 0x00060002, 0, 0});
        assertEquals(Set.of("AVX10", "AVX10_256", "AVX10_512", "APX_F", "AVXVNNIINT16"), CpuidReading.read(avx10v2).flags());
        assertEquals(2, CpuidReading.read(avx10v2).avx10Version());
        // leaf 0x24 above the highest leaf: AVX10 alone, no version (klauspost reads no leaf above leaf 0's eax)
        Recorded noLeaf24 = Recorded.of(new int[] {0, 0, 0x20, 0, 0, 0}, new int[] {7, 1, 0, 0, 0, 1 << 19},
                new int[] {0x24, 0, 0, 0x00070001, 0, 0});
        assertEquals(new CpuidReading("none", Set.of("AVX10"), 0, 0), CpuidReading.read(noLeaf24));
        // no leaf 7 at all
        Recorded old = Recorded.of(new int[] {0, 0, 6, 0, 0, 0}, new int[] {7, 1, 0, 0, 0, -1});
        assertEquals(Set.of(), CpuidReading.read(old).flags());
    }

    private Features discover(Cpuid cpu, HostFs host) {
        return new CpuSource(h -> cpu).discover(host, warnings::add);
    }

    @Test
    void theSourceNamesTheHypervisorAndAddsTheCpuidOnlyFlags() {
        Recorded kvmWithAvx10 = Recorded.of(new int[] {0, 0, 0x24, 0, 0, 0}, new int[] {1, 0, 0, 0, 1 << 31, 0},
                signatureLeaf("KVMKVMKVM"), new int[] {7, 1, 0, 0, 0, 1 << 19}, new int[] {0x24, 0, 0, 0x00070001, 0, 0});
        Features f = discover(kvmWithAvx10, Hosts.fs("cloud-vm"));
        assertEquals("kvm", f.attribute("cpu.model", "hypervisor"));
        assertTrue(f.flags("cpu.cpuid").containsAll(List.of("AVX10", "AVX10_512", "HYPERVISOR", "AVX2")), f.flags("cpu.cpuid").toString());
        assertEquals("1", f.attribute("cpu.cpuid", "AVX10_VERSION"));
        assertTrue(f.origin("cpu.model").contains("CPUID"), f.origin("cpu.model"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void whereCpuidCannotBeReadTheTreeAloneDecidesAndOnlyAFailureWarns() {
        Features tree = new CpuSource(h -> {
            throw new Cpuid.Unavailable("not this machine", true);
        }).discover(Hosts.fs("gpu-server"), warnings::add);
        assertEquals("none", tree.attribute("cpu.model", "hypervisor"), "bare metal by its cpuinfo flags");
        assertTrue(tree.attributes("cpu.sst").isEmpty());
        assertEquals(List.of(), warnings);
        Features refused = new CpuSource(h -> {
            throw new Cpuid.Unavailable("CPUID cannot run: mprotect(PROT_EXEC) refused", false);
        }).discover(Hosts.fs("cloud-vm"), warnings::add);
        assertNull(refused.attribute("cpu.model", "hypervisor"));
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("CPUID cannot run: mprotect(PROT_EXEC) refused: no cpu.model.hypervisor"), warnings.get(0));
    }

    private void write(String hostPath, String content) throws Exception {
        Path p = root.resolve(hostPath.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    private void cpuTree(String... baseKhz) throws Exception {
        write("/proc/cpuinfo", Files.readString(Hosts.root("gpu-server").resolve("proc/cpuinfo")).split("\n\n")[0] + "\n\n");
        for (int i = 0; i < baseKhz.length; i++) {
            if (baseKhz[i] != null) {
                write("/sys/devices/system/cpu/cpu" + i + "/cpufreq/base_frequency", baseKhz[i] + "\n");
            } else {
                Files.createDirectories(root.resolve("sys/devices/system/cpu/cpu" + i));
            }
        }
    }

    private static Recorded nominal(int mhz) {
        return Recorded.of(new int[] {0, 0, 0x16, 0, 0, 0}, new int[] {0x16, 0, mhz, 0, 0, 0});
    }

    /**
     * SST-BF as NFD decides it (source/cpu/power_amd64.go): some CPU's cpufreq/base_frequency (kHz, the intel_pstate
     * driver's file) above leaf 0x16's nominal base frequency (MHz). A Xeon Gold 6252N: nominal 2300 MHz, the
     * high-priority cores at 2800 MHz with SST-BF on.
     */
    @Test
    void sstBfIsOnWhenSomeCoreRunsAboveTheNominalBaseFrequency() throws Exception {
        cpuTree(null, "2100000", "2800000");
        assertEquals(Map.of("bf.enabled", "true"), discover(nominal(2300), new HostFs(root)).attributes("cpu.sst"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void sstBfIsAbsentWhenOffAndUndecidedWithoutANominalFrequency() throws Exception {
        cpuTree("2300000", "2300999");
        assertTrue(discover(nominal(2300), new HostFs(root)).attributes("cpu.sst").isEmpty(), "2300999 kHz is 2300 MHz, as NFD divides");
        assertEquals(List.of(), warnings);
        assertTrue(discover(nominal(0), new HostFs(root)).attributes("cpu.sst").isEmpty());
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("no nominal base frequency"), warnings.get(0));
    }

    @Test
    void cpuidIsReadOnlyForATreeThatIsTheRunningMachine() throws Exception {
        Path bootId = Path.of(HostFs.BOOT_ID);
        assumeTrue(Files.isReadable(bootId), "a Linux kernel's boot id");
        assertFalse(new HostFs(root).isRunningMachine(), "no boot id in the tree");
        String another = "8c467233-36a2-477b-89ff-dc91262d7b8f";
        if (!Files.readString(bootId).trim().equals(another)) {
            write(HostFs.BOOT_ID, another + "\n");
            assertFalse(new HostFs(root).isRunningMachine(), "another boot's id");
        }
        write(HostFs.BOOT_ID, Files.readString(bootId));
        assertTrue(new HostFs(root).isRunningMachine());
        assertTrue(new HostFs(Path.of("/")).isRunningMachine(), "the agent's own root");
        for (String host : Hosts.all()) {
            assertFalse(Hosts.fs(host).isRunningMachine(), host + ": a test tree is never the running machine");
        }
    }

    /**
     * The real instruction on this machine (x86-64 only): leaf 0's vendor and leaf 1's hypervisor bit agree with the
     * kernel's /proc/cpuinfo, and a tree made of this machine's cpuinfo and boot id gets the hypervisor CPUID names.
     */
    @Test
    void theMachineCodeRunsCpuidOnThisProcessor() throws Exception {
        assumeTrue(Cpuid.isX86() && Files.isReadable(Path.of("/proc/cpuinfo")) && Files.isReadable(Path.of(HostFs.BOOT_ID)),
                "x86-64 Linux");
        Cpuid cpu = Cpuid.Native64.instance();
        int[] leaf0 = cpu.query(0, 0);
        String cpuinfo = Files.readString(Path.of("/proc/cpuinfo")).split("\n\n")[0];
        CpuInfo info = CpuInfo.parse(new java.io.BufferedReader(new java.io.StringReader(cpuinfo)));
        assertEquals(info.get("vendor_id"), CpuidReading.signature(leaf0[1], leaf0[3], leaf0[2]));
        boolean guest = (cpu.query(1, 0)[2] & (1 << 31)) != 0;
        assertEquals(info.flags().contains("hypervisor"), guest);

        write("/proc/cpuinfo", cpuinfo + "\n\n");
        write(HostFs.BOOT_ID, Files.readString(Path.of(HostFs.BOOT_ID)));
        Features f = new CpuSource().discover(new HostFs(root), warnings::add);
        String hypervisor = f.attribute("cpu.model", "hypervisor");
        assertEquals(CpuidReading.read(cpu).hypervisor(), hypervisor);
        if (guest) {
            assertNotEquals("none", hypervisor);
        }
        assertTrue(warnings.stream().noneMatch(w -> w.contains("CPUID")), warnings.toString());
    }
}
