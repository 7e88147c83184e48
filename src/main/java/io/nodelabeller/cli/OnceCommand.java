package io.nodelabeller.cli;

import io.nodelabeller.daemon.Cycle;
import picocli.CommandLine.Command;

/** {@code once}: one cycle with publishing, then exit (Kubernetes Job mode): 0 when every output succeeded, else 1. */
@Command(name = "once", mixinStandardHelpOptions = true,
        description = "One cycle with publishing, then exit: 0 when every output was published, 1 otherwise.")
final class OnceCommand extends KubeCommand {

    @Override
    public Integer call() {
        try (CycleSetup p = CycleSetup.setUp(spec, common, kube, false)) {
            Cycle.Outcome outcome = p.cycle.run();
            if (outcome.fatal() != null) {
                spec.commandLine().getErr().println("node-labeller once: " + outcome.fatal());
                return Main.FAILURE;
            }
            for (String failure : outcome.failures()) {
                spec.commandLine().getErr().println("node-labeller once: " + failure);
            }
            return outcome.ok() ? Main.OK : Main.FAILURE;
        } catch (CommandFailed e) {
            return e.exitCode;
        }
    }
}
