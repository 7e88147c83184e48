package io.nodelabeller.publish;

import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FeaturesFilePublisherTest {

    @TempDir
    Path dir;

    static LabelSet labels(Map<String, String> kv, String source) {
        SortedMap<String, Label> m = new TreeMap<>();
        kv.forEach((k, v) -> m.put(k, Label.of(k, v, source, "")));
        return new LabelSet(m, List.of());
    }

    private List<String> dirListing() throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void writesSortedKeyValueLinesAndRewritesOnlyOnChange() throws Exception {
        Path file = dir.resolve("node-labeller");
        FeaturesFilePublisher p = new FeaturesFilePublisher(file);
        LabelSet first = labels(Map.of("nvidia.com/gpu.present", "true", "feature.node.kubernetes.io/a", ""), "pci");
        assertTrue(p.publish(first));
        assertEquals(List.of("# Written by node-labeller; replaced on every change, do not edit.",
                "feature.node.kubernetes.io/a=", "nvidia.com/gpu.present=true"), Files.readAllLines(file));
        Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();

        assertFalse(p.publish(first), "same content: not written");
        assertFalse(new FeaturesFilePublisher(file).publish(first), "a restarted agent does not rewrite either");
        assertEquals(key, Files.readAttributes(file, BasicFileAttributes.class).fileKey(), "same inode: not replaced");

        assertTrue(p.publish(labels(Map.of("nvidia.com/gpu.present", "true"), "pci")));
        assertFalse(key.equals(Files.readAttributes(file, BasicFileAttributes.class).fileKey()),
                "replaced by rename, not rewritten in place");
        assertEquals(List.of("node-labeller"), dirListing(), "no temporary file left behind");
        p.close();
        assertTrue(Files.exists(file), "never deleted on close");
    }

    @Test
    void labelsFromFeaturesFilesAreNotWrittenBack() throws Exception {
        Path file = dir.resolve("out");
        SortedMap<String, Label> m = new TreeMap<>();
        m.put("example.com/from-local", Label.of("example.com/from-local", "1", "local", ""));
        m.put("feature.node.kubernetes.io/kernel-version.major", Label.of("feature.node.kubernetes.io/kernel-version.major", "6", "kernel", ""));
        new FeaturesFilePublisher(file).publish(new LabelSet(m, List.of()));
        assertEquals(List.of("feature.node.kubernetes.io/kernel-version.major=6"),
                Files.readAllLines(file).stream().filter(l -> !l.startsWith("#")).toList());
    }

    @Test
    void readersSeeTheOldOrTheNewContentNeverAMix() throws Exception {
        Path file = dir.resolve("big");
        FeaturesFilePublisher p = new FeaturesFilePublisher(file);
        LabelSet[] sets = new LabelSet[2];
        String[] contents = new String[2];
        for (int v = 0; v < 2; v++) {
            SortedMap<String, String> kv = new TreeMap<>();
            for (int i = 0; i < 2000; i++) {
                kv.put("example.com/label-" + i, "value-" + v);
            }
            sets[v] = labels(kv, "custom");
            contents[v] = FeaturesFilePublisher.render(sets[v]);
        }
        p.publish(sets[0]);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger torn = new AtomicInteger();
        Thread reader = new Thread(() -> {
            while (!stop.get()) {
                try {
                    String s = Files.readString(file);
                    if (!s.equals(contents[0]) && !s.equals(contents[1])) {
                        torn.incrementAndGet();
                    }
                    reads.incrementAndGet();
                } catch (Exception e) {
                    torn.incrementAndGet(); // the file must exist at every moment
                }
            }
        });
        reader.start();
        try {
            for (int i = 1; i <= 200 || reads.get() < 50; i++) {
                assertTrue(p.publish(sets[i % 2]));
            }
        } finally {
            stop.set(true);
            reader.join();
        }
        assertEquals(0, torn.get(), "reads that saw a partial or missing file (of " + reads.get() + ")");
    }

    @Test
    void anUnwritableTargetIsAPublishException() {
        Path file = dir.resolve("missing-dir").resolve("out");
        PublishException e = assertThrows(PublishException.class,
                () -> new FeaturesFilePublisher(file).publish(labels(Map.of("a/b", "c"), "pci")));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }
}
