package io.nodelabeller.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * Runs the CLI in-process for a test in any package: a source's own folder holds its CLI tests too
 * ({@code Cli.run("print", "--host-root", ...)}).
 */
public final class Cli {

    private Cli() {
    }

    /** Runs the CLI in-process, capturing stdout and stderr. */
    public record Result(int code, String out, String err) {

        /** {@code print}'s output, one {@code key=value} a line, as a map sorted by key. */
        public java.util.SortedMap<String, String> labels() {
            java.util.SortedMap<String, String> labels = new java.util.TreeMap<>();
            out.lines().forEach(l -> labels.put(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
            return labels;
        }
    }

    /**
     * Runs the CLI with an empty environment: what a test sees does not depend on the machine it runs on (a CI
     * runner that is itself a pod has NODE_NAME, POD_NAMESPACE, ...).
     */
    public static Result run(String... args) {
        return runWith(Map.of(), args);
    }

    /**
     * Starts the CLI as a child JVM with {@code args} (the test's classpath, this environment), as a pod runs it: for
     * {@code run} and for signals; its stdout and stderr go to {@code log}. The caller ends it.
     */
    public static Process start(java.nio.file.Path log, String... args) throws java.io.IOException {
        return start(log, Map.of(), args);
    }

    /** As above, with {@code env} added to this environment (NODE_LABELLER_ROLE, ...). */
    public static Process start(java.nio.file.Path log, Map<String, String> env, String... args) throws java.io.IOException {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(
                java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        return builder.start();
    }

    /** Commands that load NVML (they take the common options). */
    private static final Set<String> LOADS_NVML = Set.of("print", "explain", "once", "run");

    /** Where tests that do not name an NVML library look for one: nowhere, so a GPU machine's driver is never loaded. */
    public static final String NO_NVML = "/nonexistent/node-labeller-test/libnvidia-ml.so.1";

    /**
     * Runs the CLI with {@code env} as its environment variables. A command that would load NVML without
     * {@code --nvml-library} gets {@link #NO_NVML}: on a machine with a real driver the test would otherwise see
     * that machine's GPUs.
     */
    public static Result runWith(Map<String, String> env, String... given) {
        String[] args = given;
        if (given.length > 0 && LOADS_NVML.contains(given[0]) && !Arrays.asList(given).contains("--nvml-library")) {
            args = Arrays.copyOf(given, given.length + 2);
            args[given.length] = "--nvml-library";
            args[given.length + 1] = NO_NVML;
        }
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = Main.execute(new Environment(env), args);
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
