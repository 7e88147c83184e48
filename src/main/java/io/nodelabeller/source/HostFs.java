package io.nodelabeller.source;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The host's file system as seen under the host root ({@code --host-root}, "/" by default). Every host path
 * a source reads goes through here, so that tests can point the whole program at a fake tree and the
 * DaemonSet at {@code /host}. Paths are given as on the host ("/proc/cpuinfo").
 * <p>Only regular files are read (after following links, as sysfs needs): opening a FIFO blocks until a writer
 * comes, and a socket or device is no feature file. Anything else is refused with an error naming it, and a
 * warning is logged the first time each such path is met.
 */
public final class HostFs {

    private static final Logger LOG = LoggerFactory.getLogger(HostFs.class);
    /** Paths already warned about (bounded: a hostile tree cannot grow it without end). */
    private static final Set<Path> WARNED = ConcurrentHashMap.newKeySet();

    /** Largest file read in one piece; pseudo-files of sysfs and procfs are far smaller. */
    public static final int MAX_FILE_BYTES = 8 * 1024 * 1024;

    private final Path root;
    /** {@link #root} as the start of a file name: "" for "/", else "/host" (no trailing slash). */
    private final String prefix;

    public HostFs(Path root) {
        this.root = root.toAbsolutePath().normalize();
        this.prefix = this.root.getParent() == null ? "" : this.root.toString();
    }

    public Path root() {
        return root;
    }

    /** The real path of host path {@code hostPath} ("/sys/bus/pci" → "/host/sys/bus/pci"). */
    public Path path(String hostPath) {
        String relative = hostPath.startsWith("/") ? hostPath.substring(1) : hostPath;
        return relative.isEmpty() ? root : root.resolve(relative);
    }

    public boolean exists(String hostPath) {
        return Files.exists(path(hostPath));
    }

    public boolean isDirectory(String hostPath) {
        return Files.isDirectory(path(hostPath));
    }

    /** Whether {@code hostPath} is a regular file (links followed). */
    public boolean isRegularFile(String hostPath) {
        return Files.isRegularFile(path(hostPath));
    }

    /** The size of {@code hostPath} in bytes, as its directory entry says (sysfs files say 4096 whatever they hold). */
    public long size(String hostPath) throws IOException {
        return Files.size(path(hostPath));
    }

    /** The kernel's boot id: new at every boot, the same for every process and container on that kernel. */
    public static final String BOOT_ID = "/proc/sys/kernel/random/boot_id";

    /**
     * Whether the host tree is the machine the agent runs on: its {@link #BOOT_ID} is the agent's own. In the pod the
     * host's boot id is mounted under the host root and the container's procfs shows the same kernel's; a tree copied
     * from another machine (or another boot) has another one or none. What the agent learns from its own processor
     * (CPUID) is used for a host tree only when this holds.
     */
    public boolean isRunningMachine() {
        Optional<String> host = readTrimmed(BOOT_ID);
        return host.isPresent() && !host.get().isEmpty() && host.get().equals(OwnBoot.ID);
    }

    /** The agent's own boot id, read once: it does not change while the process runs ("" when unreadable). */
    private static final class OwnBoot {
        static final String ID = read();

        private static String read() {
            try {
                return Files.readString(Path.of(BOOT_ID)).trim();
            } catch (IOException | RuntimeException e) {
                return "";
            }
        }
    }

    /**
     * Whether {@code hostPath} is the file {@code agentPath} of the agent's own file system (the same path, or the
     * same file reached through another mount or link); false when either does not exist.
     */
    public boolean isSameFile(String hostPath, Path agentPath) {
        Path file = path(hostPath);
        if (file.toAbsolutePath().normalize().equals(agentPath.toAbsolutePath().normalize())) {
            return true;
        }
        try {
            return Files.isSameFile(file, agentPath);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * {@link #path} as a {@code java.io.File}, for the reads of every cycle: a big host reads 13,000 small files a
     * cycle, and a {@code Path} per file (resolved, turned into a {@code File} for the check, encoded again to open)
     * with an NIO channel cost about a tenth of its cycle (docs/performance.md).
     */
    private File file(String hostPath) throws InterruptedIOException {
        // java.io ignores interrupts (NIO channels fail on them): a source given up at its deadline, or stopped by
        // SIGTERM, ends at its next read instead of reading on
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedIOException("discovery given up: " + hostPath + " not read");
        }
        return new File(hostPath.startsWith("/") ? prefix + hostPath : prefix + "/" + hostPath);
    }

    /** The whole file as text; throws when it is missing, unreadable or larger than {@link #MAX_FILE_BYTES}. */
    public String read(String hostPath) throws IOException {
        return readBytes(file(hostPath));
    }

    /**
     * The file as UTF-8 text to read line by line (for files that can be large, read only as far as needed);
     * throws when it is missing, unreadable or not a regular file. The caller closes it.
     */
    public BufferedReader reader(String hostPath) throws IOException {
        // InputStreamReader replaces malformed bytes, as reading the whole file does (a strict decoder would throw)
        return new BufferedReader(new InputStreamReader(open(hostPath), StandardCharsets.UTF_8));
    }

    /** The file's bytes as a stream (e.g. to decompress); throws as {@link #reader} does. The caller closes it. */
    public InputStream open(String hostPath) throws IOException {
        File file = file(hostPath);
        requireRegularFile(file);
        return openRegular(file);
    }

    /** The file's content with surrounding white space trimmed, or empty when it is missing or unreadable. */
    public Optional<String> readTrimmed(String hostPath) {
        return readOptional(hostPath).map(String::trim);
    }

    /** The file's lines, or empty when it is missing or unreadable. */
    public List<String> readLines(String hostPath) {
        return readOptional(hostPath).map(t -> t.lines().toList()).orElse(List.of());
    }

    /**
     * The file's text, or empty when it cannot be read. Optional files are often simply missing (a PCI device
     * without SR-IOV has no {@code sriov_totalvfs}): that costs one or two {@code stat}s here, not an exception.
     */
    private Optional<String> readOptional(String hostPath) {
        try {
            File f = file(hostPath);
            if (f.isFile()) {
                return Optional.of(readRegular(f));
            }
            if (!f.exists()) {
                return Optional.empty();
            }
            return Optional.of(readBytes(f)); // something else is there: say what (once), as read does
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The size and modification time of a file (links followed), or empty when there is none: lets a source keep
     * what it parsed from a large file that has not changed since.
     */
    public Optional<Stamp> stamp(String hostPath) {
        File f = path(hostPath).toFile();
        long modified = f.lastModified();
        return modified == 0L && !f.exists() ? Optional.empty() : Optional.of(new Stamp(f.length(), modified));
    }

    /** A file's size and modification time (milliseconds), as {@link #stamp} reads them. */
    public record Stamp(long size, long modifiedMillis) {
    }

    /**
     * The names of the entries of directory {@code hostPath}, sorted; throws when it cannot be listed.
     * Symbolic links (as in {@code /sys/bus/pci/devices}) are listed like any entry.
     */
    public List<String> list(String hostPath) throws IOException {
        // java.io's list gives the names alone, where a directory stream makes a Path of each (2,000 on a big host's
        // /sys/bus/pci/devices); it says nothing of why it failed, so NIO is asked again then, to throw the reason
        File dir = file(hostPath);
        String[] names = dir.list();
        if (names == null) {
            try (DirectoryStream<Path> unused = Files.newDirectoryStream(dir.toPath())) {
                names = dir.list(); // it can be listed now
            }
            if (names == null) {
                throw new FileSystemException(dir.toString(), null, "cannot be listed");
            }
        }
        Arrays.sort(names);
        return List.of(names);
    }

    /** A directory the kernel makes whenever sysfs is mounted: there, the host's /sys is visible. */
    static final String SYSFS_ALWAYS = "/sys/devices";

    /**
     * The entries of a sysfs directory of hardware ({@code /sys/bus/pci/devices}, {@code /sys/bus/usb/devices},
     * {@code /sys/bus/nd/devices}, {@code /sys/class/net}, ...), sorted: the one way a source lists hardware that
     * a node may simply not have. The kernel makes such a directory only when the bus, driver or kernel option is
     * there, so a missing one is no hardware (empty, nothing to warn about) as long as the host's sysfs is visible
     * ({@code /sys/devices} is there). A missing one without a visible sysfs (the host's /sys is not mounted
     * under the host root), or one that is there and cannot be listed, throws: the source or feature then fails
     * and its labels are kept, instead of being removed from a node that has the hardware.
     */
    public List<String> listHardware(String sysPath) throws IOException {
        try {
            return list(sysPath);
        } catch (NoSuchFileException e) {
            if (isDirectory(SYSFS_ALWAYS)) {
                return List.of();
            }
            throw new NoSuchFileException(e.getFile(), null, "missing, and so is " + path(SYSFS_ALWAYS)
                    + ": the host's sysfs is not visible");
        }
    }

    /** Like {@link #list} but empty when the directory is missing or unreadable. */
    public List<String> listOrEmpty(String hostPath) {
        try {
            return list(hostPath);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    private static String readBytes(File file) throws IOException {
        requireRegularFile(file);
        return readRegular(file);
    }

    /** Most sysfs and procfs files hold a few bytes: read into this much first, then the rest when there is more. */
    private static final int SMALL_FILE_BYTES = 256;
    /**
     * Each reading thread's first buffer, used again for every file: a big host reads 13,000 files a cycle, and an
     * array per file was a fifth of the bytes its cycle allocated (docs/performance.md).
     */
    private static final ThreadLocal<byte[]> HEAD = ThreadLocal.withInitial(() -> new byte[SMALL_FILE_BYTES]);

    private static String readRegular(File file) throws IOException {
        try (InputStream in = openRegular(file)) {
            // readNBytes(n) alone allocates an 8 KiB chunk for every file, however small: on a big host (13,000 files
            // a cycle) the cycle took 16 % longer with it (docs/performance.md)
            byte[] head = HEAD.get();
            int n = in.readNBytes(head, 0, head.length);
            if (n < head.length) {
                return new String(head, 0, n, StandardCharsets.UTF_8);
            }
            byte[] rest = in.readNBytes(MAX_FILE_BYTES + 1 - n);
            if (n + rest.length > MAX_FILE_BYTES) {
                throw new IOException(file + ": larger than " + MAX_FILE_BYTES + " bytes");
            }
            byte[] data = Arrays.copyOf(head, n + rest.length);
            System.arraycopy(rest, 0, data, n, rest.length);
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    /**
     * A {@code FileInputStream} (an NIO channel is a channel, its closer and a temporary direct buffer per file). When
     * it cannot be opened, NIO says why, in the exception types the rest of the program knows
     * ({@code NoSuchFileException}, {@code AccessDeniedException}).
     */
    static InputStream openRegular(File file) throws IOException {
        try {
            return new FileInputStream(file);
        } catch (FileNotFoundException e) {
            Files.newInputStream(file.toPath()).close(); // throws the typed exception; opens only if the file came since
            throw e;
        }
    }

    /** Refuses a FIFO, socket, device or directory before opening it (opening a FIFO would block). */
    private static void requireRegularFile(File f) throws IOException {
        // java.io's isFile is one stat(2), links followed, with nothing allocated; NIO's readAttributes costs a few
        // microseconds per call, some milliseconds per cycle over the ~800 files of a GPU server. NIO only to say why.
        if (f.isFile()) {
            return;
        }
        Path file = f.toPath();
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class); // follows links; NoSuchFile
        if (a.isRegularFile()) {
            return;
        }
        String kind = a.isDirectory() ? "a directory" : a.isOther() ? "a FIFO, socket or device" : "not a regular file";
        String reason = kind + ", not a regular file: not read";
        if (WARNED.size() < 1000 && WARNED.add(file)) {
            LOG.warn("{}: {}", file, reason);
        }
        throw new FileSystemException(file.toString(), null, reason);
    }

    /**
     * Why a read failed, in a few words for a warning that already names the file: "no such file", "permission
     * denied", "a FIFO, socket or device, not a regular file: not read", or the first line of the message.
     */
    public static String reason(Exception e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.NotDirectoryException) {
            return "not a directory";
        }
        if (e instanceof FileSystemException f) {
            // its message is the path, which the caller names already
            return f.getReason() != null ? f.getReason() : f.getClass().getSimpleName();
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m.lines().findFirst().orElse("").trim();
    }

    @Override
    public String toString() {
        return root.toString();
    }
}
