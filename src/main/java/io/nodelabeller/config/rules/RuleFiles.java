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

    /**
     * The rules of {@code dir} (none when it does not exist). Strict ({@code skipped} null): every problem of every
     * file is added to {@code problems}. Lenient, as NFD's worker (source/custom: a rules file it cannot use is
     * logged and left out): a file with a problem is left out whole and described by one line in {@code skipped},
     * and the other files are used. What a used file holds that NFD's worker accepts leniently (a key it ignores) is
     * added to {@code warnings}.
     */
    public static List<Rule> read(Path dir, List<String> problems, List<String> skipped, List<String> warnings) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Rule> rules = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        for (Path entry : visible(dir, problems)) {
            if (Files.isDirectory(entry)) {
                for (Path inner : visible(entry, problems)) {
                    if (Files.isRegularFile(inner)) {
                        files.add(inner);
                    }
                }
            } else if (Files.isRegularFile(entry)) {
                files.add(entry);
            }
        }
        for (Path file : files) {
            List<String> own = new ArrayList<>();
            List<String> lenient = new ArrayList<>();
            List<Rule> read = readFile(file, own, lenient);
            if (own.isEmpty()) {
                rules.addAll(read);
                warnings.addAll(lenient);
            } else if (skipped == null) {
                problems.addAll(own);
                warnings.addAll(lenient); // check-config lists everything
            } else {
                skipped.add(file + ": rule file skipped, as NFD skips a rules file it cannot use: " + own.get(0)
                        + (own.size() > 1 ? " (and " + (own.size() - 1) + " more problem(s); check-config lists them)" : ""));
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

    private static List<Rule> readFile(Path file, List<String> problems, List<String> warnings) {
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
            List<Rule> rules = RuleReader.readList(root);
            warnings.addAll(root.warnings());
            return rules;
        } catch (ConfigException e) {
            problems.addAll(e.problems());
            return List.of();
        }
    }
}
