package io.nodelabeller.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.config.rules.RuleReader;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.config.yaml.Yaml;
import io.nodelabeller.feature.SourceStatus;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.rules.RuleObjects;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code explain}: like print, each label (and each annotation, taint and extended resource the config switches on)
 * followed by the source and facts that produced it: for a rule, its name, and for a NodeFeatureRule object's rule
 * the object too.
 */
@Command(name = "explain", mixinStandardHelpOptions = true,
        description = "Discover once and print each label, annotation, taint and extended resource with the facts that"
                + " produced it.")
final class ExplainCommand extends HostCommand.Inspecting {

    @Option(names = "--node-feature-rules", paramLabel = "FILE",
            description = "NodeFeatureRule objects (YAML: one or more documents, or a List such as kubectl get"
                    + " nodefeaturerules -o yaml writes) to run after the configured rules, as run does with the"
                    + " cluster's. Repeatable.")
    List<Path> ruleFiles = new ArrayList<>();

    @Override
    RuleObjects ruleObjects() throws CommandFailed {
        if (ruleFiles.isEmpty()) {
            return null;
        }
        List<RuleObjects.RuleObject> objects = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (Path file : ruleFiles) {
            try {
                for (JsonNode doc : Yaml.readAll(file.toString(), Files.readString(file))) {
                    if (doc.path("kind").asText().equals("List")) {
                        for (JsonNode item : doc.path("items")) {
                            objects.add(object(file, item, skipped));
                        }
                    } else {
                        objects.add(object(file, doc, skipped));
                    }
                }
            } catch (IOException e) {
                spec.commandLine().getErr().println("node-labeller explain: cannot read " + file + ": " + e.getMessage());
                throw new CommandFailed(Main.USAGE);
            } catch (ConfigException e) {
                spec.commandLine().getErr().println("node-labeller explain: " + e.getMessage());
                throw new CommandFailed(Main.USAGE);
            }
        }
        skipped.forEach(line -> spec.commandLine().getErr().println("node-labeller explain: " + line));
        List<RuleObjects.RuleObject> all = List.copyOf(objects);
        return () -> new RuleObjects.View(all, true);
    }

    private static RuleObjects.RuleObject object(Path file, JsonNode doc, List<String> skipped) throws ConfigException {
        String name = doc.path("metadata").path("name").asText("");
        if (!doc.path("kind").asText().equals("NodeFeatureRule") || !doc.path("apiVersion").asText().startsWith("nfd.k8s-sigs.io/")
                || name.isEmpty()) {
            throw new ConfigException(file + ": expected NodeFeatureRule objects (apiVersion nfd.k8s-sigs.io/v1alpha1, with"
                    + " metadata.name), got kind '" + doc.path("kind").asText() + "'" + (name.isEmpty() ? "" : " named " + name));
        }
        List<Rule> rules = RuleReader.readObjectRules("NodeFeatureRule " + name, doc.path("spec").get("rules"), skipped);
        return new RuleObjects.RuleObject(name, rules);
    }

    @Override
    int show(Inspection result) {
        PrintWriter out = spec.commandLine().getOut();
        for (Label l : result.labels().labels().values()) {
            print(out, l.key() + "=" + l.value(), l);
        }
        for (LabelSet.Kind kind : List.of(LabelSet.Kind.ANNOTATION, LabelSet.Kind.TAINT, LabelSet.Kind.EXTENDED_RESOURCE)) {
            for (Label l : result.labels().of(kind).values()) {
                print(out, kind + " " + (kind == LabelSet.Kind.TAINT ? taint(l) : l.key() + "=" + l.value()), l);
            }
        }
        for (LabelSet.Dropped d : result.labels().dropped()) {
            out.println("# dropped " + d.label().key() + "=" + d.label().value() + " (" + d.label().source() + "): " + d.reason());
        }
        for (SourceStatus s : result.snapshot().statuses().values()) {
            if (!s.ok()) {
                out.println("# source " + s.source() + " failed: " + s.error());
            }
            for (String w : s.warnings()) {
                out.println("# source " + s.source() + " warning: " + w);
            }
        }
        out.flush();
        return Main.OK;
    }

    /**
     * A label and what it comes from. A built-in labeler's label shows the sources it was computed from ("pci";
     * "nvidia, pci"); a rule's output shows its labeler (custom, nodefeaturerule) and, on a line of its own, the
     * sources it waits for: while one of them fails, its last value is kept.
     */
    private static void print(PrintWriter out, String head, Label l) {
        out.println(head);
        if (Catalog.sourceNames().contains(l.source())) {
            out.println("    source: " + l.inputList());
        } else {
            out.println("    source: " + l.source());
            out.println("    waits for: " + (l.inputs().isEmpty() ? "no source (its rule reads no feature)" : l.inputList()));
        }
        if (l.evidence() != null && !l.evidence().isEmpty()) {
            out.println("    facts:  " + l.evidence());
        }
    }

    /** A taint as Kubernetes writes it: {@code key=value:Effect}, or {@code key:Effect} without a value. */
    private static String taint(Label l) {
        int colon = l.key().lastIndexOf(':');
        return l.key().substring(0, colon) + (l.value().isEmpty() ? "" : "=" + l.value()) + l.key().substring(colon);
    }
}
