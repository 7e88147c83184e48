package io.nodelabeller.cli;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.catalog.Catalog;
import picocli.CommandLine.Command;

/** {@code check-config}: validates the config; exit 0, or 2 with every problem listed. */
@Command(name = "check-config", mixinStandardHelpOptions = true,
        description = "Validate the config file: exit 0, or 2 listing every problem.")
final class CheckConfigCommand extends HostCommand {

    @Override
    public Integer call() {
        try {
            Config config = common.loadConfigStrictly();
            Catalog.selectSources(common.sources != null ? common.sources : config.core().featureSources());
            Catalog.selectLabelers(config.core().labelSources());
        } catch (ConfigException e) {
            return ConfigErrors.report(spec, e);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("config error: " + (common.config == null ? "" : common.config + ": ")
                    + e.getMessage());
            return Main.USAGE;
        }
        spec.commandLine().getOut().println((common.config == null ? "defaults" : common.config.toString()) + ": ok");
        if (common.devicePluginConfig != null) {
            spec.commandLine().getOut().println(common.devicePluginConfig + ": ok (device plugin config)");
        }
        if (common.devicePluginConfigDir != null) {
            spec.commandLine().getOut().println(common.devicePluginConfigDir + ": ok (device plugin configs)");
        }
        return Main.OK;
    }
}
