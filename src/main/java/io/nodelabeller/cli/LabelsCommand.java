package io.nodelabeller.cli;

import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.catalog.Catalog;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code labels}: every label node-labeller can produce, from each labeler's {@code docs()}; with {@code --markdown}
 * the text of docs/labels.md. Runs no discovery.
 */
@Command(name = "labels", mixinStandardHelpOptions = true,
        description = "List every label node-labeller can produce: key pattern, source, example.")
final class LabelsCommand implements Callable<Integer> {

    /**
     * The command that regenerates docs/labels.md and every other file made from the declarations in the code (the
     * GPU labels' lists in the policies and docs), as those files and their test name it.
     */
    static final String REGENERATE = "./mvnw -B -ntp test -Dtest=GeneratedFilesTest -Dregenerate=true";

    @Option(names = "--markdown",
            description = "Print the Markdown of docs/labels.md instead of key<TAB>source<TAB>example lines.")
    boolean markdown;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.print(markdown ? markdown(Catalog.sourceNames(), Catalog.docs()) : plain(Catalog.docs()));
        out.flush();
        return Main.OK;
    }

    static String plain(Map<String, List<LabelDoc>> docs) {
        StringBuilder sb = new StringBuilder();
        docs.values().forEach(list -> list.forEach(d ->
                sb.append(d.key()).append('\t').append(d.source()).append('\t').append(d.example()).append('\n')));
        return sb.toString();
    }

    /**
     * The Markdown of docs/labels.md: the sources by name (the one list of them the docs have; every other page
     * points here), then each labeler's labels.
     */
    static String markdown(List<String> sources, Map<String, List<LabelDoc>> docs) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Labels\n\n");
        sb.append("Every label node-labeller can produce, generated from the code by `node-labeller labels --markdown`\n");
        sb.append("(each labeler's `docs()`, next to the code that makes the label). Do not edit by hand: a test fails\n");
        sb.append("when this file differs from what the command prints. Regenerate it with\n\n");
        sb.append("```sh\n").append(REGENERATE).append("\n```\n\n");
        sb.append("In a key, `<...>` stands for a part that depends on the host or the config (a CPU flag, PCI ids, a MIG\n");
        sb.append("profile...). *Source* is the source a label is tied to (docs/operations.md: \"Never removing on uncertainty\");\n");
        sb.append("*from* is where the value is read: a host file under `--host-root`, an NVML call or a config key.\n");
        sb.append("Sections are labelers, in merge order: a later labeler's label replaces an earlier one's of the same key.\n\n");
        sb.append("The sources, in the order they run (the names `--sources`, `core.featureSources` and `core.labelSources`\n");
        sb.append("take; each is a folder under `src/main/java/io/nodelabeller/source/`): ");
        sb.append(String.join(", ", sources.stream().map(LabelsCommand::code).toList())).append(".\n");
        docs.forEach((labeler, list) -> {
            sb.append("\n## ").append(labeler).append("\n\n");
            sb.append("| label | source | from | example | meaning |\n");
            sb.append("|---|---|---|---|---|\n");
            for (LabelDoc d : list) {
                sb.append("| ").append(code(d.key())).append(" | ").append(d.source()).append(" | ").append(code(d.from()))
                        .append(" | ").append(code(d.example())).append(" | ").append(text(d.description())).append(" |\n");
            }
        });
        return sb.toString();
    }

    private static String code(String s) {
        return "`" + s.replace("|", "\\|") + "`";
    }

    /** Plain table text: '<' would start an HTML tag in Markdown, '|' would end the cell. */
    private static String text(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|");
    }
}
