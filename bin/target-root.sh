#!/bin/sh
# The files of another architecture's Debian packages, unpacked and never run: what a cross build of the image
# takes from that architecture (its OpenJDK's jmods, its C libraries), on a Debian machine of the build's own
# architecture (the Dockerfile's build stage). No emulator is needed to unpack; one is needed to run what is
# unpacked (Debian's qemu-user-static: qemu-aarch64-static -L DIR DIR/PROGRAM), and only for the class-data dump.
#
#   bin/target-root.sh ARCH DIR PACKAGE...      (ARCH as Debian names it: arm64, amd64)
#
# DIR afterwards: the packages' files as installed (DIR/usr/lib/jvm/java-17-openjdk-ARCH/jmods, DIR/lib/ld-linux-
# aarch64.so.1, ...), and DIR.debs/ the .deb files themselves (bin/minimal-root.sh reads the image's packages from
# there). The versions are what this machine's apt sources hold now, so the same apt-get update gives the build's
# own JDK and the target's jmods in the same version, which jlink requires.
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 ARCH DIR PACKAGE..." >&2
  exit 2
fi
arch=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
shift 2
debs="$dir.debs"
mkdir -p "$debs"
if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
  dpkg --add-architecture "$arch"
  apt-get update -q >/dev/null
fi
for pkg in "$@"; do
  set -- "$@" "$pkg:$arch"
  shift
done
(cd "$debs" && apt-get download -q "$@" >/dev/null)
for deb in "$debs"/*.deb; do
  dpkg-deb -x "$deb" "$dir"
done
echo "target root: $dir ($arch, $(du -sh "$dir" | cut -f1)): $(cd "$debs" && ls | tr '\n' ' ')"
