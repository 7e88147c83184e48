# syntax=docker/dockerfile:1
# node-labeller's image: a jlink'd Java runtime with only the modules the jar uses, an AppCDS archive, and of the
# operating system only the libraries that runtime loads (glibc, libgcc_s, libstdc++, zlib). Build it with
# bin/build-image.sh (docker or buildah; docs/development.md, "The image"), or directly:
#   docker build -t ghcr.io/node-labeller/node-labeller:0.1.0 .
#   docker run --rm -v /:/host:ro ghcr.io/node-labeller/node-labeller:0.1.0 print --host-root=/host
# The build stage is Debian 12: the runtime is cut from Debian's OpenJDK 17 (the JDK the tests use too), and the
# final image's libraries are that stage's Debian packages. Pin it by digest for reproducible builds:
#   docker build --build-arg BASE_IMAGE=debian:bookworm-slim@sha256:<digest> .
# The digest of the multi-arch index keeps one argument valid for amd64 and arm64. Without a registry,
# bin/build-image.sh --debian-base makes this base from Debian's packages (mmdebstrap).
#
# One image for amd64 and arm64 (Grace): the build stage always runs on the build machine's own architecture
# ($BUILDPLATFORM), so no emulator has to be registered (binfmt) for either image:
#   bin/build-image.sh --platform linux/amd64,linux/arm64        (buildah: a manifest list; docker buildx: --push)
#   docker buildx build --platform linux/amd64,linux/arm64 -t REGISTRY/node-labeller:TAG --push .
# For the other architecture (TARGETARCH) the stage takes that architecture's Debian packages unpacked
# (bin/target-root.sh): jlink links its runtime from its jmods, its class-data archive is dumped by its own JVM run
# under Debian's qemu-user-static, and the image's libraries are its packages' (bin/build-runtime.sh, minimal-root.sh).
ARG BASE_IMAGE=debian:bookworm-slim

FROM --platform=$BUILDPLATFORM ${BASE_IMAGE} AS build
ARG TARGETARCH
COPY bin/target-root.sh /usr/local/bin/target-root.sh
# One apt-get update for both architectures: the build's own JDK and the target's jmods come in the same version,
# which jlink requires
RUN build=$(dpkg --print-architecture); target=${TARGETARCH:-$build}; cross=; \
    if [ "$target" != "$build" ]; then dpkg --add-architecture "$target"; cross=qemu-user-static; fi; \
    apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jdk-headless curl ca-certificates gcc libc6-dev $cross \
 && if [ -n "$cross" ]; then \
      target-root.sh "$target" /target libc6 libgcc-s1 libstdc++6 zlib1g openjdk-17-jdk-headless; \
    fi \
 && rm -rf /var/lib/apt/lists/*
# CAs the build's HTTPS downloads must trust (a TLS-intercepting proxy), one or more PEM certificates given as a
# build secret:  bin/build-image.sh --build-ca proxy-ca.pem  (docker/buildah: --secret id=build-ca,src=proxy-ca.pem)
# Trusted by this stage alone (curl and Java's cacerts, through update-ca-certificates); nothing of this stage but
# /opt/node-labeller and /rootfs reaches the image.
RUN --mount=type=secret,id=build-ca \
    if [ -s /run/secrets/build-ca ]; then \
      awk '/BEGIN CERTIFICATE/ { f = sprintf("/usr/local/share/ca-certificates/build-ca-%03d.crt", ++n) } \
           f { print > f } /END CERTIFICATE/ { close(f); f = "" }' /run/secrets/build-ca \
      && update-ca-certificates; \
    fi
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
# Maven and the dependencies in a layer of their own, which a change to src/ leaves as it is. maven.test.skip leaves
# the test-only dependencies out (the pom's test-dependencies profile): tests run in CI (./mvnw verify), not here.
# Vert.x comes (provided: not in the jar) for the training's loopback API server.
RUN ./mvnw -B -ntp -Dmaven.test.skip=true dependency:go-offline
COPY src src
# The source revision for node_labeller_build_info: docker build --build-arg REVISION=$(git rev-parse HEAD) .
ARG REVISION=unknown
RUN ./mvnw -B -ntp package -Dmaven.test.skip=true -DskipTests -Dbuild.revision=${REVISION}
COPY bin bin
# jdeps -> jlink -> training runs of `print` and of the daemon (against the loopback API server of src/loopback,
# which the package step compiled apart from the jar with its Vert.x classpath; the daemon on the tests' gpu-server
# host tree with their fake libnvidia-ml, which gcc builds here, so that the archive holds the NVML path) -> AppCDS
# archive, all under /opt/node-labeller (see the script).
# SOURCE_DATE_EPOCH (BuildKit passes it when set) becomes the jar's modification time, which the archive records.
# It ends by starting the runtime with -Xshare:on, which refuses to start unless the archive maps (bin/check-image.sh
# checks the image itself the same way, for each architecture).
ARG SOURCE_DATE_EPOCH
RUN NODE_LABELLER_TARGET_ARCH=${TARGETARCH:-} NODE_LABELLER_TARGET_ROOT=/target \
    bin/build-runtime.sh target/node-labeller.jar /opt/node-labeller
# The image's operating system: these packages' libraries (the target architecture's), with their dpkg records for
# image scanners
RUN if [ -d /target ]; then export NODE_LABELLER_TARGET_ROOT=/target; fi; \
    bin/minimal-root.sh /rootfs libc6 libgcc-s1 libstdc++6 zlib1g

FROM scratch
# The version is the pom's (VERSION defaults to it; the release build passes it); revision as above.
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="node-labeller" \
      org.opencontainers.image.description="Discovers a node's hardware and software and writes it onto the Kubernetes Node as labels." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY --from=build /rootfs /
# Same path as in the build stage: the CDS archive records the jar's path, size and modification time (a whole
# second, which every builder keeps; bin/build-runtime.sh). Nothing runs in this stage, so that it builds for an
# architecture this machine cannot run.
COPY --from=build /opt/node-labeller /opt/node-labeller
# nobody:nogroup. Run with a read-only root filesystem and an emptyDir at /tmp (JNA and temp files; jvm.options).
USER 65534:65534
ENTRYPOINT ["/opt/node-labeller/runtime/bin/java", "@/opt/node-labeller/node-labeller.args"]
CMD ["print"]
