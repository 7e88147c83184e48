package io.nodelabeller.deploy;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the Dockerfile promises about the image it builds, checked without a container engine. */
class DockerfileTest {

    private static String read(String file) throws Exception {
        return Files.readString(Path.of(file));
    }

    @Test
    void theVersionLabelIsThePomsVersion() throws Exception {
        Matcher pom = Pattern.compile("<artifactId>node-labeller</artifactId>\\s*<version>([^<]+)</version>").matcher(read("pom.xml"));
        assertTrue(pom.find());
        Matcher arg = Pattern.compile("(?m)^ARG VERSION=(\\S+)$").matcher(read("Dockerfile"));
        assertTrue(arg.find());
        assertEquals(pom.group(1), arg.group(1), "Dockerfile ARG VERSION and the pom's version");
        assertTrue(read("Dockerfile").contains("org.opencontainers.image.version=\"${VERSION}\""));
    }

    /**
     * The build stage starts from BASE_IMAGE (one digest pins it); the image starts from nothing and holds what the
     * build stage made for it alone: the minimal root (bin/minimal-root.sh) and /opt/node-labeller, so that neither
     * the build's tools nor a CA it was given for its downloads can reach the image.
     */
    @Test
    void theImageHoldsOnlyTheMinimalRootAndTheRuntime() throws Exception {
        List<String> froms = read("Dockerfile").lines().filter(l -> l.startsWith("FROM ")).toList();
        // the build stage on the build machine's own architecture, whatever the image's (no emulator registered)
        assertEquals(List.of("FROM --platform=$BUILDPLATFORM ${BASE_IMAGE} AS build", "FROM scratch"), froms);
        String image = read("Dockerfile").substring(read("Dockerfile").indexOf("FROM scratch"));
        assertEquals(List.of("COPY --from=build /rootfs /", "COPY --from=build /opt/node-labeller /opt/node-labeller"),
                image.lines().filter(l -> l.startsWith("COPY") || l.startsWith("ADD")).toList());
        // nothing runs in the image's stage, so that it builds for an architecture the builder cannot run
        assertEquals(List.of(), image.lines().filter(l -> l.startsWith("RUN")).toList());
        assertTrue(read("Dockerfile").contains("bin/minimal-root.sh /rootfs libc6 libgcc-s1 libstdc++6 zlib1g"));
    }

    @Test
    void theImageBuildSkipsTestCompilationAndTheTestDependencies() throws Exception {
        assertTrue(read("Dockerfile").contains("package -Dmaven.test.skip=true"));
        // the pom leaves the test-only dependencies out when maven.test.skip is set (so they are not downloaded)
        String pom = read("pom.xml");
        int profile = pom.indexOf("<id>test-dependencies</id>");
        assertTrue(profile > 0 && pom.indexOf("<name>!maven.test.skip</name>", profile) > profile);
        String main = pom.substring(0, pom.indexOf("<profiles>"));
        assertTrue(!main.contains("<scope>test</scope>"), "no test-scoped dependency outside that profile");
    }
}
