package io.nodelabeller.config.yaml;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/** Reads YAML (or JSON) text into a tree, with errors that name the file, the line and the column on one line. */
public final class Yaml {

    /**
     * Duplicate keys are an error (the YAML spec says mapping keys are unique; SnakeYAML and Jackson would
     * otherwise keep the last one silently, so a pasted config could lose a setting without a word).
     */
    private static final YAMLMapper MAPPER = YAMLMapper.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private Yaml() {
    }

    /** Parses YAML into a tree; an empty document is an empty tree. Syntax errors name the line. */
    public static JsonNode readTree(String name, String text) throws ConfigException {
        try {
            JsonNode tree = MAPPER.readTree(text);
            return tree == null ? MissingNode.getInstance() : tree;
        } catch (JsonProcessingException e) {
            throw new ConfigException(name + ": not valid YAML" + problem(e));
        }
    }

    /** Every document of a multi-document YAML stream ({@code ---} between them); empty documents are left out. */
    public static java.util.List<JsonNode> readAll(String name, String text) throws ConfigException {
        java.util.List<JsonNode> out = new java.util.ArrayList<>();
        try (com.fasterxml.jackson.databind.MappingIterator<JsonNode> docs = MAPPER.readerFor(JsonNode.class).readValues(text)) {
            while (docs.hasNextValue()) {
                JsonNode doc = docs.nextValue();
                if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
                    out.add(doc);
                }
            }
        } catch (JsonProcessingException e) {
            throw new ConfigException(name + ": not valid YAML" + problem(e));
        } catch (java.io.IOException | RuntimeException e) {
            throw new ConfigException(name + ": not valid YAML: " + e.getMessage());
        }
        return out;
    }

    /**
     * " at line L, column C: what" in one line. SnakeYAML's own message spans several lines (the context, the
     * offending line and a caret), so its parts are taken from the exception instead.
     */
    static String problem(JsonProcessingException e) {
        if (e.getCause() instanceof org.yaml.snakeyaml.error.MarkedYAMLException m && m.getProblemMark() != null) {
            String context = m.getContext() == null ? "" : " (" + m.getContext()
                    + (m.getContextMark() == null ? "" : " at line " + (m.getContextMark().getLine() + 1)
                    + ", column " + (m.getContextMark().getColumn() + 1)) + ")";
            return " at line " + (m.getProblemMark().getLine() + 1) + ", column " + (m.getProblemMark().getColumn() + 1)
                    + ": " + m.getProblem() + context;
        }
        String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
                + ", column " + e.getLocation().getColumnNr();
        return where + ": " + YamlNode.firstLine(e.getOriginalMessage() == null ? e.toString() : e.getOriginalMessage());
    }
}
