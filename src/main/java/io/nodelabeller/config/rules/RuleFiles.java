package io.nodelabeller.config.rules;

import io.nodelabeller.config.yaml.Yaml;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.config.yaml.YamlNode;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The rule files of a custom.d directory, as NFD's worker reads them: every non-hidden regular file in the
 * directory and in its first-level sub-directories (a ConfigMap mounted there works: its {@code ..data}
 * entries are hidden), in name order, each a YAML list of rules. These are configuration, read from the
 * agent's own file system, not from the host root.
 */
public final class RuleFiles {

    private RuleFiles() {
    }

    /** The rules of {@code dir} (none when it does not exist); problems are added to {@code problems}. */
    public static List<Rule> read(Path dir, List<String> problems) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Rule> rules = new ArrayList<>();
        for (Path entry : visible(dir, problems)) {
            if (Files.isDirectory(entry)) {
                for (Path inner : visible(entry, problems)) {
                    if (Files.isRegularFile(inner)) {
                        rules.addAll(readFile(inner, problems));
                    }
                }
            } else if (Files.isRegularFile(entry)) {
                rules.addAll(readFile(entry, problems));
            }
        }
        return List.copyOf(rules);
    }

    private static List<Path> visible(Path dir, List<String> problems) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                if (!p.getFileName().toString().startsWith(".")) {
                    out.add(p);
                }
            }
        } catch (IOException e) {
            problems.add(dir + ": cannot list the rules directory: " + e.getMessage());
        }
        out.sort(null);
        return out;
    }

    private static List<Rule> readFile(Path file, List<String> problems) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            problems.add(file + ": cannot read: " + e.getMessage());
            return List.of();
        }
        try {
            YamlNode root = YamlNode.root(file.toString(), Yaml.readTree(file.toString(), text), problems);
            if (root.isMissing()) {
                return List.of();
            }
            if (!root.json().isArray()) {
                root.problem("expected a list of rules");
                return List.of();
            }
            return RuleReader.readList(root);
        } catch (ConfigException e) {
            problems.addAll(e.problems());
            return List.of();
        }
    }
}
