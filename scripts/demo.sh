#!/usr/bin/env bash
# Builds glia (Release, build/release) and runs the main demo: LeNet trained on
# Fashion-MNIST through the C ABI (examples/c/fashion_mnist.c; 5 epochs, then the
# model is saved as safetensors, reloaded and checked). Extra arguments go to the
# demo, e.g. scripts/demo.sh --threads 1 --epochs 2 (see --help).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/deps.sh
data=/usr/share/datasets/fashion-mnist
data_given=0
for arg in "$@"; do [ "$arg" = --data ] && data_given=1; done
if [ "$data_given" -eq 0 ] && [ ! -d "$data" ]; then
  if [ "$(id -u)" -eq 0 ]; then
    apt-get install -y dataset-fashion-mnist
  else
    echo "demo: $data is missing; install it with: sudo apt-get install -y dataset-fashion-mnist" >&2
    exit 1
  fi
fi
# An existing build directory is reused as it is (whatever generator made it);
# the build step re-runs CMake itself when a CMakeLists.txt changed.
[ -f build/release/CMakeCache.txt ] || cmake --preset release
cmake --build build/release -j "$(nproc)" --target example_fashion_mnist
exec ./build/release/examples/fashion_mnist "$@"
