package io.nodelabeller.config.rules;

import io.nodelabeller.config.rules.Template.Field;
import io.nodelabeller.config.rules.Template.Range;
import io.nodelabeller.config.rules.Template.Text;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TemplateTest {

    @Test
    void nfdsUsualForm() {
        Template t = Template.parse("{{ range .pci.device }}pci-{{ .class }}_{{ .vendor }}.present=true\n{{ end }}");
        assertEquals(List.of(new Range("pci.device", List.of(new Text("pci-"), new Field("class"), new Text("_"),
                new Field("vendor"), new Text(".present=true\n")))), t.parts());
    }

    @Test
    void trimMarkersAndComments() {
        Template t = Template.parse("a  \n{{- /* note */ -}}\n  b{{/* x */}}c\n{{- range .x.y -}}\n [{{- .Name -}}] \n{{ end -}}\n");
        assertEquals(List.of(new Text("a"), new Text("b"), new Text("c"),
                new Range("x.y", List.of(new Text("["), new Field("Name"), new Text("] \n")))), t.parts());
        // "{{-3}}" is not a trim marker (Go needs white space after the dash)
        assertThrows(IllegalArgumentException.class, () -> Template.parse("x {{-3}}"));
    }

    @Test
    void textWithoutActions() {
        assertEquals(List.of(new Text("static=true\n")), Template.parse("static=true\n").parts());
        assertEquals(List.of(), Template.parse("").parts());
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "{{ .Name }};{{ .Name }} outside a range is not supported",
            "{{ range .a.b }}{{ range .c.d }}{{ end }}{{ end }};nested {{ range .c.d }} is not supported",
            "{{ end }};{{ end }} without {{ range }}",
            "{{ range .a.b }}x;{{ range .a.b }} has no {{ end }}",
            "{{ range .a.b }}{{ .Name;unclosed action '{{' at offset 16",
            "{{ if .a }}x{{ end }};unsupported action {{ if .a }}",
            "{{ range $i, $e := .a.b }}{{ end }};unsupported action {{ range $i, $e := .a.b }}",
            "{{ range .a }}{{ end }};unsupported action {{ range .a }}",
            "{{ range .a.b }}{{ .x.y }}{{ end }};unsupported action {{ .x.y }}",
            "{{ range .a.b }}{{ printf \"%s\" .Name }}{{ end }};unsupported action {{ printf",
            "{{/* open;unclosed comment at offset 0",
    })
    void outsideTheSubsetIsAClearError(String source, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Template.parse(source));
        assertEquals(true, e.getMessage().startsWith(message), e.getMessage());
    }
}
