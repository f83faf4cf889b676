#!/usr/bin/env bash
# Builds glia (Release, build/release) and runs the main demo: LeNet trained on
# Fashion-MNIST through the C ABI (examples/c/fashion_mnist.c; 5 epochs, then the
# model is saved as safetensors, reloaded and checked). Extra arguments go to the
# demo, e.g. scripts/demo.sh --threads 1 --epochs 2 (see --help).
# scripts/demo.sh --ddp N runs it data-parallel: N processes under glia-run
# (tools/glia-run), each training on its share of every batch (DistributedDataParallel
# over Gloo); rank 0 prints.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ddp_procs=0
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = --ddp ]; then
    [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "demo: --ddp needs a number of processes, e.g. --ddp 2" >&2; exit 2; }
    ddp_procs=$2
    shift 2
  else
    args+=("$1")
    shift
  fi
done
set -- ${args[@]+"${args[@]}"}

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
if [ "$ddp_procs" -gt 0 ]; then
  cmake --build build/release -j "$(nproc)" --target example_fashion_mnist glia-run
  exec ./build/release/tools/glia-run/glia-run --nproc-per-node "$ddp_procs" -- ./build/release/examples/fashion_mnist --ddp "$@"
fi
cmake --build build/release -j "$(nproc)" --target example_fashion_mnist
exec ./build/release/examples/fashion_mnist "$@"
