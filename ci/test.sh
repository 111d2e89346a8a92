#!/bin/bash
# README command 2: build with -Werror and run the whole test suite (every GoogleTest binary at
# 1, 2 and 4 PEs) against MPICH, then against Open MPI. Ends with "N passed, M failed" where a
# unit is one test binary run at one PE count with one MPI.
set -u
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
FLAGS="-O2 -g -Werror"
MPIS="${SHMEMQ_CI_MPIS:-mpich openmpi}"
./autogen.sh >/dev/null 2>&1 || { echo "autogen.sh failed"; exit 1; }
passed=0
failed=0
status=0
for mpi in $MPIS; do
  dir="build-ci-$mpi"
  echo "=== $mpi: configure and build in $dir"
  mkdir -p "$dir"
  ( cd "$dir" &&
    ../configure MPICC="mpicc.$mpi" CFLAGS="$FLAGS" CXXFLAGS="$FLAGS" --prefix="$PWD/_inst" >configure.out 2>&1 &&
    make -j"$(nproc)" >build.out 2>&1 &&
    make -j"$(nproc)" check >check.out 2>&1 )
  rc=$?
  if [ ! -f "$dir/check.out" ]; then
    echo "=== $mpi: build FAILED"
    tail -40 "$dir/configure.out" "$dir/build.out" 2>/dev/null
    failed=$((failed + 1))
    status=1
    continue
  fi
  runs=$(cat "$dir"/test/*.log 2>/dev/null | grep -cE '^=== .* on [0-9]+ PE\(s\)$')
  bad=$(cat "$dir"/test/*.log 2>/dev/null | grep -c '^=== FAILED')
  passed=$((passed + runs - bad))
  failed=$((failed + bad))
  grep -E '^(PASS|FAIL|ERROR|SKIP):' "$dir/check.out"
  if [ $rc -ne 0 ] || [ "$bad" -ne 0 ]; then
    status=1
    echo "=== $mpi: FAILURES"
    for log in "$dir"/test/*.log; do
      if grep -q '^=== FAILED' "$log"; then
        echo "--- $log"
        grep -E 'FAILED|Failure|rank [0-9]+\]|Error|error' "$log" | head -40
      fi
    done
    [ "$bad" -eq 0 ] && failed=$((failed + 1)) && tail -30 "$dir/check.out"
  fi
  echo "=== $mpi: $((runs - bad)) of $runs test runs passed"

  # An unchanged OpenSHMEM 1.5 program, built by the installed oshcc, run by oshrun -n 4.
  prefix="$PWD/$dir/_inst"
  if ( cd "$dir" && make install >install.out 2>&1 ) &&
     "$prefix/bin/oshcc" -O2 -Werror test/programs/openshmem15.c -o "$dir/openshmem15" &&
     timeout 120 "$prefix/bin/oshrun" -n 4 "$dir/openshmem15"; then
    echo "=== $mpi: oshcc/oshrun OpenSHMEM 1.5 program passed"
    passed=$((passed + 1))
  else
    echo "=== $mpi: oshcc/oshrun OpenSHMEM 1.5 program FAILED"
    failed=$((failed + 1))
    status=1
  fi
done
echo "shmemq: $passed passed, $failed failed"
exit $status
