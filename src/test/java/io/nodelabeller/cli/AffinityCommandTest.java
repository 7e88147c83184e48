package io.nodelabeller.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The printed node affinity, evaluated with Kubernetes' node selector semantics (k8s.io/component-helpers
 * scheduling/corev1/nodeaffinity: terms are ORed, a term's expressions ANDed; {@code In} compares the label's text,
 * {@code Gt} parses the label as a base-10 int64 and fails when it does not parse, {@code Exists} needs the key)
 * against node labels as GFD writes them, for every version in a grid.
 */
class AffinityCommandTest {

    private static JsonNode terms(String... args) throws Exception {
        String[] all = new String[args.length + 1];
        all[0] = "affinity";
        System.arraycopy(args, 0, all, 1, args.length);
        Cli.Result r = Cli.run(all);
        assertEquals(0, r.code(), r.err());
        return new YAMLMapper().readTree(r.out()).at("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms");
    }

    /** Kubernetes' evaluation of nodeSelectorTerms against a node's labels. */
    private static boolean matches(JsonNode terms, Map<String, String> labels) {
        for (JsonNode term : terms) {
            boolean all = true;
            for (JsonNode e : term.get("matchExpressions")) {
                String value = labels.get(e.get("key").asText());
                boolean ok = switch (e.get("operator").asText()) {
                    case "In" -> value != null && value.equals(e.get("values").get(0).asText());
                    case "Gt" -> value != null && parses(value) && Long.parseLong(value) > Long.parseLong(e.get("values").get(0).asText());
                    case "Exists" -> value != null;
                    default -> throw new AssertionError(e.toString());
                };
                all &= ok;
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    private static boolean parses(String v) {
        return v.matches("[+-]?\\d+");
    }

    private static Map<String, String> node(int cudaMajor, int cudaMinor, int driverMajor, int driverMinor, int driverRev) {
        Map<String, String> l = new HashMap<>();
        l.put(AffinityCommand.CUDA + "major", Integer.toString(cudaMajor));
        l.put(AffinityCommand.CUDA + "minor", Integer.toString(cudaMinor));
        l.put(AffinityCommand.DRIVER + "major", Integer.toString(driverMajor));
        l.put(AffinityCommand.DRIVER + "minor", Integer.toString(driverMinor));
        l.put(AffinityCommand.DRIVER + "revision", String.format("%02d", driverRev)); // GFD: "04" as NVML prints it
        return l;
    }

    @Test
    void minCudaSelectsExactlyTheNodesAtOrAboveIt() throws Exception {
        for (String min : new String[] {"12.4", "12.0", "11", "13.1"}) {
            String[] p = (min + ".0").split("\\.");
            int wantMajor = Integer.parseInt(p[0]);
            int wantMinor = Integer.parseInt(p[1]);
            JsonNode terms = terms("--min-cuda", min);
            for (int major = 10; major <= 14; major++) {
                for (int minor = 0; minor <= 9; minor++) {
                    boolean want = major > wantMajor || (major == wantMajor && minor >= wantMinor);
                    assertEquals(want, matches(terms, node(major, minor, 550, 54, 15)), min + " vs " + major + "." + minor);
                }
            }
        }
    }

    @Test
    void minDriverAndBothTogether() throws Exception {
        JsonNode driver = terms("--min-driver", "535.104.05");
        JsonNode both = terms("--min-cuda", "12.2", "--min-driver", "535.104.05");
        int[][] drivers = {{525, 147, 5}, {535, 54, 3}, {535, 104, 4}, {535, 104, 5}, {535, 104, 12}, {535, 161, 7},
                {550, 54, 15}, {570, 124, 6}};
        for (int[] d : drivers) {
            boolean want = d[0] > 535 || (d[0] == 535 && (d[1] > 104 || (d[1] == 104 && d[2] >= 5)));
            assertEquals(want, matches(driver, node(12, 2, d[0], d[1], d[2])), java.util.Arrays.toString(d));
            assertEquals(want, matches(both, node(12, 2, d[0], d[1], d[2])));
            assertEquals(false, matches(both, node(12, 1, d[0], d[1], d[2])), "CUDA 12.1 < 12.2");
        }
        assertEquals(false, matches(driver, Map.of()), "a node without GPU labels");
    }

    @Test
    void valuesAreStringsAndThePatchFormatsWrapThePodTemplate() throws Exception {
        Cli.Result yaml = Cli.run("affinity", "--min-cuda", "12.4");
        assertTrue(yaml.out().contains("- \"12\""), "a value Kubernetes reads as a string: " + yaml.out());
        Cli.Result patch = Cli.run("affinity", "--min-cuda", "12.4", "--format", "json");
        JsonNode p = new ObjectMapper().readTree(patch.out());
        assertEquals(2, p.at("/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
                + "nodeSelectorTerms").size());
        assertEquals(2, Cli.run("affinity").code(), "needs a minimum");
        assertEquals(2, Cli.run("affinity", "--min-cuda", "12.x").code());
        assertEquals(2, Cli.run("affinity", "--min-cuda", "12.4.1").code());
    }
}
