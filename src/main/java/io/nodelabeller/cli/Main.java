package io.nodelabeller.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.List;

/**
 * Entry point: {@code node-labeller <command> [options]}. Exit codes: 0 ok, 1 runtime failure, 2 bad usage or config.
 * The commands are {@link #COMMANDS}, added by {@link #commandLine}.
 */
@Command(name = "node-labeller",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Discovers what a node is made of and writes it onto the Kubernetes Node as labels.")
public final class Main implements Runnable {

    /** The commands, in the order help lists them. */
    static final List<Class<?>> COMMANDS = List.of(PrintCommand.class, ExplainCommand.class, CheckConfigCommand.class,
            RunCommand.class, OnceCommand.class, PruneCommand.class, LabelsCommand.class, AffinityCommand.class,
            CommandLine.HelpCommand.class);

    public static final int OK = 0;
    public static final int FAILURE = 1;
    public static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final Environment environment;

    Main(Environment environment) {
        this.environment = environment;
    }

    public Main() {
        this(Environment.system());
    }

    Environment environment() {
        return environment;
    }

    public static void main(String[] args) {
        int code = execute(args);
        endHttpClientSelectors();
        System.exit(code);
    }

    /**
     * Ends the selector threads of the JDK's HTTP client (fabric8's transport), whose clients are all closed when
     * {@link #execute} returns. Such a thread waits in native code until its client is garbage collected (JDK 17's
     * client cannot be shut down; {@code close()} came with JDK 21), and the VM's exit waits up to 300 ms for
     * threads in native code to come back: {@code once} sat 0.3 s after its work was done. The selector loop
     * stops when its thread is interrupted.
     */
    static void endHttpClientSelectors() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int n = root.enumerate(threads, true);
        for (int i = 0; i < n; i++) {
            String name = threads[i].getName();
            if (name.startsWith("HttpClient-") && name.endsWith("-SelectorManager")) {
                threads[i].interrupt();
                try {
                    threads[i].join(200);
                } catch (InterruptedException e) {
                    return; // exiting anyway
                }
            }
        }
    }

    /** Runs the command line in this process's environment and returns the exit code. */
    public static int execute(String... args) {
        return execute(Environment.system(), args);
    }

    /** Runs the command line with {@code environment} as its environment variables (tests choose their own). */
    static int execute(Environment environment, String... args) {
        CommandLine cl = commandLine(environment, args);
        // --node-name and --instance default to NODE_NAME and NODE_LABELLER_INSTANCE of this environment (picocli's
        // ${env:} would read the process's)
        cl.setDefaultValueProvider(arg -> !(arg instanceof CommandLine.Model.OptionSpec o) ? null
                : o.longestName().equals("--node-name") ? emptyToNull(environment.get(Environment.NODE_NAME))
                : o.longestName().equals("--instance") ? emptyToNull(environment.get(Environment.INSTANCE))
                : o.longestName().equals("--role") ? emptyToNull(environment.get(Environment.ROLE))
                : o.longestName().equals("--mig-strategy") ? emptyToNull(environment.first(Environment.MIG_STRATEGY))
                : o.longestName().equals("--fail-on-init-error") ? emptyToNull(environment.first(Environment.FAIL_ON_INIT_ERROR))
                : null);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("node-labeller: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return FAILURE;
        });
        cl.setParameterExceptionHandler(Main::usageError);
        return cl.execute(args);
    }

    /**
     * The command line for {@code args}: with only the command they name when they name one (picocli builds the
     * model of every command it is given, from their annotations: the eight others cost `print` about a tenth of
     * its start-up, docs/performance.md), else with all of them (help, a version, a usage error that lists them).
     */
    static CommandLine commandLine(Environment environment, String... args) {
        // picocli looks for Groovy's closure class at start-up unless told not to; there is no Groovy here
        System.setProperty("picocli.disable.closures", "true");
        CommandLine cl = new CommandLine(new Main(environment));
        String named = args.length > 0 ? args[0] : null;
        List<Class<?>> chosen = COMMANDS.stream()
                .filter(c -> c != CommandLine.HelpCommand.class && c.getAnnotation(Command.class).name().equals(named))
                .toList();
        for (Class<?> command : chosen.isEmpty() ? COMMANDS : chosen) {
            cl.addSubcommand(command);
        }
        return cl;
    }

    /** {@link #commandLine(Environment, String...)} in this process's environment. */
    public static CommandLine commandLine(String... args) {
        return commandLine(Environment.system(), args);
    }

    /** A usage error: the one line that says what is wrong (and picocli's "did you mean"), a hint, exit 2. */
    static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        cmd.getErr().println("node-labeller: " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, cmd.getErr());
        cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
        return USAGE;
    }

    private static String emptyToNull(String s) {
        return s.isEmpty() ? null : s;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    /** This build's version (the jar manifest's Implementation-Version), "dev" outside a built jar. */
    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    /**
     * The source revision the jar was built from: the manifest's {@code Build-Revision} ({@code -Dbuild.revision=...}
     * at build time, the Dockerfile's {@code REVISION} argument), else "unknown".
     */
    static String revision() {
        try (var in = Main.class.getResourceAsStream("/META-INF/MANIFEST.MF")) {
            String r = in == null ? null : new java.util.jar.Manifest(in).getMainAttributes().getValue("Build-Revision");
            return r == null || r.isBlank() ? "unknown" : r;
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"node-labeller " + version()};
        }
    }
}
