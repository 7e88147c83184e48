package io.nodelabeller.template;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code define}, {@code template} and {@code block} as Go's text/template has them (text/template/parse: define at the
 * top level only, a definition's own variables, Tree.add's multiple definition rule; exec: dot is the pipeline's value,
 * an unknown name fails while executing).
 */
class NamedTemplatesTest {

    private static final Map<String, Object> DATA = Map.of("pci", Map.of("device",
            List.of(Map.of("class", "0302", "vendor", "10de"), Map.of("class", "0200", "vendor", "15b3"))));

    private static String run(String template) throws TemplateException {
        return GoTemplate.parse(template).execute(DATA);
    }

    @Test
    void aDefinedTemplateRunsWithThePipelineAsDot() throws Exception {
        assertEquals("pci-10de-0302.present=true\npci-15b3-0200.present=true\n", run("""
                {{- define "key" }}pci-{{ .vendor }}-{{ .class }}{{ end -}}
                {{ range .pci.device }}{{ template "key" . }}.present=true
                {{ end }}"""));
        assertEquals("[hi]", run("{{ block \"b\" \"hi\" }}[{{ . }}]{{ end }}"));
        assertEquals("<no value>|", run("{{ define \"t\" }}{{ . }}{{ end }}{{ template \"t\" }}|"), "no pipeline: dot is nil");
        assertEquals("xxx", run("{{ define \"r\" }}{{ if . }}x{{ template \"r\" (slice . 1) }}{{ end }}{{ end }}"
                + "{{ template \"r\" (list 1 2 3) }}"), "a template may call itself");
        assertEquals("A", run("{{ define \"t\" }}   {{ end }}{{ define \"t\" }}A{{ end }}{{ template \"t\" }}"),
                "an empty definition is replaced");
    }

    @Test
    void goRefusesWhatGoRefuses() {
        for (String bad : List.of(
                "{{ define \"t\" }}A{{ end }}{{ define \"t\" }}B{{ end }}",        // multiple definition
                "{{ block \"t\" 1 }}A{{ end }}{{ define \"t\" }}B{{ end }}",
                "{{ $x := 1 }}{{ define \"t\" }}{{ $x }}{{ end }}",                 // a definition's own variables
                "{{ if true }}{{ define \"t\" }}A{{ end }}{{ end }}",               // define only at the top level
                "{{ range . }}{{ define \"t\" }}{{ break }}{{ end }}{{ end }}",
                "{{ template t }}", "{{ define \"t\" }}A", "{{ block \"t\" }}A{{ end }}")) {
            assertThrows(TemplateException.class, () -> GoTemplate.parse(bad), bad);
        }
        TemplateException missing = assertThrows(TemplateException.class, () -> run("{{ template \"nope\" }}"));
        assertTrue(missing.getMessage().contains("no template \"nope\""), missing.getMessage());
        TemplateException deep = assertThrows(TemplateException.class,
                () -> run("{{ define \"loop\" }}{{ template \"loop\" }}{{ end }}{{ template \"loop\" }}"));
        assertTrue(deep.getMessage().contains("exceeded maximum template depth"), deep.getMessage());
    }
}
