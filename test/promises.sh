#!/bin/sh
# promises.sh: misuse cases whose outcome is an exit status, a message or the absence of
# a hang (issue 20; test/promises.c has the cases). Each runs at 2 and 4 PEs on the node
# through test/run-mpi.sh (the configured mpiexec) with a time limit, and checks:
#   destroy_finalize  exit 0; the finalizing PEs say the dropped bytes (no hang)
#   flush_finalize    the job ends nonzero, a PE in shmem_finalize saying peers wait in
#                     shmem_queue_global_flush (without SHMEM_DEBUG)
#   alltoall_malloc   exit 0, the refusal said once per PE (not twice); SHMEM_DEBUG=1:
#                     the job ends nonzero with the message
#   heap_exhausted    exit 0, exhaustion said once per PE with asked/free/variable, the
#                     calloc overflow said once and without an exhaustion line
#   wait_nonsym       SHMEM_DEBUG=1: the job ends nonzero naming shmem_long_wait_until
#   init_fails        no report says "PE -1"; PE 0 says why shmem_init failed
top="${top_builddir:-.}"
prog="$top/test/promises"
bound=60 # seconds: MPI start-up and teardown, an abort
status=0
# run, verdict (verdict <label> <fail text>)
. "${srcdir:-$(dirname "$0")/..}/test/run_bounded.sh"
# run_case <np> <case> [env assignments...]: promises' case at np PEs; sets out, took
run_case() {
  np=$1 case=$2
  shift 2
  run "$np" "$@" sh "$top/test/run-mpi.sh" "$prog" "$case"
}
count() { echo "$out" | grep -o -- "$1" | wc -l; } # occurrences: two reports may share a line
for np in 2 4; do
  run_case $np destroy_finalize
  f=""
  echo "$out" | grep -q '=== FAILED' && f="$f; the job failed"
  echo "$out" | grep -q 'PE 0: shmem_queue_data_destroy returned' || f="$f; PE 0's destroy did not return"
  [ "$(count 'shmem_finalize: data queue 1 was not destroyed: 8 bytes still queued')" -eq $((np - 1)) ] ||
    f="$f; not every finalizing PE said its 8 dropped bytes"
  verdict "$np PEs, destroy_finalize" "$f"

  run_case $np flush_finalize
  f=""
  echo "$out" | grep -q '=== FAILED' || f="$f; the job did not fail"
  echo "$out" | grep -q 'shmem_finalize: this PE reached shmem_finalize while other PEs of data queue 1.s team' ||
    f="$f; no message naming the misuse"
  verdict "$np PEs, flush_finalize" "$f"

  run_case $np alltoall_malloc
  f=""
  echo "$out" | grep -q '=== FAILED' && f="$f; the job failed"
  [ "$(count 'shmem_double_alltoall: .* is not symmetric; the routine returned an error')" -eq $np ] ||
    f="$f; not said exactly once per PE"
  [ "$(count 'shmem_double_alltoall returned -1, dst\[0\] -1')" -eq $((2 * np)) ] ||
    f="$f; a call did not return -1 with dst untouched"
  verdict "$np PEs, alltoall_malloc" "$f"

  run_case $np alltoall_malloc SHMEM_DEBUG=1
  f=""
  echo "$out" | grep -q '=== FAILED' || f="$f; the job did not fail"
  echo "$out" | grep -q 'shmem_double_alltoall: .* is not symmetric (SHMEM_DEBUG: ending the job)' ||
    f="$f; no message"
  echo "$out" | grep -q 'shmem_double_alltoall returned' && f="$f; a PE went on"
  verdict "$np PEs, alltoall_malloc, SHMEM_DEBUG=1" "$f"

  run_case $np heap_exhausted SHMEM_SYMMETRIC_SIZE=32M
  f=""
  echo "$out" | grep -q '=== FAILED' && f="$f; the job failed"
  [ "$(count 'shmem_malloc: symmetric heap exhausted: 1099511627776 bytes asked, [0-9]* free (largest free block [0-9]*) of 33554432; SHMEM_SYMMETRIC_SIZE sets')" -eq $np ] ||
    f="$f; exhaustion not said exactly once per PE with asked, free and the variable"
  [ "$(count 'shmem_calloc: count [0-9]* \* size 4 overflows')" -eq $np ] || f="$f; calloc overflow not said once per PE"
  [ "$(count 'shmem_calloc: symmetric heap exhausted')" -eq 0 ] || f="$f; calloc overflow said twice"
  [ "$(count 'returned NULL')" -eq $((3 * np)) ] || f="$f; not every call returned NULL"
  verdict "$np PEs, heap_exhausted" "$f"

  run_case $np wait_nonsym SHMEM_DEBUG=1
  f=""
  echo "$out" | grep -q '=== FAILED' || f="$f; the job did not fail"
  echo "$out" | grep -q 'shmem_long_wait_until: .*not symmetric' || f="$f; no message"
  verdict "$np PEs, wait_nonsym, SHMEM_DEBUG=1" "$f"
  run_case $np init_fails SHMEM_SYMMETRIC_SIZE=200T
  f=""
  echo "$out" | grep -q 'PE -1' && f="$f; a report says PE -1"
  # not anchored: Open MPI 5's launcher forwards each process's stderr in pieces, so
  # another PE's line can start mid-line even when each report leaves in one write
  echo "$out" | grep -q '\[shmemq PE 0\] shmem_init: ' || f="$f; PE 0 did not say why init failed"
  verdict "$np PEs, init_fails" "$f"
done
exit $status
