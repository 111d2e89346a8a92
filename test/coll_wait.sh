#!/bin/sh
# coll_wait.sh: the node collectives' waits under each SHMEMQ_COLL_WAIT value
# (src/mpi_rma/coll_node.c, shmemi_cn_wait). The default (auto) runs in every other test
# binary: it naps on a futex only after a long wait (test_coll's LatePE). Here test_coll's
# back-to-back, late-PE, every-type, large and wake-up cases run on one node with `sleep` (naps
# after 64 tries: every wait of a step goes through the futex) at 2 and 4 PEs and with
# `spin` (never naps) at 4 PEs, and shmemq_info must report the mode each run got. The
# data-queue flush waits follow the same variable (sleep: they nap, spin: they never do):
# test_dataq's late-PE case checks naps against the policy at 2 PEs with sleep (a machine
# with a core per PE: auto would not nap) and at 4 with spin.
top="${top_builddir:-.}"
filter="--gtest_filter=Coll.BackToBack:Coll.LatePE:Coll.EveryTypeAndOp:Coll.Large:Coll.LateArrivalWakesNappers"
status=0
check() { # check <mode> <PE counts> <what shmemq_info must say>
  mode=$1 nps=$2 want=$3
  out=$(SHMEMQ_COLL_WAIT=$mode SHMEMQ_TEST_NPES="$nps" SHMEMQ_TEST_OFFNODE_NPES= \
        SHMEMQ_TEST_NODES2_NPES= SHMEMQ_TEST_TIMEOUT=200 \
        sh "$top/test/run-mpi.sh" "$top/test/test_coll" "$filter" --gtest_color=no 2>&1)
  runs=$(echo "$nps" | wc -w)
  passed=$(echo "$out" | grep -c '^\[  PASSED  \] 5 tests\.')
  fail=""
  echo "$out" | grep -q '=== FAILED' && fail="$fail; a run failed"
  [ "$passed" -eq "$runs" ] || fail="$fail; $passed of $runs runs passed all 5 tests"
  info=$(SHMEMQ_COLL_WAIT=$mode SHMEMQ_TEST_NPES=2 SHMEMQ_TEST_OFFNODE_NPES= \
         SHMEMQ_TEST_NODES2_NPES= SHMEMQ_TEST_TIMEOUT=60 \
         sh "$top/test/run-mpi.sh" "$top/shmemq_info" 2>&1)
  echo "$info" | grep '^collectives' | grep -qF "$want" ||
    fail="$fail; shmemq_info does not say \"$want\""
  if [ -n "$fail" ]; then
    echo "FAIL: SHMEMQ_COLL_WAIT=$mode at $nps PEs$fail"
    echo "$out" | sed 's/^/    /'
    echo "$info" | grep '^collectives' | sed 's/^/    /'
    status=1
  else
    echo "ok: SHMEMQ_COLL_WAIT=$mode at $nps PEs: $passed runs passed"
    echo "$info" | grep '^collectives' | sed 's/^/    /'
  fi
}
check sleep "2 4" "nap on a futex after 64 tries (SHMEMQ_COLL_WAIT=sleep)"
check spin 4 "never nap (SHMEMQ_COLL_WAIT=spin)"
dq_check() { # dq_check <mode> <PEs> <what shmemq_info must say>
  out=$(SHMEMQ_COLL_WAIT=$1 SHMEMQ_TEST_NPES=$2 SHMEMQ_TEST_OFFNODE_NPES= \
        SHMEMQ_TEST_NODES2_NPES= SHMEMQ_TEST_TIMEOUT=60 \
        sh "$top/test/run-mpi.sh" "$top/test/test_dataq" \
        --gtest_filter=DataQueue.FlushWaitForALatePeNapsAsThePolicySays --gtest_color=no 2>&1)
  info=$(SHMEMQ_COLL_WAIT=$1 SHMEMQ_TEST_NPES=$2 SHMEMQ_TEST_OFFNODE_NPES= \
         SHMEMQ_TEST_NODES2_NPES= SHMEMQ_TEST_TIMEOUT=60 sh "$top/test/run-mpi.sh" "$top/shmemq_info" 2>&1)
  if echo "$out" | grep -q '^\[  PASSED  \] 1 test\.' && ! echo "$out" | grep -q '=== FAILED' &&
     echo "$info" | grep '^collectives' | grep -qF "$3"; then
    echo "ok: SHMEMQ_COLL_WAIT=$1 at $2 PEs: data-queue flush waits ($3)"
  else
    echo "FAIL: SHMEMQ_COLL_WAIT=$1 at $2 PEs: data-queue flush waits (shmemq_info must say \"$3\")"
    echo "$out" | sed 's/^/    /'
    echo "$info" | grep '^collectives' | sed 's/^/    /'
    status=1
  fi
}
dq_check sleep 2 "data-queue flushes nap 20 us a try after 300 us"
dq_check spin 4 "data-queue flushes yield"
exit $status
