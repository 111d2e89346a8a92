#!/bin/bash
# Memory-safety check (ci/test.sh runs it as its `sanitize` check).
# 1. Builds shmemq with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan and runs
#    `make check` there (every test binary at 1 and 2 PEs, 2 off the node and as two nodes of
#    two through test/run-mpi.sh; the sanitizer options below reach every PE through
#    mpiexec's environment).
# 2. Checks the error path end to end: test/programs/bad_put.c puts to a PE that does not
#    exist; without SHMEM_DEBUG the job must finish (exit 0) after a "[shmemq PE n]
#    shmem_long_put: ..." message; with SHMEM_DEBUG=1 it must print the same and abort.
# Environment: SHMEMQ_SANITIZE_MPI=mpich|openmpi (default mpich), SHMEMQ_TEST_NPES as for
# run-mpi.sh. Exit status 0 only when everything passed.
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD
mpi="${SHMEMQ_SANITIZE_MPI:-mpich}"
SAN="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer"
# the test programs (C++) at -O0: a third of the compile time; the library stays -O1
SAN_CXX="${SAN/-O1/-O0}"
# MPI libraries keep allocations until exit by design: leak reports would be noise.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset SHMEM_DEBUG # the tests pass bad arguments on purpose; only the last check sets it
# the smaller PE matrix (ci/small-matrix.sh; MPICH's 4-PE runs on 2 cores are slower again
# under ASan)
. ci/small-matrix.sh
ci_small_matrix
# test/scale.sh's 8 and 16 PE runs: not under the sanitizers unless asked (3 minutes with
# MPICH; the same binaries run at 1-4 PEs here, and at 16 in ci/test.sh's plain builds)
export SHMEMQ_TEST_SCALE="${SHMEMQ_TEST_SCALE-0}"
if [ "$mpi" = openmpi ]; then
  MPIEXEC="mpiexec.openmpi --oversubscribe --allow-run-as-root" # single node: children inherit the environment
else
  MPIEXEC="mpiexec.mpich"
fi
dir=build-asan
status=0

./autogen.sh >/dev/null 2>&1 || { echo "autogen.sh failed"; exit 1; }
mkdir -p "$dir"
cd "$dir" || exit 1
echo "=== sanitize: configure and build in $dir ($mpi)"
if ! ../configure MPICC="mpicc.$mpi" CFLAGS="$SAN" CXXFLAGS="$SAN_CXX" \
       LDFLAGS="-fsanitize=address,undefined" >configure.out 2>&1 ||
   ! make -j"$(nproc)" >build.out 2>&1; then
  echo "=== sanitize: build FAILED"
  tail -40 configure.out build.out
  exit 1
fi

echo "=== sanitize: make check"
if make -j"$(nproc)" check >check.out 2>&1; then
  grep -E '^(PASS|FAIL|ERROR|SKIP):' check.out
else
  grep -E '^(PASS|FAIL|ERROR|SKIP):' check.out
  echo "=== sanitize: make check FAILED"
  for log in test/*.log; do
    if grep -qE '^=== FAILED|ERROR: AddressSanitizer|runtime error:' "$log"; then
      echo "--- $log"
      grep -E -A12 'FAILED|Failure|ERROR: AddressSanitizer|runtime error:' "$log" | head -60
    fi
  done
  status=1
fi

echo "=== sanitize: SHMEM_DEBUG error path (test/programs/bad_put.c)"
mkdir -p test/programs
if ! ./libtool --quiet --mode=link "mpicc.$mpi" $SAN -I"$top/include" \
       -o test/programs/bad_put "$top/test/programs/bad_put.c" libshmemq.la -no-install \
       >bad_put.build.out 2>&1; then
  echo "=== sanitize: building bad_put FAILED"
  cat bad_put.build.out
  exit 1
fi
# Each PE's stderr goes to bad_put.err.<pe> (the launcher may drop an aborting process's
# forwarded output); stdout still comes through mpiexec.
run_bad_put() {
  rm -f bad_put.err.*
  out=$(timeout 120 $MPIEXEC -n 2 ./test/programs/bad_put "$PWD/bad_put.err" 2>&1)
  rc=$?
  out="$out
$(cat bad_put.err.* 2>/dev/null)"
}
# Without SHMEM_DEBUG: reported, nothing written, the job finishes normally.
run_bad_put
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^\[shmemq PE [01]\] shmem_long_put: ' &&
   [ "$(printf '%s\n' "$out" | grep -c 'bad_put returned')" -eq 2 ]; then
  echo "PASS: bad_put without SHMEM_DEBUG reports and continues"
else
  echo "FAIL: bad_put without SHMEM_DEBUG (exit $rc):"
  printf '%s\n' "$out" | head -30
  status=1
fi
# With SHMEM_DEBUG=1: reported with PE and routine, then the job aborts.
export SHMEM_DEBUG=1
run_bad_put
unset SHMEM_DEBUG
if [ $rc -ne 0 ] && [ $rc -ne 124 ] &&
   printf '%s\n' "$out" | grep -q '^\[shmemq PE [01]\] shmem_long_put: PE [0-9]* out of range' &&
   ! printf '%s\n' "$out" | grep -q 'bad_put returned'; then
  echo "PASS: bad_put under SHMEM_DEBUG=1 aborts (exit $rc) naming PE and routine"
else
  echo "FAIL: bad_put under SHMEM_DEBUG=1 (exit $rc):"
  printf '%s\n' "$out" | head -30
  status=1
fi

if [ $status -eq 0 ]; then echo "=== sanitize: all passed"; else echo "=== sanitize: FAILURES"; fi
exit $status
