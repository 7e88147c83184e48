#!/bin/sh
# Re-measures the numbers of docs/performance.md: print start-up and peak RSS (cloud-vm and gpu-server trees, the
# latter with the fake NVML), print and the time to first label (`once` against a loopback API server) against the
# runtime's own `java -version`, the cost of one cycle on the gpu-server tree, and `run` against a loopback fabric8
# mock API server, over plain HTTP and over TLS as in a pod (VmRSS/RssAnon/VmHWM/Threads sampled from /proc every
# second), and the floor under them (FloorBench: a Node read over TLS with the JDK HTTP client and Jackson alone). Production runtime and flags (bin/build-runtime.sh, bin/jvm.options). Loopback only; bounded: twice
# DAEMON_SECONDS plus about 5 minutes (the big host: a tree generated under target/bench), plus the build. BENCH_RUNTIME=DIR measures another runtime (e.g. one built from an older commit) instead of building one.
#
#   bench/footprint.sh [DAEMON_SECONDS]        results: stdout and target/bench/footprint.txt
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-60}
./mvnw -q -B -o package -DskipTests
# the fake libnvidia-ml is built in the test phase (process-test-classes)
./mvnw -q -B -o -Pbench test-compile process-test-classes
runtime=${BENCH_RUNTIME:-target/rt}
if [ -z "${BENCH_RUNTIME:-}" ]; then
  sh bin/build-runtime.sh target/node-labeller.jar target/rt > /dev/null
fi
rm -f target/bench/footprint.txt
./mvnw -q -B -o -Pbench surefire:test -Dtest='FootprintBench,FloorBench' -Dsurefire.failIfNoSpecifiedTests=false \
  -Dbench.seconds="$seconds" -Dbench.runtime="$runtime"
cat target/bench/footprint.txt
