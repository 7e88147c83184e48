#!/bin/bash
# node-labeller on a machine with a real NVIDIA GPU: its labels against NVIDIA's own answers, and what NVML costs.
#
#   bench/gpu/check.sh RUNTIME_DIR OUT_DIR [BENCH_CLASSES]
#
# RUNTIME_DIR: a runtime from bin/build-runtime.sh (it runs as RUNTIME_DIR/runtime/bin/java @RUNTIME_DIR/node-labeller.args,
# so use it at the path it was built for). Needs nvidia-smi and python3 with nvidia-ml-py (`import pynvml`), NVIDIA's
# Python binding of the same library, used as the independent oracle. Reads only this machine; changes nothing on
# the GPU (no MIG or persistence changes). BENCH_CLASSES: target/test-classes after `./mvnw -Pbench test-compile`
# (or a copy holding io/nodelabeller/bench/NvmlBench*.class), for step 4's NVML sessions. About 2 minutes. Writes into OUT_DIR: log.txt (everything below),
# smi-q.txt (nvidia-smi -q), print.txt, explain.txt. Exit status 1 when the labels differ from the oracle's.
#
#  1. the machine: GPUs, driver, MIG mode, the NVML library the dynamic linker finds, the PCI functions;
#  2. `print` (default config) compared label by label with oracle.py (GFD's formulas over nvidia-ml-py's answers);
#  3. `explain` and `print` with device-plugin configs: MIG strategy single, mixed, time-slicing with 4 replicas;
#     and with NVML missing;
#  4. what nvmlInit leaves in a process (libcuda mapped, CUDA threads), seen from Python, without our code; and
#     with BENCH_CLASSES, NvmlBench: the time of load, nvmlInit_v2, queries, shutdown of 5 sessions in one JVM;
#  5. start-up: the runtime's `java -version`, `print`, `print --sources=all,-nvidia`, 7 rounds alternated (timing.py);
#  6. two daemons side by side for 40 s (`run`, core.noPublish: no API server needed, 5 s cycles), with and
#     without the nvidia source: VmRSS / RssAnon at rest, CPU per cycle, their threads and the NVIDIA mappings, and
#     the /dev/nvidia* files each holds open between cycles (sampled 20 times; none may stay open: an open device
#     blocks the driver's unload in an upgrade and a MIG reconfiguration).
set -u
if [ $# -lt 2 ] || [ $# -gt 3 ]; then echo "usage: $0 RUNTIME_DIR OUT_DIR [BENCH_CLASSES]" >&2; exit 2; fi
classes=${3:+$(cd "$3" && pwd)}
rt=$(cd "$1" && pwd); out=$2; here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"; out=$(cd "$out" && pwd)
exec > >(tee "$out/log.txt") 2>&1
J="$rt/runtime/bin/java"; A="@$rt/node-labeller.args"
status=0

echo "== 1. machine"
uname -r; nproc
nvidia-smi -L
nvidia-smi -q > "$out/smi-q.txt"
nvidia-smi --query-gpu=name,memory.total,compute_cap,driver_version,pci.bus_id,pci.device_id,mig.mode.current,persistence_mode --format=csv
ldconfig -p | grep -E "libnvidia-ml|libcuda\.so\.1"
for d in /sys/bus/pci/devices/*; do echo "$(basename "$d") $(cat "$d/vendor" "$d/device" "$d/class" | tr '\n' ' ')"; done

echo "== 2. print, compared with nvidia-ml-py"
"$J" $A print > "$out/print.txt" || status=1
python3 "$here/oracle.py" "$out/print.txt" || status=1

echo "== 3. explain (NVML facts), device-plugin configs, NVML missing"
"$J" $A explain > "$out/explain.txt" || status=1
grep -E "facts: +nvml" "$out/explain.txt" | sort | uniq -c
printf 'version: v1\nflags:\n  migStrategy: single\n' > "$out/mig-single.yaml"
printf 'version: v1\nflags:\n  migStrategy: mixed\n' > "$out/mig-mixed.yaml"
printf 'version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n' > "$out/ts4.yaml"
for c in mig-single mig-mixed ts4; do
  echo "-- --device-plugin-config $c (nvidia.com labels that differ from the default config)"
  "$J" $A print --no-timestamp --device-plugin-config="$out/$c.yaml" | grep "^nvidia.com/" | grep -vxF -f "$out/print.txt"
done
echo "-- --nvml-library /nonexistent/libnvidia-ml.so.1"
"$J" $A print --no-timestamp --nvml-library=/nonexistent/libnvidia-ml.so.1 2>&1 | grep -E "^nvidia.com/|WARN|ERROR"

echo "== 4. what nvmlInit leaves in a process (nvidia-ml-py)"
python3 - <<'PY'
import pynvml, threading, os
def seen(when):
    maps = open("/proc/self/maps").read()
    threads = [open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task")]
    print(f"{when}: libcuda mapped {'libcuda' in maps}, threads {len(threads)} {sorted(t for t in threads if t.startswith('cuda'))}")
seen("before nvmlInit"); pynvml.nvmlInit(); seen("after nvmlInit"); pynvml.nvmlShutdown(); seen("after nvmlShutdown")
PY

if [ -n "$classes" ]; then
  "$J" @"$rt/jvm.options" -Djna.boot.library.path="$rt/lib/native" -cp "$rt/lib/node-labeller.jar:$classes" \
    io.nodelabeller.bench.NvmlBench - 5 || status=1
fi

echo "== 5. start-up, 7 rounds alternated"
python3 "$here/timing.py" 7 "java -version|$J -version" "print|$J $A print" "print --sources=all,-nvidia|$J $A print --sources=all,-nvidia"

echo "== 6. two daemons at rest, 5 s cycles, no API server (core.noPublish)"
printf 'core:\n  sleepInterval: 5s\n  noPublish: true\ndaemon:\n  port: 0\n' > "$out/rest.yaml"
NODE_NAME=all "$J" $A run --config="$out/rest.yaml" > "$out/run-all.txt" 2>&1 < /dev/null & p1=$!
NODE_NAME=nonv "$J" $A run --config="$out/rest.yaml" --sources=all,-nvidia > "$out/run-nonv.txt" 2>&1 < /dev/null & p2=$!
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
sleep 12; c1=$(cpu $p1); c2=$(cpu $p2); t=$(date +%s.%N)
sleep 40; d1=$(cpu $p1); d2=$(cpu $p2); u=$(date +%s.%N)
for p in "$p1 all sources" "$p2 without nvidia"; do
  set -- $p; pid=$1; shift
  echo "-- $*: $(grep -E '^(VmRSS|RssAnon|RssFile|Threads)' /proc/$pid/status | tr -s ' \t' ' ' | tr '\n' ' ')"
  echo "   threads: $(cat /proc/$pid/task/*/comm | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
  echo "   NVIDIA mappings (Rss kB): $(awk '/^[0-9a-f]+-/{n=$6} /^Rss:/{if (n ~ /nvidia|cuda/) r[n]+=$2} END{for (k in r) printf "%s %d; ", k, r[k]}' /proc/$pid/smaps)"
done
held=0
for i in $(seq 20); do
  for pid in $p1 $p2; do
    open=$(ls -l /proc/$pid/fd 2>/dev/null | grep -o '/dev/nvidia[^ ]*' | sort -u | tr '\n' ' ')
    if [ -n "$open" ]; then held=$((held + 1)); echo "   pid $pid holds open between cycles (sample $i): $open"; fi
  done
  sleep 0.$((RANDOM % 9 + 1))
done
echo "devices held open between cycles: $held of 40 samples"
[ "$held" -eq 0 ] || status=1
python3 -c "
el = $u - $t; cyc = el / 5; tck = $(getconf CLK_TCK)
print(f'CPU over {el:.0f} s ({cyc:.0f} cycles): all sources {($d1 - $c1) * 1000 / tck / cyc:.1f} ms a cycle, without nvidia {($d2 - $c2) * 1000 / tck / cyc:.1f} ms a cycle')"
kill -TERM $p1 $p2; wait $p1 $p2
echo "daemons stopped: exit $? (SIGTERM)"
exit $status
