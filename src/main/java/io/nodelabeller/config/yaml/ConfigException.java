package io.nodelabeller.config.yaml;

import io.nodelabeller.config.yaml.ConfigException;
import java.util.List;

/** The configuration is unusable. Carries every problem found, each naming file, key path and what was expected. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public ConfigException(List<String> problems) {
        super(String.join("\n", problems));
        this.problems = List.copyOf(problems);
    }

    public ConfigException(String problem) {
        this(List.of(problem));
    }

    public List<String> problems() {
        return problems;
    }
}
