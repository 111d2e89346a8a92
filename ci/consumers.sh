#!/bin/bash
# ci/consumers.sh <prefix> <mpi>: build the programs of examples/consumer against the shmemq
# installed in <prefix> the ways other projects do (docs/consumers.md), never with oshcc:
#   pkg-config  cc + `pkg-config --cflags --libs shmemq` (examples/consumer/Makefile.pkgconfig)
#   cmake       find_package(shmemq CONFIG) + shmemq::shmemq (examples/consumer/CMakeLists.txt)
#   mpp         a program that includes <mpp/shmem.h>, built with pkg-config
# and run each at 2 PEs under that MPI's mpiexec, without LD_LIBRARY_PATH (the programs must
# find libshmemq and the MPI by themselves). <mpi>: mpich or openmpi (mpiexec.<mpi>), or the
# mpiexec to use (a path or a name on PATH), e.g. <MPICH prefix>/bin/mpiexec.
# Prints one "PASS: ..." or "FAIL: ..." line per build-and-run; exits 1 if any failed,
# 2 on bad arguments. SHMEMQ_CONSUMERS_KEEP=1 keeps the build directory.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 <install prefix> <mpich|openmpi|path of mpiexec>" >&2
  exit 2
fi
src="$(cd "$(dirname "$0")/.." && pwd)/examples/consumer"
prefix=$(cd "$1" 2>/dev/null && pwd) || { echo "consumers.sh: no directory $1" >&2; exit 2; }
mpi=$2
case "$mpi" in
  mpich | openmpi) mpiexec="mpiexec.$mpi" ;;
  *) mpiexec="$mpi" ;;
esac
if ! command -v "$mpiexec" >/dev/null 2>&1; then
  echo "consumers.sh: no launcher $mpiexec" >&2
  exit 2
fi
launch=("$mpiexec")
if "$mpiexec" --version 2>&1 | grep -qE 'Open MPI|OpenRTE'; then
  # Open MPI: 2 PEs may be more than the slots it sees; as root it needs to be told.
  launch+=(--oversubscribe)
  [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
fi
pc=
for f in "$prefix"/lib*/pkgconfig/shmemq.pc "$prefix"/lib/*/pkgconfig/shmemq.pc; do
  if [ -f "$f" ]; then pc=$f; break; fi
done
if [ -z "$pc" ]; then
  echo "consumers.sh: no $prefix/lib*/pkgconfig/shmemq.pc (not a shmemq install prefix?)" >&2
  exit 2
fi
pcdir=$(dirname "$pc")
work=$(mktemp -d "${TMPDIR:-/tmp}/shmemq-consumers.XXXXXX") || exit 2
[ -n "${SHMEMQ_CONSUMERS_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
label="($mpi, $prefix)"
status=0

# result <name> <log> <command...>: run the command, print PASS or FAIL with the log's tail
result() {
  local name="$1" log="$2"
  shift 2
  if "$@" >>"$log" 2>&1; then
    echo "PASS: $name $label"
  else
    echo "FAIL: $name $label"
    tail -n 30 "$log" | sed 's/^/    /'
    status=1
  fi
}
# run2 <program>: run it at 2 PEs; it must report "OK on 2 PEs" (not two singletons of 1 PE,
# which is what a launcher of another MPI starts)
run2() {
  local out rc
  out=$(timeout -k 10 120 env -u LD_LIBRARY_PATH "${launch[@]}" -n 2 "$@" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ $rc -eq 0 ] || { echo "exit status $rc"; return 1; }
  grep -q 'OK on 2 PEs' <<<"$out" || { echo "no \"OK on 2 PEs\" in the output"; return 1; }
}

# 1. pkg-config and the plain C compiler
pkgconfig_unit() {
  mkdir -p "$work/pkgconfig" && cd "$work/pkgconfig" &&
    echo "+ pkg-config --cflags --libs shmemq: $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs shmemq)" &&
    PKG_CONFIG_PATH="$pcdir" make -f "$src/Makefile.pkgconfig" CC=cc consumer &&
    run2 ./consumer
}
result "pkg-config consumer" "$work/pkgconfig.log" pkgconfig_unit

# 2. CMake: find_package(shmemq CONFIG REQUIRED), FindMPI left to the package's default
cmake_unit() {
  cmake -S "$src" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER=cc \
    >"$work/cmake-configure.log" 2>&1
  local rc=$?
  cat "$work/cmake-configure.log"
  [ $rc -eq 0 ] || return 1
  # a warning from shmemqConfig.cmake means FindMPI found another MPI
  if grep -q 'CMake Warning' "$work/cmake-configure.log"; then
    echo "cmake configure warned (above)"
    return 1
  fi
  cmake --build "$work/cmake" --target consumer -- VERBOSE=1 && run2 "$work/cmake/consumer"
}
result "cmake consumer" "$work/cmake.log" cmake_unit

# 3. an unchanged program that includes <mpp/shmem.h>
mpp_unit() {
  mkdir -p "$work/pkgconfig" && cd "$work/pkgconfig" &&
    PKG_CONFIG_PATH="$pcdir" make -f "$src/Makefile.pkgconfig" CC=cc mpp_consumer &&
    run2 ./mpp_consumer
}
result "mpp/shmem.h program" "$work/mpp.log" mpp_unit

exit $status
