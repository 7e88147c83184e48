package io.nodelabeller.cli;

import io.nodelabeller.config.yaml.ConfigException;
import picocli.CommandLine;

/** Prints every config problem on its own line to stderr and returns exit code 2. */
final class ConfigErrors {

    private ConfigErrors() {
    }

    static int report(CommandLine.Model.CommandSpec spec, ConfigException e) {
        for (String problem : e.problems()) {
            spec.commandLine().getErr().println("config error: " + problem);
        }
        spec.commandLine().getErr().flush();
        return Main.USAGE;
    }
}
