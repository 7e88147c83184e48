#!/bin/bash
# node-labeller's image on a machine with a real NVIDIA GPU, run as the GPU agent's pod runs it: the image's root set
# up as the NVIDIA Container Toolkit sets up a container that asks for GPUs with NVIDIA_DRIVER_CAPABILITIES=utility,
# the host's files mounted as the DaemonSet mounts them, user 65534, root read-only. Its labels are compared with
# oracle.py (NVIDIA's Python binding and GFD's formulas).
#
#   bench/gpu/image.sh ROOTFS_ARCHIVE OUT_DIR
#
# ROOTFS_ARCHIVE: the image's root file system as a tar (gzip or xz), for example from buildah:
#   c=$(buildah from IMAGE); tar -C "$(buildah mount "$c")" --numeric-owner -cJf rootfs.txz .; buildah rm "$c"
# Needs root (chroot and bind mounts; no container engine is assumed), the NVIDIA driver, python3 with nvidia-ml-py.
# Changes nothing on the GPU. Writes OUT_DIR/image-log.txt.
#
# What the toolkit does, from libnvidia-container: the container's library directory is /usr/lib/x86_64-linux-gnu
# when the image has /etc/debian_version, else /usr/lib64 (src/nvc_container.c, copy_config; node-labeller's image
# has none); the driver's utility libraries are bind-mounted read-only there under their real names with their
# .so.1 links (src/nvc_mount.c); then ldconfig runs in the container's root as
# `ldconfig -f /etc/ld.so.conf -C /etc/ld.so.cache LIBDIR LIB32DIR` (src/nvc_ldcache.c); the device nodes
# /dev/nvidiactl and /dev/nvidiaN are added. The DaemonSet's volumes: manifests/base/agent/daemonset.yaml.
set -u
if [ $# -ne 2 ]; then echo "usage: $0 ROOTFS_ARCHIVE OUT_DIR" >&2; exit 2; fi
archive=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$2"; out=$(cd "$2" && pwd)
exec > >(tee "$out/image-log.txt") 2>&1
status=0
work=$(mktemp -d)
root=$work/root
mkdir "$root"
# the mounts made under the root before its read-only bind stay beneath it: unmount until none is left, and remove
# the tree only then
trap 'while umount -R "$root" 2>/dev/null; do :; done; grep -q " $root" /proc/mounts || rm -rf "$work"' EXIT
tar -xf "$archive" -C "$root" || { echo "cannot unpack $archive"; exit 1; }
echo "== the image's root: $(du -sm "$root" | cut -f1) MiB, /etc/debian_version $([ -e "$root/etc/debian_version" ] && echo present || echo absent)"

echo "== the toolkit's part"
libdir=/usr/lib64
[ -e "$root/etc/debian_version" ] && libdir=/usr/lib/x86_64-linux-gnu
mkdir -p "$root$libdir"
for so in libnvidia-ml.so.1 libnvidia-cfg.so.1; do
  lib=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64/ {print $NF; exit}')
  [ -n "$lib" ] || { echo "no $so on this machine"; continue; }
  real=$(readlink -f "$lib"); name=$(basename "$real")
  touch "$root$libdir/$name"
  mount --bind "$real" "$root$libdir/$name" && mount -o remount,bind,ro "$root$libdir/$name"
  ln -sf "$name" "$root$libdir/$so"
  echo "$real -> $libdir/$name, $libdir/$so"
done
ldconfig -r "$root" -f /etc/ld.so.conf -C /etc/ld.so.cache "$libdir" && echo "ldconfig in the image's root: $(ldconfig -r "$root" -p | grep -c nvidia) NVIDIA entries"

echo "== the pod's mounts"
# mount points first (the runtime makes them before the root turns read-only): the DaemonSet's hostPath volumes
# under /host, the config map, the GPU request by volume mount
mkdir -p "$root/host"/{sys,boot,usr/lib,lib/modules,proc/sys/kernel/random,etc/kubernetes/node-feature-discovery/features.d} \
  "$root/etc/node-labeller" "$root/var/run/nvidia-container-devices"
hostfiles="proc/cpuinfo proc/sys/kernel/osrelease proc/sys/kernel/random/boot_id proc/modules proc/swaps etc/os-release"
for f in $hostfiles; do touch "$root/host/$f"; done
touch "$root/var/run/nvidia-container-devices/all"
printf 'core:\n  sleepInterval: 5s\n' > "$root/etc/node-labeller/config.yaml"
mount --rbind "$root" "$root" && mount -o remount,bind,ro "$root" && echo "root read-only" || echo "root NOT read-only here"
for f in $hostfiles; do
  if [ -e "/$f" ]; then mount --bind "/$f" "$root/host/$f" && mount -o remount,bind,ro "$root/host/$f" || status=1
  else echo "/$f: absent on this machine (the DaemonSet's hostPath of type File would keep the pod from starting)"; fi
done
for d in sys boot usr/lib lib/modules; do
  [ -d "/$d" ] && { mount --rbind "/$d" "$root/host/$d" && mount -o remount,bind,ro "$root/host/$d" || status=1; }
done
mount --bind /dev/null "$root/var/run/nvidia-container-devices/all" || status=1
mount -t proc proc "$root/proc" 2>/dev/null || mount --rbind /proc "$root/proc" || status=1
mount --rbind /sys "$root/sys" || status=1
mount -t tmpfs -o mode=755 dev "$root/dev" || status=1
for d in /dev/null /dev/zero /dev/urandom /dev/random /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia[0-9]*; do
  [ -e "$d" ] || continue
  touch "$root$d"; mount --bind "$d" "$root$d" || status=1
done
mount -t tmpfs -o mode=1777 tmp "$root/tmp" || status=1
ls -l "$root/dev" | grep nvidia
touch "$root/probe" 2>/dev/null && { echo "the root is writable"; status=1; }

# the entrypoint as the pod runs it: user and group 65534, the DaemonSet's environment, nothing else
entrypoint=(env -i NODE_NAME=gpu-node-1 NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=utility
  "$(command -v chroot)" --userspec=65534:65534 --groups=65534 "$root"
  /opt/node-labeller/runtime/bin/java -Xshare:on @/opt/node-labeller/node-labeller.args)
run() { "${entrypoint[@]}" "$@"; }

echo "== --version (-Xshare:on: the JVM refuses to start unless the class-data archive maps)"
run --version || status=1
TIMEFORMAT="%R s"
for role in all gpu host; do
  echo "== print --role $role"
  time run print --host-root=/host --role=$role --no-timestamp > "$out/image-print-$role.txt" 2> "$work/err-$role" \
    || status=1
  echo "$(grep -c . "$out/image-print-$role.txt") labels, $(grep -c '^nvidia.com/' "$out/image-print-$role.txt") nvidia.com/"
  cat "$work/err-$role"
done
echo "== the host agent's CPUID labels (the host's boot id is mounted, as the DaemonSet mounts it)"
grep -E "cpu-model|AVX10|APX|sst_bf" "$out/image-print-host.txt"
echo "== print --role all against nvidia-ml-py"
python3 "$here/oracle.py" "$out/image-print-all.txt" > "$work/oracle" || status=1
tail -4 "$work/oracle"
echo "== the two agents of a GPU node: host and gpu together give all"
sort -u "$out/image-print-host.txt" "$out/image-print-gpu.txt" > "$work/union"
sort -u "$out/image-print-all.txt" > "$work/all"
if diff "$work/union" "$work/all"; then echo "host + gpu = all ($(grep -c . "$work/all") labels)"; else status=1; fi
echo "== explain: the NVML facts read in the image"
run explain --host-root=/host 2>&1 | grep -E "nvml" | head -12
echo "== run --role gpu for 20 s (core.noPublish): its log"
printf 'core:\n  sleepInterval: 5s\n  noPublish: true\ndaemon:\n  port: 0\n' > "$work/rest.yaml"
mount --bind "$work/rest.yaml" "$root/etc/node-labeller/config.yaml"
timeout -s TERM 20 "${entrypoint[@]}" run --role=gpu --host-root=/host --config=/etc/node-labeller/config.yaml \
  > "$work/run.log" 2>&1; echo "exit $? (124: stopped by SIGTERM at 20 s)"
cat "$work/run.log"
grep -qE " (WARN|ERROR) |^\s+at " "$work/run.log" && { echo "the GPU agent logged a WARN, ERROR or stack trace"; status=1; }
echo "image check: exit $status"
exit $status
