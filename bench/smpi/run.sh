#!/bin/sh
# bench/smpi/run.sh: the data queue's flush exchanges (direct, routed 2hop, NBX; with
# -m also routed3, three hops) under SimGrid SMPI at 256-4,096 simulated ranks, next to
# bench/simulate's LogGP predictions for the same P, n and workload (docs/scaling.md,
# "Cross-check with SimGrid"; issue 23).
#
#   bench/smpi/run.sh [-b build dir] [-o CSV file] [-p "P ..."] [-n PEs per node]
#                     [-r "records ..."] [-e bytes per record] [-t timeout s per run] [-V]
#                     [-m modes]
#     -b  the build whose bench/simulate gives the predictions (default build); the SMPI
#         program is built into <build>/bench/smpi/
#     -o  also write the CSV there (it always goes to stdout after a line "CSV")
#     -p  simulated ranks (default "256 1024"; powers of two, at most 256 nodes; 4096
#         at R = 16 took 8 minutes of a loaded 2-core machine, 2.5 GB)
#     -n  ranks per node (default 16)
#     -r  records per PE per flush, one workload each (default "16 128")
#     -V  direct mode with SMPI's own MPI_Ialltoallv instead (every pair posted)
#     -t  timeout of one smpirun (default 900 s)
#     -m  exchange.c's modes, a comma list of direct, routed, nbx, routed3 (default
#         direct,routed,nbx; routed3 is three hops, dq_plan.h, and its prediction is
#         bench/simulate -m routed3's)
# Needs smpicc and smpirun (Debian: libsimgrid-dev); without them it says so and exits 0.
# The figures are simulated time: the machine's load changes how long the run takes,
# not what it prints.
#
# CSV columns: mode,npes,node_pes,records,elem,smpi_s,model_s,smpi_over_model,
#              smpi_msgs,model_msgs
#   smpi_s   one flush, from the first PE leaving a barrier to the last PE done
#   model_s  bench/simulate's flush_time (direct, routed, routed3) or flush_time_nbx (nbx)
#   *_msgs   messages per PE per flush, mean (as shmemx_queue_usage counts them)
set -u
build=build out= pes="256 1024" npn=16 recs="16 128" elem=8 tmo=900 allpairs=
modes=direct,routed,nbx
while getopts b:o:p:n:r:e:t:m:Vh opt; do
  case $opt in
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    p) pes=$OPTARG ;;
    n) npn=$OPTARG ;;
    r) recs=$OPTARG ;;
    e) elem=$OPTARG ;;
    t) tmo=$OPTARG ;;
    V) allpairs=-V ;;
    m) modes=$OPTARG ;;
    *) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; [ "$opt" = h ] && exit 0; exit 2 ;;
  esac
done
if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
  echo "bench/smpi/run.sh: smpicc/smpirun not found (SimGrid SMPI; Debian: apt-get install libsimgrid-dev): skipped"
  exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
sim="$build/bench/simulate"
[ -x "$sim" ] || { echo "bench/smpi/run.sh: no $sim (make first, or -b)" >&2; exit 2; }
mkdir -p "$build/bench/smpi" || exit 2
exe="$build/bench/smpi/exchange"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
# Not part of the project's build (SMPI's own mpi.h and its runtime): built here.
smpicc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -o "$exe" "$here/exchange.c" "$here/../sim.c" \
  >"$tmp/cc.log" 2>&1 || { cat "$tmp/cc.log" >&2; echo "bench/smpi/run.sh: smpicc failed" >&2; exit 1; }

# SMPI's settings, so that its network is bench/simulate's LogGP (docs/scaling.md,
# "Time model"); the platform file has L and G:
#   o and g: SMPI has per-message CPU overheads, no gap. A send costs o + g (smpi/os,
#     smpi/ois: 1.67 + 2.37 us), a receive o (smpi/or: 1.67 us), so a PE that sends and
#     receives m messages pays o (m + m) + g m, the model's o (m_s + m_r) + g max(m_s, m_r).
#   bw-factor, lat-factor 1: the platform's figures as they are (SMPI's defaults are
#     corrections measured on another cluster); no cross traffic (TCP acks' share).
#   async-small-thresh, send-is-detached-thresh 64 KiB: messages below are eager, as
#     MPICH's (else a message waits for its receive to be posted).
#   simulate-computation no: the code between MPI calls costs nothing (the model's
#     packing and copies are not counted either), so the machine's speed and load
#     do not enter.
#   coll-selector mpich: MPI_Alltoall of short blocks is Bruck's algorithm, as in MPICH
#     and in the model's count exchange (the only SMPI collective the flushes use).
#   iprobe 1e-7: SMPI charges every probe (MPI_Probe is a loop of them) 100 us of
#     simulated time by default, which made a point-to-point hop of 15 probes cost
#     1.5 ms; a probe that finds nothing is one pass of MPI's progress engine, well
#     under the model's o, so 0.1 us here.
cfg="--cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:mpich
  --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1
  --cfg=smpi/os:0:4.04e-6:0 --cfg=smpi/ois:0:4.04e-6:0 --cfg=smpi/or:0:1.67e-6:0
  --cfg=network/crosstraffic:0
  --cfg=smpi/async-small-thresh:65536 --cfg=smpi/send-is-detached-thresh:65536
  --cfg=smpi/iprobe:1e-7
  --cfg=contexts/stack-size:512 --log=root.thres:warning"

# bench/simulate's modes: its default (direct and routed) unless routed3 is asked for
case ",$modes," in *,routed3,*) simm="-m direct,routed,routed3" ;; *) simm= ;; esac
res="$tmp/res.csv"
echo "mode,npes,node_pes,records,elem,smpi_s,model_s,smpi_over_model,smpi_msgs,model_msgs" >"$res"
status=0
for r in $recs; do
  for p in $pes; do
    n=$npn
    [ "$n" -le "$p" ] || n=$p
    nodes=$((p / n))
    if [ $((nodes * n)) -ne "$p" ] || [ "$nodes" -gt 256 ]; then
      echo "bench/smpi/run.sh: P $p is not up to 256 nodes of $n: skipped" >&2
      continue
    fi
    awk -v k="$nodes" -v n="$n" 'BEGIN { for (i = 0; i < k; i++) for (j = 0; j < n; j++) print "node-" i }' >"$tmp/hosts"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    timeout "$tmo" smpirun -platform "$here/platform.xml" -hostfile "$tmp/hosts" -np "$p" $cfg \
      "$exe" -n "$n" -r "$r" -e "$elem" -m "$modes" $allpairs </dev/null >"$tmp/smpi.log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - t0 ))
    if [ $rc != 0 ] || ! grep -q "all records delivered" "$tmp/smpi.log" || grep -q WRONG "$tmp/smpi.log"; then
      [ $rc = 124 ] && echo "bench/smpi/run.sh: P=$p R=$r: timeout ${tmo}s" >&2
      echo "bench/smpi/run.sh: P=$p R=$r failed (exit $rc):" >&2
      tail -5 "$tmp/smpi.log" >&2
      status=1
      continue
    fi
    # shellcheck disable=SC2086
    "$sim" -p "$p" -n "$n" -r "$r" -e "$elem" -H 0 $simm -c "$tmp/sim.csv" >"$tmp/sim.log" 2>&1 || {
      echo "bench/smpi/run.sh: bench/simulate failed at P=$p" >&2; cat "$tmp/sim.log" >&2; status=1; continue; }
    echo "bench/smpi/run.sh: P=$p (${nodes}x$n) R=$r: smpirun ${secs} s (wall, this machine)" >&2
    # join: SMPI's line per mode with the simulator's time and messages for it
    grep '^csv,[a-z]' "$tmp/smpi.log" | grep -v '^csv,mode,' | while IFS=, read -r _ mode np nn rr ee secs_s msgs _ _; do
      case $mode in routed) sm=routed metric=flush_time ;; nbx) sm=direct metric=flush_time_nbx ;;
        routed3) sm=routed3 metric=flush_time ;;
        *) sm=direct metric=flush_time ;; esac
      mt=$(awk -F, -v m="$sm" -v k="$metric" '$1 == "uniform" && $2 == m && $7 == k { print $10 }' "$tmp/sim.csv")
      mm=$(awk -F, -v m="$sm" '$1 == "uniform" && $2 == m && $7 == "msgs_per_flush" { print $10 }' "$tmp/sim.csv")
      awk -v a="$mode,$np,$nn,$rr,$ee" -v s="$secs_s" -v t="$mt" -v sm="$msgs" -v mm="$mm" \
        'BEGIN { printf "%s,%.6g,%.6g,%.3f,%s,%s\n", a, s, t, (t > 0 ? s / t : 0), sm, mm }'
    done >>"$res"
  done
done
echo "CSV"
cat "$res"
[ -z "$out" ] || cp "$res" "$out"
[ $status = 0 ] && echo "bench/smpi/run.sh: every run delivered every record"
exit $status
