#!/bin/sh
# Makes the root file system of node-labeller's image: only what its runtime loads from the system, as Debian
# packages it, taken from the machine this runs on (the image's build stage):
#
#   bin/minimal-root.sh ROOTFS PACKAGE...      (the Dockerfile: libc6 libgcc-s1 libstdc++6 zlib1g)
#
# For another architecture's image, NODE_LABELLER_TARGET_ROOT names its packages as bin/target-root.sh unpacked them.
#
# The jlink'd java needs glibc (libc, libm, the dynamic loader), libgcc_s, libstdc++ (libjvm) and zlib (java, libjli,
# libzip); JNA's stub and the NVML library the NVIDIA Container Toolkit mounts need glibc alone. Each package's files
# are copied but its documentation, translations and iconv modules; its dpkg record goes to var/lib/dpkg/status.d
# (as distroless images keep them), so that image scanners still see which packages and versions are there. Also:
# /etc/passwd and /etc/group with root and nobody (the image runs as 65534), /etc/ld.so.conf (the toolkit runs
# ldconfig in the container to add the driver's libraries), an empty /tmp.
set -eu

if [ $# -lt 2 ]; then
  echo "usage: $0 ROOTFS PACKAGE..." >&2
  exit 2
fi
mkdir -p "$1"
root=$(cd "$1" && pwd)
shift
# proc, dev and sys: the mount points a container runtime fills (it cannot make them on a read-only root)
mkdir -p "$root/etc/ld.so.conf.d" "$root/tmp" "$root/var/lib/dpkg/status.d" "$root/proc" "$root/dev" "$root/sys"
chmod 1777 "$root/tmp"
# The top-level links of a merged /usr (Debian 12: /lib -> usr/lib, /lib64 -> usr/lib64, ...), as on this machine:
# programs name their loader and libraries by either path
for top in bin sbin lib lib32 lib64 libx32; do
  if [ -L "/$top" ]; then
    mkdir -p "$root/$(readlink -f "/$top")"
    ln -s "$(readlink "/$top")" "$root/$top"
  fi
done
# Another architecture's packages (NODE_LABELLER_TARGET_ROOT, unpacked by bin/target-root.sh): their files from
# there, listed by the .deb files beside it, and their dpkg records from the same .deb files
target=${NODE_LABELLER_TARGET_ROOT:-}
[ -z "$target" ] || target=$(cd "$target" && pwd)
files() {
  if [ -n "$target" ]; then
    dpkg-deb --fsys-tarfile "$(deb "$1")" | tar -t | sed -n 's|^\./|/|p' | grep -v '/$'
  else
    dpkg-query -L "$1"
  fi
}
deb() {
  set -- "$target.debs/$1"_*.deb
  [ -f "$1" ] || { echo "$0: no .deb for it in $target.debs" >&2; exit 1; }
  echo "$1"
}
for pkg in "$@"; do
  files "$pkg" | while IFS= read -r f; do
    case "$f" in
      /usr/share/doc/*|/usr/share/lintian/*|/usr/share/locale/*|/usr/share/gcc/*|/usr/share/gdb/*|*/gconv/*) continue ;;
    esac
    if [ -n "$target" ]; then
      # through the image's top-level links (lib -> usr/lib): the file lands where a merged /usr keeps it
      if [ -L "$target$f" ] || [ -f "$target$f" ]; then
        (cd "$target" && cp -a --parents "${f#/}" "$root")
      fi
    # files and links, each under its full path with its directories resolved (/lib/x86_64-linux-gnu/libc.so.6 goes
    # to /usr/lib/x86_64-linux-gnu/libc.so.6, which the link above also names)
    elif [ -L "$f" ] || [ -f "$f" ]; then
      path=$(readlink -f "$(dirname "$f")")/$(basename "$f")
      (cd / && cp -a --parents "${path#/}" "$root") # cp --parents wants the path relative to where it runs
    fi
  done
  if [ -n "$target" ]; then
    dpkg-deb -f "$(deb "$pkg")" | awk '{ print } /^Package:/ { print "Status: install ok installed" }' \
      > "$root/var/lib/dpkg/status.d/$pkg"
  else
    dpkg-query -s "$pkg" > "$root/var/lib/dpkg/status.d/$pkg"
  fi
done
printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
printf 'include /etc/ld.so.conf.d/*.conf\n' > "$root/etc/ld.so.conf"
echo "minimal root: $root ($(du -sh "$root" | cut -f1)): $*"
