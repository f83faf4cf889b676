#!/usr/bin/env bash
# Builds glia (Release, build/release) and runs the main demo.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/deps.sh
# An existing build directory is reused as it is (whatever generator made it);
# the build step re-runs CMake itself when a CMakeLists.txt changed.
[ -f build/release/CMakeCache.txt ] || cmake --preset release
cmake --build build/release -j "$(nproc)" --target example_tensors example_mlp example_checkpoint
./build/release/examples/tensors
./build/release/examples/mlp
./build/release/examples/checkpoint
