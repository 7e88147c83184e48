#!/bin/sh
# The fleet bench (docs/scale.md): N agents, each `run` as a process on the production runtime with its own node
# name, host root, config and kubeconfig, against the loopback API server (src/loopback/.../LoopbackApiServer.java:
# watches with bookmarks, timeouts and 410 after a restart, JSON patch with 409/422), through install, rest, a
# NodeFeatureRule change, a 60 s API server outage, watch churn and a rollout; requests per second by verb as the
# server sees them. About 25 minutes for 200 agents on 2 cores (~100 MiB per agent while it starts, ~30-80 MiB at rest).
#
#   bench/fleet.sh [AGENTS] [SPREAD] [SCENARIOS]
#     AGENTS     default 200
#     SPREAD     publish.ruleChangeSpread of every agent, default 30s (0s: no spread)
#     SCENARIOS  comma-separated, default rest,rule,outage,churn,rollout (install always runs)
#   FLEET_REST=SECONDS sets how long the rest phase lasts (default 180)
#   results: target/bench/fleet-n<AGENTS>-spread<SPREAD>.txt (summary by phase) and .tsv (every second)
set -eu
cd "$(dirname "$0")/.."
agents=${1:-200}
spread=${2:-30s}
scenarios=${3:-rest,rule,outage,churn,rollout}
# one inotify instance per agent (its config watch); Linux allows 128 per user by default, one node runs one agent
if [ "$(cat /proc/sys/fs/inotify/max_user_instances)" -lt $((agents + 64)) ]; then
  sysctl -qw fs.inotify.max_user_instances=$((agents + 256)) || echo "fleet: fs.inotify.max_user_instances is below $((agents + 64)): agents beyond it poll their config (and log a warning)" >&2
fi
./mvnw -q -B -o package -DskipTests
./mvnw -q -B -o -Pbench test-compile
runtime=${BENCH_RUNTIME:-target/rt}
if [ -z "${BENCH_RUNTIME:-}" ]; then
  sh bin/build-runtime.sh target/node-labeller.jar target/rt > /dev/null
fi
./mvnw -q -B -o -Pbench surefire:test -Dtest=FleetBench -Dsurefire.failIfNoSpecifiedTests=false \
  -Dbench.runtime="$runtime" -Dfleet.agents="$agents" -Dfleet.spread="$spread" -Dfleet.scenarios="$scenarios" -Dfleet.rest="${FLEET_REST:-180}"
cat "target/bench/fleet-n$agents-spread$spread.txt"
