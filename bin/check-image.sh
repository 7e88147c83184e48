#!/bin/sh
# Checks node-labeller's image as a pod runs it, without a cluster or a container engine: the image's files (from
# buildah, or docker when an engine answers) run under bubblewrap as the DaemonSet runs them — as its USER (65534),
# on a read-only root with a tmpfs /tmp, the host paths read-only, the AppCDS archive required (-Xshare:on) — and
# the image's size against a budget.
#
#   bin/check-image.sh TAG [MAX_MB]        (MAX_MB: the uncompressed size budget, default 130)
#
# Checks: USER and ENTRYPOINT; --version; print on the tests' gpu-server host tree (its PCI and kernel labels);
# once against bin/loopback-apiserver.py (the node patched with the cloud-vm tree's labels, and their annotation).
# Needs bwrap (apt-get install bubblewrap) and python3. Run from a checkout (the host trees are the tests').
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
print(json.dumps(c.get("Entrypoint"), separators=(",", ":")))'
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

# Size: uncompressed, and gzip-compressed as a registry stores the layers
bytes=$(du -sb "$work/root" | cut -f1)
gz=$(tar -C "$work/root" -cf - . | gzip -6 | wc -c)
echo "image $tag: $((bytes / 1048576)) MiB uncompressed, $((gz / 1048576)) MiB compressed (budget $max_mb MiB)"
[ "$bytes" -le $((max_mb * 1048576)) ] || fail "$((bytes / 1048576)) MiB is over the $max_mb MiB budget"

# The mount points a container runtime makes for the DaemonSet's volumes
mkdir -p "$work/root/host" "$work/root/etc/node-labeller"

# Runs the entrypoint with ARGS as the pod does: USER's ids in a user namespace, read-only root, tmpfs /tmp, the
# host tree HOST at /host read-only, no capabilities, the loopback network (for the API server below).
run() {
  host=$1
  shift
  bwrap --ro-bind "$work/root" / --tmpfs /tmp --proc /proc --dev /dev \
    --ro-bind "$host" /host --ro-bind "$work/etc" /etc/node-labeller \
    --unshare-user --uid 65534 --gid 65534 --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try \
    --die-with-parent --clearenv --setenv NODE_NAME worker-1 --setenv JAVA_TOOL_OPTIONS -Xshare:on \
    -- /opt/node-labeller/runtime/bin/java @/opt/node-labeller/node-labeller.args "$@"
}
mkdir "$work/etc"

# --version; -Xshare:on makes the JVM refuse to start unless the archive maps
run "$hosts/cloud-vm" --version > "$work/version.out" 2>&1 || { cat "$work/version.out" >&2; fail "--version"; }
grep -q '^node-labeller ' "$work/version.out" || { cat "$work/version.out" >&2; fail "--version printed no version"; }

# print on the GPU server's host tree (no NVML in the image: the PCI scan alone says there is a GPU)
run "$hosts/gpu-server" print --no-timestamp --host-root /host > "$work/print.out" 2> "$work/print.err" \
  || { cat "$work/print.err" >&2; fail "print"; }
for label in feature.node.kubernetes.io/pci-0302_10de.present=true nvidia.com/gpu.present=true \
             feature.node.kubernetes.io/kernel-version.major= feature.node.kubernetes.io/system-os_release.ID=; do
  grep -q "^$label" "$work/print.out" || { cat "$work/print.out" "$work/print.err" >&2; fail "print: no $label"; }
done

# once against a loopback API server: the node is patched
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 "$here/loopback-apiserver.py" "$port" worker-1 "$work/node.json" &
server=$!
cat > "$work/etc/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: loopback, cluster: {server: "http://127.0.0.1:$port"}}]
users: [{name: agent, user: {token: check}}]
contexts: [{name: loopback, context: {cluster: loopback, user: agent}}]
current-context: loopback
KUBECONFIG
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 50 ] || fail "the loopback API server did not start"; sleep 0.1
done
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
