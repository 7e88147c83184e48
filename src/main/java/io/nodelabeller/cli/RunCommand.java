package io.nodelabeller.cli;

import picocli.CommandLine.Command;

/** {@code run}: the daemon ({@link RunDaemon}); exits 0 on SIGTERM, 1 on a fatal cycle or a port it cannot bind. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "The daemon: a cycle every core.sleepInterval, /healthz, /readyz and /metrics on daemon.port.")
final class RunCommand extends KubeCommand {

    @Override
    public Integer call() throws InterruptedException {
        try (CycleSetup p = CycleSetup.setUp(spec, common, kube, true)) {
            return RunDaemon.run(spec, common, p);
        } catch (CommandFailed e) {
            return e.exitCode;
        }
    }
}
