package io.nodelabeller.source.nvidia;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/development.md's recipe for a GPU label says what the code does: its files, methods and limits are these. */
class GpuLabelRecipeTest {

    @Test
    void theRecipeMatchesTheCode() throws Exception {
        String doc = Files.readString(Path.of("docs/development.md"));
        int at = doc.indexOf("## Adding a GPU label");
        assertTrue(at > 0, "the recipe is there");
        String recipe = doc.substring(at, doc.indexOf("\n## ", at + 1)).replaceAll("\\s+", " ");
        String generated = doc.substring(doc.indexOf("## Generated files"));
        String command = generated.substring(generated.indexOf("```sh\n") + 6, generated.indexOf("\n```", generated.indexOf("```sh\n")));
        assertTrue(recipe.contains(command), "the recipe regenerates with the command of 'Generated files': " + command);
        for (String file : List.of("src/main/java/io/nodelabeller/nvml/NvmlSymbol.java",
                "src/main/java/io/nodelabeller/source/nvidia/GpuLabels.java", "src/test/c/fake_nvml.c",
                "src/test/java/io/nodelabeller/testing/FakeNvml.java", "src/test/c/build.sh", "bench/gpu/oracle.py")) {
            assertTrue(recipe.contains(file) && Files.exists(Path.of(file)), file);
        }
        assertTrue(recipe.contains("at most " + GpuLabels.TWIN_FIELD_MAX + " characters"), "the twin field limit");
        assertTrue(recipe.contains("longest model part, " + Names.MODEL_KEY_MAX), "the model part limit");
        // the methods it names
        ResourceLabeler.class.getDeclaredMethod("perGpu", Out.class, String.class, GpuFacts.Gpu.class);
        ResourceLabeler.class.getDeclaredMethod("put", Out.class, String.class, String.class, Object.class, String.class);
        GpuLabels.GpuLabel.class.getDeclaredMethod("withTwin", String.class, Object.class, String.class);
        io.nodelabeller.nvml.NvmlDevice.class.getDeclaredMethod("numaNode");
        NvidiaFeatures.Gpu.Builder.class.getDeclaredMethod("numaNode", Long.class);
        for (String cls : List.of("NvmlDevice", "NvidiaSource.gpu", "NvidiaFeatures.Gpu", "ResourceLabeler.perGpu",
                "GpuLabelsEndToEndTest", "GpuLabelsTest", "LabelDocsCoverageTest", "AdmissionPolicyTest", "GeneratedFilesTest")) {
            assertTrue(recipe.contains("`" + cls), cls);
        }
        NvidiaSource.class.getDeclaredMethod("gpu", io.nodelabeller.nvml.Nvml.class, int.class,
                io.nodelabeller.feature.Features.Builder.class, NvidiaSource.class.getDeclaredClasses().length > 0
                        ? findWarnings() : Object.class);
    }

    private static Class<?> findWarnings() {
        for (java.lang.reflect.Method m : NvidiaSource.class.getDeclaredMethods()) {
            if (m.getName().equals("gpu") && m.getParameterCount() == 4) {
                return m.getParameterTypes()[3];
            }
        }
        throw new AssertionError("NvidiaSource.gpu(Nvml, int, Features.Builder, warnings) is gone");
    }
}
