#!/bin/sh
# Builds node-labeller's runtime: a jlink'd Java with only the modules the jar needs, the jar, the JVM
# flags and a class-data-sharing (AppCDS) archive trained by runs of `print` and of the daemon.
#
#   bin/build-runtime.sh JAR OUTDIR
#
# OUTDIR afterwards (run it with: OUTDIR/runtime/bin/java @OUTDIR/node-labeller.args ARGS...):
#   runtime/                 the jlink image (java + needed modules)
#   lib/node-labeller.jar    the shaded jar
#   lib/node-labeller.jsa    the AppCDS archive (valid only for this runtime, this jar, at this path)
#   jvm.options              bin/jvm.options, unchanged
#   node-labeller.args       jvm.options + -XX:SharedArchiveFile + -jar: the whole launch in one argfile
#
# The Dockerfile calls it with OUTDIR=/opt/node-labeller; RuntimeImageIT calls it under target/ with the JDK
# running the tests. The JDK is $JAVA_HOME (else the one `java` on PATH belongs to); it needs jdeps, jlink
# and jmods. Extra modules: NODE_LABELLER_EXTRA_MODULES (comma-separated).
#
# For another architecture (the image for arm64 built on amd64): NODE_LABELLER_TARGET_ARCH (Debian's name: arm64,
# amd64) and NODE_LABELLER_TARGET_ROOT, that architecture's packages unpacked by bin/target-root.sh (libc6 libgcc-s1
# libstdc++6 zlib1g openjdk-17-jdk-headless, the same OpenJDK version as this JDK's). The runtime is linked by this
# JDK's jlink from the target's jmods; the training runs here, on a runtime of this machine's architecture, and its
# class list is dumped into the archive by the target's JVM under Debian's qemu-user-static (qemu-aarch64-static -L
# ROOT: no binfmt handler needed), which also runs the final check.
set -eu

if [ $# -ne 2 ]; then
  echo "usage: $0 JAR OUTDIR" >&2
  exit 2
fi
jar=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

if [ -z "${JAVA_HOME:-}" ]; then
  JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
fi
for tool in jdeps jlink; do
  if [ ! -x "$JAVA_HOME/bin/$tool" ]; then
    echo "$0: $JAVA_HOME/bin/$tool not found: a full JDK 17 (with jmods) is needed" >&2
    exit 1
  fi
done
[ -f "$jar" ] || { echo "$0: no jar at $jar (run ./mvnw package first)" >&2; exit 1; }
# the class-data training's loopback API server, compiled with its classpath by ./mvnw compile (or package)
target=$(cd "$here/.." && pwd)/target
[ -d "$target/loopback-classes" ] && [ -f "$target/loopback.classpath" ] \
  || { echo "$0: no $target/loopback-classes or loopback.classpath (run ./mvnw package first)" >&2; exit 1; }

# The target: this machine, or another architecture's unpacked packages run under its emulator
target_arch=${NODE_LABELLER_TARGET_ARCH:-}
if [ -n "$target_arch" ] && [ "$target_arch" != "$(dpkg --print-architecture 2>/dev/null || echo none)" ]; then
  target_root=$(cd "${NODE_LABELLER_TARGET_ROOT:?NODE_LABELLER_TARGET_ROOT: the $target_arch packages (bin/target-root.sh)}" && pwd)
  case "$target_arch" in
    arm64) emulator="qemu-aarch64-static -L $target_root"; jna_arch=linux-aarch64 ;;
    amd64) emulator="qemu-x86_64-static -L $target_root"; jna_arch=linux-x86-64 ;;
    *) echo "$0: no cross build for $target_arch" >&2; exit 1 ;;
  esac
  command -v "${emulator%% *}" >/dev/null 2>&1 || { echo "$0: ${emulator%% *} is needed (apt-get install qemu-user-static)" >&2; exit 1; }
  jmods=$(echo "$target_root"/usr/lib/jvm/java-17-openjdk-"$target_arch"/jmods)
  [ -f "$jmods/java.base.jmod" ] || { echo "$0: no $target_arch jmods under $target_root" >&2; exit 1; }
else
  target_arch=
  emulator=
  jmods=
  case "$(uname -m)" in
    x86_64) jna_arch=linux-x86-64 ;;
    aarch64|arm64) jna_arch=linux-aarch64 ;;
    *) jna_arch=linux-$(uname -m) ;;
  esac
fi

# Modules the classes reference, as jdeps finds them (multi-release jar: the Java 17 view).
modules=$("$JAVA_HOME/bin/jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps "$jar")
# Reached only through service providers, which jdeps cannot see:
#   jdk.crypto.ec  elliptic-curve TLS (ECDHE key exchange, EC certificates) to the API server
modules="$modules,jdk.crypto.ec${NODE_LABELLER_EXTRA_MODULES:+,$NODE_LABELLER_EXTRA_MODULES}"
echo "modules: $modules"

rm -rf "$out"
mkdir -p "$out/lib"
out=$(cd "$out" && pwd)
if [ -n "$target_arch" ]; then
  # this machine's objcopy cannot read the target's ELF files; Debian ships them stripped already
  "$JAVA_HOME/bin/jlink" --module-path "$jmods" \
    --add-modules "$modules" \
    --strip-java-debug-attributes --no-header-files --no-man-pages --compress=2 \
    --output "$out/runtime"
else
  "$JAVA_HOME/bin/jlink" \
    --add-modules "$modules" \
    --strip-debug --no-header-files --no-man-pages --compress=2 \
    --output "$out/runtime"
fi

# No CA bundle: the agent talks to one server, the Kubernetes API, and trusts the CA its kubeconfig or service
# account names (fabric8 adds that CA to the JDK's bundle, so with the bundle any public CA could vouch for the API
# server; client-go trusts the named CA alone, as the agent now does). The ~140 certificates also cost the daemon
# about 1 MiB of heap (docs/performance.md). A server signed by a public CA with no CA configured needs a trust
# store mounted and -Djavax.net.ssl.trustStore (docs/security.md, "The image").
rm -f "$out/runtime/lib/security/cacerts"

cp "$jar" "$out/lib/node-labeller.jar"
# The archive records the jar's modification time in whole seconds and -Xshare:on refuses a jar whose time differs.
# Image builders copy between stages with whole seconds too, some rounding (buildah without --layers: 05.7 s -> 06 s),
# some truncating (buildah --layers: -> 05 s), some setting it to SOURCE_DATE_EPOCH: so the jar gets a whole second,
# SOURCE_DATE_EPOCH when given (a reproducible build), which every one of them keeps.
touch -d "@${SOURCE_DATE_EPOCH:-$(date -r "$out/lib/node-labeller.jar" +%s)}" "$out/lib/node-labeller.jar"
cp "$here/jvm.options" "$out/jvm.options"
java="$out/runtime/bin/java"

# JNA's native stub, taken out of the jar once here: otherwise JNA writes it to a temp file at every start (which
# also pulls in SecureRandom for the file's name). jna.boot.library.path (in the launch file below) points at it.
mkdir -p "$out/lib/native"
(cd "$out/lib/native" && "$JAVA_HOME/bin/jar" xf "$out/lib/node-labeller.jar" "com/sun/jna/$jna_arch/libjnidispatch.so")
if [ -s "$out/lib/native/com/sun/jna/$jna_arch/libjnidispatch.so" ]; then
  mv "$out/lib/native/com/sun/jna/$jna_arch/libjnidispatch.so" "$out/lib/native/libjnidispatch.so"
  rm -rf "$out/lib/native/com"
  jna_flag="-Djna.boot.library.path=$out/lib/native"
else
  rm -rf "$out/lib/native"
  jna_flag="-Djna.nounpack=false"
  echo "no JNA stub for $jna_arch in the jar: JNA unpacks it at every start"
fi

# Class-data sharing: record the classes that `print` and the daemon (`run`, against the loopback API server:
# src/loopback/.../CdsTraining.java) load, then dump them (with the JDK classes they need) into a static
# archive. Same flags as production, so the archive maps at run time. `print` reads the build machine's own host;
# the daemon reads the gpu-server host tree of the tests with the tests' fake libnvidia-ml (one A100), so that the
# NVML path, what GPU nodes run, is in the archive too. The fake is C, built here with gcc; without gcc (or without
# the sources next to this script) the daemon trains on this host without NVML. The training's output is thrown
# away.
training=$(mktemp -d)
trap 'rm -rf "$training"' EXIT
src="$here/../src/test"
if [ -n "$target_arch" ]; then
  # Another architecture: the training runs here, on a runtime of this machine's own, trained as below; its class
  # list names the same classes on every architecture (the jar, the JDK's Linux classes)
  NODE_LABELLER_TARGET_ARCH= NODE_LABELLER_CLASSLIST="$training/classes.lst" "$here/build-runtime.sh" "$jar" \
    "$training/native" > "$training/native.log" 2>&1 || { cat "$training/native.log" >&2; exit 1; }
  grep '^cds training' "$training/native.log" || true
  cp "$training/classes.lst" "$out/lib/classes.lst"
else
  set -- # the training's GPU host: none, or the host tree and the fake library
  if [ -f "$src/c/fake_nvml.c" ] && [ -f "$src/c/fake-nvml-a100.conf" ] && [ -d "$src/resources/hosts/gpu-server" ] \
     && command -v gcc >/dev/null 2>&1; then
    gcc -std=c11 -O1 -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o "$training/libnvidia-ml.so.1" \
      "$src/c/fake_nvml.c" -ldl
    # the fake's answers (format: src/test/c/fake_nvml.c): NVIDIA A100-SXM4-80GB, MIG capable and disabled
    cp "$src/c/fake-nvml-a100.conf" "$training/fake-nvml.conf"
    set -- "$(cd "$src/resources/hosts/gpu-server" && pwd)" "$training/libnvidia-ml.so.1"
  else
    echo "no gcc or no src/test next to $here: the training runs without NVML (GPU nodes load its classes from the jar)"
  fi
  # The training and its API server (src/loopback), as Maven's compile phase left them under target/
  "$JAVA_HOME/bin/java" -cp "$target/loopback-classes:$(cat "$target/loopback.classpath")" io.nodelabeller.loopback.CdsTraining \
    "$java" "$out/jvm.options" "$out/lib/node-labeller.jar" "$out/lib/classes.lst" "$@"
  [ -z "${NODE_LABELLER_CLASSLIST:-}" ] || cp "$out/lib/classes.lst" "$NODE_LABELLER_CLASSLIST"
fi
# the dump by the target's own JVM (under its emulator for another architecture)
$emulator "$java" "@$out/jvm.options" -Xshare:dump -XX:SharedClassListFile="$out/lib/classes.lst" \
  -XX:SharedArchiveFile="$out/lib/node-labeller.jsa" -cp "$out/lib/node-labeller.jar" > "$out/lib/cds-dump.log" 2>&1 \
  || { cat "$out/lib/cds-dump.log" >&2; exit 1; }
rm "$out/lib/classes.lst" "$out/lib/cds-dump.log"

# Argfiles do not nest, so the launch file is jvm.options followed by the archive and the jar.
{ cat "$out/jvm.options"; cat <<ARGS
$jna_flag
-XX:SharedArchiveFile=$out/lib/node-labeller.jsa
-jar
$out/lib/node-labeller.jar
ARGS
} > "$out/node-labeller.args"
# -Xshare:on refuses to start unless the archive maps: the runtime as the image runs it
$emulator "$java" -Xshare:on "@$out/node-labeller.args" --version > /dev/null \
  || { echo "$0: the runtime does not start with its archive (-Xshare:on)" >&2; exit 1; }
echo "runtime: $out (${target_arch:-$(uname -m)}, $(du -sh "$out" | cut -f1))"
