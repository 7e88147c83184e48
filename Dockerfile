# syntax=docker/dockerfile:1
# node-labeller's image: a jlink'd Java runtime with only the modules the jar uses, plus an AppCDS archive.
#   docker build -t ghcr.io/node-labeller/node-labeller:0.1.0 .
#   docker run --rm -v /:/host:ro ghcr.io/node-labeller/node-labeller:0.1.0 print --host-root=/host
# Both stages are Debian 12: the runtime is cut from Debian's OpenJDK 17 (the JDK the tests use too) and needs
# only glibc, libstdc++, libgcc_s and zlib from the base, all in bookworm-slim. glibc is also what JNA and NVML need.
# Pin the base by digest for reproducible builds (docs/development.md, "The image"):
#   docker build --build-arg BASE_IMAGE=debian:bookworm-slim@sha256:<digest> .
# The digest of the multi-arch index keeps one argument valid for amd64 and arm64.
ARG BASE_IMAGE=debian:bookworm-slim

FROM ${BASE_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jdk-headless curl ca-certificates gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
COPY src src
# Tests need gcc and run in CI (./mvnw verify, which also builds this runtime in RuntimeImageIT). Skipping them with
# maven.test.skip also leaves the test-only dependencies out (the pom's test-dependencies profile): not downloaded.
# The source revision for node_labeller_build_info: docker build --build-arg REVISION=$(git rev-parse HEAD) .
ARG REVISION=unknown
RUN --mount=type=cache,target=/root/.m2 ./mvnw -B -ntp package -Dmaven.test.skip=true -DskipTests \
    -Dbuild.revision=${REVISION}
COPY bin bin
# jdeps -> jlink -> training runs of `print` and of the daemon (against bin/CdsTraining.java's loopback API
# server; the daemon on the tests' gpu-server host tree with their fake libnvidia-ml, which gcc builds here, so that
# the archive holds the NVML path) -> AppCDS archive, all under /opt/node-labeller (see the script).
# SOURCE_DATE_EPOCH (BuildKit passes it when set) becomes the jar's modification time, which the archive records.
ARG SOURCE_DATE_EPOCH
RUN bin/build-runtime.sh target/node-labeller.jar /opt/node-labeller

FROM ${BASE_IMAGE}
# The version is the pom's (VERSION defaults to it; the release build passes it); revision as above.
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="node-labeller" \
      org.opencontainers.image.description="Discovers a node's hardware and software and writes it onto the Kubernetes Node as labels." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="${BASE_IMAGE}"
# Same path as in the build stage: the CDS archive records the jar's path, size and modification time.
COPY --from=build /opt/node-labeller /opt/node-labeller
# Fail the build here, not in the cluster, if the archive no longer matches (-Xshare:on refuses to start then).
RUN JAVA_TOOL_OPTIONS=-Xshare:on /opt/node-labeller/runtime/bin/java @/opt/node-labeller/node-labeller.args --version
# nobody:nogroup. Run with a read-only root filesystem and an emptyDir at /tmp (JNA and temp files; jvm.options).
USER 65534:65534
ENTRYPOINT ["/opt/node-labeller/runtime/bin/java", "@/opt/node-labeller/node-labeller.args"]
CMD ["print"]
