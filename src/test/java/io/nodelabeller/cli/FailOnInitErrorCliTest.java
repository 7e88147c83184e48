package io.nodelabeller.cli;

import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The device plugin's {@code flags.failOnInitError} on the command line, with the fake
 * libnvidia-ml answering {@code nvmlInit_v2} with 9 (driver not loaded) and the features.d output only.
 */
class FailOnInitErrorCliTest {

    @TempDir
    Path tmp;

    @BeforeAll
    static void needsFakeLibrary() {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
    }

    private Path out() {
        return tmp.resolve("node-labeller.features");
    }

    private Cli.Result cli(String command, String host, boolean failOnInitError) throws Exception {
        Path lib = FakeNvml.nvml().rc("nvmlInit_v2", 9).gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("lib"));
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, "publish:\n  node: false\n  featuresFile: " + out() + "\ndaemon:\n  port: 0\n");
        Path dp = tmp.resolve("dp.yaml");
        Files.writeString(dp, "version: v1\nflags:\n  failOnInitError: " + failOnInitError + "\n");
        return Cli.run(command, "--config", cfg.toString(), "--device-plugin-config", dp.toString(),
                "--host-root", Hosts.root(host).toString(), "--nvml-library", lib.toString());
    }

    private static final String MESSAGE = ": NVML cannot be initialised (nvmlInit_v2 failed: 9 (Driver Not Loaded)) on a node with an NVIDIA"
            + " GPU; flags.failOnInitError is true: nothing published";

    @Test
    void onceExitsOneAndWritesNothing() throws Exception {
        Cli.Result r = cli("once", "gpu-server", true);
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains("node-labeller once" + MESSAGE + "\n"), r.err());
        assertFalse(Files.exists(out()), "nothing published");
    }

    @Test
    void runExitsOneAfterItsFirstCycle() throws Exception {
        Cli.Result r = cli("run", "gpu-server", true);
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains("node-labeller run" + MESSAGE + "\n"), r.err());
        assertFalse(Files.exists(out()), "nothing published");
    }

    @Test
    void withoutItEverythingElseIsPublished() throws Exception {
        Cli.Result r = cli("once", "gpu-server", false);
        assertEquals(0, r.code(), r.err());
        String labels = Files.readString(out());
        assertTrue(labels.contains("\nnvidia.com/gpu.present=true\n"), labels);
        assertTrue(labels.contains("\nfeature.node.kubernetes.io/kernel-version.full="), labels);
        assertFalse(labels.contains("nvidia.com/gpu.product"), labels);
    }

    /**
     * FAIL_ON_INIT_ERROR (as the GPU Operator or GFD's chart sets it on GFD) wins over the file, as for GFD; so does
     * --fail-on-init-error, over both.
     */
    @Test
    void theEnvironmentOrTheCommandLineWinsOverTheFile() throws Exception {
        Path lib = FakeNvml.nvml().rc("nvmlInit_v2", 9).gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("lib"));
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, "publish:\n  node: false\n  featuresFile: " + out() + "\n");
        Path dp = tmp.resolve("dp.yaml");
        Files.writeString(dp, "version: v1\nflags:\n  failOnInitError: false\n");
        String[] args = {"once", "--config", cfg.toString(), "--device-plugin-config", dp.toString(),
                "--host-root", Hosts.root("gpu-server").toString(), "--nvml-library", lib.toString()};
        assertEquals(1, Cli.runWith(java.util.Map.of("FAIL_ON_INIT_ERROR", "true"), args).code());
        assertFalse(Files.exists(out()), "nothing published");
        String[] withFlag = java.util.Arrays.copyOf(args, args.length + 1);
        withFlag[args.length] = "--fail-on-init-error=false";
        Cli.Result r = Cli.runWith(java.util.Map.of("FAIL_ON_INIT_ERROR", "true"), withFlag);
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.exists(out()));
    }

    /**
     * NVML error 18 (the driver was upgraded after the container started; the runtime injected the old library):
     * {@code run} exits 1 whatever failOnInitError says, publishing nothing, so that the kubelet starts a new
     * container with the new library; the labels on the node stay as they were.
     */
    @Test
    void runExitsOneOnALibraryThatDoesNotMatchTheDriverWhateverTheFlag() throws Exception {
        Path lib = FakeNvml.nvml().rc("nvmlInit_v2", 18).gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("lib"));
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, "publish:\n  node: false\n  featuresFile: " + out() + "\ndaemon:\n  port: 0\n");
        Cli.Result r = Cli.run("run", "--config", cfg.toString(), "--fail-on-init-error=false",
                "--host-root", Hosts.root("gpu-server").toString(), "--nvml-library", lib.toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains("node-labeller run: NVML's library does not match the loaded NVIDIA driver"
                + " (nvmlInit_v2 failed: 18 (Driver/library version mismatch))"), r.err());
        assertFalse(Files.exists(out()), "nothing published");
    }

    @Test
    void aNodeWithoutNvidiaGpuIsNotAFailure() throws Exception {
        Cli.Result r = cli("once", "cloud-vm", true);
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.readString(out()).contains("feature.node.kubernetes.io/kernel-version.full="));
    }
}
