package io.nodelabeller.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A big host for the cycle benchmark, generated from the gpu-server test tree (a DGX A100's real files) by
 * repeating its entries: 2000 PCI devices, 256 CPUs (sysfs and /proc/cpuinfo), 64 block devices, 64 network
 * interfaces, 16 NUMA nodes and an 11,000-line kernel config (the size of a distribution kernel's). Each copy keeps
 * the shape of the real entry it repeats (the same files, the same contents), under a name the kernel would give.
 * Generated under target/ by the benchmark, never committed.
 */
public final class BigHost {

    public static final int PCI_DEVICES = 2000;
    public static final int CPUS = 256;
    public static final int BLOCK_DEVICES = 64;
    public static final int NET_DEVICES = 64;
    public static final int NUMA_NODES = 16;
    public static final int KCONFIG_LINES = 11_000;

    private BigHost() {
    }

    /**
     * Generates the tree at {@code out} (replacing what is there) from {@code gpuServer}, with the counts above
     * divided by {@code divisor} (1: the full size; 2: half, to see how the cost grows); returns {@code out}.
     */
    public static Path generate(Path gpuServer, Path out, int divisor) throws IOException {
        delete(out);
        copy(gpuServer, out);
        repeat(out.resolve("sys/bus/pci/devices"), PCI_DEVICES / divisor,
                i -> String.format("0000:%02x:%02x.%d", 0x40 + i / 256, (i / 8) % 32, i % 8));
        repeat(out.resolve("sys/block"), BLOCK_DEVICES / divisor, i -> "nvme" + (100 + i) + "n1");
        repeat(out.resolve("sys/class/net"), NET_DEVICES / divisor, i -> "enp" + (100 + i) + "s0");
        repeat(out.resolve("sys/bus/node/devices"), NUMA_NODES / divisor, i -> "node" + (100 + i));
        Path cpus = out.resolve("sys/devices/system/cpu");
        int cpuCount = CPUS / divisor;
        for (int i = 0; i < cpuCount; i++) {
            Path cpu = cpus.resolve("cpu" + i);
            if (!Files.exists(cpu)) {
                copy(cpus.resolve("cpu0"), cpu);
            }
        }
        Files.writeString(cpus.resolve("online"), "0-" + (cpuCount - 1) + "\n");
        cpuinfo(out.resolve("proc/cpuinfo"), cpuCount);
        kernelConfig(out.resolve("boot"));
        return out;
    }

    /** Copies entries of {@code dir} (those that are directories, in name order) under new names until it holds {@code total}. */
    private static void repeat(Path dir, int total, java.util.function.IntFunction<String> name) throws IOException {
        List<Path> models;
        try (Stream<Path> s = Files.list(dir)) {
            models = s.filter(Files::isDirectory).sorted().toList();
        }
        int have;
        try (Stream<Path> s = Files.list(dir)) {
            have = (int) s.filter(Files::isDirectory).count();
        }
        for (int i = 0; have < total; i++) {
            Path target = dir.resolve(name.apply(i));
            if (!Files.exists(target)) {
                copy(models.get(i % models.size()), target);
                have++;
            }
        }
    }

    /** One processor block per CPU, as the kernel prints /proc/cpuinfo: the first block repeated, renumbered. */
    private static void cpuinfo(Path file, int cpus) throws IOException {
        String text = Files.readString(file);
        String first = text.split("\n\n")[0];
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < cpus; i++) {
            out.append(first.replaceFirst("(?m)^processor\\s*:\\s*\\d+", "processor\t: " + i)).append("\n\n");
        }
        Files.writeString(file, out.toString());
    }

    /** The tree's kernel config padded to a distribution kernel's length with options it does not set. */
    private static void kernelConfig(Path boot) throws IOException {
        try (Stream<Path> s = Files.list(boot)) {
            for (Path config : s.filter(p -> p.getFileName().toString().startsWith("config-")).toList()) {
                List<String> lines = new ArrayList<>(Files.readAllLines(config));
                for (int i = 0; lines.size() < KCONFIG_LINES; i++) {
                    lines.add(i % 3 == 0 ? "# CONFIG_BENCH_OPTION_" + i + " is not set"
                            : "CONFIG_BENCH_OPTION_" + i + (i % 3 == 1 ? "=y" : "=m"));
                }
                Files.write(config, lines);
            }
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isSymbolicLink(p)) {
                    Files.createDirectories(target.getParent());
                    Files.createSymbolicLink(target, Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
