#!/usr/bin/env bash
# Builds and tests glia: (a) Release, (b) Debug with ASan+UBSan, (b2) the concurrency tests
# under ThreadSanitizer, (b3) the C-API tests and the golden op suite cross-compiled for aarch64
# and run under qemu-user (scripts/aarch64.sh), (c) each binding's own bindings/<lang>/test.sh
# against the Release build, (d) the fuzzers (checkpoint readers and writer, the C API,
# autograd), 20 s each under ASan+UBSan (scripts/fuzz.sh), (e) the API reference, the Debian
# packages and the Python wheel (scripts/docs.sh, deb-test.sh, wheel-test.sh). Every stage
# runs even when an earlier one failed; the last line is the combined summary in ctest's words,
# and the exit status is non-zero when anything failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
root=$PWD
./scripts/deps.sh || exit 1

# Lets ccache reuse objects across checkouts: CI builds a fresh clone in another directory.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
jobs=$(nproc)
start=$SECONDS
passed=0
failed=0
report=()

# Adds a stage's counts to the totals and its line to the report.
tally() {  # <stage> <passed> <failed> <what>
  passed=$((passed + $2))
  failed=$((failed + $3))
  report+=("$1: $4")
}

# Configures build/<preset> unless it exists (then it is reused as it is), builds it and runs
# its tests (building only the given targets, when there are any). A failed build counts as one
# failed test.
# The CUDA backend's device code is built for one architecture here (GLIA_TEST_CUDA_ARCHITECTURES, default
# 90-real: the H100's SASS), a third of the nvcc time of a release build's three (75-virtual;80-real;90-real);
# the build checks (cuda.backend_library) then expect exactly that list. Only the release preset builds CUDA.
cuda_archs=${GLIA_TEST_CUDA_ARCHITECTURES:-90-real}
run_preset() {  # <preset> [target ...]
  local preset=$1 dir=build/$1 t0=$SECONDS
  shift
  local targets=() configure=()
  [ $# -eq 0 ] || targets=(--target "$@")
  [ "$preset" != release ] || configure=("-DGLIA_CUDA_ARCHITECTURES=$cuda_archs")
  echo "==== $preset: build ($dir${*:+: $*})"
  if ! { [ -f "$dir/CMakeCache.txt" ] || cmake --preset "$preset" "${configure[@]}"; } ||
    ! cmake --build "$dir" -j "$jobs" "${targets[@]}"; then
    tally "$preset" 0 1 "build failed"
    return 1
  fi
  echo "==== $preset: ctest"
  ctest --preset "$preset" -j "$jobs" 2>&1 | tee "$dir/ctest.log"
  local rc=${PIPESTATUS[0]} summary n_total=0 n_failed=0
  summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$dir/ctest.log" | tail -n 1)
  [ -z "$summary" ] || read -r n_failed n_total < <(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1 \2/' <<<"$summary")
  if [ "$rc" -ne 0 ] && [ "$n_failed" -eq 0 ]; then
    # ctest itself failed (e.g. a test binary could not be listed): count it as a failure.
    n_failed=1
    n_total=$((n_total + 1))
  fi
  tally "$preset" $((n_total - n_failed)) "$n_failed" \
    "${summary:-no test summary (ctest exit status $rc)} ($((SECONDS - t0)) s)"
}

run_preset release
release_ok=$?
run_preset asan

# (b2) ThreadSanitizer: the concurrency tests (ctest preset tsan: core_tests Parallel.*, capi_tests
# Threads.*, data_parallel_tests DataParallel.*; docs/testing.md) in build/tsan. Only libglia, the
# test device and those three test binaries are built, to keep CI's time down; a reported data race
# fails its test. A failed build counts as one failed test.
run_preset tsan core_tests capi_tests data_parallel_tests glia_testdevice

# (b3) aarch64: scripts/aarch64.sh cross-compiles libglia, capi_tests and ops_tests (with the test device)
# in build/aarch64 with Debian's aarch64 cross toolchain at -O1 and runs them under qemu-aarch64 (ctest
# preset aarch64: the labels capi and ops; docs/testing.md). Correctness only, no timing. Exit status 77:
# skipped, the cross toolchain or the arm64 packages are missing (counted neither way); a failed build
# counts as one failed test.
t0=$SECONDS
mkdir -p build
./scripts/aarch64.sh 2>&1 | tee build/aarch64.log
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 77 ]; then
  why=$(grep -E '^aarch64: skipped: ' build/aarch64.log | tail -n 1)
  tally aarch64 0 0 "skipped (${why#aarch64: skipped: })"
else
  summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' build/aarch64.log | tail -n 1)
  if [ -n "$summary" ]; then
    read -r n_failed n_total < <(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1 \2/' <<<"$summary")
    [ "$rc" -ne 0 ] && [ "$n_failed" -eq 0 ] && n_failed=1 && n_total=$((n_total + 1))
    tally aarch64 $((n_total - n_failed)) "$n_failed" "$summary ($((SECONDS - t0)) s)"
  elif grep -qE '^aarch64: build failed' build/aarch64.log; then
    tally aarch64 0 1 "build failed ($((SECONDS - t0)) s)"
  else
    tally aarch64 0 1 "no test summary (scripts/aarch64.sh exit status $rc, $((SECONDS - t0)) s)"
  fi
fi

# (c) Bindings: each bindings/<lang>/test.sh gets the Release build in GLIA_BUILD_DIR and counts as one test
# (exit status 77: skipped, its toolchain is missing).
for dir in bindings/*/; do
  lang=$(basename "$dir")
  if [ ! -f "$dir/test.sh" ]; then
    echo "==== bindings/$lang: skipped (no bindings/$lang/test.sh)"
  elif [ "$release_ok" -ne 0 ]; then
    echo "==== bindings/$lang: skipped (the Release build failed)"
  else
    echo "==== bindings/$lang: test.sh"
    t0=$SECONDS
    # Exit status 77: the language's toolchain is missing here (skipped, counted neither way).
    GLIA_BUILD_DIR=$root/build/release bash "$dir/test.sh"
    rc=$?
    if [ "$rc" -eq 0 ]; then
      tally "bindings/$lang" 1 0 "passed ($((SECONDS - t0)) s)"
    elif [ "$rc" -eq 77 ]; then
      tally "bindings/$lang" 0 0 "skipped (its toolchain is not installed)"
    else
      tally "bindings/$lang" 0 1 "FAILED ($((SECONDS - t0)) s)"
    fi
  fi
done

# (d) Fuzzing: scripts/fuzz.sh builds build/fuzz with clang and runs each fuzzer
# GLIA_FUZZ_SECONDS (default 20: a regression check from the seed corpora; the hour-long runs are in
# docs/testing.md) s; each target counts as one test, a failed build as one
# failed test. Skipped when clang or libFuzzer is missing (deps.sh installs them as root).
if ! why=$(./scripts/fuzz.sh --check 2>&1); then
  echo "==== fuzz: skipped (${why#fuzz: })"
  tally fuzz 0 0 "skipped (${why#fuzz: })"
else
  t0=$SECONDS
  mkdir -p build
  ./scripts/fuzz.sh "${GLIA_FUZZ_SECONDS:-20}" 2>&1 | tee build/fuzz.log
  summary=$(grep -E '^fuzz: [0-9]+ targets, [0-9]+ passed, [0-9]+ failed' build/fuzz.log | tail -n 1)
  if [ -n "$summary" ]; then
    read -r n_passed n_failed < <(sed -E 's/^fuzz: [0-9]+ targets, ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$summary")
    tally fuzz "$n_passed" "$n_failed" "${summary#fuzz: } ($((SECONDS - t0)) s)"
  else
    tally fuzz 0 1 "scripts/fuzz.sh gave no summary ($((SECONDS - t0)) s)"
  fi
fi

# (e) Packaging and documentation: each script gets the Release build in GLIA_BUILD_DIR and
# counts as one test; exit status 77 means skipped (it says why). Each is also run by hand.
#   docs:  scripts/docs.sh          the Doxygen API reference, warnings are errors
#   deb:   scripts/deb-test.sh      cpack -G DEB, dpkg -i, C/CMake/Rust/Go consumers, dpkg -r
#   wheel: scripts/wheel-test.sh    the Python wheel, installed offline into a fresh venv
for stage in docs:scripts/docs.sh deb:scripts/deb-test.sh wheel:scripts/wheel-test.sh; do
  name=${stage%%:*} script=${stage#*:}
  if [ ! -f "$script" ]; then
    echo "==== $name: skipped (no $script)"
  elif [ "$release_ok" -ne 0 ]; then
    echo "==== $name: skipped (the Release build failed)"
  else
    echo "==== $name: $script"
    t0=$SECONDS
    GLIA_BUILD_DIR=$root/build/release bash "$script"
    rc=$?
    if [ "$rc" -eq 0 ]; then
      tally "$name" 1 0 "passed ($((SECONDS - t0)) s)"
    elif [ "$rc" -eq 77 ]; then
      tally "$name" 0 0 "skipped ($((SECONDS - t0)) s)"
    else
      tally "$name" 0 1 "FAILED ($((SECONDS - t0)) s)"
    fi
  fi
done

total=$((passed + failed))
percent=100
if [ "$total" -gt 0 ]; then
  percent=$((passed * 100 / total))
  [ "$failed" -gt 0 ] && [ "$percent" -eq 100 ] && percent=99
fi
echo "==== summary (release + asan + tsan + aarch64 + bindings + fuzz + docs/packages, $((SECONDS - start)) s)"
printf '%s\n' "${report[@]}"
echo "${percent}% tests passed, ${failed} tests failed out of ${total}"
[ "$failed" -eq 0 ]
