package io.nodelabeller.label.rules;

import io.nodelabeller.template.GoTemplate;
import io.nodelabeller.template.TemplateException;

import java.util.List;
import java.util.Map;

/**
 * Runs a rule's template over the elements its terms matched and reads the output as NFD does
 * (pkg/apis/nfd/template: ExpandMap): one {@code key=value} per line, surrounding white space and blank lines
 * ignored, a line without '=' an error.
 */
final class TemplateRenderer {

    private TemplateRenderer() {
    }

    /** Expands {@code t} and adds its key=value lines to {@code out}. {@code data}: domain → feature → elements. */
    static void expandInto(GoTemplate t, Map<String, Map<String, List<Map<String, String>>>> data, Map<String, String> out)
            throws RuleException {
        if (t == null) {
            return;
        }
        String text;
        try {
            text = t.execute(data);
        } catch (TemplateException e) {
            throw new RuleException("template failed: " + e.getMessage());
        }
        for (String line : text.split("\n", -1)) {
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
}
