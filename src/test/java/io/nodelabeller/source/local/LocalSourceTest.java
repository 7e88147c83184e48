package io.nodelabeller.source.local;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.local.LocalLabeler;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LocalSourceTest {

    private static final Clock NOW = Clock.fixed(Instant.parse("2026-06-01T12:00:00Z"), ZoneOffset.UTC);
    private static final String DIR = "etc/kubernetes/node-feature-discovery/features.d";

    @TempDir
    Path tmp;

    private final List<String> warnings = new ArrayList<>();

    private Features discover(Path root) throws Exception {
        return new LocalSource(NOW, null).discover(new HostFs(root), warnings::add);
    }

    private Map<String, String> parse(String text) {
        return FeatureFile.parse(text, NOW.instant(), warnings::add).labels();
    }

    @Test
    void gpuServerFeatureFiles() throws Exception {
        Path root = Hosts.root("gpu-server");
        assertTrue(Files.exists(root.resolve(DIR).resolve(".draft")), "the hidden file is in the test tree");
        assertTrue(Files.exists(root.resolve(DIR).resolve("archive/old")), "the sub-directory is in the test tree");
        Features f = discover(root);
        assertEquals(Map.of(
                "node-pool", "a100-inference",          // 30-override wins over 10-cluster
                "example.com/rack", "r12-u07",
                "example.com/datacenter", "fra2",
                "infiniband", "true",
                "warranty", "active",
                "example.com/owner", "ml-platform"), f.attributes("local.label"));
        assertEquals(Map.of(
                "node-pool", "a100-inference",
                "example.com/rack", "r12-u07",
                "example.com/datacenter", "fra2",
                "infiniband", "true",
                "warranty", "active",
                "asset-tag", "INV-004211"), f.attributes("local.feature"));
        assertEquals(List.of(), warnings);
        assertTrue(f.origin("local.label").endsWith("features.d"), f.origin("local.label"));
    }

    @Test
    void hostileFeatureFiles() throws Exception {
        Features f = discover(Hosts.root("hostile"));
        Map<String, String> labels = f.attributes("local.label");
        assertFalse(labels.keySet().stream().anyMatch(k -> k.startsWith("generated-key")), "00-huge is skipped whole");
        assertEquals("true", labels.get("at-limit"), "a file of exactly 64 KiB is read");
        assertEquals("crlf-value", labels.get("crlf-key"));
        assertEquals("ok", labels.get("plain-after-garbage"));
        assertEquals("true", labels.get("still-valid-after-bad-expiry"));
        assertEquals("true", labels.get("not-a-directive-so-labelled"));
        assertEquals("true", labels.get("back-to-normal"));
        assertFalse(labels.containsKey("expired-key"));
        assertFalse(labels.containsKey("expired-still"), "a bad expiry keeps the previous (passed) one");
        assertFalse(labels.containsKey("in-neither"));
        assertFalse(f.attributes("local.feature").containsKey("in-neither"));
        assertEquals(List.of(
                "/" + DIR + "/00-huge: skipped, 70049 bytes is over the 65536 byte limit",
                "/" + DIR + "/10-bad-directives: line 1: expiry-time 'tomorrow' is not an RFC 3339 time (such as "
                        + "2030-01-31T12:00:00Z); the previous expiry applies",
                "/" + DIR + "/10-bad-directives: line 3: unknown feature file directive 'frobnicate'",
                "/" + DIR + "/10-bad-directives: line 8: expiry-time 'not-a-time-either' is not an RFC 3339 time (such as "
                        + "2030-01-31T12:00:00Z); the previous expiry applies"), warnings);
    }

    @Test
    void missingDirectoryGivesNoFeaturesAndNoWarning() throws Exception {
        Features f = discover(tmp);
        assertTrue(f.isEmpty());
        assertEquals(List.of(), warnings);
    }

    @Test
    void emptyDirectoryDeclaresEmptyFeatures() throws Exception {
        Files.createDirectories(tmp.resolve(DIR));
        Features f = discover(tmp);
        assertTrue(f.allAttributes().containsKey("local.label"));
        assertEquals(Map.of(), f.attributes("local.label"));
    }

    @Test
    void sizeLimitIsNfds() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(DIR));
        String line = "k=v\n";
        Files.writeString(dir.resolve("a"), line + "#".repeat(65536 - line.length() - 1) + "\n");
        Files.writeString(dir.resolve("b"), "other=1\n" + "#".repeat(65536 - 8) + "\n");
        Features f = discover(tmp);
        assertEquals(Map.of("k", "v"), f.attributes("local.label"));
        assertEquals(List.of("/" + DIR + "/b: skipped, 65537 bytes is over the 65536 byte limit"), warnings);
    }

    @Test
    void keyWithoutValueIsTrueAndSplitIsOnFirstEquals() {
        assertEquals(Map.of("flag", "true", "k", "a=b", "e", ""), parse("flag\nk=a=b\ne=\n"));
    }

    @Test
    void directivesApplyToTheNextKeyLineOnly() {
        Map<String, String> labels = parse("# +no-label\na=1\nb=2\n");
        assertEquals(Map.of("b", "2"), labels);
        FeatureFile f = FeatureFile.parse("# +no-feature\na=1\nb=2\n", NOW.instant(), warnings::add);
        assertEquals(Map.of("b", "2"), f.features());
        assertEquals(Map.of("a", "1", "b", "2"), f.labels());
        // comments between the directive and the key line do not consume it
        assertEquals(Map.of("b", "2"), parse("# +no-label\n# a comment\n\na=1\nb=2\n"));
    }

    @Test
    void expiryAppliesUntilTheNextExpiry() {
        assertEquals(Map.of("c", "3", "d", "4"), parse("""
                # +expiry-time=2026-06-01T11:59:59Z
                a=1
                b=2
                # +expiry-time=2026-06-01T12:00:01+00:00
                c=3
                # +expiry-time=2026-06-01T14:00:00+02:00
                d=4
                """));
        // exactly now is not before now: still valid, as in NFD
        assertEquals(Map.of("x", "1"), parse("# +expiry-time=2026-06-01T12:00:00Z\nx=1\n"));
        // a skipped expired line does not consume a pending no-label
        assertEquals(Map.of(), parse("# +expiry-time=2020-01-01T00:00:00Z\n# +no-label\nold=1\n"
                + "# +expiry-time=2099-01-01T00:00:00Z\nnew=1\n"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void unknownDirectiveAndBadExpiryAreWarnings() {
        assertEquals(Map.of("a", "1"), parse("# +sparkle\n# +expiry-time\na=1\n"));
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("unknown feature file directive 'sparkle'"), warnings.get(0));
        assertTrue(warnings.get(1).contains("expiry-time '' is not an RFC 3339 time"), warnings.get(1));
    }

    @Test
    void laterFilesOverrideButNoLabelDoesNotReachAcrossFiles() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(DIR));
        Files.writeString(dir.resolve("1"), "k=first\nonly-here=1\n");
        Files.writeString(dir.resolve("2"), "# +no-label\nonly-here=feature\nk=second\n");
        Features f = discover(tmp);
        assertEquals(Map.of("k", "second", "only-here", "1"), f.attributes("local.label"));
        assertEquals(Map.of("k", "second", "only-here", "feature"), f.attributes("local.feature"));
    }

    @Test
    void theFileNodeLabellerPublishesIsNotReadBack() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(DIR));
        Files.writeString(dir.resolve("node-labeller"), "feature.node.kubernetes.io/pci-0300_10de.present=true\n");
        Files.writeString(dir.resolve("operator"), "pool=a\n");
        HostFs host = new HostFs(tmp);
        // publish.featuresFile is a path of the agent's file system: here, the file under the host root
        Features f = new LocalSource(NOW, dir.resolve("node-labeller")).discover(host, warnings::add);
        assertEquals(Map.of("pool", "a"), f.attributes("local.label"));
        // the same file through another path (the container mounts the host's features.d twice)
        Path link = Files.createSymbolicLink(tmp.resolve("writable-mount"), dir);
        assertEquals(Map.of("pool", "a"),
                new LocalSource(NOW, link.resolve("node-labeller")).discover(host, warnings::add).attributes("local.label"));
        // a host path is not the agent's path: "/etc/.../node-labeller" outside the host root is another file
        Features hostPath = new LocalSource(NOW, Path.of("/" + DIR + "/node-labeller")).discover(host, warnings::add);
        assertEquals(2, hostPath.attributes("local.label").size());
        Features all = new LocalSource(NOW, Path.of("/var/lib/other")).discover(host, warnings::add);
        assertEquals(2, all.attributes("local.label").size());
    }
}
