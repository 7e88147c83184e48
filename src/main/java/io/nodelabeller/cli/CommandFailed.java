package io.nodelabeller.cli;

/** A command could not start; the problem has been printed and {@code exitCode} is what the command returns. */
final class CommandFailed extends Exception {
    private static final long serialVersionUID = 1L;
    final int exitCode;

    CommandFailed(int exitCode) {
        super(null, null, false, false);
        this.exitCode = exitCode;
    }
}
