package io.nodelabeller.source.cpu;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * NFD's {@code cpu.cpuid} flag names, computed from the kernel's {@code /proc/cpuinfo} flags instead of the
 * CPUID instruction. NFD names flags as github.com/klauspost/cpuid/v2 does; the kernel names the same CPUID
 * bits as in arch/x86/include/asm/cpufeatures.h. {@link #TABLE} maps one to the other, row by row, in the
 * order klauspost reads the CPUID leaves.
 *
 * <p>Where klauspost needs a second condition (AVX2 only with AVX, FMA3 only with OSXSAVE, SVM sub-features
 * only with SVM, SEV only on AMD) the row says so; rows are applied in order, so a condition always names a
 * flag set by an earlier row. A few flags are derived in {@link #translate} rather than mapped: OSXSAVE
 * (the kernel hides it; it sets CR4.OSXSAVE whenever it keeps {@code xsave}), HTT, AVXSLOW and FXSROPT.
 *
 * <p>The kernel shows some of these bits only in some versions (6.10 hid e.g. {@code shstk}, {@code fzrm},
 * {@code cmpccxadd}, {@code hybrid_cpu}); a row whose name a kernel does not print simply never matches there.
 *
 * <p>Not mapped, because {@code /proc/cpuinfo} does not show the CPUID bit (or shows it only under a
 * synthetic name that means something else): AMXFP8, AMXTF32, AMXCOMPLEX, AMXTRANSPOSE, APX_F, AVX10,
 * AVX10_128/256/512 (and the AVX10_VERSION attribute), AVXNECONVERT, AVXVNNIINT8, AVXVNNIINT16, BHI_CTRL,
 * CETSS on 6.10+ kernels without user shadow stack support, EFER_LMSLE_UNS, FP128, FP256, HRESET, HWA, IA32_CORE_CAP,
 * IBPB_BRTYPE, IBRS_PREFERRED, IBRS_PROVIDES_SMP, IBS sub-features (IBSFFV, IBSFETCHSAM, IBSOPSAM,
 * IBSRDWROPCNT, IBSOPCNT, IBSBRNTRGT, IBSOPCNTEXT, IBSRIPINVALIDCHK, IBS_OPFUSE, IBS_FETCH_CTLX,
 * IBS_OPDATA4, IBS_ZEN4, IBS_PREVENTHOST), IDPRED_CTRL, INT_WBINVD, KEYLOCKERW, MCDT_NO, MOVU, MSRLIST,
 * PREFETCHI, PSFD, RRSBA_CTRL, SBPB, SEV_64BIT, SEV_ALTERNATIVE, SEV_RESTRICTED, SGXPQC, SRSO_MSR_FIX,
 * SRSO_NO, SRSO_USER_KERNEL_NO, STIBP_ALWAYSON, TLB_FLUSH_NESTED, TSA_L1_NO, TSA_SQ_NO, TSA_VERW_CLEAR,
 * VMPL, VMSA_REGPROT, VTE, the PMU_FIXEDCOUNTER_* flags and the ARM flags. Those of leaf 7 sub-leaf 1 edx
 * (AVXVNNIINT8, AVXNECONVERT, AMXTRANSPOSE, AMXTF32, AMXCOMPLEX, AVXVNNIINT16, PREFETCHI, AVX10, APX_F) and leaf 0x24
 * come from CPUID itself where the host tree is the running machine ({@link CpuidReading}).
 */
final class CpuidFlags {

    /**
     * One row: the kernel's flag name, NFD's name, and an optional condition: a klauspost flag that must
     * already be set, or a vendor (as {@link CpuVendor#name(String)} gives it) the CPU must have.
     */
    record Mapping(String kernel, String nfd, String requiresFlag, String requiresVendor) {
    }

    private static Mapping map(String kernel, String nfd) {
        return new Mapping(kernel, nfd, null, null);
    }

    private static Mapping needs(String kernel, String nfd, String flag) {
        return new Mapping(kernel, nfd, flag, null);
    }

    private static Mapping amd(String kernel, String nfd) {
        return new Mapping(kernel, nfd, null, "AMD");
    }

    // @formatter:off
    static final List<Mapping> TABLE = List.of(
            // CPUID leaf 1, EDX and ECX
            map("fpu",              "X87"),
            map("cx8",              "CMPXCHG8"),
            map("sep",              "SYSEE"),
            map("cmov",             "CMOV"),
            map("mmx",              "MMX"),
            map("fxsr",             "FXSR"),
            map("sse",              "SSE"),
            map("sse2",             "SSE2"),
            map("pni",              "SSE3"),
            map("vmx",              "VMX"),
            map("ssse3",            "SSSE3"),
            map("sse4_1",           "SSE4"),
            map("sse4_2",           "SSE42"),
            map("aes",              "AESNI"),
            map("pclmulqdq",        "CLMUL"),
            map("movbe",            "MOVBE"),
            map("popcnt",           "POPCNT"),
            map("rdrand",           "RDRAND"),
            map("hypervisor",       "HYPERVISOR"),
            map("f16c",             "F16C"),
            map("cx16",             "CX16"),
            map("xsave",            "XSAVE"),
            map("xsave",            "OSXSAVE"),      // hidden by the kernel; it enables OSXSAVE whenever it keeps xsave
            needs("avx",            "AVX",          "OSXSAVE"),
            needs("fma",            "FMA3",         "OSXSAVE"),
            // CPUID leaf 7, sub-leaf 0
            needs("avx2",           "AVX2",         "AVX"),
            map("bmi1",             "BMI1"),
            needs("bmi2",           "BMI2",         "BMI1"),
            map("sgx",              "SGX"),
            map("hle",              "HLE"),
            map("erms",             "ERMS"),
            map("rtm",              "RTM"),
            map("mpx",              "MPX"),
            map("rdseed",           "RDSEED"),
            map("adx",              "ADX"),
            map("sha_ni",           "SHA"),
            map("waitpkg",          "WAITPKG"),
            map("shstk",            "CETSS"),        // name shown before Linux 6.10
            map("user_shstk",       "CETSS"),        // 6.10+ hide shstk; user shadow stacks need it
            map("gfni",             "GFNI"),
            map("vaes",             "VAES"),
            map("vpclmulqdq",       "VPCLMULQDQ"),
            map("tme",              "TME"),
            map("cldemote",         "CLDEMOTE"),
            map("movdiri",          "MOVDIRI"),
            map("movdir64b",        "MOVDIR64B"),
            map("enqcmd",           "ENQCMD"),
            map("sgx_lc",           "SGXLC"),
            map("fsrm",             "FSRM"),
            map("srbds_ctrl",       "SRBDS_CTRL"),
            map("md_clear",         "MD_CLEAR"),
            map("rtm_always_abort", "RTM_ALWAYS_ABORT"),
            map("serialize",        "SERIALIZE"),
            map("hybrid_cpu",       "HYBRID_CPU"),
            map("tsxldtrk",         "TSXLDTRK"),
            map("pconfig",          "PCONFIG"),
            map("ibt",              "CETIBT"),
            map("ibpb",             "IBPB"),
            map("stibp",            "STIBP"),
            map("flush_l1d",        "FLUSH_L1D"),
            map("arch_capabilities", "IA32_ARCH_CAP"),
            map("ssbd",             "SPEC_CTRL_SSBD"),
            // CPUID leaf 7, sub-leaf 1
            needs("avx_vnni",       "AVXVNNI",      "AVX"),
            map("sm3",              "SM3_X86"),
            map("sm4",              "SM4_X86"),
            map("cmpccxadd",        "CMPCCXADD"),
            map("fzrm",             "MOVSB_ZL"),
            map("fsrs",             "STOSB_SHORT"),
            map("fsrc",             "CMPSB_SCADBS_SHORT"),
            map("avx_ifma",         "AVXIFMA"),
            map("lam",              "LAM"),
            // AVX-512 and AMX: the kernel drops these flags when it does not enable the ZMM/tile state
            map("avx512f",          "AVX512F"),
            map("avx512dq",         "AVX512DQ"),
            map("avx512ifma",       "AVX512IFMA"),
            map("avx512pf",         "AVX512PF"),
            map("avx512er",         "AVX512ER"),
            map("avx512cd",         "AVX512CD"),
            map("avx512bw",         "AVX512BW"),
            map("avx512vl",         "AVX512VL"),
            map("avx512vbmi",       "AVX512VBMI"),
            map("avx512_vbmi2",     "AVX512VBMI2"),
            map("avx512_vnni",      "AVX512VNNI"),
            map("avx512_bitalg",    "AVX512BITALG"),
            map("avx512_vpopcntdq", "AVX512VPOPCNTDQ"),
            map("avx512_vp2intersect", "AVX512VP2INTERSECT"),
            map("amx_bf16",         "AMXBF16"),
            map("avx512_fp16",      "AVX512FP16"),
            map("amx_tile",         "AMXTILE"),
            map("amx_int8",         "AMXINT8"),
            map("avx512_bf16",      "AVX512BF16"),
            map("wrmsrns",          "WRMSRNS"),
            map("amx_fp16",         "AMXFP16"),
            // CPUID leaf 0xD, sub-leaf 1: only read by klauspost when XSAVE is set
            needs("xsaveopt",       "XSAVEOPT",     "XSAVE"),
            needs("xsavec",         "XSAVEC",       "XSAVE"),
            needs("xgetbv1",        "XGETBV1",      "XSAVE"),
            needs("xsaves",         "XSAVES",       "XSAVE"),
            // CPUID leaf 0x80000001: abm is LZCNT, and klauspost counts it as POPCNT too
            map("abm",              "LZCNT"),
            map("abm",              "POPCNT"),
            map("lahf_lm",          "LAHF"),
            map("svm",              "SVM"),
            map("sse4a",            "SSE4A"),
            map("ibs",              "IBS"),
            map("topoext",          "TOPEXT"),
            map("syscall",          "SYSCALL"),
            map("nx",               "NX"),
            map("mmxext",           "MMXEXT"),
            map("fxsr_opt",         "FXSROPT"),
            map("rdtscp",           "RDTSCP"),
            map("3dnowext",         "AMD3DNOWEXT"),
            map("3dnow",            "AMD3DNOW"),
            needs("xop",            "XOP",          "AVX"),
            needs("fma4",           "FMA4",         "AVX"),
            // CPUID leaf 0x80000007
            map("overflow_recov",   "MCAOVERFLOW"),
            map("succor",           "SUCCOR"),
            map("cpb",              "CPBOOST"),
            // CPUID leaf 0x80000008 EBX
            map("cppc",             "CPPC"),
            map("amd_ppin",         "PPIN"),
            amd("ibrs",             "IBRS"),        // klauspost reads IBRS from AMD's bit only
            map("wbnoinvd",         "WBNOINVD"),
            map("mcommit",          "MCOMMIT"),
            map("rdpru",            "RDPRU"),
            map("invlpgb",          "INVLPGB"),
            map("irperf",           "MSRIRC"),
            map("clzero",           "CLZERO"),
            // CPUID leaf 0x8000000A: read only when SVM is set
            needs("npt",            "SVMNP",        "SVM"),
            needs("lbrv",           "LBRVIRT",      "SVM"),
            needs("svm_lock",       "SVML",         "SVM"),
            needs("nrip_save",      "NRIPS",        "SVM"),
            needs("tsc_scale",      "TSCRATEMSR",   "SVM"),
            needs("vmcb_clean",     "VMCBCLEAN",    "SVM"),
            needs("flushbyasid",    "SVMFBASID",    "SVM"),
            needs("decodeassists",  "SVMDA",        "SVM"),
            needs("pausefilter",    "SVMPF",        "SVM"),
            needs("pfthreshold",    "SVMPFT",       "SVM"),
            // CPUID leaf 0x8000001F: read only on AMD
            amd("sme",              "SME"),
            amd("sev",              "SEV"),
            amd("vm_page_flush",    "MSR_PAGEFLUSH"),
            amd("sev_es",           "SEV_ES"),
            amd("sev_snp",          "SEV_SNP"),
            amd("sme_coherent",     "SME_COHERENT"),
            amd("debug_swap",       "SEV_DEBUGSWAP"),
            // CPUID leaf 0x21 (or Hyper-V's leaf): Intel TDX guest
            map("tdx_guest",        "TDX_GUEST"));
    // @formatter:on

    /** klauspost's x86-64 micro-architecture levels: each level needs every flag of the levels below. */
    static final List<Set<String>> LEVELS = List.of(
            Set.of("CMOV", "CMPXCHG8", "X87", "FXSR", "MMX", "SSE", "SSE2"),
            Set.of("CX16", "LAHF", "POPCNT", "SSE3", "SSE4", "SSE42", "SSSE3"),
            Set.of("AVX", "AVX2", "BMI1", "BMI2", "F16C", "FMA3", "LZCNT", "MOVBE", "OSXSAVE"),
            Set.of("AVX512F", "AVX512BW", "AVX512CD", "AVX512DQ", "AVX512VL"));

    private CpuidFlags() {
    }

    /**
     * NFD's flags for a CPU with kernel flags {@code kernel}.
     *
     * @param vendor         klauspost's vendor name ("Intel", "AMD", ...)
     * @param family         the CPU family, -1 when unknown
     * @param model          the CPU model, -1 when unknown
     * @param threadsPerCore logical CPUs per core ("siblings" / "cpu cores"), -1 when unknown
     */
    static Set<String> translate(Set<String> kernel, String vendor, int family, int model, int threadsPerCore) {
        Set<String> out = new TreeSet<>();
        for (Mapping m : TABLE) {
            if (kernel.contains(m.kernel())
                    && (m.requiresFlag() == null || out.contains(m.requiresFlag()))
                    && (m.requiresVendor() == null || m.requiresVendor().equals(vendor))) {
                out.add(m.nfd());
            }
        }
        // klauspost reads FXSROPT from CPUID.1:EDX bit 25, which is the SSE bit.
        if (out.contains("SSE")) {
            out.add("FXSROPT");
        }
        // HTT: the HTT bit, on Intel or AMD, with more than one thread per core.
        if (kernel.contains("ht") && ("Intel".equals(vendor) || "AMD".equals(vendor)) && threadsPerCore > 1) {
            out.add("HTT");
        }
        // AVXSLOW: AVX on Intel before Haswell, on AMD before Zen 2.
        if (out.contains("AVX")) {
            boolean slow = "Intel".equals(vendor) && family == 6 && model >= 0 && model < 60
                    || "AMD".equals(vendor) && family >= 0 && (family < 23 || family == 23 && model >= 0 && model < 49);
            if (slow) {
                out.add("AVXSLOW");
            }
        }
        int level = x64Level(out);
        for (int i = 1; i <= level; i++) {
            out.add("X86_64_V" + i);
        }
        return out;
    }

    /** klauspost's {@code X64Level()}: 0 without SYSENTER or SYSCALL, else the highest level fully present. */
    static int x64Level(Set<String> flags) {
        if (!flags.contains("SYSEE") && !flags.contains("SYSCALL")) {
            return 0;
        }
        int level = 0;
        for (Set<String> needed : LEVELS) {
            if (!flags.containsAll(needed)) {
                break;
            }
            level++;
        }
        return level;
    }
}
