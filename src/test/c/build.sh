#!/bin/sh
# Builds the fake NVML library variants (see fake_nvml.c) into $1 (target/fake-nvml).
# Without gcc the native tests are skipped with a warning, except under CI=true, where that fails the build.
set -eu
out="$1"
src="${0%/*}/fake_nvml.c"
if ! command -v gcc >/dev/null 2>&1; then
    echo "##########################################################################" >&2
    echo "# WARNING: gcc not found: the fake NVML library is not built and every   #" >&2
    echo "# test that needs it (the NVML binding, the nvidia source) is SKIPPED.   #" >&2
    echo "##########################################################################" >&2
    if [ "${CI:-}" = "true" ]; then
        echo "CI=true: gcc is required for the native NVML tests" >&2
        exit 1
    fi
    exit 0
fi
build() {
    mkdir -p "$1"
    gcc -std=c11 -Wall -Wextra -Werror -O1 -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 $2 \
        -o "$1/libnvidia-ml.so.1" "$src" -ldl
}
build "$out" ""
build "$out/no-optional" "-DFAKE_NO_OPTIONAL"
build "$out/no-count-v2" "-DFAKE_NO_COUNT_V2"
