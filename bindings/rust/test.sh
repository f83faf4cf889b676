#!/usr/bin/env bash
# Tests of the Rust binding (glia-sys + glia) and its example, against a CMake build of
# libglia: GLIA_BUILD_DIR (default <repo>/build/release) must hold src/libglia.so. The
# cargo target directory is $GLIA_BUILD_DIR/rust-target (or CARGO_TARGET_DIR when set),
# so the source tree stays clean.
# Skips (exit 0) when cargo is not installed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

cargo=$(command -v cargo || true)
if [ -z "$cargo" ] && [ -x "${CARGO_HOME:-${HOME:-/nonexistent}/.cargo}/bin/cargo" ]; then
  cargo=${CARGO_HOME:-${HOME:-/nonexistent}/.cargo}/bin/cargo
fi
if [ -z "$cargo" ]; then
  echo "bindings/rust: skipped (cargo not found; apt-get install cargo)"
  exit 0
fi

build=${GLIA_BUILD_DIR:-$root/build/release}
if [ ! -e "$build/src/libglia.so" ]; then
  echo "bindings/rust: $build/src/libglia.so not found: build glia first (cmake --preset release &&" \
    "cmake --build build/release) or set GLIA_BUILD_DIR" >&2
  exit 1
fi
build=$(cd "$build" && pwd)

export GLIA_LIB_DIR=$build/src
export LD_LIBRARY_PATH=$build/src${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$build/rust-target}
cd "$here"
echo "bindings/rust: $("$cargo" --version), libglia from $GLIA_LIB_DIR"
"$cargo" test --offline
"$cargo" run --offline --example train
echo "bindings/rust: passed"
