#!/bin/bash
# README command 2: build with -Werror and run the whole test suite (every GoogleTest binary
# at 1, 2 and 4 PEs, on one node and as separate nodes; FULL_MPIS below) against MPICH built
# with ch4:ofi (libfabric; built once by ci/mpich-ofi.sh and cached), against Debian's MPICH
# (ch4:ucx), then against Open MPI. Ends with
# "N passed, M failed" where a unit is one test binary run at one PE count with one MPI.
# SHMEMQ_CI_MPIS selects MPIs from "mpich-ofi mpich openmpi" (e.g. SHMEMQ_CI_MPIS=mpich);
# Debian's MPICH runs its suite through ctest, the others through make check
# (SHMEMQ_CI_CTEST=<mpi> picks another). Then valgrind, the sanitizer build and the
# suite on Debian 13 (SHMEMQ_CI_CHECKS), one unit each.
set -u
cd "$(dirname "$0")/.." || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
FLAGS="-O2 -g -Werror"
# The test programs (C++; the library and its C tests are C): at -O2 in the suite that runs
# through ctest, at -O0 in the others, which compiles them three times faster (GoogleTest's
# macros make -O2 -g cost 9 s a file). The library is -O2 in every build; its inline hot
# paths reach the tests at both levels.
TEST_FLAGS="-O0 -g -Werror"
MPIS="${SHMEMQ_CI_MPIS-mpich-ofi mpich openmpi}"
# the MPI whose suite runs through ctest instead of make check (none: "")
CTEST_MPI="${SHMEMQ_CI_CTEST-mpich}"
# checks after the suites (SHMEMQ_CI_CHECKS; "" for none): longer randomised runs
# (ci/long.sh), valgrind, the sanitizer build, and the suite on Debian 13's MPICH 4.2 and
# Open MPI 5 (ci/debian13.sh)
CHECKS="${SHMEMQ_CI_CHECKS-long valgrind sanitize debian13}"
# the MPIs whose suite runs the whole PE matrix of test/run-mpi.sh (1, 2 and 4 PEs on one
# node, 2 and 4 PEs each its own node, two nodes of two): Debian's MPICH (ch4:ucx) and Open
# MPI 4. The others (MPICH ch4:ofi; in ci/debian13.sh, MPICH 4.2 and Open MPI 5) run 1 and
# 2 PEs, 2 PEs off the node and two nodes of two, which reach every transport path: what
# they test is how another MPI behaves, and MPICH's 4-PE runs on 2 cores cost half of a
# suite's time (docs/testing.md). SHMEMQ_TEST_NPES and SHMEMQ_TEST_OFFNODE_NPES, when set, win.
FULL_MPIS=" ${SHMEMQ_CI_FULL-mpich openmpi} "
. ci/small-matrix.sh
# the MPIs whose suite includes test/scale.sh (8 and 16 PEs on 2 cores): 20 s with Open
# MPI, 3 minutes with an MPICH (16 processes whose waits busy-poll on 2 cores); the routing
# it tests is the library's, and Open MPI 4 and 5 run it
SCALE_MPIS=" ${SHMEMQ_CI_SCALE-openmpi} "
./autogen.sh >/dev/null 2>&1 || { echo "autogen.sh failed"; exit 1; }
passed=0
failed=0
status=0
# what failed, repeated at the end: CI shows the tail of a long output
summary=""
note_failure() { summary="$summary$1"$'\n'; }
for mpi in $MPIS; do
  dir="build-ci-$mpi"
  t0=$SECONDS
  case "$mpi" in
    mpich-ofi)
      # MPICH with --with-device=ch4:ofi, from the cache or built now (6-13 minutes on 2
      # cores when the cache is cold). configure takes mpicxx and mpiexec from the same prefix.
      echo "=== $mpi: MPICH ch4:ofi from ci/mpich-ofi.sh"
      if ! ofi_out=$(bash ci/mpich-ofi.sh); then
        echo "=== $mpi: building MPICH ch4:ofi FAILED (ci/mpich-ofi.sh above)"
        note_failure "$mpi: building MPICH"
        failed=$((failed + 1))
        status=1
        continue
      fi
      ofi_prefix=$(printf '%s\n' "$ofi_out" | tail -1)
      mpi_vars=(MPICC="$ofi_prefix/bin/mpicc" MPICXX="$ofi_prefix/bin/mpicxx")
      ;;
    *) mpi_vars=(MPICC="mpicc.$mpi") ;;
  esac
  echo "=== $mpi: configure and build in $dir"
  t1=$SECONDS
  mkdir -p "$dir"
  # One MPI runs the suite through ctest (the CTestTestfile.cmake configure writes), the
  # others through make check: the same tests, and both drivers stay working.
  cxxflags="$TEST_FLAGS"
  if [ "$mpi" = "$CTEST_MPI" ]; then
    cxxflags="$FLAGS"
    driver="ctest"
    logs="$dir/Testing/Temporary/LastTest.log"
    check=(ctest -j"$(nproc)" --output-on-failure)
  else
    driver="make check"
    logs="$dir/test/*.log $dir/test/*/*.log"
    check=(make -j"$(nproc)" check)
  fi
  case "$SCALE_MPIS" in
    *" $mpi "*) scale=1 ;;
    *) scale=0 ;;
  esac
  case "$FULL_MPIS" in
    *" $mpi "*) full=1 ;;
    *) full=0 ;;
  esac
  ( cd "$dir" && export SHMEMQ_TEST_SCALE=$scale && { [ $full = 1 ] || ci_small_matrix; } &&
    ../configure "${mpi_vars[@]}" CFLAGS="$FLAGS" CXXFLAGS="$cxxflags" --prefix="$PWD/_inst" >configure.out 2>&1 &&
    make -j"$(nproc)" >build.out 2>&1 &&
    "${check[@]}" >check.out 2>&1 )
  rc=$?
  if [ ! -f "$dir/check.out" ]; then
    echo "=== $mpi: build FAILED"
    note_failure "$mpi: build"
    tail -40 "$dir/configure.out" "$dir/build.out" 2>/dev/null
    failed=$((failed + 1))
    status=1
    continue
  fi
  # shellcheck disable=SC2086 # $logs is a glob for make check
  runs=$(cat $logs 2>/dev/null | grep -cE '^=== .* on [0-9]+ PE\(s\)$')
  # shellcheck disable=SC2086
  bad=$(cat $logs 2>/dev/null | grep -c '^=== FAILED')
  passed=$((passed + runs - bad))
  failed=$((failed + bad))
  grep -E '^(PASS|FAIL|ERROR|SKIP):|Test +#[0-9]+: |tests passed' "$dir/check.out"
  if [ $rc -ne 0 ] || [ "$bad" -ne 0 ]; then
    status=1
    echo "=== $mpi: FAILURES"
    # shellcheck disable=SC2086
    for log in $logs; do
      if grep -q '^=== FAILED' "$log"; then
        echo "--- $log"
        grep -E 'FAILED|Failure|rank [0-9]+\]|Error|error' "$log" | head -40
      fi
    done
    [ "$bad" -eq 0 ] && failed=$((failed + 1)) && tail -30 "$dir/check.out"
    note_failure "$mpi: $(grep -E '^(FAIL|ERROR):' "$dir/check.out" | tr '\n' ' ')$bad failed run(s) (rc $rc)"
    # shellcheck disable=SC2086
    for log in $logs; do
      grep -q '^=== FAILED' "$log" && note_failure "  $log: $(grep -m3 '^=== FAILED' "$log" | tr '\n' ' ')"
    done
  fi
  echo "=== $mpi: $((runs - bad)) of $runs test runs passed (build and $driver: $((SECONDS - t1)) s)"

  # An unchanged OpenSHMEM 1.5 program, built by the installed oshcc, run by oshrun -n 4.
  prefix="$PWD/$dir/_inst"
  if ( cd "$dir" && make install >install.out 2>&1 ) &&
     "$prefix/bin/oshcc" -O2 -Werror test/programs/openshmem15.c -o "$dir/openshmem15" &&
     timeout 120 "$prefix/bin/oshrun" -n 4 "$dir/openshmem15"; then
    echo "=== $mpi: oshcc/oshrun OpenSHMEM 1.5 program passed"
    passed=$((passed + 1))
  else
    echo "=== $mpi: oshcc/oshrun OpenSHMEM 1.5 program FAILED"
    note_failure "$mpi: oshcc/oshrun program"
    failed=$((failed + 1))
    status=1
  fi
  # Programs built against the install without oshcc: pkg-config + cc, CMake, <mpp/shmem.h>.
  case "$mpi" in
    mpich-ofi) launcher="$ofi_prefix/bin/mpiexec" ;;
    *) launcher="$mpi" ;;
  esac
  if cons=$(bash ci/consumers.sh "$prefix" "$launcher" 2>&1); then
    echo "$cons" | grep '^PASS'
    passed=$((passed + 1))
  else
    echo "$cons"
    echo "=== $mpi: consumer builds FAILED"
    note_failure "$mpi: consumer builds"
    failed=$((failed + 1))
    status=1
  fi
  echo "=== $mpi: $((SECONDS - t0)) s in all"
done

# Checks (docs/testing.md), each one unit: longer model and stress runs and valgrind
# memcheck of the queue tests at 2 PEs on the node and off it (both on the Debian MPICH
# build above when there is one), the whole suite under AddressSanitizer +
# UndefinedBehaviorSanitizer, and the suite on Debian 13.
for chk in $CHECKS; do
  t0=$SECONDS
  case "$chk" in
    valgrind)
      vbuild=""
      [ -x build-ci-mpich/test/test_commq_putget ] && vbuild=build-ci-mpich
      cmd=(env SHMEMQ_VALGRIND_BUILD="$vbuild" bash ci/valgrind.sh) ;;
    sanitize) cmd=(bash ci/sanitize.sh) ;;
    debian13) cmd=(bash ci/debian13.sh) ;;
    long) cmd=(bash ci/long.sh) ;;
    *) echo "=== unknown check $chk"; failed=$((failed + 1)); status=1; continue ;;
  esac
  if "${cmd[@]}" >"ci-$chk.out" 2>&1; then
    echo "=== $chk passed ($((SECONDS - t0)) s)"
    passed=$((passed + 1))
  else
    tail -60 "ci-$chk.out"
    echo "=== $chk FAILED ($((SECONDS - t0)) s; ci-$chk.out)"
    note_failure "$chk: $(grep -A8 '^failures:' "ci-$chk.out" | tr -s ' \n' ' ')"
    failed=$((failed + 1))
    status=1
  fi
done
[ -n "$summary" ] && printf 'failures:\n%s' "$summary"
echo "shmemq: $passed passed, $failed failed"
exit $status
