package io.nodelabeller.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.SortedMap;

/** {@code print}: one discovery, the labels on stdout, exit 0. Needs no cluster and never starts a Kubernetes client. */
@Command(name = "print", mixinStandardHelpOptions = true,
        description = "Discover once and print the labels (no cluster needed).")
final class PrintCommand extends HostCommand.Inspecting {

    enum Format { text, json, yaml }

    @Option(names = "--format", defaultValue = "text", paramLabel = "FORMAT",
            description = "text (key=value lines sorted by key), json or yaml. Default: ${DEFAULT-VALUE}")
    Format format;

    @Override
    int show(Inspection result) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        out.print(render(result.labels().asMap(), format));
        out.flush();
        return Main.OK;
    }

    static String render(SortedMap<String, String> labels, Format format) throws Exception {
        return switch (format) {
            case text -> {
                StringBuilder sb = new StringBuilder();
                labels.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
                yield sb.toString();
            }
            case json -> json(labels);
            case yaml -> yaml(labels);
        };
    }

    /** {@code value} as indented JSON with a final newline. */
    static String json(Object value) throws JsonProcessingException {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value) + "\n";
    }

    /** {@code value} as YAML without a document marker, numbers-as-text quoted so Kubernetes reads them as strings. */
    static String yaml(Object value) throws JsonProcessingException {
        return new YAMLMapper().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                .writeValueAsString(value);
    }
}
