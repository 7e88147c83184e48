#!/bin/sh
# Builds node-labeller's image from the Dockerfile: with docker (BuildKit) when a Docker engine answers, else with
# buildah (no daemon, no root-owned service: Debian's `buildah` package is enough).
#
#   bin/build-image.sh [--tag TAG] [--platform LIST] [--push] [--layers] [--debian-base] [--build-ca FILE]
#                      [--base-image IMAGE]
#
#   --tag TAG          the image's name (default node-labeller:dev)
#   --platform LIST    linux/amd64, linux/arm64 or both, comma-separated (default: this machine's). With more than
#                      one, TAG is an image index (buildah: a manifest list, each image also tagged TAG-ARCH, e.g.
#                      node-labeller:dev-arm64, for bin/check-image.sh); the build stage runs on this machine's
#                      architecture for every platform (the Dockerfile says how), so no binfmt emulator is needed
#   --push             push TAG (the index and its images) to its registry: buildah manifest push --all, or docker
#                      buildx --push, which a multi-platform docker build needs (the docker engine's own image store
#                      keeps one platform)
#   --layers           buildah only: cache each step as a layer (buildah's default is one layer per stage)
#   --debian-base      no registry to pull debian:bookworm-slim from: make the build stage's base from Debian's
#                      packages with mmdebstrap (minbase bookworm) and import it; DEBIAN_MIRROR names the mirror,
#                      a snapshot pins it (http://snapshot.debian.org/archive/debian/20261101T000000Z)
#   --build-ca FILE    a CA the build's downloads must trust (a TLS-intercepting proxy): a build secret, trusted in
#                      the build stage only, never in the image
#   --base-image IMG   the build stage's base (default: the Dockerfile's, debian:bookworm-slim)
#
# BUILDER=docker|buildah picks the tool. SOURCE_DATE_EPOCH defaults to the last commit's time (the jar's time in the
# image: reproducible), REVISION to its hash. buildah honours its own environment (STORAGE_DRIVER=vfs where overlay
# cannot be mounted; BUILDAH_ISOLATION, chroot here unless set, which needs no runc).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
tag=node-labeller:dev
platforms=
push=
layers=
debian_base=
build_ca=
base_image=
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag=$2; shift 2 ;;
    --platform) platforms=$2; shift 2 ;;
    --push) push=yes; shift ;;
    --layers) layers=--layers; shift ;;
    --debian-base) debian_base=yes; shift ;;
    --build-ca) build_ca=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --base-image) base_image=$2; shift 2 ;;
    *) echo "usage: $0 [--tag TAG] [--platform LIST] [--push] [--layers] [--debian-base] [--build-ca FILE] [--base-image IMAGE]" >&2; exit 2 ;;
  esac
done

if [ -z "${BUILDER:-}" ]; then
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    BUILDER=docker
  elif command -v buildah >/dev/null 2>&1; then
    BUILDER=buildah
  else
    echo "$0: neither a Docker engine nor buildah (apt-get install buildah) is here" >&2
    exit 1
  fi
fi
export BUILDAH_ISOLATION="${BUILDAH_ISOLATION:-chroot}"

if [ -z "${SOURCE_DATE_EPOCH:-}" ] && git rev-parse HEAD >/dev/null 2>&1; then
  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
fi
revision=${REVISION:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}

if [ -n "$debian_base" ]; then
  command -v mmdebstrap >/dev/null 2>&1 || { echo "$0: --debian-base needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 1; }
  base_image=localhost/node-labeller-build-base:bookworm
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # minbase: Essential and apt, as debian:bookworm-slim; SOURCE_DATE_EPOCH makes the tarball reproducible
  SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-} mmdebstrap --variant=minbase --quiet bookworm "$work/base.tar" \
    "${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
  if [ "$BUILDER" = docker ]; then
    docker import "$work/base.tar" "$base_image" >/dev/null
  else
    ctr=$(buildah from scratch)
    buildah add --quiet "$ctr" "$work/base.tar" / >/dev/null # a local tar archive is unpacked
    buildah commit --quiet --rm "$ctr" "$base_image" >/dev/null
  fi
  echo "build stage base: $base_image (mmdebstrap, ${DEBIAN_MIRROR:-http://deb.debian.org/debian})"
fi

set -- --tag "$tag" --file Dockerfile --build-arg "REVISION=$revision"
[ -n "${SOURCE_DATE_EPOCH:-}" ] && set -- "$@" --build-arg "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH"
[ -n "$base_image" ] && set -- "$@" --build-arg "BASE_IMAGE=$base_image"
[ -n "$build_ca" ] && set -- "$@" --secret "id=build-ca,src=$build_ca"

start=$(date +%s)
# Debian 12's buildah (1.28) does not define BUILDPLATFORM itself (the build stage's FROM --platform): this machine's
case "$(uname -m)" in
  x86_64) native=amd64 ;;
  aarch64|arm64) native=arm64 ;;
  *) native=$(uname -m) ;;
esac
if [ "$BUILDER" = docker ]; then
  if [ -n "$platforms" ] || [ -n "$push" ]; then
    docker buildx build ${platforms:+--platform "$platforms"} ${push:+--push} "$@" .
  else
    DOCKER_BUILDKIT=1 docker build "$@" .
  fi
elif [ -z "$platforms" ] || [ "${platforms#*,}" = "$platforms" ]; then
  # one platform: TAG is that image. --pull=false: a base made above, or already here, is used as it is
  buildah bud --pull=false $layers ${platforms:+--platform "$platforms"} --build-arg "BUILDPLATFORM=linux/$native" "$@" .
  [ -z "$push" ] || buildah push "$tag" "docker://$tag"
else
  # several: each image built and tagged TAG-ARCH, then TAG made the index of them
  shift 2 # the --tag pair; each platform gets its own
  images=
  for platform in $(echo "$platforms" | tr ',' ' '); do
    one=$(date +%s)
    buildah bud --pull=false $layers --platform "$platform" --build-arg "BUILDPLATFORM=linux/$native" \
      --tag "$tag-${platform##*/}" "$@" .
    echo "built $tag-${platform##*/} ($platform) in $(( $(date +%s) - one )) s"
    images="$images $tag-${platform##*/}"
  done
  buildah manifest rm "$tag" >/dev/null 2>&1 || buildah rmi "$tag" >/dev/null 2>&1 || true
  buildah manifest create "$tag" >/dev/null
  for image in $images; do
    id=$(buildah images --quiet --no-trunc "$image" | head -1)
    buildah manifest add "$tag" "containers-storage:${id#sha256:}" >/dev/null
  done
  [ -z "$push" ] || buildah manifest push --all --format oci "$tag" "docker://$tag"
fi
echo "built $tag${platforms:+ ($platforms)} with $BUILDER${layers:+ $layers} in $(( $(date +%s) - start )) s"
