package io.nodelabeller.source.nvidia;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.nodelabeller.config.DevicePluginConfig;
import io.nodelabeller.testing.GpuLayout;
import io.nodelabeller.testing.GpuLayout.Gpu;
import io.nodelabeller.testing.GpuLayout.Mig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;

import static io.nodelabeller.source.nvidia.GpuTesting.TS;
import static io.nodelabeller.source.nvidia.GpuTesting.dp;
import static io.nodelabeller.source.nvidia.GpuTesting.evidence;
import static io.nodelabeller.source.nvidia.GpuTesting.labels;
import static io.nodelabeller.source.nvidia.GpuTesting.resource;
import static io.nodelabeller.source.nvidia.GpuTesting.set;
import static io.nodelabeller.source.nvidia.GpuTesting.strategy;
import static io.nodelabeller.testing.GpuLayout.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The nvidia.com labels on real-world layouts, and node-labeller's fixes over GFD. */
class NvidiaLabelerTest {

    private static final Gpu A100 = Gpu.of("NVIDIA A100-SXM4-40GB", 40960, 8, 0).withMigCapable();
    private static final Gpu T4 = Gpu.of("Tesla T4", 15360, 7, 5);
    private static final Gpu H100 = Gpu.of("NVIDIA H100 80GB HBM3", 81559, 9, 0).withMigCapable();

    private ListAppender<ILoggingEvent> log;

    @BeforeEach
    void captureLog() {
        log = new ListAppender<>();
        log.start();
        ((Logger) LoggerFactory.getLogger(NvidiaLabeler.class)).addAppender(log);
    }

    @AfterEach
    void releaseLog() {
        ((Logger) LoggerFactory.getLogger(NvidiaLabeler.class)).detachAppender(log);
    }

    private List<String> warnings() {
        return log.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void oneFullGpuEveryLabel() {
        GpuLayout layout = node("550.54.15", 12040, Gpu.of("NVIDIA L4", 23034, 8, 9).fabric(
                "7b968a6d-c8aa-45e1-9e07-e1e51be99c31", 1)).machine("PowerEdge R760xa");
        assertEquals(set("gpu.present=true", "gfd.timestamp=" + TS, "gpu.machine=PowerEdge-R760xa",
                "cuda.driver.major=550", "cuda.driver.minor=54", "cuda.driver.rev=15",
                "cuda.driver-version.major=550", "cuda.driver-version.minor=54", "cuda.driver-version.revision=15",
                "cuda.driver-version.full=550.54.15", "cuda.runtime.major=12", "cuda.runtime.minor=4",
                "cuda.runtime-version.major=12", "cuda.runtime-version.minor=4", "cuda.runtime-version.full=12.4",
                "mig.capable=false", "mps.capable=false", "gpu.count=1", "gpu.replicas=1", "gpu.sharing-strategy=none",
                "gpu.product=NVIDIA-L4", "gpu.memory=23034", "gpu.family=ada-lovelace", "gpu.compute.major=8",
                "gpu.compute.minor=9", "gpu.mode=compute", "gpu.clique=7b968a6d-c8aa-45e1-9e07-e1e51be99c31.1",
                // beyond GFD: the node's models, here one
                "gpu.models=1", "gpu.model.NVIDIA-L4.count=1", "gpu.model.NVIDIA-L4.memory=23034",
                "gpu.model.NVIDIA-L4.family=ada-lovelace", "gpu.model.NVIDIA-L4.compute.major=8",
                "gpu.model.NVIDIA-L4.compute.minor=9", "gpu.model.NVIDIA-L4.replicas=1"),
                labels(layout, DevicePluginConfig.DEFAULT));
        assertEquals(List.of(), warnings());
    }

    @Test
    void eightGpusAndTheirEvidence() {
        GpuLayout layout = node("535.104.05", 12020).withGpus(A100.times(8));
        Map<String, String> l = labels(layout, DevicePluginConfig.DEFAULT);
        assertEquals("8", l.get("gpu.count"));
        assertEquals("NVIDIA-A100-SXM4-40GB", l.get("gpu.product"));
        assertEquals("05", l.get("cuda.driver.rev"), "parts are verbatim, leading zero kept");
        assertEquals("12.2", l.get("cuda.runtime-version.full"));
        assertEquals("true", l.get("mig.capable"));
        assertEquals("DGX-A100", l.get("gpu.machine"));
        Map<String, String> ev = evidence(layout, DevicePluginConfig.DEFAULT);
        assertEquals("nvmlDeviceGetName = 'NVIDIA A100-SXM4-40GB' (GPU 0..7)", ev.get("gpu.product"));
        assertEquals("nvmlDeviceGetMemoryInfo total = 42949672960 bytes (GPU 0), in MiB", ev.get("gpu.memory"));
        assertEquals("nvmlDeviceGetCudaComputeCapability = 8.0 (GPU 0)", ev.get("gpu.family"));
        assertEquals("nvmlSystemGetDriverVersion = '535.104.05'", ev.get("cuda.driver-version.full"));
        assertEquals("nvmlSystemGetCudaDriverVersion = 12020", ev.get("cuda.runtime.major"));
        assertEquals("nvmlDeviceGetMigMode succeeded on GPU 0..7", ev.get("mig.capable"));
        assertTrue(ev.get("gpu.present").startsWith("pci.device vendor 10de with class 0300/0302: 8 devices from /sys/bus/pci"),
                ev.get("gpu.present"));
        assertTrue(ev.get("gpu.machine").contains("/sys/class/dmi/id/product_name"), ev.get("gpu.machine"));
        // every nvidia.com label has evidence naming where it came from
        assertEquals(l.keySet(), ev.keySet());
    }

    @ParameterizedTest
    @CsvSource({"7, 0, volta", "7, 5, turing", "8, 0, ampere", "8, 6, ampere", "8, 7, ampere", "8, 9, ada-lovelace", "9, 0, hopper",
            "10, 0, blackwell", "12, 0, blackwell", "13, 0, rubin", "6, 1, pascal", "4, 0, undefined", "11, 0, undefined"})
    void familyFromComputeCapability(int major, int minor, String family) {
        Map<String, String> l = labels(node("570.86.15", 12080, Gpu.of("GPU", 1024, major, minor)), DevicePluginConfig.DEFAULT);
        assertEquals(family, l.get("gpu.family"));
        assertEquals(String.valueOf(major), l.get("gpu.compute.major"));
        assertEquals(String.valueOf(minor), l.get("gpu.compute.minor"));
    }

    @Test
    void computeCapabilityZeroOrFailedOmitsArchLabels() {
        for (Gpu g : List.of(Gpu.of("GPU", 1024, 0, 0), Gpu.of("GPU", 1024, 8, 0).cc(null, null))) {
            Map<String, String> l = labels(node("570.86.15", 12080, g), DevicePluginConfig.DEFAULT);
            assertFalse(l.containsKey("gpu.family") || l.containsKey("gpu.compute.major")
                    || l.containsKey("gpu.compute.minor"), l.toString());
            assertEquals("1", l.get("gpu.count"));
        }
    }

    @Test
    void twoPartDriverVersionAndUnsplittableOne() {
        Map<String, String> two = labels(node("550.54", 12040, T4), DevicePluginConfig.DEFAULT);
        assertEquals("", two.get("cuda.driver.rev"));
        assertEquals("", two.get("cuda.driver-version.revision"));
        assertEquals("550.54", two.get("cuda.driver-version.full"));
        Map<String, String> bad = labels(node("550", 12040, T4), DevicePluginConfig.DEFAULT);
        assertFalse(bad.keySet().stream().anyMatch(k -> k.startsWith("cuda.driver")), bad.toString());
        assertEquals("12", bad.get("cuda.runtime.major"), "the rest is still labelled");
        assertTrue(warnings().stream().anyMatch(w -> w.contains("'550' does not match X.Y[.Z]")), warnings().toString());
    }

    @Test
    void memoryMissingOrZeroIsOmitted() {
        assertFalse(labels(node("550.54.15", 12040, T4.memory(null)), DevicePluginConfig.DEFAULT).containsKey("gpu.memory"));
        assertFalse(labels(node("550.54.15", 12040, T4.memory(0L)), DevicePluginConfig.DEFAULT).containsKey("gpu.memory"));
    }

    @Test
    void timeSlicingWithAndWithoutRenameFromTheSharedConfig() {
        GpuLayout layout = node("550.54.15", 12040).withGpus(T4.times(4));
        String yaml = """
                version: v1
                sharing:
                  timeSlicing:
                    renameByDefault: %s
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                """;
        Map<String, String> plain = labels(layout, dp(yaml.formatted("false")));
        assertEquals(set("gpu.count=4", "gpu.replicas=4", "gpu.sharing-strategy=time-slicing", "gpu.product=Tesla-T4-SHARED",
                "gpu.memory=15360", "gpu.family=turing", "gpu.compute.major=7", "gpu.compute.minor=5"), resource(plain));
        assertEquals("false", plain.get("mps.capable"));
        Map<String, String> renamed = labels(layout, dp(yaml.formatted("true")));
        assertEquals("Tesla-T4", renamed.get("gpu.product"));
        assertEquals("4", renamed.get("gpu.replicas"));
        assertTrue(evidence(layout, dp(yaml.formatted("true"))).get("gpu.replicas")
                .contains("sharing.timeSlicing nvidia.com/gpu: replicas 4, advertised as nvidia.com/gpu.shared in dp.yaml"));
    }

    @Test
    void mps() {
        Map<String, String> l = labels(node("550.54.15", 12040).withGpus(H100.times(2)),
                dp("sharing: {mps: {resources: [{name: gpu, replicas: 10}]}}"));
        assertEquals("true", l.get("mps.capable"));
        assertEquals("mps", l.get("gpu.sharing-strategy"));
        assertEquals("10", l.get("gpu.replicas"));
        assertEquals("NVIDIA-H100-80GB-HBM3-SHARED", l.get("gpu.product"));
    }

    @Test
    void mpsOnMigEnabledGpuIsAClearErrorNotACrash() {
        GpuLayout layout = node("550.54.15", 12040, H100.mig(Mig.of("1g.10gb", 9856, 16)));
        DevicePluginConfig dp = dp("sharing: {mps: {resources: [{name: gpu, replicas: 4}]}}");
        Map<String, String> l = labels(layout, dp);
        assertFalse(l.containsKey("mps.capable"));
        assertEquals("NVIDIA-H100-80GB-HBM3", l.get("gpu.product"));
        assertEquals(List.of("MPS sharing is not supported on MIG-enabled GPUs: sharing.mps in dp.yaml, MIG enabled on GPU 0; "
                + "nvidia.com/mps.capable is omitted"), warnings());
    }

    @Test
    void migSingleOnRealGpus() {
        Mig m = Mig.of("1g.5gb", 4864, 14);
        GpuLayout layout = node("550.54.15", 12040).withGpus(A100.mig(m, m, m, m, m, m, m).times(8));
        Map<String, String> l = labels(layout, strategy("single"));
        assertEquals(set("mig.strategy=single", "gpu.count=56", "gpu.replicas=1", "gpu.sharing-strategy=none",
                "gpu.product=NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "gpu.memory=4864", "gpu.family=ampere",
                "gpu.compute.major=8", "gpu.compute.minor=0", "gpu.multiprocessors=14", "gpu.slices.gi=1",
                "gpu.slices.ci=1", "gpu.engines.copy=1", "gpu.engines.decoder=0", "gpu.engines.encoder=0",
                "gpu.engines.jpeg=0", "gpu.engines.ofa=0"), resource(l));
        assertEquals("nvmlDeviceGetAttributes_v2 multiprocessorCount = 14 (MIG 0:0, profile 1g.5gb)",
                evidence(layout, strategy("single")).get("gpu.multiprocessors"));
    }

    @Test
    void migSingleInvalidIsLoggedOnce() {
        GpuLayout layout = node("550.54.15", 12040, A100.mig(Mig.of("1g.5gb", 4864, 14)), A100);
        NvidiaLabeler labeler = new NvidiaLabeler(strategy("single"), GpuTesting.START, false);
        for (int i = 0; i < 3; i++) {
            Map<String, String> l = GpuTesting.labels(labeler, layout.features());
            assertEquals("NVIDIA-A100-SXM4-40GB-MIG-INVALID", l.get("gpu.product"));
            assertEquals("", l.get("gpu.sharing-strategy"));
        }
        assertEquals(List.of("invalid configuration for mig-strategy=single: MIG enabled on GPU 0 but disabled on GPU 1"),
                warnings());
    }

    @Test
    void migMixedWithMediaExtensionsAndComputeInstanceProfiles() {
        GpuLayout layout = node("550.54.15", 12040, H100.mig(Mig.of("1g.10gb+me", 9856, 16), Mig.of("1c.3g.40gb", 40192, 16),
                Mig.of("1c.3g.40gb", 40192, 16)), H100.mig(Mig.of("3g.40gb", 40192, 60)));
        Map<String, String> l = labels(layout, dp("""
                flags: {migStrategy: mixed}
                sharing:
                  timeSlicing:
                    resources: [{name: mig-3g.40gb, replicas: 2}]
                """));
        assertEquals("mixed", l.get("mig.strategy"));
        assertEquals("2", l.get("gpu.count"), "full-GPU labels stay (GFD issue #55)");
        assertEquals("0", l.get("gpu.replicas"));
        assertEquals("NVIDIA-H100-80GB-HBM3-MIG-1g.10gb.me", l.get("mig-1g.10gb.me.product"));
        assertEquals("1", l.get("mig-1g.10gb.me.count"));
        assertEquals("2", l.get("mig-1c.3g.40gb.count"));
        assertEquals("1", l.get("mig-1c.3g.40gb.slices.ci"));
        assertEquals("3", l.get("mig-1c.3g.40gb.slices.gi"));
        assertEquals("NVIDIA-H100-80GB-HBM3-MIG-3g.40gb-SHARED", l.get("mig-3g.40gb.product"));
        assertEquals("time-slicing", l.get("mig-3g.40gb.sharing-strategy"));
        assertEquals(3 * 13, l.keySet().stream().filter(k -> k.startsWith("mig-")).count());
    }

    @Test
    void migNoneWithMigEnabledAndMixedMigAndFullGpus() {
        Mig m = Mig.of("3g.20gb", 19968, 42);
        Map<String, String> none = labels(node("550.54.15", 12040, A100.mig(m, m)), DevicePluginConfig.DEFAULT);
        assertEquals("0", none.get("gpu.replicas"));
        assertEquals("NVIDIA-A100-SXM4-40GB", none.get("gpu.product"));
        assertFalse(none.containsKey("mig.strategy"));
        assertEquals("ampere", none.get("gpu.family"), "a real MIG parent reports its CC");
        Map<String, String> both = labels(node("550.54.15", 12040, A100.mig(m, m), A100), dp("""
                flags: {migStrategy: none}
                sharing: {timeSlicing: {resources: [{name: gpu, replicas: 3}]}}
                """));
        assertEquals("2", both.get("gpu.count"));
        assertEquals("3", both.get("gpu.replicas"), "the full GPU overwrites the MIG parent");
        assertEquals("NVIDIA-A100-SXM4-40GB-SHARED", both.get("gpu.product"));
    }

    @Test
    void productsStayWithin63CharactersKeepingTheSuffix() {
        Gpu pro = Gpu.of("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", 97887, 12, 0).withMigCapable();
        Map<String, String> single = labels(node("580.65.06", 13000, pro.mig(Mig.of("1g.24gb", 24192, 46))), strategy("single"));
        String p = single.get("gpu.product");
        assertTrue(p.length() <= 63 && p.endsWith("-MIG-1g.24gb") && p.startsWith("NVIDIA-RTX-PRO-6000-Blackwell-Max-Q"), p);
        assertEquals("NVIDIA-RTX-PRO-6000-Blackwell-Max-Q-Workstation-Edi-MIG-1g.24gb", p);
        Map<String, String> shared = labels(node("580.65.06", 13000, pro.mig(Mig.of("1g.24gb+gfx", 24192, 46))), dp("""
                flags: {migStrategy: single}
                sharing: {timeSlicing: {resources: [{name: gpu, replicas: 2}]}}
                """));
        String s = shared.get("gpu.product");
        assertTrue(s.length() <= 63 && s.endsWith("-MIG-1g.24gb.gfx-SHARED"), s);
        assertEquals("NVIDIA-RTX-PRO-6000-Blackwell-Max-Q-Workstation-Edition", Names.product(pro.name()));
        assertEquals("A-B", Names.product("A-B", ""));
        assertEquals("ABC-MIG-1g.5gb", Names.product("ABC", "MIG", "1g.5gb"));
        // a cut never leaves the model ending on '-'
        assertEquals("x".repeat(55) + "-SHARED", Names.product("x".repeat(55) + " yyyy", "SHARED"));
    }

    @Test
    void severalModelsGiveADeterministicChoiceThatItsEvidenceExplains() {
        GpuLayout moreT4 = node("550.54.15", 12040, A100, T4, T4, A100, T4);
        Map<String, String> l = labels(moreT4, DevicePluginConfig.DEFAULT);
        assertEquals("Tesla-T4", l.get("gpu.product"));
        assertEquals("3", l.get("gpu.count"));
        assertEquals("15360", l.get("gpu.memory"));
        assertEquals("turing", l.get("gpu.family"));
        assertEquals("nvmlDeviceGetName = 'Tesla T4' (GPU 1,2,4); of 2 models ('NVIDIA A100-SXM4-40GB' (GPU 0,3), "
                + "'Tesla T4' (GPU 1,2,4)) the one with the most GPUs (ties: name ascending); every model has its "
                + "nvidia.com/gpu.model.* labels", evidence(moreT4, DevicePluginConfig.DEFAULT).get("gpu.count"));
        // each model is described, so a node with several is healthy: nothing to warn about
        assertEquals("2", l.get("gpu.model.NVIDIA-A100-SXM4-40GB.count"));
        assertEquals("3", l.get("gpu.model.Tesla-T4.count"));
        assertEquals(List.of(), warnings());
        // a tie goes to the sanitised name that sorts first, whatever the GPU order
        for (GpuLayout tie : List.of(node("550.54.15", 12040, T4, A100), node("550.54.15", 12040, A100, T4))) {
            assertEquals("NVIDIA-A100-SXM4-40GB", labels(tie, DevicePluginConfig.DEFAULT).get("gpu.product"));
        }
    }

    @Test
    void oneLostGpuDoesNotHideTheOthers() {
        Map<String, String> l = labels(node("550.54.15", 12040, T4, T4.failing("15 (GPU is lost)"), T4), DevicePluginConfig.DEFAULT);
        assertEquals("2", l.get("gpu.count"));
        assertEquals(List.of("GPU 1: 15 (GPU is lost); its labels are left out"), warnings());
    }

    @Test
    void nvmlUnavailableKeepsGpuPresentAndSaysWhyOncePerStateChange() {
        GpuLayout layout = node("550.54.15", 12040).withGpus(T4.times(2));
        GpuLayout broken = layout.nvmlUnavailable("libnvidia-ml.so.1 not found");
        NvidiaLabeler labeler = new NvidiaLabeler(DevicePluginConfig.DEFAULT, GpuTesting.START, false);
        assertEquals(set("gpu.present=true", "gfd.timestamp=" + TS), GpuTesting.labels(labeler, broken.features()));
        GpuTesting.labels(labeler, broken.features());
        assertEquals(List.of("NVML unavailable: libnvidia-ml.so.1 not found; nvidia.com GPU labels other than gpu.present "
                + "are omitted"), warnings());
        assertEquals("2", GpuTesting.labels(labeler, layout.features()).get("gpu.count"), "retried every cycle");
        assertTrue(log.list.stream().anyMatch(e -> e.getLevel() == Level.INFO
                && e.getFormattedMessage().equals("NVML available: 2 GPU(s)")));
        GpuTesting.labels(labeler, broken.features());
        assertEquals(2, warnings().size(), "logged again after a change of state");
    }

    @Test
    void noNvidiaGpuMeansNoLabelsAndNoWarning() {
        GpuLayout none = node("550.54.15", 12040).nvmlUnavailable("libnvidia-ml.so.1 not found").otherPci("1a03:0300", "8086:0300");
        assertEquals(set(), labels(none, DevicePluginConfig.DEFAULT));
        assertEquals(List.of(), warnings());
        // nor when the nvidia source did not run at all
        NvidiaLabeler labeler = new NvidiaLabeler(DevicePluginConfig.DEFAULT, GpuTesting.START, false);
        assertEquals(set(), GpuTesting.labels(labeler, none.pciFeatures()));
        assertEquals(List.of(), warnings());
    }

    @Test
    void nvidiaSourceNotRunButPciGpuPresent() {
        GpuLayout layout = node("550.54.15", 12040, T4);
        NvidiaLabeler labeler = new NvidiaLabeler(DevicePluginConfig.DEFAULT, GpuTesting.START, false);
        assertEquals(set("gpu.present=true", "gfd.timestamp=" + TS), GpuTesting.labels(labeler, layout.pciFeatures()));
        assertEquals(1, warnings().size());
        assertTrue(warnings().get(0).startsWith("the nvidia source did not run"), warnings().toString());
    }

    @Test
    void aBmcVgaChipDoesNotMakeAGpuOrChangeTheMode() {
        Map<String, String> l = labels(node("550.54.15", 12040, T4, T4).otherPci("1a03:0300", "10de:0403"),
                DevicePluginConfig.DEFAULT);
        assertEquals("compute", l.get("gpu.mode"));
        Map<String, String> onlyBmc = labels(new GpuLayout(null, null, null, null, List.of(), List.of("1a03:0300")),
                DevicePluginConfig.DEFAULT);
        assertEquals(set(), onlyBmc);
    }

    @Test
    void cliqueNeedsAgreement() {
        String u = "7b968a6d-c8aa-45e1-9e07-e1e51be99c31";
        assertEquals(u + ".4", labels(node("570.86.15", 12080, H100.fabric(u, 4), H100.fabric(u, 4)),
                DevicePluginConfig.DEFAULT).get("gpu.clique"));
        Map<String, String> split = labels(node("570.86.15", 12080, H100.fabric(u, 4), H100.fabric(u, 5)),
                DevicePluginConfig.DEFAULT);
        assertFalse(split.containsKey("gpu.clique"));
        assertTrue(warnings().get(0).contains("disagree"), warnings().toString());
        assertFalse(labels(node("570.86.15", 12080, H100.fabric("00000000-0000-0000-0000-000000000000", 0)),
                DevicePluginConfig.DEFAULT).containsKey("gpu.clique"));
    }

    @Test
    void machineUnreadableIsUnknownAndDgxDisplayIsSkipped() {
        Map<String, String> l = labels(node("550.54.15", 12040, A100, Gpu.of("NVIDIA DGX Display", 4096, 8, 6))
                .machine(null), DevicePluginConfig.DEFAULT);
        assertEquals("unknown", l.get("gpu.machine"));
        assertEquals("1", l.get("gpu.count"));
        assertEquals("NVIDIA-A100-SXM4-40GB", l.get("gpu.product"));
    }
}
