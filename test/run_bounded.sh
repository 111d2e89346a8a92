# run_bounded.sh: sourced by the .sh tests that run jobs through test/run-mpi.sh under a
# time limit and judge their output (agent.sh, promises.sh). The sourcing script sets
# bound (seconds) and status (0) first.

# run <np> [env assignments...] <command...>: runs the command (run-mpi.sh and what it
# runs) at np PEs only, none of run-mpi.sh's other runs, each within bound seconds;
# sets out (stdout and stderr) and took (seconds)
run() {
  np=$1
  shift
  t0=$(date +%s)
  out=$(env SHMEMQ_TEST_NPES="$np" SHMEMQ_TEST_OFFNODE_NPES= SHMEMQ_TEST_NODES2_NPES= SHMEMQ_TEST_TIMEOUT=$bound \
        "$@" 2>&1)
  took=$(($(date +%s) - t0))
}

# verdict <label> <fail text>: "ok: label", or "FAIL: label" with the reasons and the
# output, status=1. A run that met the time limit or took longer than bound fails too.
verdict() {
  fail="$2"
  echo "$out" | grep -q 'exit 124' && fail="$fail; it ran into the time limit"
  [ "$took" -le $bound ] || fail="$fail; took $took s"
  if [ -n "$fail" ]; then
    echo "FAIL: $1$fail"
    echo "$out" | sed 's/^/    /'
    status=1
  else
    echo "ok: $1 ($took s)"
  fi
}
