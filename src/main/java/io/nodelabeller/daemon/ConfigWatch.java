package io.nodelabeller.daemon;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Watches the files {@code run} reads besides the host: the config file, the device plugin's config file and
 * custom.d ({@link Watched#config()}), and the host's features.d ({@link Watched#hostFiles()}). Event-driven
 * (inotify through the JDK's {@link WatchService}, on the directories that hold them), with a poll every
 * {@code poll} as the fallback where events do not arrive.
 *
 * <p>A change is judged by a fingerprint — for each file, followed through links, its file key, modification
 * time and size; for a directory, the same for its non-hidden entries and those of its non-hidden
 * subdirectories — so that a Kubernetes ConfigMap update, which swaps the {@code ..data} link and so changes
 * every file at once without touching the links, is seen as one change. Events are gathered for
 * {@link #SETTLE} before the fingerprints are compared, so one update gives one reload.
 */
public final class ConfigWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigWatch.class);

    /** How long events are gathered after the first one, before comparing. */
    static final Duration SETTLE = Duration.ofMillis(150);

    /**
     * What to watch: files or directories. {@code ignored}: a file in features.d that node-labeller itself
     * writes ({@code publish.featuresFile}), or null; its changes must not start a cycle that rewrites it.
     */
    public record Watched(List<Path> config, List<Path> hostFiles, Path ignored) {
        public Watched {
            config = List.copyOf(config);
            hostFiles = List.copyOf(hostFiles);
        }
    }

    /** What a change leads to. Called on the watch thread, one call at a time. */
    public interface Listener {
        /** The config files changed: reload them. */
        void configChanged();

        /** Only host feature files changed: run a cycle. */
        void hostFilesChanged();
    }

    private final Supplier<Watched> watched;
    private final Listener listener;
    private final Duration poll;
    private final WatchService service;
    private final Map<Path, WatchKey> registered = new HashMap<>();
    private final Thread thread;
    private volatile boolean closed;

    private ConfigWatch(Supplier<Watched> watched, Listener listener, Duration poll, WatchService service) {
        this.watched = watched;
        this.listener = listener;
        this.poll = poll;
        this.service = service;
        this.thread = new Thread(this::loop, "config-watch");
        this.thread.setDaemon(true);
    }

    /**
     * Starts watching what {@code watched} names (asked again after every change: a reload may name another
     * custom.d); changes are reported to {@code listener}.
     */
    public static ConfigWatch start(Supplier<Watched> watched, Listener listener, Duration poll) {
        WatchService service;
        try {
            service = FileSystems.getDefault().newWatchService();
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("no file events ({}): config and features.d changes are seen by polling every {}", e.getMessage(),
                    poll);
            service = null;
        }
        ConfigWatch w = new ConfigWatch(watched, listener, poll, service);
        w.thread.start();
        return w;
    }

    private void loop() {
        Watched current = watched.get();
        String config = fingerprint(current.config(), null);
        String host = fingerprint(current.hostFiles(), current.ignored());
        register(current);
        while (!closed) {
            try {
                if (waitForEvents()) {
                    Thread.sleep(SETTLE.toMillis());
                    drain();
                }
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            String newConfig = fingerprint(current.config(), null);
            String newHost = fingerprint(current.hostFiles(), current.ignored());
            boolean configChanged = !newConfig.equals(config);
            boolean hostChanged = !newHost.equals(host);
            // the new state is the baseline before anyone is told: a change made while the listener works is
            // a change from this state, and new subdirectories are watched before it can happen
            config = newConfig;
            host = newHost;
            if (configChanged || hostChanged) {
                register(current);
            }
            try {
                if (configChanged) {
                    listener.configChanged(); // also runs a cycle, which reads features.d too
                } else if (hostChanged) {
                    listener.hostFilesChanged();
                }
            } catch (RuntimeException e) {
                LOG.error("handling a change of the config files failed", e);
            }
            Watched next = configChanged ? watched.get() : current;
            if (!next.equals(current)) { // the reloaded config names another custom.d or features.d
                current = next;
                config = fingerprint(current.config(), null);
                host = fingerprint(current.hostFiles(), current.ignored());
                register(current);
            }
        }
    }

    /** Waits for an event or the poll interval; true when something happened. */
    private boolean waitForEvents() throws InterruptedException {
        if (service == null) {
            Thread.sleep(poll.toMillis());
            return false;
        }
        WatchKey key = service.poll(poll.toMillis(), TimeUnit.MILLISECONDS);
        if (key == null) {
            return false;
        }
        key.pollEvents();
        key.reset();
        return true;
    }

    private void drain() {
        if (service == null) {
            return;
        }
        for (WatchKey key = service.poll(); key != null; key = service.poll()) {
            key.pollEvents();
            key.reset();
        }
    }

    /** Watches each file's directory, each directory and its subdirectories, and their parents (to see them come). */
    private void register(Watched w) {
        if (service == null) {
            return;
        }
        List<Path> dirs = new ArrayList<>();
        for (Path p : w.config()) {
            dirs.add(p.toAbsolutePath().getParent());
        }
        List<Path> all = new ArrayList<>(w.config());
        all.addAll(w.hostFiles());
        for (Path p : all) {
            if (Files.isDirectory(p)) {
                dirs.add(p);
                dirs.add(p.toAbsolutePath().getParent());
                for (Path sub : visibleEntries(p)) {
                    if (Files.isDirectory(sub)) {
                        dirs.add(sub);
                    }
                }
            } else if (p.toAbsolutePath().getParent() != null) {
                dirs.add(p.toAbsolutePath().getParent());
            }
        }
        for (Path dir : dirs) {
            if (dir == null || registered.containsKey(dir) || !Files.isDirectory(dir)) {
                continue;
            }
            try {
                registered.put(dir, dir.register(service, StandardWatchEventKinds.ENTRY_CREATE,
                        StandardWatchEventKinds.ENTRY_DELETE, StandardWatchEventKinds.ENTRY_MODIFY));
            } catch (IOException e) {
                LOG.debug("cannot watch {} ({}); polling covers it", dir, e.getMessage());
            }
        }
        registered.entrySet().removeIf(e -> !e.getValue().isValid()); // deleted: registered again when it returns
    }

    /** The state of {@code paths}, in one string that differs when any of them changed. */
    static String fingerprint(List<Path> paths, Path ignored) {
        StringBuilder sb = new StringBuilder();
        for (Path p : paths) {
            sb.append(p).append('=').append(stat(p)).append('\n');
            if (Files.isDirectory(p)) {
                for (Path e : visibleEntries(p)) {
                    if (ignored != null && isSame(e, ignored)) {
                        continue;
                    }
                    sb.append(e).append('=').append(stat(e)).append('\n');
                    if (Files.isDirectory(e)) {
                        for (Path inner : visibleEntries(e)) {
                            sb.append(inner).append('=').append(stat(inner)).append('\n');
                        }
                    }
                }
            }
        }
        return sb.toString();
    }

    private static String stat(Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            return a.isDirectory() ? "dir" : a.fileKey() + "/" + a.lastModifiedTime().toMillis() + "/" + a.size();
        } catch (IOException e) {
            return "absent";
        }
    }

    /** Non-hidden entries in name order (hidden ones, such as a ConfigMap's ..data, are reached through links). */
    private static List<Path> visibleEntries(Path dir) {
        Map<String, Path> sorted = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path e : entries) {
                if (!e.getFileName().toString().startsWith(".")) {
                    sorted.put(e.getFileName().toString(), e);
                }
            }
        } catch (IOException e) {
            return List.of();
        }
        return List.copyOf(sorted.values());
    }

    private static boolean isSame(Path a, Path b) {
        try {
            return a.equals(b) || (Files.exists(b) && Files.isSameFile(a, b));
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        if (service != null) {
            try {
                service.close();
            } catch (IOException e) {
                LOG.debug("closing the watch service: {}", e.getMessage());
            }
        }
    }
}
