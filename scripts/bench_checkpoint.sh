#!/usr/bin/env bash
# Checkpoint loading, glia vs torch, on the same ~100 MB ResNet-50 weights:
# builds benchmarks/checkpoint_load (Release), which writes the safetensors file
# and times glia_tensor_dict_load (then the same weights as a torch.save zip file,
# whose stored entries are viewed too), then runs benchmarks/checkpoint_load_torch.py
# (torch.save + torch.load of the same weights; safetensors.torch.load_file when
# that package is installed). Prints one line per measurement; the figures go into
# docs/performance.md by hand, with the date and the machine.
#   scripts/bench_checkpoint.sh [reps]        (default 20)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
reps=${1:-20}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
[ -f build/release/CMakeCache.txt ] || cmake --preset release >/dev/null
cmake --build build/release -j "$(nproc)" --target checkpoint_load >/dev/null
file=$(mktemp -d)/resnet50.safetensors
trap 'rm -rf "$(dirname "$file")"' EXIT
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
build/release/benchmarks/checkpoint_load --file "$file" --reps "$reps"
build/release/benchmarks/checkpoint_load --file "${file%.safetensors}.pt" --reps "$reps" --format torch
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  /usr/bin/python3 benchmarks/checkpoint_load_torch.py "$file" --reps "$reps"
else
  echo "torch_load skipped: /usr/bin/python3 has no torch"
fi
