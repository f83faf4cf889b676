#!/usr/bin/env bash
# The concurrency tests under ThreadSanitizer (preset tsan, build/tsan), as scripts/test.sh's tsan
# stage runs them: the thread pool and parallel_for (core_tests Parallel.*) and, through the C API,
# the thread-safety contract of docs/c-api.md (capi_tests Threads.*; docs/testing.md maps each line
# of the contract to its test), and DataParallel's replicas on their threads (data_parallel_tests
# DataParallel.*, on the test device). Builds only libglia, the test device and those three test
# binaries. A reported race fails the test (halt_on_error, from the ctest preset).
#   scripts/tsan.sh                  ctest --preset tsan
#   scripts/tsan.sh '<gtest filter>' the three binaries with that filter instead
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./scripts/deps.sh >/dev/null
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
jobs=${GLIA_JOBS:-$(nproc)}
[ -f build/tsan/CMakeCache.txt ] || cmake --preset tsan >/dev/null
cmake --build build/tsan -j"$jobs" --target core_tests capi_tests data_parallel_tests glia_testdevice
if [ $# -eq 0 ]; then
  ctest --preset tsan -j"$jobs"
else
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:history_size=4:suppressions=$PWD/tests/tsan.supp}
  build/tsan/tests/core_tests --gtest_filter="$1"
  build/tsan/tests/capi_tests --gtest_filter="$1"
  build/tsan/tests/data_parallel_tests --gtest_filter="$1"
fi
echo "tsan: no data race reported"
