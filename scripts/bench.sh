#!/usr/bin/env bash
# Builds the Release preset and runs benchmarks/glia_bench for the workloads of
# ../shared/design/BENCHMARKS.md in both environment profiles ("as-is":
# OPENBLAS_CORETYPE=Haswell, as these machines set it; "best": unset) at 1 and 2
# threads. Prints one line per measurement, prefixed with the profile; the
# figures go into docs/performance.md by hand, with the date and the machine.
#   scripts/bench.sh [workload ...]      (default: W1 W2 W3 W4 W5 W6)
# GLIA_OWN_GEMM=0 turns off glia's own small-GEMM kernels (Note [Own SGEMM]) for comparisons.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./scripts/deps.sh >/dev/null
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
[ -f build/release/CMakeCache.txt ] || cmake --preset release >/dev/null
cmake --build build/release -j "$(nproc)" --target glia_bench >/dev/null
bench=build/release/benchmarks/glia_bench
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(W1 W2 W3 W4 W5 W6)
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for profile in as-is best; do
  for threads in 1 2; do
    for w in "${workloads[@]}"; do
      if [ "$profile" = as-is ]; then
        OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" "$bench" --workload "$w" --threads "$threads" | sed "s/^/$profile /"
      else
        env -u OPENBLAS_CORETYPE OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" "$bench" --workload "$w" --threads "$threads" | sed "s/^/$profile /"
      fi
    done
  done
done
