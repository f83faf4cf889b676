#!/usr/bin/env bash
# The concurrency tests under ThreadSanitizer (preset tsan, build/tsan): the
# thread pool and parallel_for (core_tests Parallel*), and through the C API
# the handle registry, the allocator and its statistics, per-thread grad mode
# and one module shared by several inference threads (capi_tests Threads.*).
# A reported race fails the run (halt_on_error). Not part of scripts/test.sh:
# a third full build would not fit CI's time budget on two cores.
#   scripts/tsan.sh [extra gtest filter, default: the concurrency tests]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./scripts/deps.sh >/dev/null
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
jobs=${GLIA_JOBS:-$(nproc)}
cmake --preset tsan >/dev/null
cmake --build build/tsan -j"$jobs" --target core_tests capi_tests
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
filter=${1:-}
build/tsan/tests/core_tests --gtest_filter="${filter:-*Parallel*:*Pool*}"
build/tsan/tests/capi_tests --gtest_filter="${filter:-Threads.*:*Blob*:*Inference*}"
echo "tsan: no data race reported"
