package io.nodelabeller.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code affinity}: the {@code nodeAffinity} that selects nodes whose driver supports at least a CUDA version
 * ({@code nvidia.com/cuda.runtime-version.*}, the highest CUDA version the driver supports) and/or runs at least a
 * driver version ({@code nvidia.com/cuda.driver-version.*}). Node affinity has no "greater or equal" on a dotted
 * version, so "≥ 12.4" becomes terms ORed together — {@code major Gt 12}, or {@code major In [12]} and
 * {@code minor Gt 3} — and two minimums are the cross product of their terms (terms OR, expressions AND).
 */
@Command(name = "affinity", mixinStandardHelpOptions = true,
        description = "Print the nodeAffinity for nodes with at least a CUDA version and/or a driver version.")
final class AffinityCommand implements Callable<Integer> {

    static final String CUDA = "nvidia.com/cuda.runtime-version.";
    static final String DRIVER = "nvidia.com/cuda.driver-version.";

    enum Format { manifest, patch, json }

    @Option(names = "--min-cuda", paramLabel = "MAJOR.MINOR",
            description = "Nodes whose driver supports at least this CUDA version (e.g. 12.4).")
    String minCuda;

    @Option(names = "--min-driver", paramLabel = "MAJOR.MINOR[.REV]",
            description = "Nodes with at least this NVIDIA driver (e.g. 535.104.05).")
    String minDriver;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "manifest",
            description = "manifest: the affinity block of a pod spec (YAML); patch: a kubectl patch of a workload's "
                    + "pod template (YAML); json: the same patch as JSON. Default: ${DEFAULT-VALUE}.")
    Format format;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws JsonProcessingException {
        if (minCuda == null && minDriver == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give --min-cuda, --min-driver or both");
        }
        List<List<Map<String, Object>>> terms = List.of(List.of());
        if (minCuda != null) {
            terms = and(terms, atLeast(CUDA, List.of("major", "minor"), version(minCuda, 2, "--min-cuda")));
        }
        if (minDriver != null) {
            terms = and(terms, atLeast(DRIVER, List.of("major", "minor", "revision"), version(minDriver, 3, "--min-driver")));
        }
        Map<String, Object> affinity = Map.of("nodeAffinity", Map.of("requiredDuringSchedulingIgnoredDuringExecution",
                Map.of("nodeSelectorTerms", terms.stream().map(t -> Map.of("matchExpressions", t)).toList())));
        Map<String, Object> out = format == Format.manifest ? Map.of("affinity", affinity)
                : Map.of("spec", Map.of("template", Map.of("spec", Map.of("affinity", affinity))));
        spec.commandLine().getOut().print(format == Format.json ? PrintCommand.json(out) : PrintCommand.yaml(out));
        spec.commandLine().getOut().flush();
        return Main.OK;
    }

    /** "12.4" → [12, 4]; at most {@code parts} non-negative integers, at least one. */
    private long[] version(String text, int parts, String option) {
        String[] p = text.split("\\.", -1);
        if (p.length > parts) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + " " + text + ": at most " + parts + " parts");
        }
        long[] out = new long[p.length];
        for (int i = 0; i < p.length; i++) {
            if (!p[i].matches("\\d{1,9}")) {
                throw new CommandLine.ParameterException(spec.commandLine(), option + " " + text
                        + ": expected numbers separated by dots");
            }
            out[i] = Long.parseLong(p[i]);
        }
        return out;
    }

    /**
     * The terms (ORed) for "version ≥ {@code min}" on labels {@code prefix + parts[i]}: for each position i, the
     * earlier parts equal and part i greater; plus all parts equal at the last given position (≥ includes =).
     */
    static List<List<Map<String, Object>>> atLeast(String prefix, List<String> parts, long[] min) {
        List<List<Map<String, Object>>> terms = new ArrayList<>();
        for (int i = 0; i < min.length; i++) {
            List<Map<String, Object>> term = new ArrayList<>();
            for (int j = 0; j < i; j++) {
                term.add(expression(prefix + parts.get(j), "In", min[j]));
            }
            // the last given part may be equal: "> min - 1"; an earlier part must be greater
            long bound = i == min.length - 1 ? min[i] - 1 : min[i];
            if (bound >= 0) {
                term.add(expression(prefix + parts.get(i), "Gt", bound));
            } else if (i == 0) {
                term.add(expression(prefix + parts.get(i), "Exists", -1)); // "at least 0": any version
            } // else: at least 0 in this part: the equal earlier parts say it all
            terms.add(term);
        }
        return terms;
    }

    private static Map<String, Object> expression(String key, String operator, long value) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("key", key);
        e.put("operator", operator);
        if (value >= 0) {
            e.put("values", List.of(Long.toString(value)));
        }
        return e;
    }

    /** Every term of {@code a} AND every term of {@code b} (node affinity ORs terms and ANDs their expressions). */
    private static List<List<Map<String, Object>>> and(List<List<Map<String, Object>>> a, List<List<Map<String, Object>>> b) {
        List<List<Map<String, Object>>> out = new ArrayList<>();
        for (List<Map<String, Object>> x : a) {
            for (List<Map<String, Object>> y : b) {
                List<Map<String, Object>> t = new ArrayList<>(x);
                t.addAll(y);
                out.add(t);
            }
        }
        return out;
    }
}
