#!/bin/sh
# dataq_nbx.sh: all of test_dataq and test_dataq_inline with SHMEMQ_DATAQ_EXCHANGE=nbx,
# so every direct flush goes through the sparse exchange (src/queue/dq_nbx.c), in every
# configuration run-mpi.sh runs (by default 1, 2, 4 PEs; every PE its own node at 2 and 4;
# nodes of two at 4; fewer where the environment says, as ci/test.sh's smaller matrix).
# test_dataq checks that its queues report SHMEMX_QUEUE_MODE_DATA_NBX under it.
top="${top_builddir:-.}"
status=0
for t in test_dataq test_dataq_inline; do
  want=$(sh "$top/test/run-mpi.sh" --plan "$top/test/$t" | wc -l)
  out=$(SHMEMQ_DATAQ_EXCHANGE=nbx sh "$top/test/run-mpi.sh" "$top/test/$t" --gtest_color=no 2>&1)
  rc=$?
  runs=$(echo "$out" | grep -c '^\[==========\] .* ran\.')
  passed=$(echo "$out" | grep -c '^\[  PASSED  \]')
  if [ $rc -ne 0 ] || echo "$out" | grep -q '^\[  FAILED  \]' || [ "$want" -lt 1 ] || [ "$runs" -ne "$want" ] || [ "$passed" -ne "$runs" ]; then
    echo "FAIL: $t under SHMEMQ_DATAQ_EXCHANGE=nbx (exit $rc, $passed of $runs runs passed, $want planned)"
    echo "$out" | sed 's/^/    /'
    status=1
  else
    echo "ok: $t under SHMEMQ_DATAQ_EXCHANGE=nbx: $passed runs passed"
  fi
done
exit $status
