package io.nodelabeller.testing;

import io.nodelabeller.source.HostFs;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The fake host trees under {@code src/test/resources/hosts/}. */
public final class Hosts {

    private Hosts() {
    }

    /** The root directory of fake host {@code name}. */
    public static Path root(String name) {
        try {
            Path p = Path.of(Hosts.class.getResource("/hosts/" + name).toURI());
            if (!Files.isDirectory(p)) {
                throw new IllegalArgumentException("no fake host " + name);
            }
            return p;
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalArgumentException("no fake host " + name, e);
        }
    }

    /**
     * A copy of fake host {@code name} at {@code target} (links copied as links), for tests that change host files
     * while the agent runs, or take some away.
     */
    public static Path copy(String name, Path target) throws java.io.IOException {
        Path from = root(name);
        try (java.util.stream.Stream<Path> tree = Files.walk(from)) {
            for (Path p : tree.toList()) {
                Path to = target.resolve(from.relativize(p).toString());
                if (Files.isSymbolicLink(p)) {
                    Files.createSymbolicLink(to, Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return target;
    }

    /**
     * Fake host {@code base} with the files of {@code src/test/resources/host-overlays/<overlay>} laid over it (added
     * or replaced), copied to {@code target}: a machine that differs from a tree in a few files only.
     */
    public static Path layered(String base, String overlay, Path target) throws java.io.IOException {
        copy(base, target);
        Path from = root("").resolveSibling("host-overlays").resolve(overlay);
        if (!Files.isDirectory(from)) {
            throw new IllegalArgumentException("no host overlay " + overlay);
        }
        try (java.util.stream.Stream<Path> tree = Files.walk(from)) {
            for (Path p : tree.filter(Files::isRegularFile).toList()) {
                Path to = target.resolve(from.relativize(p).toString());
                Files.createDirectories(to.getParent());
                Files.copy(p, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return target;
    }

    /** The names of every fake host tree, each a directory under {@code src/test/resources/hosts/}, sorted. */
    public static java.util.List<String> all() {
        Path hosts = root("").normalize();
        try (java.util.stream.Stream<Path> dirs = Files.list(hosts)) {
            return dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public static HostFs fs(String name) {
        return new HostFs(root(name));
    }
}
