package io.nodelabeller.template;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs every vector of templates/go-text-template-vectors.json: templates from NFD's tests, samples and docs
 * (pkg/apis/nfd/nodefeaturerule/rule_test.go, deployment/nodefeaturerule/samples, docs/usage/customization-guide.md)
 * and from text/template's documented behaviour, with the output or the error Go's own text/template gave for
 * them (src/test/go/templatevectors runs Go over the same file). A vector Go refuses at parse time must be
 * refused by {@link GoTemplate#parse}; one Go refuses while executing may be refused at either step.
 */
class GoTemplateVectorsTest {

    @TestFactory
    List<DynamicTest> vectors() throws IOException {
        JsonNode doc;
        try (InputStream in = getClass().getResourceAsStream("/templates/go-text-template-vectors.json")) {
            doc = new ObjectMapper().readTree(in);
        }
        Object data = new ObjectMapper().convertValue(doc.get("data"), Map.class);
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : doc.get("vectors")) {
            String template = v.get("template").asText();
            tests.add(DynamicTest.dynamicTest(v.get("name").asText(), () -> {
                String error = v.path("error").asText(null);
                if ("parse".equals(error)) {
                    assertThrows(TemplateException.class, () -> GoTemplate.parse(template),
                            "Go refuses this template at parse time: " + v.path("goError").asText());
                } else if ("exec".equals(error)) {
                    try {
                        String out = GoTemplate.parse(template).execute(data);
                        fail("Go fails while executing (" + v.path("goError").asText() + "), we printed: " + out);
                    } catch (TemplateException expected) {
                        // refused, as Go does
                    }
                } else {
                    assertEquals(v.get("want").asText(), GoTemplate.parse(template).execute(data));
                }
            }));
        }
        return tests;
    }
}
