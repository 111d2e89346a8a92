#!/bin/sh
# README command 1: install dependencies, build shmemq with MPICH, run the main example on 2 PEs.
set -e
cd "$(dirname "$0")/.."
sh ci/install-deps.sh
./autogen.sh >/dev/null 2>&1
mkdir -p build && cd build
../configure MPICC=mpicc.mpich --prefix="$PWD/../_inst" >/dev/null
make -j"$(nproc)" >/dev/null
EXAMPLE=examples/histogram
[ -x "$EXAMPLE" ] || EXAMPLE=examples/ring
echo "running $EXAMPLE on 2 PEs"
mpiexec.mpich -n 2 "./$EXAMPLE"
