#!/bin/bash
# Longer runs of the randomised tests than make check makes (docs/reliability.md):
# test_model with other seeds and more steps, at 2 and 4 PEs on one node and off it, and
# test/stress/stress.sh with every loop multiplied. Uses an existing build directory
# (SHMEMQ_LONG_BUILD, default build-ci-mpich; its test programs are made if missing), or
# configures one with MPICH in build-long.
# Environment: SHMEMQ_LONG_SEEDS (default "1 2"), SHMEMQ_LONG_ITERS (steps per model
# test, comm and data queue alike, default 20000), SHMEMQ_LONG_SCALE (stress loops,
# default 20). Prints one line per run with its time; exit status 0 only when all
# passed.
set -u
cd "$(dirname "$0")/.." || exit 1
dir="${SHMEMQ_LONG_BUILD:-build-ci-mpich}"
seeds="${SHMEMQ_LONG_SEEDS:-1 2}"
iters="${SHMEMQ_LONG_ITERS:-20000}"
scale="${SHMEMQ_LONG_SCALE:-20}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset SHMEM_DEBUG
if [ ! -x "$dir/test/run-mpi.sh" ]; then
  dir=build-long
  echo "=== long: configure and build in $dir (MPICH)"
  ./autogen.sh >/dev/null 2>&1 || { echo "=== long: autogen.sh failed"; exit 1; }
  mkdir -p "$dir"
  if ! (cd "$dir" && ../configure MPICC=mpicc.mpich CFLAGS="-O2 -g" CXXFLAGS="-O2 -g" \
        >configure.out 2>&1 && make -j"$(nproc)" >build.out 2>&1); then
    tail -30 "$dir/configure.out" "$dir/build.out"
    echo "=== long: build FAILED"
    exit 1
  fi
fi
if ! make -C "$dir" -j"$(nproc)" test/test_model test/test_stress >"$dir/long-build.out" 2>&1; then
  tail -30 "$dir/long-build.out"
  echo "=== long: building the tests FAILED"
  exit 1
fi
cd "$dir" || exit 1
status=0
run() { # run <label> <env...> -- <command...>
  local label="$1" t0=$SECONDS out rc
  shift
  out=$("$@" 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "PASS: $label ($((SECONDS - t0)) s)"
  else
    echo "$out" | grep -E 'FAILED|Failure|rank [0-9]+\]|seed|Which is|Expected' | head -40
    echo "FAIL: $label ($((SECONDS - t0)) s, exit $rc)"
    status=1
  fi
}
for seed in $seeds; do
  run "test_model seed $seed, $iters steps, 2 and 4 PEs, on the node and off it" \
    env SHMEMQ_MODEL_SEED="$seed" SHMEMQ_MODEL_ITERS="$iters" SHMEMQ_TEST_NPES="2 4" \
    SHMEMQ_TEST_OFFNODE_NPES="2 4" SHMEMQ_TEST_NODES2_NPES= SHMEMQ_TEST_TIMEOUT=600 ./test/run-mpi.sh ./test/test_model
done
run "stress.sh, SHMEMQ_STRESS_SCALE=$scale (1, 2, 8 PEs, off-node 2, 4)" \
  env SHMEMQ_STRESS_SCALE="$scale" SHMEMQ_TEST_TIMEOUT=600 sh ../test/stress/stress.sh
[ $status -eq 0 ] && echo "=== long: all passed" || echo "=== long: FAILED"
exit $status
