package io.nodelabeller.testing;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.nvml.NvmlSymbol;
import io.nodelabeller.source.nvidia.GpuLabels;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The parts of the repository made from a declaration in the code rather than written by hand: the GPU label
 * lists of the policies, the migration guide, docs/gpu.md and the GPU oracle (from {@link GpuLabels}), the NVML
 * symbols of docs/gpu.md (from {@link NvmlSymbol}). Each is a block between a line holding {@code BEGIN GENERATED
 * <name>} and one holding {@code END GENERATED <name>}, in whatever comment the file takes; the lines in between
 * are the block's text, indented as the BEGIN line is. {@code GeneratedFilesTest} checks them and, with
 * {@code -Dregenerate=true}, rewrites them.
 */
public final class Generated {

    /** One generated block of a file. */
    public record Block(Path file, String name, Supplier<String> text) {
    }

    /** The GPU labels' placeholder: any run of label-key characters, starting with a letter or digit (RE2). */
    private static final String PART = "[A-Za-z0-9][-A-Za-z0-9_.]*";

    private Generated() {
    }

    public static List<Block> blocks() {
        List<Block> out = new ArrayList<>();
        for (String policy : List.of("manifests/base/node-writer/admission-policy.yaml",
                "manifests/helm/node-labeller/templates/admission-policy.yaml",
                "manifests/helm/node-labeller/templates/nodefeature-policy.yaml",
                "manifests/overlays/nfd-compat/nodefeature-policy.yaml")) {
            out.add(new Block(Path.of(policy), "gpu-labels", Generated::policyVariables));
        }
        for (String policy : List.of("manifests/base/node-writer/admission-policy.yaml",
                "manifests/helm/node-labeller/templates/admission-policy.yaml")) {
            out.add(new Block(Path.of(policy), "slice-labels", Generated::sliceVariables));
        }
        out.add(new Block(Path.of("docs/migrating-from-nfd-gfd.md"), "beyond-gfd", () -> paragraph(rollBack())));
        out.add(new Block(Path.of("docs/gpu.md"), "per-model-labels", () -> paragraph(perModelTable())));
        out.add(new Block(Path.of("docs/gpu.md"), "nvml-symbols", () -> paragraph(nvmlSymbols())));
        out.add(new Block(Path.of("bench/gpu/oracle.py"), "twins", Generated::oracleTwins));
        return out;
    }

    /**
     * {@code file} with block {@code name}'s lines replaced by {@code text}, each non-empty line indented as the BEGIN
     * line is. Throws when the file lacks the markers.
     */
    public static String apply(String file, String name, String text) {
        List<String> lines = new ArrayList<>(List.of(file.split("\n", -1)));
        int begin = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (begin < 0 && lines.get(i).contains("BEGIN GENERATED " + name + ":")) {
                begin = i;
            } else if (begin >= 0 && lines.get(i).contains("END GENERATED " + name)) {
                end = i;
                break;
            }
        }
        if (begin < 0 || end < 0) {
            throw new IllegalStateException("no 'BEGIN GENERATED " + name + ":' ... 'END GENERATED " + name + "' lines");
        }
        String indent = lines.get(begin).substring(0, lines.get(begin).length() - lines.get(begin).stripLeading().length());
        List<String> body = text.lines().map(l -> l.isEmpty() ? l : indent + l).toList();
        List<String> out = new ArrayList<>(lines.subList(0, begin + 1));
        out.addAll(body);
        out.addAll(lines.subList(end, lines.size()));
        return String.join("\n", out);
    }

    /** Markdown between its markers' HTML comments: a blank line before and after, so that it is a block of its own. */
    private static String paragraph(String markdown) {
        return "\n" + markdown + "\n";
    }

    /** The fixed keys of {@code docs}. */
    private static List<String> fixedKeys(List<LabelDoc> docs) {
        return docs.stream().map(LabelDoc::key).filter(k -> !k.contains("<")).distinct().sorted().toList();
    }

    /** Keys with a placeholder, by the part before it ({@code nvidia.com/mig-}) → the parts after it. */
    private static Map<String, TreeSet<String>> patterns(List<LabelDoc> docs) {
        Map<String, TreeSet<String>> out = new LinkedHashMap<>();
        for (LabelDoc d : docs) {
            int open = d.key().indexOf('<');
            if (open >= 0) {
                int close = d.key().indexOf('>', open);
                out.computeIfAbsent(d.key().substring(0, open), k -> new TreeSet<>()).add(d.key().substring(close + 2));
            }
        }
        return out;
    }

    /** The policies' variables {@code gpuLabels} (a CEL map of the fixed keys) and {@code gpuLabelPattern} (RE2). */
    static String policyVariables() {
        return variables(Catalog.gpuLabels(), "gpuLabels",
                "node-labeller's GPU labels (docs/labels.md): the only keys it writes under nvidia.com, as labels only",
                "gpuLabelPattern", "node-labeller's GPU labels with a MIG profile or a GPU model in their key (mig-<profile>.<field>,\n"
                        + "# gpu.model.<model>.<field>), RE2");
    }

    /** The node policies' {@code sliceLabels} and {@code sliceLabelPattern}: the GPU labels a ResourceSlice gives. */
    static String sliceVariables() {
        return variables(Catalog.sliceLabels(), "sliceLabels",
                "the GPU labels a ResourceSlice gives (docs/gpu.md): the host agent's on a node in the GPU Operator's DRA model",
                "sliceLabelPattern", "those with a MIG profile or a GPU model in their key, RE2");
    }

    /** A CEL map of {@code docs}' fixed keys named {@code map}, and an RE2 of their keys with a placeholder named {@code pattern}. */
    private static String variables(List<LabelDoc> docs, String map, String mapComment, String pattern, String patternComment) {
        StringBuilder sb = new StringBuilder();
        sb.append("- name: ").append(map).append('\n');
        sb.append("  # ").append(mapComment).append('\n');
        sb.append("  expression: >-\n");
        List<String> entries = fixedKeys(docs).stream().map(k -> "'" + k + "': true").toList();
        sb.append(wrap("{" + String.join(", ", entries) + "}", "    ", 120));
        sb.append("- name: ").append(pattern).append('\n');
        sb.append("  # ").append(patternComment.replace("\n", "\n  ")).append('\n');
        sb.append("  expression: >-\n");
        List<String> alternatives = new ArrayList<>();
        patterns(docs).forEach((prefix, fields) -> alternatives.add(re(prefix.substring("nvidia.com/".length()))
                + PART + "\\\\.(" + fields.stream().map(Generated::re).collect(Collectors.joining("|")) + ")"));
        sb.append("    '^nvidia\\\\.com/(").append(String.join("|", alternatives)).append(")$'\n");
        return sb.toString();
    }

    /** A literal as the policies' RE2 strings write it: each '.' as {@code \\.} (CEL's escape of a backslash). */
    private static String re(String literal) {
        return literal.replace(".", "\\\\.");
    }

    /** {@code text} broken after ", " into lines of at most {@code width} characters, each starting with {@code indent}. */
    private static String wrap(String text, String indent, int width) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder(indent);
        for (String word : text.split("(?<=, )")) {
            if (line.length() + word.stripTrailing().length() > width && line.length() > indent.length()) {
                out.append(line.toString().stripTrailing()).append('\n');
                line = new StringBuilder(indent);
            }
            line.append(word);
        }
        return out.append(line.toString().stripTrailing()).append('\n').toString();
    }

    /** The migration guide's roll-back step: the labels only node-labeller writes and the command that removes them. */
    static String rollBack() {
        List<LabelDoc> beyond = GpuLabels.beyondGfd();
        List<String> selects = new ArrayList<>();
        beyond.stream().map(LabelDoc::key).filter(k -> !k.contains("<")).forEach(k -> selects.add(". == \"" + k + "\""));
        patterns(beyond).keySet().forEach(prefix -> selects.add("startswith(\"" + prefix + "\")"));
        return "The labels only node-labeller writes, which stay behind as orphans: "
                + beyond.stream().map(d -> "`" + d.key() + "`").collect(Collectors.joining(", ")) + ". Remove them per node:\n"
                + "```sh\n"
                + "kubectl get node NODE -o json | jq -r '.metadata.labels | keys[]\n"
                + "  | select(" + String.join(" or ", selects) + ") | . + \"-\"' | xargs -r kubectl label node NODE\n"
                + "```\n";
    }

    /** docs/gpu.md's table of the per-model labels. */
    static String perModelTable() {
        StringBuilder sb = new StringBuilder("| label | example | from | meaning |\n|---|---|---|---|\n");
        for (LabelDoc d : GpuLabels.beyondGfd()) {
            sb.append("| `").append(d.key()).append("` | `").append(d.exampleKey().substring("nvidia.com/".length())).append('=')
                    .append(d.exampleValue()).append("` | `").append(d.from()).append("` | ")
                    .append(d.description().replace("<", "&lt;").replace(">", "&gt;")).append(" |\n");
        }
        return sb.toString();
    }

    /** docs/gpu.md's list of the NVML symbols, required and optional. */
    static String nvmlSymbols() {
        return "Required (a library without one of them is reported `unavailable`): "
                + NvmlSymbol.required().stream().map(s -> "`" + s.symbol() + "`").collect(Collectors.joining(", "))
                + ".\nOptional (only their own value is left out when missing): "
                + NvmlSymbol.optionals().stream().map(s -> "`" + s.symbol() + "` (" + s.since() + "+)")
                        .collect(Collectors.joining(", "))
                + ".\n";
    }

    /** The GPU oracle's map of the labels with a per-model twin: GFD's key → the twin's field. */
    static String oracleTwins() {
        return "TWINS = {" + GpuLabels.twins().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> "\"" + e.getKey() + "\": \"" + e.getValue() + "\"").collect(Collectors.joining(", ")) + "}\n";
    }
}
