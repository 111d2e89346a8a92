#!/bin/sh
# stress.sh: runs test/test_stress (test/stress/test_stress.cc) through test/run-mpi.sh
# at its own PE counts: by default 1, 2 and 8 PEs (8 oversubscribes a 2-core machine on
# purpose) and every PE its own node at 2 and 4. Started by `make check` from the build
# directory. SHMEMQ_STRESS_NPES / SHMEMQ_STRESS_OFFNODE_NPES change the counts,
# SHMEMQ_STRESS_SCALE=<n> multiplies every loop of the test (CI's longer run).
builddir="${SHMEMQ_BUILDDIR:-.}"
SHMEMQ_TEST_NPES="${SHMEMQ_STRESS_NPES:-1 2 8}" \
SHMEMQ_TEST_OFFNODE_NPES="${SHMEMQ_STRESS_OFFNODE_NPES-2 4}" \
  exec "$builddir/test/run-mpi.sh" "$builddir/test/test_stress" "$@"
