#!/bin/sh
# agree_watchdog.sh: the SHMEM_DEBUG watchdog (src/mpi_rma/agree.c). One PE passes a
# NULL queue handle to shmem_queue_global_flush, or SHMEM_TEAM_INVALID to a team
# broadcast, and moves on to shmem_barrier_all; the other PEs wait for it. With
# SHMEM_DEBUG=1 SHMEMQ_WATCHDOG_SECONDS=2 the job must end with a nonzero status within
# a bound, with a message naming the routine and the PE that did not arrive. Runs at 2
# and 4 PEs (bad PE first and last) and off-node at 2, through test/run-mpi.sh.
top="${top_builddir:-.}"
prog="$top/test/agree_watchdog"
bound=40 # seconds: 2 s of watchdog, 1 s of questions, MPI start-up and teardown
status=0
check() { # check <np> <offnode 0|1> <queue|team> <first|last>
  np=$1 off=$2 mode=$3 which=$4
  if [ "$which" = first ]; then bad=0; else bad=$((np - 1)); fi
  case $mode in
    queue) routine=shmem_queue_global_flush ;;
    team) routine=shmem_long_broadcast ;;
  esac
  t0=$(date +%s)
  if [ "$off" = 1 ]; then offnp="$np"; else offnp=""; fi
  if [ "$off" = 1 ]; then nps=" "; else nps="$np"; fi # " ": no on-node run
  out=$(SHMEM_DEBUG=1 SHMEMQ_WATCHDOG_SECONDS=2 SHMEMQ_TEST_NPES="$nps" \
        SHMEMQ_TEST_OFFNODE_NPES="$offnp" SHMEMQ_TEST_NODES2_NPES= SHMEMQ_TEST_TIMEOUT=$bound \
        sh "$top/test/run-mpi.sh" "$prog" "$mode" "$which" 2>&1)
  t1=$(date +%s)
  label="$np PEs$( [ "$off" = 1 ] && echo ' off-node'), $mode, bad PE $bad"
  fail=""
  echo "$out" | grep -q '=== FAILED' || fail="$fail; the job did not fail"
  echo "$out" | grep -q 'exit 124' && fail="$fail; it ran into the time limit"
  echo "$out" | grep -q "$routine: watchdog: waited" || fail="$fail; no watchdog message"
  echo "$out" | grep -q "have not arrived: $bad (world PE $bad: [^)]*)\. Ending" ||
    fail="$fail; the message does not name PE $bad"
  [ $((t1 - t0)) -le $bound ] || fail="$fail; took $((t1 - t0)) s"
  if [ -n "$fail" ]; then
    echo "FAIL: $label$fail"
    echo "$out" | sed 's/^/    /'
    status=1
  else
    echo "ok: $label: ended in $((t1 - t0)) s"
    echo "$out" | grep "watchdog: waited" | head -1 | sed 's/^/    /'
  fi
}
for mode in queue team; do
  for np in 2 4; do
    for which in first last; do
      check $np 0 $mode $which
    done
  done
  check 2 1 $mode last
done
exit $status
