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
  echo "usage: $0 train|fail|below ..." >&2
  exit 2
  ;;
esac
echo PASS
