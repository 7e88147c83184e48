package io.nodelabeller.source.cpu;

import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.Labeler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * NFD's cpu labels: {@code cpu-cpuid.<FLAG>=true} for flags passing {@code sources.cpu.cpuid} (a non-empty
 * whitelist wins over the blacklist), {@code cpu-model.*}, {@code cpu-cstate.*}, {@code cpu-pstate.*},
 * {@code cpu-security.*} (without the feature-only counts), {@code cpu-power.sst_bf.enabled} and
 * {@code cpu-hardware_multithreading}.
 */
public final class CpuLabeler implements Labeler {

    /** Security attributes NFD keeps as features only. */
    private static final Set<String> FEATURE_ONLY_SECURITY = Set.of("sgx.epc", "sev.asids", "sev.encrypted_state_ids",
            "tdx.total_keys");

    private final Set<String> whitelist;
    private final Set<String> blacklist;

    public CpuLabeler(CpuConfig config) {
        this.whitelist = Set.copyOf(config.attributeWhitelist());
        this.blacklist = Set.copyOf(config.attributeBlacklist());
    }

    @Override
    public List<LabelDoc> docs() {
        String cpuinfo = "/proc/cpuinfo";
        String pstate = "/sys/devices/system/cpu/intel_pstate/";
        String kvmAmd = "/sys/module/kvm_amd/parameters/";
        return List.of(
                LabelDoc.key(LabelValidity.NFD_PREFIX + "cpu-cpuid.<FLAG>").source(CpuSource.NAME)
                        .from(cpuinfo + " flags (first processor); arm64: Features")
                        .example(LabelValidity.NFD_PREFIX + "cpu-cpuid.AVX2", "true")
                        .means("A CPUID feature by its klauspost/cpuid name (AVX2, AESNI, FMA3, X86_64_V3...), on arm64 a hwcap by "
                                + "NFD's name (SVE2, BF16, ...), filtered by sources.cpu.cpuid.attributeWhitelist / "
                                + "attributeBlacklist."),
                cpu("cpu-model.vendor_id", cpuinfo + " vendor_id; arm64: MIDR_EL1 implementer", "AMD",
                        "CPU vendor: Intel, AMD, Hygon, ARM, Ampere, NVIDIA, VendorUnknown..."),
                cpu("cpu-model.family", cpuinfo + " cpu family; arm64: MIDR_EL1 bits 16-23", "23", "CPU family, decimal."),
                cpu("cpu-model.id", cpuinfo + " model; arm64: MIDR_EL1 bits 0-15", "49", "CPU model number, decimal."),
                cpu("cpu-cpuid.AVX10_VERSION", "CPUID leaf 0x24 (x86-64, the running processor)", "1",
                        "The AVX10 version, on processors with AVX10; read only when the host tree is the running machine."),
                cpu("cpu-model.hypervisor", "CPUID leaves 1 and 0x40000000 (x86-64); without CPUID " + cpuinfo + " flags", "kvm",
                        "The hypervisor's vendor, as NFD names it (kvm, msvm, vmware, xenhvm, qemu, bhyve, ...; unknown "
                                + "without a signature), none on bare metal; always none on arm64 (as NFD). Where CPUID "
                                + "cannot be read for the host tree: none on bare metal, absent in a VM."),
                cpu("cpu-power.sst_bf.enabled", "CPUID leaf 0x16, /sys/devices/system/cpu/cpu*/cpufreq/base_frequency", "true",
                        "Intel SST-BF is on: some CPU's base frequency is above the processor's nominal one (absent otherwise)."),
                cpu("cpu-hardware_multithreading", "/sys/devices/system/cpu/cpu*/topology/thread_siblings_list", "true",
                        "Whether some core runs more than one hardware thread (SMT)."),
                cpu("cpu-pstate.status", pstate + "status", "active",
                        "intel_pstate mode (absent without intel_pstate or when off)."),
                cpu("cpu-pstate.turbo", pstate + "no_turbo", "true", "Whether turbo boost is allowed."),
                cpu("cpu-pstate.scaling_governor", "/sys/devices/system/cpu/cpufreq/policy*/scaling_governor", "performance",
                        "The cpufreq governor, in active mode, when all policies agree."),
                cpu("cpu-cstate.enabled", "/sys/module/intel_idle/parameters/max_cstate", "true",
                        "intel_idle C-states enabled (max_cstate above 0); only with the intel_idle driver."),
                cpu("cpu-security.sgx.enabled", cpuinfo + " flags (sgx)", "true", "Intel SGX is enabled by the firmware."),
                cpu("cpu-security.tdx.enabled", "/sys/module/kvm_intel/parameters/tdx", "true", "Intel TDX host support is on."),
                cpu("cpu-security.tdx.protected", cpuinfo + " flags (tdx_guest)", "true", "Running as an Intel TDX guest."),
                cpu("cpu-security.sev.enabled", kvmAmd + "sev", "true", "AMD SEV is enabled in kvm_amd."),
                cpu("cpu-security.sev.es.enabled", kvmAmd + "sev_es", "true", "AMD SEV-ES is enabled in kvm_amd."),
                cpu("cpu-security.sev.snp.enabled", kvmAmd + "sev_snp", "true", "AMD SEV-SNP is enabled in kvm_amd."));
    }

    private LabelDoc cpu(String name, String from, String example, String description) {
        return LabelDoc.key(LabelValidity.NFD_PREFIX + name).source(CpuSource.NAME)
                .from(from).example(example)
                .means(description);
    }

    /** NFD's filter: only whitelisted flags when there is a whitelist, else every flag not blacklisted. */
    boolean passes(String flag) {
        return whitelist.isEmpty() ? !blacklist.contains(flag) : whitelist.contains(flag);
    }

    @Override
    public List<Label> labels(Features f) {
        List<Label> out = new ArrayList<>();
        for (String flag : f.flags("cpu.cpuid")) {
            if (passes(flag)) {
                out.add(Label.of(LabelValidity.NFD_PREFIX + "cpu-cpuid." + flag, "true", CpuSource.NAME,
                        "cpu.cpuid has " + flag + Evidence.from(f, "cpu.cpuid")));
            }
        }
        attributes(f, "cpu.cpuid", "cpu-cpuid.", Set.of(), out);
        attributes(f, "cpu.model", "cpu-model.", Set.of(), out);
        attributes(f, "cpu.cstate", "cpu-cstate.", Set.of(), out);
        attributes(f, "cpu.pstate", "cpu-pstate.", Set.of(), out);
        attributes(f, "cpu.sst", "cpu-power.sst_", Set.of(), out);
        attributes(f, "cpu.security", "cpu-security.", FEATURE_ONLY_SECURITY, out);
        String smt = f.attribute("cpu.topology", "hardware_multithreading");
        if (smt != null) {
            out.add(Label.of(LabelValidity.NFD_PREFIX + "cpu-hardware_multithreading", smt, CpuSource.NAME,
                    Evidence.attribute(f, "cpu.topology", "hardware_multithreading")));
        }
        return out;
    }

    private void attributes(Features f, String key, String labelPrefix, Set<String> skip, List<Label> out) {
        for (Map.Entry<String, String> e : f.attributes(key).entrySet()) {
            if (!skip.contains(e.getKey())) {
                out.add(Label.of(LabelValidity.NFD_PREFIX + labelPrefix + e.getKey(), e.getValue(), CpuSource.NAME,
                        Evidence.attribute(f, key, e.getKey())));
            }
        }
    }
}
