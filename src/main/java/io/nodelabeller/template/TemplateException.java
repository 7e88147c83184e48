package io.nodelabeller.template;

/** A template that cannot be parsed, or that fails while it runs. The message says where and why. */
public final class TemplateException extends Exception {

    public TemplateException(String message) {
        super(message);
    }
}
