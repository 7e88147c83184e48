#!/bin/sh
# Checks node-labeller's image as a pod runs it, without a cluster or a container engine: the image's files (from
# buildah, or docker when an engine answers) run under bubblewrap as the DaemonSet runs them — as its USER (65534),
# on a read-only root with a tmpfs /tmp, the host paths read-only, the AppCDS archive required (-Xshare:on) — and
# the image's size against a budget.
#
#   bin/check-image.sh TAG [MAX_MB]        (MAX_MB: the uncompressed size budget, default 130)
#
# Checks: USER and ENTRYPOINT; --version; print on a host tree of the image's architecture (amd64: the tests'
# gpu-server, arm64: grace-gh200), its labels identical to what the jar prints on this machine for the same tree
# (when target/node-labeller.jar is here); once against the loopback API server over TLS (src/loopback; the node
# patched with the cloud-vm tree's labels, and their annotation). An image of another architecture (TAG-arm64 of a
# multi-platform build) runs under Debian's qemu-user-static (qemu-aarch64-static, bound into the sandbox; no binfmt
# handler).
# Needs bwrap (apt-get install bubblewrap), python3 and a java. Run from a checkout after ./mvnw package (the host
# trees are the tests', the loopback API server is target/loopback-classes).
set -eu

if [ $# -lt 1 ]; then
  echo "usage: $0 TAG [MAX_MB]" >&2
  exit 2
fi
tag=$1
max_mb=${2:-130}
here=$(cd "$(dirname "$0")" && pwd)
hosts="$here/../src/test/resources/hosts"
for tool in bwrap python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "$0: $tool is needed (apt-get install bubblewrap python3)" >&2; exit 1; }
done
# the loopback API server runs on this machine's Java, from what ./mvnw package left under target/
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
target=$(cd "$here/.." && pwd)/target
command -v "$java" >/dev/null 2>&1 || { echo "$0: a java is needed (JAVA_HOME or PATH) for the loopback API server" >&2; exit 1; }
[ -d "$target/loopback-classes" ] && [ -f "$target/loopback.classpath" ] \
  || { echo "$0: no $target/loopback-classes (run ./mvnw package first)" >&2; exit 1; }
work=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "IMAGE CHECK FAILED: $*" >&2
  exit 1
}

# The image's files and config
mkdir "$work/root"
# USER, then ENTRYPOINT as compact JSON, from the image's config as `docker image inspect` / `buildah inspect` print it
config() {
  python3 -c 'import json, sys
d = json.load(sys.stdin)
c = d[0]["Config"] if isinstance(d, list) else d["OCIv1"]["config"]
print(c.get("User", ""))
print(json.dumps(c.get("Entrypoint"), separators=(",", ":")))
print(d[0]["Architecture"] if isinstance(d, list) else d["OCIv1"]["architecture"])'
}
if [ "${BUILDER:-}" != buildah ] && command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  docker image inspect "$tag" | config > "$work/config"
  ctr=$(docker create "$tag")
  docker export "$ctr" | tar -x -C "$work/root"
  docker rm "$ctr" >/dev/null
else
  buildah inspect --type image "$tag" | config > "$work/config"
  ctr=$(buildah from --pull=false --quiet "$tag")
  mnt=$(buildah mount "$ctr")
  cp -a "$mnt/." "$work/root/"
  buildah umount "$ctr" >/dev/null
  buildah rm "$ctr" >/dev/null
fi
user=$(sed -n 1p "$work/config")
entrypoint=$(sed -n 2p "$work/config")
[ "$user" = "65534:65534" ] || fail "USER is '$user', not 65534:65534"
expected='["/opt/node-labeller/runtime/bin/java","@/opt/node-labeller/node-labeller.args"]'
[ "$entrypoint" = "$expected" ] || fail "ENTRYPOINT is $entrypoint, not $expected"
arch=$(sed -n 3p "$work/config")
native=$(dpkg --print-architecture 2>/dev/null || echo amd64)
# An image of another architecture runs under its emulator, bound into the sandbox at the same path
emulator=
case "$arch" in
  "$native") ;;
  arm64) emulator=/usr/bin/qemu-aarch64-static ;;
  amd64) emulator=/usr/bin/qemu-x86_64-static ;;
  *) fail "no check for architecture '$arch'" ;;
esac
[ -z "$emulator" ] || [ -x "$emulator" ] || fail "$arch image: $emulator is needed (apt-get install qemu-user-static)"
case "$arch" in
  arm64) tree=grace-gh200; labels="feature.node.kubernetes.io/cpu-model.vendor_id=ARM feature.node.kubernetes.io/cpu-cpuid.SVE2=true" ;;
  *) tree=gpu-server; labels="feature.node.kubernetes.io/pci-0302_10de.present=true" ;;
esac
echo "image $tag: $arch${emulator:+, run under $emulator}"

# Size: uncompressed, and gzip-compressed as a registry stores the layers
bytes=$(du -sb "$work/root" | cut -f1)
gz=$(tar -C "$work/root" -cf - . | gzip -6 | wc -c)
echo "image $tag: $((bytes / 1048576)) MiB uncompressed, $((gz / 1048576)) MiB compressed (budget $max_mb MiB)"
[ "$bytes" -le $((max_mb * 1048576)) ] || fail "$((bytes / 1048576)) MiB is over the $max_mb MiB budget"

# The mount points a container runtime makes for the DaemonSet's volumes
mkdir -p "$work/root/host" "$work/root/etc/node-labeller"
# and where the emulator is bound (never part of the image)
[ -z "$emulator" ] || { mkdir -p "$work/root$(dirname "$emulator")"; touch "$work/root$emulator"; }

nvml_bind=
# Runs the entrypoint with ARGS as the pod does: USER's ids in a user namespace, read-only root, tmpfs /tmp, the
# host tree HOST at /host read-only, no capabilities, the loopback network (for the API server below).
run() {
  host=$1
  shift
  bwrap --ro-bind "$work/root" / --tmpfs /tmp --proc /proc --dev /dev \
    --ro-bind "$host" /host --ro-bind "$work/etc" /etc/node-labeller \
    ${emulator:+--ro-bind "$emulator" "$emulator"} ${nvml_bind:-} \
    --unshare-user --uid 65534 --gid 65534 --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try \
    --die-with-parent --clearenv --setenv NODE_NAME worker-1 --setenv JAVA_TOOL_OPTIONS -Xshare:on \
    -- $emulator /opt/node-labeller/runtime/bin/java @/opt/node-labeller/node-labeller.args "$@"
}
mkdir "$work/etc"

# --version; -Xshare:on makes the JVM refuse to start unless the archive maps
run "$hosts/cloud-vm" --version > "$work/version.out" 2>&1 || { cat "$work/version.out" >&2; fail "--version"; }
grep -q '^node-labeller ' "$work/version.out" || { cat "$work/version.out" >&2; fail "--version printed no version"; }

# print on a GPU node's host tree of the image's architecture (no NVML in the image: the PCI scan alone says there
# is a GPU)
run "$hosts/$tree" print --no-timestamp --host-root /host > "$work/print.out" 2> "$work/print.err" \
  || { cat "$work/print.err" >&2; fail "print"; }
for label in $labels nvidia.com/gpu.present=true \
             feature.node.kubernetes.io/kernel-version.major= feature.node.kubernetes.io/system-os_release.ID=; do
  grep -q "^$label" "$work/print.out" || { cat "$work/print.out" "$work/print.err" >&2; fail "print: no $label"; }
done
jar="$here/../target/node-labeller.jar"
if [ -f "$jar" ]; then
  "$java" -jar "$jar" print --no-timestamp --host-root "$hosts/$tree" > "$work/print.jar" 2> /dev/null || fail "the jar's print"
  diff "$work/print.jar" "$work/print.out" > "$work/print.diff" \
    || { cat "$work/print.diff" >&2; fail "print on $tree: the image's labels differ from the jar's on this machine"; }
  echo "print on $tree: $(grep -c . "$work/print.out") labels, the same as the jar's on this machine"
fi

# The NVML path: the tests' fake libnvidia-ml (one A100), compiled for the image's architecture, loaded by the image's
# JVM through JNA's stub as the toolkit's library would be; skipped, saying so, without a compiler for it
case "$arch" in
  "$native") cc=gcc ;;
  arm64) cc=aarch64-linux-gnu-gcc ;;
  amd64) cc=x86_64-linux-gnu-gcc ;;
esac
if command -v "$cc" >/dev/null 2>&1; then
  mkdir "$work/nvml"
  "$cc" -std=c11 -O1 -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o "$work/nvml/libnvidia-ml.so.1" \
    "$here/../src/test/c/fake_nvml.c" -ldl || fail "the fake libnvidia-ml does not compile with $cc"
  cp "$here/../src/test/c/fake-nvml-a100.conf" "$work/nvml/fake-nvml.conf"
  mkdir -p "$work/root/nvml"
  nvml_bind="--ro-bind $work/nvml /nvml"
  run "$hosts/$tree" print --no-timestamp --host-root /host --nvml-library /nvml/libnvidia-ml.so.1 \
    > "$work/nvml.out" 2> "$work/nvml.err" || { cat "$work/nvml.err" >&2; fail "print with NVML"; }
  nvml_bind=
  grep -q '^nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB$' "$work/nvml.out" \
    || { cat "$work/nvml.out" "$work/nvml.err" >&2; fail "print with NVML: no gpu.product from the fake library"; }
  echo "NVML ($cc's fake libnvidia-ml): $(grep -c '^nvidia.com/' "$work/nvml.out") nvidia.com labels"
else
  echo "NVML path NOT CHECKED for $arch: no $cc here (Debian: gcc-aarch64-linux-gnu)"
fi

# once against the loopback API server (src/loopback; TLS, its CA and a bearer token given by a kubeconfig, as a pod
# is given its service account's): the node is patched
cp=$(cat "$target/loopback.classpath")
"$java" -cp "$target/loopback-classes:$cp" io.nodelabeller.loopback.Main --node worker-1 --state "$work/node.json" \
  --tls "$work/tls" --token check --url-file "$work/url" > "$work/server.out" 2>&1 &
server=$!
i=0
until [ -s "$work/url" ]; do
  i=$((i + 1)); [ $i -lt 300 ] || { cat "$work/server.out" >&2; fail "the loopback API server did not start"; }
  sleep 0.1
done
cp "$work/tls/ca.crt" "$work/etc/ca.crt"
cat > "$work/etc/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: loopback, cluster: {server: "$(cat "$work/url")", certificate-authority: /etc/node-labeller/ca.crt}}]
users: [{name: agent, user: {token: check}}]
contexts: [{name: loopback, context: {cluster: loopback, user: agent}}]
current-context: loopback
KUBECONFIG
run "$hosts/cloud-vm" once --host-root /host --kubeconfig /etc/node-labeller/kubeconfig > "$work/once.out" 2>&1 \
  || { cat "$work/once.out" >&2; fail "once"; }
python3 - "$work/node.json" <<'PY' || { cat "$work/once.out" >&2; fail "once: the node was not labelled"; }
import json, sys
meta = json.load(open(sys.argv[1]))["metadata"]
labels = meta.get("labels", {})
assert "feature.node.kubernetes.io/kernel-version.full" in labels, labels
assert "node-labeller.io/managed-labels" in meta.get("annotations", {}), meta
print("once: %d labels on the node" % len(labels))
PY
if grep -E ' ERROR |^\s+at |Exception' "$work/once.out"; then
  fail "once logged an error or a stack trace"
fi
echo "image $tag: every check passed"
