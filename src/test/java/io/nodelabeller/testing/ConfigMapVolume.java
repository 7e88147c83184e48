package io.nodelabeller.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes a directory as kubelet writes a ConfigMap volume (pkg/volume/util/atomic_writer.go): the data in a
 * timestamped directory {@code ..<timestamp>}, a link {@code ..data} to it, one link per key
 * ({@code config.yaml -> ..data/config.yaml}). An update writes a new timestamped directory, points
 * {@code ..data_tmp} at it and renames {@code ..data_tmp} over {@code ..data}: every file changes at once, the
 * per-key links stay as they are.
 */
public final class ConfigMapVolume {

    private static final AtomicInteger VERSION = new AtomicInteger();

    private ConfigMapVolume() {
    }

    /** Creates or updates the volume at {@code dir} to hold {@code files}: name, content, name, content, ... */
    public static void write(Path dir, String... files) throws IOException {
        Files.createDirectories(dir);
        Path data = Files.createDirectory(dir.resolve("..2026_11_24_00_00_00." + VERSION.incrementAndGet()));
        for (int i = 0; i < files.length; i += 2) {
            Files.writeString(data.resolve(files[i]), files[i + 1]);
        }
        Path tmpLink = dir.resolve("..data_tmp");
        Files.createSymbolicLink(tmpLink, data.getFileName());
        Files.move(tmpLink, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        for (int i = 0; i < files.length; i += 2) {
            Path link = dir.resolve(files[i]);
            if (!Files.isSymbolicLink(link)) {
                Files.createSymbolicLink(link, Path.of("..data", files[i]));
            }
        }
    }
}
