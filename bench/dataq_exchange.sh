#!/bin/sh
# dataq_exchange.sh: the data queue's two direct-flush exchanges (SHMEMQ_DATAQ_EXCHANGE=
# alltoallv | nbx) on bench/histogram's and bench/indexgather's dataq kernels, as
# interleaved pairs (alltoallv then nbx, repeated; each the best of 3 runs inside one
# job), at each PE count and room size.
# Prints CSV: bench,npes,room,rep,exchange,rate (Mupd/s or Mgather/s, summed over PEs).
# Usage (from a build directory): sh ../bench/dataq_exchange.sh ["2 4 8 16"] [reps] [rooms]
# Rooms: "-" is each benchmark's default (8 MiB histogram, 256 KiB index-gather).
nps="${1:-2 4 8 16}" reps="${2:-3}" rooms="${3:-- 16K}"
MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
echo "bench,npes,room,rep,exchange,rate"
for np in $nps; do
  # past 2 cores the PEs share them (oversubscribed): fewer updates keep runs short
  if [ "$np" -gt 4 ]; then hn=1000000 ign=500000; else hn=4000000 ign=2000000; fi
  for room in $rooms; do
    b=""; [ "$room" = "-" ] || b="-b $room"
    r=1
    while [ "$r" -le "$reps" ]; do
      for ex in alltoallv nbx; do
        h=$(SHMEMQ_DATAQ_EXCHANGE=$ex timeout 300 $MPIEXEC -n "$np" bench/histogram -r 3 -n $hn $b -v dataq 2>&1 |
            awk -F, '/^histogram,/ {print $8}')
        i=$(SHMEMQ_DATAQ_EXCHANGE=$ex timeout 300 $MPIEXEC -n "$np" bench/indexgather -r 3 -n $ign $b -v dataq 2>&1 |
            awk -F, '/^indexgather,/ {print $8}')
        echo "histogram,$np,$room,$r,$ex,${h:-FAIL}"
        echo "indexgather,$np,$room,$r,$ex,${i:-FAIL}"
      done
      r=$((r + 1))
    done
  done
done
