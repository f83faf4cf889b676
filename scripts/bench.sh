#!/usr/bin/env bash
# The benchmark suite of ../shared/design/BENCHMARKS.md: glia against libtorch (Debian's
# libtorch-dev), side by side.
#   scripts/bench.sh [options] [W1 W2 ... W8]      (default: all of W1-W8)
# Builds the Release preset (glia_bench, the Fashion-MNIST demo, the W8 programs, and torch_bench
# when libtorch is installed), then for each workload, profile ("as-is": OPENBLAS_CORETYPE=Haswell,
# as these machines set it, OPENBLAS_NUM_THREADS = threads; "best": unset, one BLAS thread per
# intra-op thread) and thread count (1, 2; OMP_NUM_THREADS set to match) runs glia and libtorch
# alternately (glia, torch, glia, torch, ...: ROUNDS rounds), each run printing the median of its own repetitions; the figure kept is the median of
# those medians. Then benchmarks/bench_report.py prints the table of medians and ratios (speedups:
# > 1 means glia is faster, or smaller), writes JSON lines (one per row x profile x threads), draws the
# chart (gnuplot) and regenerates the block between <!-- bench:begin --> and <!-- bench:end --> at the
# top of docs/performance.md (the rest of that page is hand-written and left as it is).
#
# W7 runs examples/fashion_mnist (the README demo) for glia and torch_bench for libtorch, 1 epoch per
# measurement unless --full. W8 is the footprint: (a) libglia.so and the ldd closure of a minimal
# program (benchmarks/w8_cold.c) against the same for libtorch (w8_cold_torch.cpp), (b) their cold
# start (w8_spawn: fork + exec + wait, median), (c) the peak RSS of a process after 200 W4 steps.
# W10 (only when named; printed, not part of the report or docs/performance.md) is one epoch of the
# W7 recipe data-parallel: the demo with 1 process and with 2 under glia-run (fashion_mnist --ddp,
# one thread each), against PyTorch 1.13's DistributedDataParallel over Gloo
# (benchmarks/w10_torch_ddp.py; /usr/bin/python3) with 2 processes under the same launcher, and
# benchmarks/w7_torch.py as its 1 process: the median epoch time of each, the 2-process/1-process
# ratios and glia's speedup.
#
# Options:
#   --quick              fewer rounds and repetitions (2 rounds of 5; W7 and W8 once). Took 17 min
#                        at load 9-10 on 2 cores, most of it libtorch's 2-thread runs collapsing
#                        (its OpenMP threads spin); expect well under 10 min on a quiet machine
#   --full               W7 trains the full recipe (5 epochs per measurement, accuracy target checked)
#   --rounds K           rounds of glia/libtorch pairs (default 3; --quick 2)
#   --reps R             repetitions inside each run (default 7; --quick 5)
#   --threads "1 2"      thread counts;  --profiles "as-is best"  profiles
#   --no-torch           glia only (also what happens when libtorch is not installed)
#   --install-libtorch   apt-get install libtorch-dev first (large; as root, else prints the command)
#   --out PATH           the JSON lines (default benchmarks/results/latest.jsonl; the raw lines go
#                        next to it as <name>.raw)
#   --chart PATH         the PNG chart (default docs/images/bench.png)
#   --no-docs            do not touch docs/performance.md
# GLIA_OWN_GEMM=0 turns off glia's own small-GEMM kernels (Note [Own SGEMM]) for comparisons.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

quick=0 full=0 rounds= reps= threads_list="1 2" profiles="as-is best" torch=1 install_torch=0
out=benchmarks/results/latest.jsonl chart=docs/images/bench.png docs=1
workloads=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --full) full=1 ;;
    --rounds) rounds=$2; shift ;;
    --reps) reps=$2; shift ;;
    --threads) threads_list=$2; shift ;;
    --profiles) profiles=$2; shift ;;
    --no-torch) torch=0 ;;
    --install-libtorch) install_torch=1 ;;
    --out) out=$2; shift ;;
    --chart) chart=$2; shift ;;
    --no-docs) docs=0 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    W[1-8] | W10) workloads+=("$1") ;;
    *) echo "bench.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#workloads[@]} -gt 0 ] || workloads=(W1 W2 W3 W4 W5 W6 W7 W8)
w10=0
for i in "${!workloads[@]}"; do
  if [ "${workloads[$i]}" = W10 ]; then w10=1; unset 'workloads[i]'; fi
done
workloads=(${workloads[@]+"${workloads[@]}"})
if [ "$quick" = 1 ]; then
  rounds=${rounds:-2} reps=${reps:-5} w7_rounds=1 w8_rounds=1 spawns=5
else
  rounds=${rounds:-3} reps=${reps:-7} w7_rounds=2 w8_rounds=2 spawns=20
fi
epochs=1
if [ "$full" = 1 ]; then epochs=5 w7_rounds=1; fi
start_time=$(date +%s) load_start=$(cut -d" " -f1-3 /proc/loadavg 2>/dev/null || echo "?")

if [ "$install_torch" = 1 ] && ! dpkg-query -W -f='${db:Status-Abbrev}' libtorch-dev 2>/dev/null | grep -q '^ii'; then
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y libtorch-dev
  else
    echo "bench.sh: libtorch-dev is not installed; run: sudo apt-get install -y libtorch-dev" >&2
    exit 1
  fi
fi

# The chart needs gnuplot (small): installed as root, else the report says the chart was skipped.
if ! command -v gnuplot >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y gnuplot-nox; } >/dev/null ||
      echo "bench.sh: could not install gnuplot-nox: no chart" >&2
  else
    echo "bench.sh: no gnuplot (sudo apt-get install -y gnuplot-nox): no chart" >&2
  fi
fi

# ---- Build ----------------------------------------------------------------------------------------
./scripts/deps.sh >/dev/null
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
build=build/release
[ -f $build/CMakeCache.txt ] || cmake --preset release >/dev/null
cmake $build >/dev/null # picks up a libtorch installed since the last configure
targets=(glia_bench example_fashion_mnist w8_cold w8_spawn)
[ "$w10" = 1 ] && targets+=(glia-run)
if [ "$torch" = 1 ] && grep -q '^Torch_DIR:PATH=.*cmake/Torch$' $build/CMakeCache.txt; then
  targets+=(torch_bench w8_cold_torch)
elif [ "$torch" = 1 ]; then
  echo "bench.sh: libtorch not found (scripts/bench.sh --install-libtorch, or apt-get install libtorch-dev): glia only" >&2
  torch=0
fi
echo "building ${targets[*]} (Release)..." >&2
cmake --build $build -j "$(nproc)" --target "${targets[@]}" >/dev/null
glia_bench=$build/benchmarks/glia_bench torch_bench=$build/benchmarks/torch_bench
demo=$build/examples/fashion_mnist

# ---- Measure --------------------------------------------------------------------------------------
mkdir -p "$(dirname "$out")"
raw=${out%.jsonl}.raw
[ ${#workloads[@]} -eq 0 ] || : >"$raw" # W10 alone leaves the last suite run's raw lines
# run PROFILE THREADS COMMAND...: the command under the profile's environment, the same for both
# sides. as-is: OPENBLAS_CORETYPE=Haswell, OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = threads (a user who
# sets both to the thread count; libtorch's OpenMP pool then calls a multi-threaded OpenBLAS). best:
# OPENBLAS_CORETYPE unset and one BLAS thread per intra-op thread (OPENBLAS_NUM_THREADS=1), libtorch's
# best setting. glia runs OpenBLAS single-threaded on its own pool either way (Note [BLAS threads]);
# W6's cblas_sgemm baseline sets its thread count itself (openblas_set_num_threads).
run() {
  local profile=$1 threads=$2
  shift 2
  if [ "$profile" = as-is ]; then
    OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads "$@"
  else
    env -u OPENBLAS_CORETYPE OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS=1 "$@"
  fi
}
# record PROFILE THREADS SIDE: appends the "<id> threads=.. median=<v> unit=<u>" lines of stdin to $raw.
record() {
  awk -v p="$1" -v t="$2" -v s="$3" '$2 ~ /^threads=/ && $3 ~ /^median=/ {
    sub(/median=/, "", $3); sub(/unit=/, "", $4); print p, t, s, $1, $3, $4; print p, t, s, $1, $3, $4 > "/dev/stderr" }' \
    >>"$raw"
}
# The demo's epoch lines ("epoch 1/5: train loss 0.5810  3.10 s  19355 img/s  test accuracy 0.8312 ...")
# in the benchmark format: the median epoch time and the accuracy after the last epoch.
demo_lines() {
  awk -v t="$1" '/^epoch [0-9]+\/[0-9]+: / { sec = 0; for (i = 1; i <= NF; ++i) { if ($i == "s" && !sec) sec = $(i - 1);
      if ($i == "accuracy") acc = $(i + 1) } print > "/dev/stderr"
      for (j = n++; j > 0 && s[j - 1] > sec + 0; --j) s[j] = s[j - 1]; s[j] = sec + 0 }
    END { if (!n) exit 1; printf "W7 threads=%d median=%s unit=s/epoch\nW7-accuracy threads=%d median=%s unit=accuracy\n", t, s[int(n / 2)], t, acc }'
}
# closure PROGRAM: "<libraries> <MiB>", the files ldd resolves for PROGRAM (symlinks followed).
closure() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u |
    xargs stat -L -c %s | awk '{ n++; s += $1 } END { printf "%d %.1f\n", n, s / 1048576 }'
}
# the main library's own files: libglia.so; libtorch's libtorch*.so and libc10.so that ldd lists. Each
# is measured as installed, stripped of its symbol table (strip --strip-unneeded: what cmake --install
# --strip and Debian's packages ship; Debian's libtorch files already are, the build tree's libglia not).
own_lib_mib() {
  local f total=0 tmp
  tmp=$(mktemp)
  for f in $(ldd "$1" | awk -v re="$2" '$1 ~ re && $3 ~ /^\// { print $3 }' | sort -u); do
    strip --strip-unneeded -o "$tmp" "$(readlink -f "$f")"
    total=$((total + $(stat -c %s "$tmp")))
  done
  rm -f "$tmp"
  awk -v s="$total" 'BEGIN { printf "%.2f\n", s / 1048576 }'
}

sides=(glia)
[ "$torch" = 1 ] && sides+=(torch)
# W10: one epoch, 1 and 2 processes of one thread each, glia (the demo) and torch DDP over Gloo, all
# under glia-run, in the best profile; `w10_rounds` rounds, each side alternating.
if [ "$w10" = 1 ]; then
  glia_run=$build/tools/glia-run/glia-run
  python=python3
  [ -x /usr/bin/python3 ] && python=/usr/bin/python3
  w10_torch=0
  if [ "$torch" = 1 ] || "$python" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
    w10_torch=1
  fi
  w10_file=$(mktemp)
  # w10_epoch NAME: the epoch time of the demo's "epoch 1/1: ... 13.03 s ..." line or of the torch JSON line.
  w10_epoch() {
    awk -v name="$1" '/^epoch 1\/1: / { for (i = 1; i <= NF; ++i) if ($i == "s") { print name, $(i - 1); exit } }
      /"seconds": / { sub(/.*"seconds": /, ""); sub(/[,}].*/, ""); print name, $0; exit }'
  }
  for ((round = 1; round <= w7_rounds; ++round)); do
    for procs in 1 2; do
      echo "== W10 glia, $procs process(es), round $round" >&2
      ddp=(--ddp)
      [ "$procs" = 1 ] && ddp=() # the W7 demo itself
      run best 1 "$glia_run" --nproc-per-node "$procs" -- "$demo" "${ddp[@]}" --epochs 1 --threads 1 --min-accuracy 0 |
        w10_epoch "glia-$procs" >>"$w10_file"
      if [ "$w10_torch" = 1 ]; then
        echo "== W10 torch DDP (Gloo), $procs process(es), round $round" >&2
        script=benchmarks/w10_torch_ddp.py
        [ "$procs" = 1 ] && script=benchmarks/w7_torch.py # W7 in PyTorch, no DDP
        run best 1 "$glia_run" --nproc-per-node "$procs" -- "$python" $script --threads 1 --epochs 1 |
          w10_epoch "torch-$procs" >>"$w10_file"
      fi
    done
  done
  echo "W10: one epoch of W7, one thread per process, launched by glia-run; median seconds per epoch" \
    "($w7_rounds round(s); load $(cut -d" " -f1-3 /proc/loadavg))"
  awk '{ t[$1] = t[$1] " " $2 }
    END {
      for (k in t) { n = split(t[k], v, " "); for (i = 2; i <= n; ++i) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; --j) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
        m[k] = v[int((n + 1) / 2)] }
      printf "  glia   1 process %7.2f s   2 processes %7.2f s   ratio %.2f (target <= 0.6)\n", m["glia-1"], m["glia-2"], m["glia-2"] / m["glia-1"]
      if ("torch-2" in m) {
        printf "  torch  1 process %7.2f s   2 processes %7.2f s   ratio %.2f\n", m["torch-1"], m["torch-2"], m["torch-2"] / m["torch-1"]
        printf "  glia with 2 processes vs torch DDP (Gloo): %.2fx faster (target >= 2)\n", m["torch-2"] / m["glia-2"]
      }
    }' "$w10_file"
  rm -f "$w10_file"
  [ ${#workloads[@]} -gt 0 ] || exit 0
fi

for w in "${workloads[@]}"; do
  for profile in $profiles; do
    for threads in $threads_list; do
      echo "== $w $profile threads=$threads" >&2
      k=$rounds
      [ "$w" = W7 ] && k=$w7_rounds
      [ "$w" = W8 ] && k=$w8_rounds
      for ((round = 1; round <= k; ++round)); do
        for side in "${sides[@]}"; do
          case "$w:$side" in
            W7:glia) run "$profile" "$threads" "$demo" --epochs "$epochs" --threads "$threads" --min-accuracy 0 |
              demo_lines "$threads" | record "$profile" "$threads" glia ;;
            W7:torch) run "$profile" "$threads" "$torch_bench" --workload W7 --epochs "$epochs" --threads "$threads" |
              awk '{ print; print > "/dev/stderr" }' | record "$profile" "$threads" torch ;;
            W8:glia | W8:torch)
              if [ "$side" = glia ]; then bench=$glia_bench cold=$build/benchmarks/w8_cold lib='libglia[.]so'; else
                bench=$torch_bench cold=$build/benchmarks/w8_cold_torch lib='^lib(torch|c10)'; fi
              run "$profile" "$threads" "$bench" --workload W8 --threads "$threads" | record "$profile" "$threads" "$side"
              run "$profile" "$threads" $build/benchmarks/w8_spawn W8-cold "$spawns" "$cold" |
                sed "s/threads=1/threads=$threads/" | record "$profile" "$threads" "$side"
              read -r libs mib < <(closure "$cold")
              { echo "W8-closure threads=$threads median=$mib unit=MiB"
                echo "W8-libraries threads=$threads median=$libs unit=count"
                echo "W8-lib threads=$threads median=$(own_lib_mib "$cold" "$lib") unit=MiB"; } |
                record "$profile" "$threads" "$side" ;;
            *:glia) run "$profile" "$threads" "$glia_bench" --workload "$w" --threads "$threads" --reps "$reps" |
              record "$profile" "$threads" glia ;;
            *:torch) run "$profile" "$threads" "$torch_bench" --workload "$w" --threads "$threads" --reps "$reps" |
              record "$profile" "$threads" torch ;;
          esac
        done
      done
    done
  done
done

# ---- Report ---------------------------------------------------------------------------------------
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
mode=standard
if [ "$quick" = 1 ]; then mode=quick; fi
if [ "$full" = 1 ]; then mode="$mode, full W7"; fi
args=(--raw "$raw" --out "$out" --chart "$chart" --rounds "$rounds" --reps "$reps" --epochs "$epochs"
  --seconds "$(($(date +%s) - start_time))" --load-start "$load_start" --mode "$mode")
if [ "$docs" = 1 ]; then args+=(--docs docs/performance.md); fi
"$python" benchmarks/bench_report.py "${args[@]}"
