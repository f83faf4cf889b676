#!/bin/sh
# The tests of glia-run (tools/glia-run), one case per ctest test:
#   glia_run_test.sh GLIA_RUN WORKER CASE
# WORKER is tests/tools/glia_run_worker.c. Every glia-run runs under
# timeout(1), and every case checks that no worker it started is left running.
# Exit status 0: passed; 77: skipped (no Gloo); anything else: failed.
set -u
glia_run=$1 worker=$2 case=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/out err=$dir/err

fail() {
  echo "FAIL ($case): $*"
  echo "--- stdout"; cat "$out" 2>/dev/null
  echo "--- stderr"; cat "$err" 2>/dev/null
  exit 1
}

# run ARGS...: glia-run ARGS with stdout and stderr to $out and $err; $status is its exit status.
run() {
  timeout -k 5 90 "$glia_run" "$@" >"$out" 2>"$err"
  status=$?
  [ "$status" -ne 124 ] && [ "$status" -ne 137 ] || [ "$case" = signal ] || fail "glia-run timed out"
  [ "$status" -ne 77 ] || { cat "$out"; exit 77; }
}

expect_status() { [ "$status" -eq "$1" ] || fail "exit status $status, expected $1"; }
expect_line() { grep -qxF -- "$1" "$err" || fail "no line '$1' on stderr"; }
expect_last_line() { [ "$(tail -n 1 "$err")" = "$1" ] || fail "the last line on stderr is not '$1'"; }
pid_of() { cat "$dir/pids/$1.pid"; }
# The pid of glia-run: the parent of worker 0 (not timeout(1), which would signal the workers too).
glia_run_pid() { cut -d' ' -f4 "/proc/$(pid_of 0)/stat"; }

# wait_for_pids N: waits (up to 60 s) until N workers wrote their pid files.
wait_for_pids() {
  i=0
  while [ "$(ls "$dir/pids" | grep -c '\.pid$')" -lt "$1" ]; do
    i=$((i + 1))
    [ $i -le 600 ] || fail "only $(ls "$dir/pids" | grep -c '\.pid$') of $1 workers started"
    sleep 0.1
  done
}

# no_worker_left: every worker that wrote a pid file is gone.
no_worker_left() {
  for f in "$dir"/pids/*.pid; do
    [ -f "$f" ] || continue
    p=$(cat "$f")
    if kill -0 "$p" 2>/dev/null; then
      kill -9 "$p" 2>/dev/null
      fail "worker $(basename "$f" .pid) (pid $p) is still running"
    fi
  done
}

mkdir "$dir/pids"
case $case in
allreduce2 | allreduce3)
  n=${case#allreduce}
  run --nproc-per-node "$n" "$worker" allreduce
  expect_status 0
  sum=$((n * (n - 1) / 2))
  for r in $(seq 0 $((n - 1))); do
    grep -qxF "rank $r of $n: sum $sum" "$out" || fail "no line 'rank $r of $n: sum $sum'"
  done
  [ ! -s "$err" ] || fail "messages on stderr"
  ;;
nodes)
  # Two glia-runs as two nodes of 2 workers each (on one machine): ranks 0-3 in one group.
  port=$("$glia_run" sh -c 'echo $MASTER_PORT')
  timeout -k 5 90 "$glia_run" --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-port "$port" \
    "$worker" allreduce >"$dir/out1" 2>"$dir/err1" &
  node1=$!
  run --nnodes 2 --node-rank 0 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port "$port" "$worker" allreduce
  wait $node1
  status1=$?
  cat "$dir/out1" >>"$out"
  cat "$dir/err1" >>"$err"
  expect_status 0
  [ "$status1" -eq 0 ] || fail "node 1's glia-run exited with status $status1"
  for r in 0 1 2 3; do grep -qxF "rank $r of 4: sum 6" "$out" || fail "no line 'rank $r of 4: sum 6'"; done
  ;;
exit)
  # Rank 1 of 3 exits with status 3 after an all-reduce; ranks 0 and 2 sleep until stopped.
  run --nproc-per-node 3 "$worker" exit 1 3 "$dir/pids"
  expect_status 3
  p=$(pid_of 1)
  expect_line "glia-run: rank 1 (local rank 1, pid $p) exited with status 3; stopping the other 2 workers"
  expect_last_line "glia-run: failed: rank 1 (local rank 1, pid $p) exited with status 3"
  [ "$(ls "$dir/pids" | grep -c '\.pid$')" -eq 3 ] || fail "not every worker started"
  no_worker_left
  ;;
signal)
  # Rank 0 of 2 is killed by SIGKILL; rank 1 sleeps until stopped.
  run --nproc-per-node 2 "$worker" signal 0 9 "$dir/pids"
  expect_status 137
  p=$(pid_of 0)
  expect_line "glia-run: rank 0 (local rank 0, pid $p) was killed by signal 9 (SIGKILL); stopping the other 1 worker"
  expect_last_line "glia-run: failed: rank 0 (local rank 0, pid $p) was killed by signal 9 (SIGKILL)"
  no_worker_left
  ;;
sigterm)
  # SIGTERM to glia-run reaches both workers (they die of it at once, long before the grace period);
  # glia-run then dies of SIGTERM itself.
  timeout --foreground -k 5 90 "$glia_run" --nproc-per-node 2 --grace-period 60 "$worker" sleep "$dir/pids" >"$out" 2>"$err" &
  pid=$!
  wait_for_pids 2
  start=$(date +%s)
  kill -TERM "$(glia_run_pid)"
  wait $pid
  status=$?
  expect_status 143
  [ $(($(date +%s) - start)) -lt 30 ] || fail "the workers did not stop at SIGTERM"
  expect_last_line "glia-run: got SIGTERM: forwarded it to 2 workers"
  no_worker_left
  ;;
grace)
  # Workers that ignore SIGTERM get SIGKILL after the grace period.
  timeout --foreground -k 5 90 "$glia_run" --nproc-per-node 2 --grace-period 0.5 "$worker" ignore-term "$dir/pids" >"$out" 2>"$err" &
  pid=$!
  wait_for_pids 2
  kill -TERM "$(glia_run_pid)"
  wait $pid
  status=$?
  expect_status 143
  expect_line "glia-run: got SIGTERM: forwarded it to 2 workers"
  expect_last_line "glia-run: 2 workers still running 0.5 s after SIGTERM: sent SIGKILL"
  no_worker_left
  ;;
orphan)
  # glia-run killed by SIGKILL: the kernel sends its workers SIGTERM (PR_SET_PDEATHSIG). They are no
  # longer glia-run's children, so wait (up to 30 s) for them to end (a zombie left to a container's
  # init that does not reap counts as ended).
  timeout --foreground -k 5 90 "$glia_run" --nproc-per-node 2 "$worker" sleep "$dir/pids" >"$out" 2>"$err" &
  pid=$!
  wait_for_pids 2
  kill -KILL "$(glia_run_pid)"
  wait $pid
  i=0
  for r in 0 1; do
    p=$(pid_of $r)
    while [ -e "/proc/$p" ] && [ "$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)" != Z ]; do
      i=$((i + 1))
      [ $i -le 300 ] || { kill -9 "$p"; fail "worker $r (pid $p) outlived glia-run"; }
      sleep 0.1
    done
  done
  ;;
not_found)
  run --nproc-per-node 2 /nonexistent/program --flag
  expect_status 127
  [ "$(cat "$err")" = "glia-run: failed: rank 0 (local rank 0) could not run '/nonexistent/program': No such file or directory" ] ||
    fail "wrong message"
  ;;
environment)
  # The variables of torch's env:// rendezvous for node 1 of 2 with 2 workers each.
  show='echo "$RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $GROUP_RANK $GROUP_WORLD_SIZE $MASTER_ADDR $MASTER_PORT $OMP_NUM_THREADS"'
  run --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-addr 10.1.2.3 --master-port 1234 -- sh -c "$show"
  expect_status 0
  [ "$(sort "$out")" = "$(printf '2 4 0 2 1 2 10.1.2.3 1234 1\n3 4 1 2 1 2 10.1.2.3 1234 1')" ] || fail "wrong environment"
  # torchrun's spellings, --rdzv-endpoint, the default port of several nodes; OMP_NUM_THREADS kept when set.
  OMP_NUM_THREADS=4 run --nnodes=3 --node_rank=2 --rdzv_endpoint=node0:5000 sh -c "$show"
  expect_status 0
  [ "$(cat "$out")" = "2 3 0 1 2 3 node0 5000 4" ] || fail "wrong environment with --rdzv-endpoint"
  run --nnodes 2 sh -c 'echo $MASTER_ADDR:$MASTER_PORT ${OMP_NUM_THREADS-unset}'
  [ "$(cat "$out")" = "127.0.0.1:29500 unset" ] || fail "wrong default address"
  # One node: a free port, a different one each time it is asked for.
  run sh -c 'echo $MASTER_PORT'
  p1=$(cat "$out")
  run --standalone --nproc-per-node 1 sh -c 'echo $MASTER_PORT'
  p2=$(cat "$out")
  [ "$p1" -gt 0 ] && [ "$p2" -gt 0 ] && [ "$p1" -le 65535 ] && [ "$p2" -le 65535 ] || fail "no free port"
  # The program's own options are its own; glia-run's exit status is the worker's.
  run -- sh -c 'echo "$@"; exit 0' sh --nproc-per-node 7
  expect_status 0
  [ "$(cat "$out")" = "--nproc-per-node 7" ] || fail "the program's arguments were not passed through"
  ;;
usage)
  # usage MESSAGE ARGS...: glia-run ARGS exits 2, prints MESSAGE and the hint, and runs nothing.
  usage() {
    message=$1
    shift
    run "$@"
    expect_status 2
    [ ! -s "$out" ] || fail "output on stdout for $*"
    [ "$(cat "$err")" = "$(printf 'glia-run: %s\n(try glia-run --help)' "$message")" ] || fail "wrong message for $*"
  }
  usage "unknown option '--bogus'" --bogus "$worker"
  usage "unknown option '-n'" -n 2 "$worker"
  usage "--nproc-per-node: expected an integer in [1, 65536], got '0'" --nproc-per-node 0 "$worker"
  usage "--nproc-per-node: expected an integer in [1, 65536], got 'two'" --nproc-per-node=two "$worker"
  usage "--nproc-per-node needs a value" --nproc-per-node
  usage "--nnodes: elastic ranges ('1:4') are not supported, give the number of nodes" --nnodes 1:4 "$worker"
  usage "--node-rank: expected a rank in [0, 2) (--nnodes 2), got 2" --nnodes 2 --node-rank 2 "$worker"
  usage "--master-port: expected an integer in [0, 65535], got '70000'" --master-port 70000 "$worker"
  usage "--master-port 0 (a free port) needs --nnodes 1: the other nodes could not learn the port" --nnodes 2 --master-port 0 "$worker"
  usage "--rdzv-endpoint and --master-addr/--master-port say the same thing: give one of them" --rdzv-endpoint host:1 --master-addr host "$worker"
  usage "--rdzv-endpoint: expected HOST[:PORT], got ':1'" --rdzv-endpoint :1 "$worker"
  usage "--standalone runs one node, but --nnodes is 2" --standalone --nnodes 2 "$worker"
  usage "--grace-period: expected seconds in [0, 86400], got '-1'" --grace-period -1 "$worker"
  usage "no program to run (usage: glia-run [options] [--] PROGRAM [ARGS...])" --nproc-per-node 2
  usage "--nnodes 300 x --nproc-per-node 300 is more than 65536 workers" --nnodes 300 --nproc-per-node 300 "$worker"
  run --help
  expect_status 0
  grep -q "^usage: glia-run " "$out" || fail "--help prints no usage"
  ;;
*)
  echo "unknown case $case"
  exit 2
  ;;
esac
echo PASS
