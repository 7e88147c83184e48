package io.nodelabeller.source.kernel;

import io.nodelabeller.config.SourceSection;
import io.nodelabeller.config.yaml.Checks;
import io.nodelabeller.config.yaml.YamlNode;
import java.util.List;

/** {@code sources.kernel:} as in NFD. {@code kconfigFile} is tried first when set (a path on the host). */
public record KernelConfig(String kconfigFile, List<String> configOpts) {

    public static final KernelConfig DEFAULT = new KernelConfig("", List.of("NO_HZ", "NO_HZ_IDLE", "NO_HZ_FULL", "PREEMPT"));

    /** {@code sources.kernel}, for the config loader. */
    public static final SourceSection<KernelConfig> SECTION = new SourceSection<>("kernel", DEFAULT, KernelConfig::read);

    static KernelConfig read(YamlNode n) {
        n.object("kconfigFile", "configOpts");
        return new KernelConfig(n.child("kconfigFile").string(DEFAULT.kconfigFile()),
                Checks.matchingOrWarn(n.child("configOpts"), DEFAULT.configOpts(),
                        java.util.regex.Pattern.compile("[A-Za-z0-9_]+"), "a kernel config option name such as NO_HZ"));
    }
}
