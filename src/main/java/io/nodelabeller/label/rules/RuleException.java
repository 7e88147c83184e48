package io.nodelabeller.label.rules;

/** A rule could not be evaluated (a non-integer input to Gt, a template reading a missing field): it is skipped. */
public final class RuleException extends Exception {
    private static final long serialVersionUID = 1L;

    public RuleException(String message) {
        super(message);
    }
}
