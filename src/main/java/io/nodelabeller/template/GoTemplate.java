package io.nodelabeller.template;

import java.util.List;
import java.util.Set;

/**
 * A Go text/template, parsed once and executed many times, with the semantics NFD gives
 * {@code labelsTemplate}/{@code varsTemplate}: Go's actions ({@code if}, {@code with}, {@code range} with
 * {@code else}, {@code else if}, {@code break}, {@code continue}), pipelines, variables, the predefined
 * functions, Sprig's functions, named templates ({@code define}, {@code template}, {@code block}), trim markers and
 * comments, and {@code missingkey=error}.
 *
 * <p>Data is plain Java: Maps with String keys, Lists, Strings, Longs, Doubles and Booleans.
 */
public final class GoTemplate {

    /** NFD's cap on a template's size (pkg/apis/nfd/template: MaxTemplateSize, 64 KiB). */
    public static final int MAX_SIZE = 64 * 1024;

    private static final Set<String> FUNCTIONS = Functions.names();

    private final String source;
    private final Parser.Parsed parsed;

    private GoTemplate(String source, Parser.Parsed parsed) {
        this.source = source;
        this.parsed = parsed;
    }

    /** Parses {@code source}; a template Go would refuse, or that uses what is not supported here, throws. */
    public static GoTemplate parse(String source) throws TemplateException {
        if (source.length() > MAX_SIZE) {
            throw new TemplateException("template exceeds maximum allowed size: " + source.length() + " > " + MAX_SIZE);
        }
        return new GoTemplate(source, Parser.parse(source, FUNCTIONS));
    }

    /** Runs the template over {@code data}; throws on what Go reports as an execution error. */
    public String execute(Object data) throws TemplateException {
        return execute(data, TemplateClock.SYSTEM);
    }

    /** Runs the template over {@code data} with {@code clock} as what {@code now} reads. */
    String execute(Object data, TemplateClock clock) throws TemplateException {
        try {
            return Executor.run(parsed.root(), parsed.templates(), data, clock);
        } catch (RuntimeException e) {
            // a time's method given a date Java cannot hold, and the like: the rule fails, the cycle goes on
            throw new TemplateException("template failed: " + e);
        }
    }

    /** The text the template was parsed from. */
    public String source() {
        return source;
    }

    /** Every function a template may call. */
    public static Set<String> functions() {
        return FUNCTIONS;
    }

    @Override
    public String toString() {
        return source;
    }
}
