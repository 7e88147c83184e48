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

    public static HostFs fs(String name) {
        return new HostFs(root(name));
    }
}
