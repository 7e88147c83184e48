#!/bin/sh
# The footprint after days: `run` at 1 s cycles for MINUTES (default 30; each minute stands for an hour of the
# default 60 s cycles) against a real kube-apiserver over TLS (../shared/kube), with features.d and NodeFeatureRule
# churn, API server restarts and one 60 s outage; one agent per JVM variant, side by side. VARIANTS: extra JVM flags
# per variant, separated by '|' (an empty variant is bin/jvm.options alone), e.g. '|-Xint'. Production runtime and
# flags (bin/build-runtime.sh, bin/jvm.options). Loopback only; bounded: MINUTES plus about 3 minutes and the build.
#
#   bench/longrun.sh [MINUTES] [VARIANTS]     results: stdout, target/bench/longrun.txt, target/bench/longrun.csv
set -eu
cd "$(dirname "$0")/.."
minutes=${1:-30}
variants=${2:-}
./mvnw -q -B -o package -DskipTests
./mvnw -q -B -o -Pbench test-compile process-test-classes
runtime=${BENCH_RUNTIME:-target/rt}
if [ -z "${BENCH_RUNTIME:-}" ]; then
  sh bin/build-runtime.sh target/node-labeller.jar target/rt > /dev/null
fi
./mvnw -q -B -o -Pbench surefire:test -Dtest=LongRunBench -Dsurefire.failIfNoSpecifiedTests=false \
  -Dbench.minutes="$minutes" -Dbench.variants="$variants" -Dbench.runtime="$runtime" \
  -Dsurefire.timeout=$(( (minutes + 10) * 60 ))
cat target/bench/longrun.txt
