# shellcheck shell=bash
# Sourced by ci/test.sh and ci/sanitize.sh: the smaller PE matrix, defined once.
# 1 and 2 PEs on one node, 2 PEs each its own node, and two nodes of two (4 PEs; run-mpi.sh's
# SHMEMQ_TEST_NODES2_NPES default): every transport path at about half the time of the whole
# matrix, whose 4-PE runs on one node and off it are half of an MPICH suite's time on 2 cores
# (docs/testing.md). SHMEMQ_TEST_NPES and SHMEMQ_TEST_OFFNODE_NPES set by the caller win.
# The whole matrix is test/run-mpi.sh's own defaults: nothing to export for it.
ci_small_matrix() {
  export SHMEMQ_TEST_NPES="${SHMEMQ_TEST_NPES-1 2}"
  export SHMEMQ_TEST_OFFNODE_NPES="${SHMEMQ_TEST_OFFNODE_NPES-2}"
}
