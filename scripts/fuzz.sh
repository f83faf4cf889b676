#!/usr/bin/env bash
# Runs the libFuzzer harnesses (tests/fuzz) under ASan+UBSan: the checkpoint readers' and writers', and the C API's.
#
#   scripts/fuzz.sh [--merge] [SECONDS] [TARGET ...]   run each target SECONDS (default 60)
#   scripts/fuzz.sh --check                             say whether clang and libFuzzer are here
#
# Targets: safetensors zip unpickler checkpoint writer capi autograd (capi and autograd run C-API
# programs, tests/fuzz/capi_support.h); the default is all of them. A finding not fixed yet is
# kept in tests/fuzz/open/ (docs/testing.md, 'C-API fuzzers'), outside the corpora. Builds
# build/fuzz with clang (reused when it exists), then runs each fuzzer on a scratch copy of its seed corpus
# tests/fuzz/corpus/<target> (the committed corpus is never written, except by --merge,
# which by hand minimises the new inputs into it afterwards). One line per target with
# its executions and result; any crash, leak, UB, timeout, or allocation over the limits
# is a finding: the input stays in build/fuzz/findings/, the log in build/fuzz/logs/, and
# the exit status is 1. The last line is "fuzz: N targets, P passed, F failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
root=$PWD
all_targets=(safetensors zip unpickler checkpoint writer capi autograd)
build=build/fuzz

# Whether clang, clang++ and the libFuzzer runtime are installed (prints what is missing).
check_tools() {
  local missing=()
  command -v clang >/dev/null 2>&1 || missing+=(clang)
  command -v clang++ >/dev/null 2>&1 || missing+=(clang++)
  if [ ${#missing[@]} -eq 0 ]; then
    local rt
    rt=$(clang -print-runtime-dir 2>/dev/null)
    [ -f "$rt/libclang_rt.fuzzer-x86_64.a" ] || [ -f "$rt/libclang_rt.fuzzer.a" ] ||
      missing+=("libFuzzer runtime (libclang_rt.fuzzer-x86_64.a in ${rt:-the runtime dir of clang})")
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    echo "fuzz: missing ${missing[*]} (Debian: apt-get install clang libclang-rt-14-dev)"
    return 1
  fi
}

merge=0
seconds=60
targets=()
for arg in "$@"; do
  case $arg in
    --check) check_tools && echo "fuzz: clang and libFuzzer found"; exit $? ;;
    --merge) merge=1 ;;
    -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *[!0-9]*)
      [[ " ${all_targets[*]} " == *" $arg "* ]] || { echo "fuzz: unknown target '$arg' (${all_targets[*]})" >&2; exit 2; }
      targets+=("$arg") ;;
    *) seconds=$arg ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
check_tools >&2 || exit 2

export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
t0=$SECONDS
echo "==== fuzz: build ($build)"
if ! { [ -f "$build/CMakeCache.txt" ] || CC=clang CXX=clang++ cmake -S tests/fuzz -B "$build" -G Ninja; } ||
  ! cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"; then
  echo "fuzz: build failed"
  echo "fuzz: ${#targets[@]} targets, 0 passed, 1 failed (build failed: counts as one failed test)"
  exit 1
fi
echo "==== fuzz: built in $((SECONDS - t0)) s; ${seconds} s per target"

mkdir -p "$build/findings" "$build/logs"
# Leaks are findings; UBSan stops at the first report (the code is built without recovery).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
passed=0
failed=0
for t in "${targets[@]}"; do
  scratch=$build/run/$t
  log=$build/logs/$t.log
  rm -rf "$scratch"
  mkdir -p "$scratch/corpus"
  cp tests/fuzz/corpus/"$t"/* "$scratch/corpus/" 2>/dev/null
  seeds=$(ls "$scratch/corpus" | wc -l)
  # The checkpoint target sees every format: it gets every format's dictionary.
  if [ "$t" = checkpoint ]; then
    cat tests/fuzz/{safetensors,zip,unpickler}.dict >"$scratch/fuzz.dict"
  else
    cp "tests/fuzz/$t.dict" "$scratch/fuzz.dict" 2>/dev/null || : >"$scratch/fuzz.dict"
  fi
  rm -f "$build/findings/$t"-*
  opts=(-max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512
    -print_final_stats=1 -artifact_prefix="$build/findings/$t-")
  [ -s "$scratch/fuzz.dict" ] && opts+=(-dict="$scratch/fuzz.dict")
  "$build/fuzz_$t" "${opts[@]}" "$scratch/corpus" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
  corpus=$(ls "$scratch/corpus" | wc -l)
  artifact=$(ls "$build/findings/$t"-* 2>/dev/null | head -n 1)
  if [ "$rc" -eq 0 ] && [ -z "$artifact" ]; then
    passed=$((passed + 1))
    echo "fuzz $t: OK, ${execs:-?} execs in ${seconds} s, corpus $seeds -> $corpus inputs"
  else
    failed=$((failed + 1))
    what=$(grep -m 1 -E 'terminate called|FUZZ FINDING|runtime error:|^==[0-9]+== ?ERROR' "$log")
    echo "fuzz $t: FINDING (exit $rc) after ${execs:-?} execs: ${what:-see log}"
    echo "    input: ${artifact:-none written}; log: $log; reproduce: $build/fuzz_$t ${artifact:-<input>}"
  fi
  if [ "$merge" -eq 1 ]; then
    before=$(ls "tests/fuzz/corpus/$t" | wc -l)
    "$build/fuzz_$t" -merge=1 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
      "tests/fuzz/corpus/$t" "$scratch/corpus" >"$build/logs/$t.merge.log" 2>&1 ||
      echo "fuzz $t: merge failed (see $build/logs/$t.merge.log)"
    echo "fuzz $t: merged, tests/fuzz/corpus/$t $before -> $(ls "tests/fuzz/corpus/$t" | wc -l) inputs ($(du -sh --apparent-size "tests/fuzz/corpus/$t" | cut -f1))"
  fi
done
echo "fuzz: ${#targets[@]} targets, $passed passed, $failed failed"
[ "$failed" -eq 0 ]
