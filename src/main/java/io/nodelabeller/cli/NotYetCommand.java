package io.nodelabeller.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

/** Commands whose implementation has not landed yet: they say so and exit 1, never pretending to work. */
abstract class NotYetCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("node-labeller " + spec.name()
                + ": not implemented yet (publishing to Kubernetes is tracked in issue #4)");
        return Main.FAILURE;
    }

    @Command(name = "run", description = "The daemon (not implemented yet).")
    static final class Run extends NotYetCommand {
    }

    @Command(name = "once", description = "One cycle with publishing, then exit (not implemented yet).")
    static final class Once extends NotYetCommand {
    }

    @Command(name = "prune", description = "Remove every owned label and the annotation (not implemented yet).")
    static final class Prune extends NotYetCommand {
    }
}
