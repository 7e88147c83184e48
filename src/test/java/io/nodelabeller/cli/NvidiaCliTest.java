package io.nodelabeller.cli;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The CLI with {@code --nvml-library} pointing at the fake NVML. */
class NvidiaCliTest {

    @TempDir
    Path tmp;

    private Path fake() {
        return FakeNvml.nvml()
                .gpu(FakeNvml.a100_40gb())
                .gpu(FakeNvml.a100_40gb().rc("nvmlDeviceGetHandleByIndex_v2", 15))
                .install(tmp);
    }

    @Test
    void printAndExplainRunTheNvidiaSource() {
        Path lib = fake();
        String root = Hosts.root("cloud-vm").toString();
        Cli.Result print = Cli.run("print", "--nvml-library", lib.toString(), "--host-root", root);
        assertEquals(0, print.code(), print.err());
        Cli.Result explain = Cli.run("explain", "--nvml-library", lib.toString(), "--host-root", root);
        assertEquals(0, explain.code(), explain.err());
        assertTrue(explain.out().contains(
                "# source nvidia warning: GPU 1: nvmlDeviceGetHandleByIndex_v2 failed: 15 (GPU is lost)"), explain.out());
        assertEquals(List.of("nvmlInit_v2 0", "nvmlShutdown 0", "nvmlInit_v2 0", "nvmlShutdown 0"), FakeNvml.calls(lib));
    }

    @Test
    void missingLibraryIsNoError() {
        Cli.Result r = Cli.run("print", "--nvml-library", tmp.resolve("none.so").toString(),
                "--host-root", Hosts.root("cloud-vm").toString());
        assertEquals(0, r.code(), r.err());
    }

    /** The catalog builds the nvidia source from the options: the library given on the command line is used. */
    @Test
    void catalogPassesTheLibraryToTheSource() {
        Path lib = fake();
        Options options = new Options(Hosts.root("cloud-vm"), lib.toString(), null, false, null);
        Discovery discovery = new Discovery(new HostFs(options.hostRoot()),
                Catalog.sources(Config.DEFAULT, options, List.of("nvidia")));
        Snapshot s = discovery.discover();
        assertTrue(s.statuses().get("nvidia").ok());
        assertEquals("ok", s.features().attribute("nvidia.nvml", "status"));
        assertEquals("2", s.features().attribute("nvidia.nvml", "deviceCount"));
        assertEquals("NVIDIA A100-SXM4-40GB", s.features().instances("nvidia.gpu").get(0).get("name"));
        assertEquals(List.of("GPU 1: nvmlDeviceGetHandleByIndex_v2 failed: 15 (GPU is lost)"),
                s.statuses().get("nvidia").warnings());
    }
}
