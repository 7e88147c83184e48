package io.nodelabeller.config;

import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.config.rules.RuleReader;
import io.nodelabeller.config.yaml.YamlNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code sources:} — one section per configurable source, with NFD's keys and defaults, read by the
 * {@link SourceSection} each source defines; {@code custom} holds the custom rules: those of {@code sources.custom}
 * followed by those of the custom.d directory ({@code core.customRulesDir}) when the config was loaded from a file
 * or the defaults.
 *
 * @param sections the sections given in the file that differ from their source's defaults, by name
 */
public record SourcesConfig(Map<String, Object> sections, List<Rule> custom) {

    public static final SourcesConfig DEFAULT = new SourcesConfig(Map.of(), List.of());

    public SourcesConfig {
        sections = Map.copyOf(sections);
        custom = List.copyOf(custom);
    }

    /** The settings of {@code section}: as given in the file, else its defaults. */
    public <T> T get(SourceSection<T> section) {
        Object given = sections.get(section.name());
        @SuppressWarnings("unchecked") // put there by read() from this very section
        T value = given == null ? section.defaults() : (T) given;
        return value;
    }

    static SourcesConfig read(YamlNode n, List<SourceSection<?>> known) {
        List<String> keys = new ArrayList<>(known.stream().map(SourceSection::name).toList());
        keys.add("custom");
        n.object(keys.toArray(String[]::new));
        Map<String, Object> sections = new LinkedHashMap<>();
        // in the file's order, so that problems are listed in it too (object() reported a sources: that is no mapping)
        for (String key : n.json().isObject() ? n.entries().keySet() : java.util.Set.<String>of()) {
            SourceSection<?> s = known.stream().filter(k -> k.name().equals(key)).findFirst().orElse(null);
            YamlNode child = n.child(key);
            Object value = s == null || child.isMissing() ? null : s.reader().apply(child);
            if (value != null && !value.equals(s.defaults())) { // only what differs: equal settings, equal configs
                sections.put(key, value);
            }
        }
        return new SourcesConfig(sections, RuleReader.readList(n.child("custom")));
    }

    /** These sources with {@code more} rules run after the current ones (custom.d files). */
    public SourcesConfig withMoreRules(List<Rule> more) {
        List<Rule> all = new ArrayList<>(custom);
        all.addAll(more);
        return new SourcesConfig(sections, all);
    }
}
