package io.nodelabeller.label.nfd;

import io.nodelabeller.config.CpuConfig;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.Labeler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * NFD's cpu labels: {@code cpu-cpuid.<FLAG>=true} for flags passing {@code sources.cpu.cpuid} (a non-empty
 * whitelist wins over the blacklist), {@code cpu-model.*}, {@code cpu-cstate.*}, {@code cpu-pstate.*},
 * {@code cpu-security.*} (without the feature-only counts) and {@code cpu-hardware_multithreading}.
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
    public String name() {
        return "cpu";
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
                out.add(Label.of(Nfd.PREFIX + "cpu-cpuid." + flag, "true", name(),
                        "cpu.cpuid has " + flag + Evidence.from(f, "cpu.cpuid")));
            }
        }
        attributes(f, "cpu.cpuid", "cpu-cpuid.", Set.of(), out);
        attributes(f, "cpu.model", "cpu-model.", Set.of(), out);
        attributes(f, "cpu.cstate", "cpu-cstate.", Set.of(), out);
        attributes(f, "cpu.pstate", "cpu-pstate.", Set.of(), out);
        attributes(f, "cpu.security", "cpu-security.", FEATURE_ONLY_SECURITY, out);
        String smt = f.attribute("cpu.topology", "hardware_multithreading");
        if (smt != null) {
            out.add(Label.of(Nfd.PREFIX + "cpu-hardware_multithreading", smt, name(),
                    Evidence.attribute(f, "cpu.topology", "hardware_multithreading")));
        }
        return out;
    }

    private void attributes(Features f, String key, String labelPrefix, Set<String> skip, List<Label> out) {
        for (Map.Entry<String, String> e : f.attributes(key).entrySet()) {
            if (!skip.contains(e.getKey())) {
                out.add(Label.of(Nfd.PREFIX + labelPrefix + e.getKey(), e.getValue(), name(),
                        Evidence.attribute(f, key, e.getKey())));
            }
        }
    }
}
