#!/usr/bin/env bash
# Tests the Julia binding against a glia build (GLIA_BUILD_DIR, default <repo>/build/release).
# Skipped (exit 77, the automake convention scripts/test.sh reports as skipped) when julia is not on PATH.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GLIA_BUILD_DIR:-$root/build/release}

if ! command -v julia >/dev/null 2>&1; then
  echo "bindings/julia: skipped (julia not found: not installable on Debian 12; tests run where julia is on PATH)"
  exit 77
fi
export GLIA_LIBRARY=${GLIA_LIBRARY:-$(cd "$build/src" && pwd)/libglia.so}
cd "$root"
julia --project=bindings/julia bindings/julia/test/runtests.jl
julia --project=bindings/julia examples/julia/train.jl
echo "bindings/julia: passed"
