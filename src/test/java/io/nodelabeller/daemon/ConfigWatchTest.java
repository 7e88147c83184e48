package io.nodelabeller.daemon;

import io.nodelabeller.testing.ConfigMapVolume;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Changes to the watched files, made the way Kubernetes makes them ({@link ConfigMapVolume}). The poll fallback
 * is set to a minute here, so that only file events can explain a quick reaction.
 */
class ConfigWatchTest {

    @TempDir
    Path tmp;

    private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();

    private final ConfigWatch.Listener listener = new ConfigWatch.Listener() {
        @Override
        public void configChanged() {
            calls.add("config");
        }

        @Override
        public void hostFilesChanged() {
            calls.add("host");
        }
    };

    @Test
    void aConfigMapUpdateIsOneConfigChangeSeenByItsEvents() throws Exception {
        Path cm = tmp.resolve("config");
        ConfigMapVolume.write(cm, "config.yaml", "core: {sleepInterval: 60s}\n");
        Path features = Files.createDirectories(tmp.resolve("features.d"));
        try (ConfigWatch w = ConfigWatch.start(() -> new ConfigWatch.Watched(List.of(cm.resolve("config.yaml")),
                List.of(features), null), listener, Duration.ofMinutes(1))) {
            Thread.sleep(200); // the watch thread registers its directories
            long start = System.nanoTime();
            ConfigMapVolume.write(cm, "config.yaml", "core: {sleepInterval: 30s}\n");
            assertEquals("config", calls.poll(10, TimeUnit.SECONDS));
            System.out.printf("ConfigMap swap seen after %d ms%n", (System.nanoTime() - start) / 1_000_000);
            assertNull(calls.poll(500, TimeUnit.MILLISECONDS), "one update, one reload");
        }
    }

    @Test
    void customDFilesAndSubdirectoriesAreConfig() throws Exception {
        Path customD = Files.createDirectories(tmp.resolve("custom.d"));
        try (ConfigWatch w = ConfigWatch.start(() -> new ConfigWatch.Watched(List.of(customD), List.of(), null),
                listener, Duration.ofMinutes(1))) {
            Thread.sleep(200);
            Files.writeString(customD.resolve("gpu.yaml"), "- name: a\n  labels: {a: b}\n");
            assertEquals("config", calls.poll(10, TimeUnit.SECONDS));
            // a ConfigMap mounted as a subdirectory, as NFD's chart mounts them
            ConfigMapVolume.write(customD.resolve("team-a"), "rules.yaml", "[]\n");
            assertEquals("config", calls.poll(10, TimeUnit.SECONDS));
            ConfigMapVolume.write(customD.resolve("team-a"), "rules.yaml", "- name: b\n  labels: {b: c}\n");
            assertEquals("config", calls.poll(10, TimeUnit.SECONDS));
            Files.writeString(customD.resolve(".hidden"), "ignored");
            assertNull(calls.poll(500, TimeUnit.MILLISECONDS), "hidden files are not rules (NFD)");
        }
    }

    @Test
    void featuresDChangesRunACycleButNotForTheFileWeWriteOurselves() throws Exception {
        Path features = Files.createDirectories(tmp.resolve("features.d"));
        Path own = features.resolve("node-labeller");
        try (ConfigWatch w = ConfigWatch.start(() -> new ConfigWatch.Watched(List.of(), List.of(features), own),
                listener, Duration.ofMinutes(1))) {
            Thread.sleep(200);
            Files.writeString(own, "ours=1\n");
            assertNull(calls.poll(800, TimeUnit.MILLISECONDS), "our own output must not start a cycle");
            Files.writeString(features.resolve("vendor"), "vendor.io/thing=1\n");
            assertEquals("host", calls.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aDirectoryThatAppearsLaterIsSeen() throws Exception {
        Path customD = tmp.resolve("custom.d");
        try (ConfigWatch w = ConfigWatch.start(() -> new ConfigWatch.Watched(List.of(customD), List.of(), null),
                listener, Duration.ofMinutes(1))) {
            Thread.sleep(200);
            Files.createDirectories(customD);
            Files.writeString(customD.resolve("late.yaml"), "[]\n");
            assertEquals("config", calls.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void withoutEventsThePollSeesTheChange() throws Exception {
        // a config in a directory the watch cannot register (removed and recreated: its key is gone) is polled
        Path cm = tmp.resolve("config");
        ConfigMapVolume.write(cm, "config.yaml", "a: 1\n");
        String before = ConfigWatch.fingerprint(List.of(cm.resolve("config.yaml")), null);
        ConfigMapVolume.write(cm, "config.yaml", "a: 1\n"); // same content, new file: a reload (cheap) rather than a miss
        assertNotEquals(before, ConfigWatch.fingerprint(List.of(cm.resolve("config.yaml")), null));
        try (ConfigWatch w = ConfigWatch.start(() -> new ConfigWatch.Watched(List.of(cm.resolve("config.yaml")),
                List.of(), null), listener, Duration.ofMillis(300))) {
            Thread.sleep(200);
            Path data = cm.resolve("..data").toRealPath();
            Files.writeString(data.resolve("config.yaml"), "a: 2\n"); // in a directory nobody watches
            assertEquals("config", calls.poll(10, TimeUnit.SECONDS));
        }
    }
}
