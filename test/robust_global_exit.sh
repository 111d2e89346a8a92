#!/bin/sh
# robust_global_exit.sh: shmem_global_exit(status) called by one PE while the others
# flush queues (test/programs/global_exit.c) ends the whole job, with that status, within
# a bound. At 1, 2 and 4 PEs and with every PE its own node at 2 and 4, through
# test/run-mpi.sh (the configured mpiexec).
top="${top_builddir:-.}"
prog="$top/test/global_exit"
bound=30 # seconds: MPI start-up, 20 rounds, the abort and the launcher's teardown
want=7
status=0
check() { # check <np> <offnode 0|1>
  np=$1 off=$2
  if [ "$off" = 1 ]; then nps=" " offnp="$np"; else nps="$np" offnp=""; fi
  t0=$(date +%s)
  out=$(SHMEMQ_TEST_NPES="$nps" SHMEMQ_TEST_OFFNODE_NPES="$offnp" SHMEMQ_TEST_NODES2_NPES= SHMEMQ_TEST_TIMEOUT=$bound \
        sh "$top/test/run-mpi.sh" "$prog" "$want" 2>&1)
  t1=$(date +%s)
  label="$np PEs$( [ "$off" = 1 ] && echo ' off-node')"
  fail=""
  echo "$out" | grep -q "(exit $want)" || fail="$fail; the job did not end with status $want"
  echo "$out" | grep -q "shmem_global_exit($want)" || fail="$fail; the exiting PE never got there"
  echo "$out" | grep -q "did not end" && fail="$fail; a PE outlived the exit"
  [ $((t1 - t0)) -le $bound ] || fail="$fail; took $((t1 - t0)) s"
  if [ -n "$fail" ]; then
    echo "FAIL: $label$fail"
    echo "$out" | sed 's/^/    /'
    status=1
  else
    echo "ok: $label: ended with status $want in $((t1 - t0)) s"
  fi
}
check 1 0
check 2 0
check 4 0
check 2 1
check 4 1
exit $status
