package io.nodelabeller.template;

import java.util.List;

/**
 * A template value with Go methods a field chain calls: {@code (semver "1.2.3").Major}, {@code now.Unix},
 * {@code (now).Format "2006"}, a Duration's {@code .Hours}. The arguments are the command's, checked as Go checks a
 * method's parameters.
 */
interface Receiver {

    /** Whether the value has the method {@code name} here. */
    boolean has(String name);

    /** Calls the method {@code name}, which {@link #has} it, with {@code args}. */
    Object call(String name, List<Object> args) throws TemplateException;
}
