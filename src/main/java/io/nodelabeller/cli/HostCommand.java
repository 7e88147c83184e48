package io.nodelabeller.cli;

import picocli.CommandLine;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/**
 * What every command shares: the common options (config, host root, sources, NVML library, device plugin config) and
 * its own picocli spec (for output streams and usage errors). Picocli reads the annotated fields of superclasses.
 */
abstract class HostCommand implements Callable<Integer> {

    @Mixin
    CommonOptions common;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * Print and explain: one inspection of the host, shown by {@link #show}; when it cannot be made (a config problem
     * or an unknown source) the exit code says why (2).
     */
    abstract static class Inspecting extends HostCommand {

        /** Writes {@code result} to the command's output; returns the exit code. */
        abstract int show(Inspection result) throws Exception;

        /** NodeFeatureRule objects to run after the configured rules (explain's {@code --node-feature-rules}); null: none. */
        io.nodelabeller.label.rules.RuleObjects ruleObjects() throws CommandFailed {
            return null;
        }

        @Override
        public final Integer call() throws Exception {
            Inspection result;
            try {
                result = Inspection.forCommand(spec, common, ruleObjects());
            } catch (CommandFailed e) {
                return e.exitCode;
            }
            return show(result);
        }
    }
}
