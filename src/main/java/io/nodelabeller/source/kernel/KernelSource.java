package io.nodelabeller.source.kernel;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The running kernel, NFD's {@code kernel} source: {@code kernel.version} from {@code /proc/sys/kernel/osrelease}
 * (without it the source fails), {@code kernel.config} (see {@link KernelConfigFile}), {@code kernel.loadedmodule}
 * from {@code /proc/modules}, {@code kernel.enabledmodule} (loaded plus {@code /lib/modules/<ver>/modules.builtin}),
 * {@code kernel.selinux} and {@code kernel.kvm}. Everything under the host root.
 */
public final class KernelSource implements Source {

    /** The source's name: its line in the catalog, the first part of its feature keys, the tag of its labels. */
    public static final String NAME = "kernel";

    static final String OSRELEASE = "/proc/sys/kernel/osrelease";
    static final String MODULES = "/proc/modules";
    static final String SELINUX_ENFORCE = "/sys/fs/selinux/enforce";
    static final String KVM_DEVICE = "/sys/devices/virtual/misc/kvm";
    private static final Pattern VERSION = Pattern.compile("^(\\d+)(\\.(\\d+))?(\\.(\\d+))?(-.*)?$");

    private final KernelConfig config;
    private final KernelConfigFile configFiles = new KernelConfigFile();

    public KernelSource(KernelConfig config) {
        this.config = config;
    }

    @Override
    public Features discover(HostFs host, Warnings warnings) throws Exception {
        Features.Builder b = Features.builder(NAME);
        String raw = host.read(OSRELEASE).trim();
        String full = trimEnds(raw.replaceAll("[^-A-Za-z0-9_.]", "_"));
        b.attribute("version", "full", full);
        Matcher m = VERSION.matcher(full);
        // NFD (source/kernel/kernel.go, parseVersion) sets the parts only when the release matches its pattern;
        // an optional part that is missing is then empty ("6.8": revision "")
        if (m.matches()) {
            b.attribute("version", "major", nullToEmpty(m.group(1)));
            b.attribute("version", "minor", nullToEmpty(m.group(3)));
            b.attribute("version", "revision", nullToEmpty(m.group(5)));
        }
        b.origin("version", host.path(OSRELEASE).toString());

        // The raw release names files (/boot/config-<ver>); one with a '/' is no kernel release and could
        // point outside the host root, so it names none.
        boolean usable = !raw.isEmpty() && !raw.contains("/") && !raw.equals("..");
        if (!usable) {
            warnings.warn("kernel: osrelease '" + raw + "' cannot name files; no version-specific config or modules.builtin");
        }
        String ver = usable ? raw : null;
        KernelConfigFile.Found kconfig = configFiles.find(host, config.kconfigFile(), ver, warnings);
        if (kconfig != null) {
            b.attributes("config", kconfig.options());
            b.origin("config", host.path(kconfig.hostPath()).toString());
        } else {
            warnings.warn("kernel.config: no readable kernel config for " + raw + " (tried "
                    + String.join(", ", KernelConfigFile.candidates(config.kconfigFile(), ver)) + ")");
        }

        Set<String> loaded = new TreeSet<>();
        if (host.exists(MODULES)) {
            for (String line : host.readLines(MODULES)) {
                String name = line.trim().split("\\s+", 2)[0];
                if (!name.isEmpty()) {
                    loaded.add(name);
                }
            }
            b.flags("loadedmodule", loaded);
            b.origin("loadedmodule", host.path(MODULES).toString());
        } else {
            warnings.warn("kernel.loadedmodule: no " + MODULES + " under the host root");
        }
        String builtinFile = "/lib/modules/" + ver + "/modules.builtin";
        Set<String> enabled = new TreeSet<>(loaded);
        for (String line : usable ? host.readLines(builtinFile) : List.<String>of()) {
            String path = line.trim();
            if (!path.isEmpty()) {
                String base = path.substring(path.lastIndexOf('/') + 1);
                enabled.add(base.endsWith(".ko") ? base.substring(0, base.length() - 3) : base);
            }
        }
        b.flags("enabledmodule", enabled);
        b.origin("enabledmodule", host.path(MODULES) + ", " + host.path(builtinFile));

        boolean enforcing = host.readTrimmed(SELINUX_ENFORCE).filter(v -> v.startsWith("1")).isPresent();
        b.attribute("selinux", "enabled", Boolean.toString(enforcing));
        b.origin("selinux", host.path(SELINUX_ENFORCE).toString());

        b.attribute("kvm", "enabled", Boolean.toString(host.exists(KVM_DEVICE)));
        b.origin("kvm", host.path(KVM_DEVICE).toString());
        return b.build();
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    private static String trimEnds(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && "-_.".indexOf(s.charAt(start)) >= 0) {
            start++;
        }
        while (end > start && "-_.".indexOf(s.charAt(end - 1)) >= 0) {
            end--;
        }
        return s.substring(start, end);
    }
}
