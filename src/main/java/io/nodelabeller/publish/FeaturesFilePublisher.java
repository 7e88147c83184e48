package io.nodelabeller.publish;

import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;

/**
 * Writes the labels as a features.d file ({@code key=value} lines) for NFD's local source. The file is
 * replaced atomically: written to a hidden temporary file in the same directory (NFD skips hidden files), then
 * renamed over the old one, so a reader sees the old or the new content, never half of it. It is rewritten only
 * when its content would change, and never deleted, also not on exit (labels survive a restart).
 *
 * <p>Labels of the {@code local} labeler are left out: they come from features.d itself, possibly from this very
 * file, and writing them back would keep a removed label alive forever.
 */
public final class FeaturesFilePublisher implements Publisher {

    /** The labeler whose labels come from features.d files. */
    static final String LOCAL = "local";

    private final Path file;

    public FeaturesFilePublisher(Path file) {
        this.file = file.toAbsolutePath();
    }

    @Override
    public String name() {
        return "features-file";
    }

    public Path file() {
        return file;
    }

    /** The file's content for {@code labels}: a header comment, then sorted {@code key=value} lines. */
    static String render(LabelSet labels) {
        StringBuilder sb = new StringBuilder("# Written by node-labeller; replaced on every change, do not edit.\n");
        for (Label l : labels.labels().values()) {
            if (!LOCAL.equals(l.source())) {
                sb.append(l.key()).append('=').append(l.value()).append('\n');
            }
        }
        return sb.toString();
    }

    @Override
    public boolean publish(LabelSet desired) throws PublishException {
        byte[] content = render(desired).getBytes(StandardCharsets.UTF_8);
        try {
            if (Arrays.equals(content, Files.readAllBytes(file))) {
                return false;
            }
        } catch (NoSuchFileException e) {
            // first write
        } catch (IOException e) {
            throw new PublishException("cannot read " + file + ": " + e, 0, e);
        }
        Path dir = file.getParent();
        Path tmp = null;
        try {
            tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(content));
                ch.force(true); // on disk before the rename makes it visible
            }
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: keep the default permissions
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new PublishException("cannot replace " + file + " atomically (" + e.getMessage() + ")", 0, e);
            }
            tmp = null;
            return true;
        } catch (IOException e) {
            throw new PublishException("cannot write " + file + ": " + e, 0, e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a stray hidden temporary file is harmless: NFD skips hidden files
                }
            }
        }
    }
}
