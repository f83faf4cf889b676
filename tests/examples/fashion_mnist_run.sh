#!/bin/sh
# Runs examples/c/fashion_mnist.c for tests/examples/fashion_mnist.cmake and
# checks its exit status and output:
#   fashion_mnist_run.sh train DATA_DIR PROGRAM ARGS...
#     exit 77 (skip) when DATA_DIR is absent; otherwise PROGRAM --data DATA_DIR
#     ARGS must exit 0, print the summary of epoch 1, report that the reloaded
#     model predicts the same, and
#     print "test accuracy: 0.XXXX" as its last line.
#   fashion_mnist_run.sh fail STATUS MESSAGE PROGRAM ARGS...
#     PROGRAM ARGS must exit with STATUS, print MESSAGE (exactly: the whole of
#     stderr) and nothing on stdout.
#   fashion_mnist_run.sh ddp DATA_DIR GLIA_RUN NPROC PROGRAM ARGS...
#     exit 77 (skip) when DATA_DIR is absent; otherwise PROGRAM --data DATA_DIR
#     ARGS (one process) and glia-run --nproc-per-node NPROC PROGRAM --ddp
#     --data DATA_DIR ARGS must both exit 0; the data-parallel run must print
#     one epoch summary per epoch and one "test accuracy: 0.XXXX" line (rank 0
#     alone prints), last; its epoch-1 train loss must be within 0.0003 of the
#     single process's and its accuracy within 0.005.
#   fashion_mnist_run.sh below MESSAGE PROGRAM ARGS...
#     PROGRAM ARGS must train, exit 1 with MESSAGE (the whole of stderr) and
#     still print "test accuracy: 0.XXXX" as its last line.
mode=$1
shift
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
case $mode in
train)
  data=$1
  shift
  if [ ! -d "$data" ]; then
    echo "skipped: $data is absent (apt-get install dataset-fashion-mnist)"
    exit 77
  fi
  program=$1
  shift
  "$program" --data "$data" "$@" >"$out" 2>"$err"
  status=$?
  cat "$out" "$err"
  [ "$status" -eq 0 ] || { echo "FAIL: exit status $status, expected 0"; exit 1; }
  grep -Eq "^epoch 1/[0-9]+: train loss [0-9.]+ .* test accuracy [01]\.[0-9]{4}" "$out" || { echo "FAIL: no epoch summary"; exit 1; }
  grep -q "reloaded into a fresh model: same predictions on all" "$out" || { echo "FAIL: no reload check"; exit 1; }
  tail -n 1 "$out" | grep -Eqx "test accuracy: [01]\.[0-9]{4}" || { echo "FAIL: last line is not 'test accuracy: 0.XXXX'"; exit 1; }
  ;;
ddp)
  data=$1 glia_run=$2 nproc=$3 program=$4
  shift 4
  if [ ! -d "$data" ]; then
    echo "skipped: $data is absent (apt-get install dataset-fashion-mnist)"
    exit 77
  fi
  "$program" --data "$data" "$@" >"$out" 2>"$err"
  status=$?
  cat "$out" "$err"
  [ "$status" -eq 0 ] || { echo "FAIL: the single process exited with status $status"; exit 1; }
  single=$(tail -n 1 "$out" | sed -n 's/^test accuracy: //p')
  single_loss=$(sed -n 's/^epoch 1\/[0-9]*: train loss \([0-9.]*\) .*/\1/p' "$out")
  "$glia_run" --nproc-per-node "$nproc" -- "$program" --ddp --data "$data" "$@" >"$out" 2>"$err"
  status=$?
  cat "$out" "$err"
  [ "$status" -eq 0 ] || { echo "FAIL: glia-run exited with status $status, expected 0"; exit 1; }
  grep -q "^DistributedDataParallel over Gloo: $nproc processes" "$out" || { echo "FAIL: no DDP line"; exit 1; }
  [ "$(grep -c '^epoch 1/[0-9]*: train loss' "$out")" -eq 1 ] || { echo "FAIL: not one epoch summary"; exit 1; }
  [ "$(grep -c '^test accuracy: ' "$out")" -eq 1 ] || { echo "FAIL: not one accuracy line"; exit 1; }
  tail -n 1 "$out" | grep -Eqx "test accuracy: [01]\.[0-9]{4}" || { echo "FAIL: last line is not 'test accuracy: 0.XXXX'"; exit 1; }
  parallel=$(tail -n 1 "$out" | sed -n 's/^test accuracy: //p')
  parallel_loss=$(sed -n 's/^epoch 1\/[0-9]*: train loss \([0-9.]*\) .*/\1/p' "$out")
  # Every step is one process's step on the whole batch, up to rounding: the same epoch loss and
  # accuracy (ranks training on their slices without averaging miss these bounds).
  close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
  close "$single_loss" "$parallel_loss" 0.0003 ||
    { echo "FAIL: epoch 1 train loss $parallel_loss with $nproc processes, $single_loss with one"; exit 1; }
  close "$single" "$parallel" 0.005 ||
    { echo "FAIL: accuracy $parallel with $nproc processes, $single with one: more than 0.005 apart"; exit 1; }
  echo "epoch 1 train loss: $single_loss (1 process), $parallel_loss ($nproc processes)"
  echo "accuracy: $single (1 process), $parallel ($nproc processes)"
  ;;
fail)
  expected_status=$1 message=$2
  shift 2
  "$@" >"$out" 2>"$err"
  status=$?
  cat "$out" "$err"
  [ "$status" -eq "$expected_status" ] || { echo "FAIL: exit status $status, expected $expected_status"; exit 1; }
  [ ! -s "$out" ] || { echo "FAIL: output on stdout"; exit 1; }
  [ "$(cat "$err")" = "$message" ] || { printf 'FAIL: expected the message\n%s\n' "$message"; exit 1; }
  ;;
below)
  message=$1
  shift
  "$@" >"$out" 2>"$err"
  status=$?
  cat "$out" "$err"
  [ "$status" -eq 1 ] || { echo "FAIL: exit status $status, expected 1"; exit 1; }
  [ "$(cat "$err")" = "$message" ] || { printf 'FAIL: expected the message\n%s\n' "$message"; exit 1; }
  tail -n 1 "$out" | grep -Eqx "test accuracy: [01]\.[0-9]{4}" || { echo "FAIL: last line is not 'test accuracy: 0.XXXX'"; exit 1; }
  ;;
*)
  echo "usage: $0 train|ddp|fail|below ..." >&2
  exit 2
  ;;
esac
echo PASS
