package io.nodelabeller.bench;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import io.nodelabeller.nvml.NvmlException;
import io.nodelabeller.nvml.NvmlLibrary;
import io.nodelabeller.nvml.NvmlStructs;
import io.nodelabeller.nvml.NvmlSymbol;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * What one NVML session costs through the binding, as the nvidia source opens one every cycle: library load (JNA),
 * {@code nvmlInit_v2}, the queries of GPU 0, {@code nvmlShutdown} and unload, timed for ROUNDS sessions in one JVM (the
 * first pays for JNA's first calls; the first load, JNA's start-up, is timed alone before). In the first session it also says whether
 * the process holds libcuda and a CUDA driver thread after init and after unload. Where the library is not found, it
 * times the failed loads of a node without NVML instead (ROUNDS of them).
 *
 * <pre>
 *   java @RUNTIME/jvm.options -cp RUNTIME/lib/node-labeller.jar:target/test-classes io.nodelabeller.bench.NvmlBench [LIBRARY [ROUNDS]]
 * </pre>
 * LIBRARY: a path, or {@code -} for libnvidia-ml.so.1 from the dynamic linker's search (default). Built by
 * {@code ./mvnw -Pbench test-compile}; bench/gpu/check.sh runs it on a GPU machine.
 */
public final class NvmlBench {

    private NvmlBench() {
    }

    public static void main(String[] args) throws Exception {
        String library = args.length > 0 && !args[0].equals("-") ? args[0] : null;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        long start = System.nanoTime();
        try {
            NvmlLibrary.load(library).close();
            System.out.printf("first load and unload (JNA's start-up): %.1f ms%n", ms(System.nanoTime() - start));
        } catch (NvmlException e) {
            if (e.code() != NvmlLibrary.LIBRARY_NOT_FOUND) {
                throw e;
            }
            failedLoads(library, rounds);
            return;
        }
        seen("loading and unloading the library");
        for (int round = 0; round < rounds; round++) {
            boolean first = round == 0;
            long t0 = System.nanoTime();
            NvmlLibrary lib = NvmlLibrary.load(library);
            long t1 = System.nanoTime();
            check(lib, NvmlSymbol.INIT);
            long t2 = System.nanoTime();
            if (first) {
                seen("nvmlInit_v2");
            }
            queries(lib, first);
            long t3 = System.nanoTime();
            check(lib, NvmlSymbol.SHUTDOWN);
            lib.close();
            long t4 = System.nanoTime();
            if (first) {
                seen("nvmlShutdown and unload");
            }
            System.out.printf("session %d: load %.1f ms, nvmlInit_v2 %.1f ms, queries %.1f ms, shutdown and unload %.1f ms%n",
                    round, ms(t1 - t0), ms(t2 - t1), ms(t3 - t2), ms(t4 - t3));
        }
    }

    /** The source's calls for GPU 0 (the labels' facts). */
    private static void queries(NvmlLibrary lib, boolean report) {
        byte[] text = new byte[NvmlLibrary.DRIVER_VERSION_BUFFER];
        check(lib, NvmlSymbol.DRIVER_VERSION, text, text.length);
        IntByReference a = new IntByReference();
        IntByReference b = new IntByReference();
        check(lib, NvmlSymbol.CUDA_DRIVER_VERSION, a);
        check(lib, NvmlSymbol.DEVICE_COUNT, a);
        if (a.getValue() == 0) {
            return;
        }
        PointerByReference ref = new PointerByReference();
        check(lib, NvmlSymbol.HANDLE_BY_INDEX, 0, ref);
        Pointer gpu = ref.getValue();
        byte[] name = new byte[NvmlLibrary.NAME_BUFFER];
        check(lib, NvmlSymbol.NAME, gpu, name, name.length);
        byte[] uuid = new byte[NvmlLibrary.UUID_BUFFER];
        check(lib, NvmlSymbol.UUID, gpu, uuid, uuid.length);
        check(lib, NvmlSymbol.MEMORY_INFO, gpu, new NvmlStructs.Memory());
        check(lib, NvmlSymbol.CUDA_COMPUTE_CAPABILITY, gpu, a, b);
        check(lib, NvmlSymbol.PCI_INFO, gpu, new NvmlStructs.PciInfo());
        int mig = lib.call(NvmlSymbol.MIG_MODE, gpu, a, b);
        int fabric = lib.has(NvmlSymbol.GPU_FABRIC_INFO)
                ? lib.call(NvmlSymbol.GPU_FABRIC_INFO, gpu, new NvmlStructs.GpuFabricInfo()) : NvmlLibrary.FUNCTION_NOT_FOUND;
        int numa = lib.has(NvmlSymbol.NUMA_NODE_ID) ? lib.call(NvmlSymbol.NUMA_NODE_ID, gpu, a) : NvmlLibrary.FUNCTION_NOT_FOUND;
        if (report) {
            System.out.println("GPU 0: " + Native.toString(name, StandardCharsets.UTF_8) + "; nvmlDeviceGetMigMode " + mig
                    + ", nvmlDeviceGetGpuFabricInfo " + fabric + ", nvmlDeviceGetNumaNodeId " + numa);
        }
    }

    /** A node without NVML: the source tries to load the library every cycle. */
    private static void failedLoads(String library, int rounds) {
        double[] t = new double[Math.max(rounds, 1)];
        String why = "";
        for (int i = 0; i < t.length; i++) {
            long t0 = System.nanoTime();
            try {
                NvmlLibrary.load(library).close();
            } catch (NvmlException e) {
                why = e.getMessage();
            }
            t[i] = ms(System.nanoTime() - t0);
        }
        double first = t[0];
        Arrays.sort(t);
        System.out.printf("%d failed loads (%s): first %.2f ms, median %.2f ms%n", t.length, why, first, t[t.length / 2]);
    }

    private static void seen(String after) throws IOException {
        boolean cuda = Files.readString(Path.of("/proc/self/maps")).contains("libcuda");
        long threads;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            threads = tasks.filter(t -> comm(t).startsWith("cuda")).count();
        }
        System.out.println("after " + after + ": libcuda mapped " + cuda + ", CUDA threads " + threads);
    }

    private static String comm(Path task) {
        try {
            return Files.readString(task.resolve("comm"));
        } catch (IOException e) {
            return "";
        }
    }

    private static void check(NvmlLibrary lib, NvmlSymbol call, Object... args) {
        int rc = lib.call(call, args);
        if (rc != NvmlLibrary.SUCCESS) {
            throw new IllegalStateException(call + " returned " + rc);
        }
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
