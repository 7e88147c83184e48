package io.nodelabeller.label.rules;

import io.nodelabeller.config.rules.Template;

import java.util.List;
import java.util.Map;

/**
 * Expands a parsed {@link Template} over the elements a rule matched, with Go's {@code missingkey=error}:
 * ranging over a feature the rule did not match on, or reading a field an element lacks, is an error.
 * The output is split into {@code key=value} lines as NFD does (blank lines ignored, a line without '=' is an error).
 */
final class TemplateRenderer {

    private TemplateRenderer() {
    }

    /** Expands {@code t} and adds its key=value lines to {@code out}. {@code data}: domain → feature → elements. */
    static void expandInto(Template t, Map<String, Map<String, List<Map<String, String>>>> data, Map<String, String> out)
            throws RuleException {
        if (t == null) {
            return;
        }
        StringBuilder sb = new StringBuilder();
        render(t.parts(), data, null, sb);
        for (String line : sb.toString().split("\n", -1)) {
            String trimmed = line.strip();
            if (trimmed.isEmpty()) {
                continue;
            }
            int eq = trimmed.indexOf('=');
            if (eq < 0) {
                throw new RuleException("template line '" + trimmed + "' has no '=' (format must be <key>=<value>)");
            }
            out.put(trimmed.substring(0, eq), trimmed.substring(eq + 1));
        }
    }

    private static void render(List<Template.Part> parts, Map<String, Map<String, List<Map<String, String>>>> data,
                               Map<String, String> element, StringBuilder sb) throws RuleException {
        for (Template.Part part : parts) {
            if (part instanceof Template.Text text) {
                sb.append(text.text());
            } else if (part instanceof Template.Field field) {
                String v = element.get(field.name());
                if (v == null) {
                    throw new RuleException("template reads ." + field.name() + " but the element has no such field "
                            + "(it has " + element.keySet() + ")");
                }
                sb.append(v);
            } else if (part instanceof Template.Range range) {
                int dot = range.feature().indexOf('.');
                String domain = range.feature().substring(0, dot);
                String feature = range.feature().substring(dot + 1);
                Map<String, List<Map<String, String>>> features = data.get(domain);
                if (features == null || !features.containsKey(feature)) {
                    throw new RuleException("template ranges over ." + range.feature()
                            + " but the rule does not match on feature " + range.feature());
                }
                for (Map<String, String> e : features.get(feature)) {
                    render(range.body(), data, e, sb);
                }
            }
        }
    }
}
