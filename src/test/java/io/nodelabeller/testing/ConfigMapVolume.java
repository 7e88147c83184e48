package io.nodelabeller.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes a directory as kubelet writes a ConfigMap volume (pkg/volume/util/atomic_writer.go, {@code Write}): the data
 * in a new timestamped directory {@code ..<timestamp>}, a link per new key ({@code config.yaml -> ..data/config.yaml}),
 * then a link {@code ..data_tmp} to the new directory renamed over {@code ..data} (every file changes at once, the
 * per-key links stay as they are), then the links of keys no longer in the ConfigMap removed, then the previous
 * timestamped directory removed.
 */
public final class ConfigMapVolume {

    private static final AtomicInteger VERSION = new AtomicInteger();

    private ConfigMapVolume() {
    }

    /** Creates or updates the volume at {@code dir} to hold exactly {@code files}: name, content, name, content, ... */
    public static void write(Path dir, String... files) throws IOException {
        Files.createDirectories(dir);
        Path dataLink = dir.resolve("..data");
        Path old = Files.isSymbolicLink(dataLink) ? dir.resolve(Files.readSymbolicLink(dataLink)) : null;
        Path data = Files.createDirectory(dir.resolve("..2026_11_24_00_00_00." + VERSION.incrementAndGet()));
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (int i = 0; i < files.length; i += 2) {
            Files.writeString(data.resolve(files[i]), files[i + 1]);
            keys.add(files[i]);
        }
        for (String key : keys) {
            Path link = dir.resolve(key);
            if (!Files.isSymbolicLink(link)) {
                Files.createSymbolicLink(link, Path.of("..data", key));
            }
        }
        Path tmpLink = dir.resolve("..data_tmp");
        Files.createSymbolicLink(tmpLink, data.getFileName());
        Files.move(tmpLink, dataLink, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (old != null) {
            try (java.util.stream.Stream<Path> entries = Files.list(old)) {
                for (Path gone : entries.map(Path::getFileName).filter(n -> !keys.contains(n.toString())).toList()) {
                    Files.deleteIfExists(dir.resolve(gone));
                }
            }
            try (java.util.stream.Stream<Path> tree = Files.walk(old)) {
                for (Path p : tree.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
