#!/bin/sh
# bench/scale.sh: bench/scale (histogram and index-gather queue kernels with each queue's
# memory and traffic from shmemx_queue_usage) at 1, 2, 4, 8, 16 PEs, each P as one node
# and as nodes of 1, 2 and 4 PEs (SHMEMQ_NODE_PES), appending CSV to $OUT.
# More PEs than cores are oversubscribed (the CSV and the lines say so): their rates
# measure the machine's time slicing, not the queues. Every answer is checked.
#   usage: bench/scale.sh [build dir] (env: OUT=scale.csv, PES="1 2 4 8 16",
#          N=updates/PE, G=requests/PE, MPIEXEC=mpiexec.mpich, MPIEXEC_FLAGS=...)
build="${1:-build}"
out="${OUT:-scale.csv}"
pes="${PES:-1 2 4 8 16}"
n="${N:-200000}"
g="${G:-200000}"
mpiexec="${MPIEXEC:-mpiexec.mpich}"
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
status=0
for p in $pes; do
  groups=""
  for k in 1 2 4 $p; do
    [ "$k" -le "$p" ] || continue
    case " $groups " in *" $k "*) ;; *) groups="$groups $k" ;; esac
  done
  for k in $groups; do
    over=""
    [ "$p" -gt "$cores" ] && over=" (oversubscribed: $p PEs on $cores cores)"
    echo "== $p PEs, $k per node$over"
    # shellcheck disable=SC2086
    if ! timeout 600 env SHMEMQ_NODE_PES="$k" $mpiexec $MPIEXEC_FLAGS -n "$p" \
        "$build/bench/scale" -n "$n" -g "$g" -o "$out"; then
      echo "FAILED: $p PEs, $k per node"
      status=1
    fi
  done
done
echo "CSV: $out"
exit $status
