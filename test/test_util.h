// test_util.h: helpers shared by the GoogleTest binaries.
#ifndef SHMEMQ_TEST_UTIL_H
#define SHMEMQ_TEST_UTIL_H

#include <shmem.h>
#include <mpi.h>

// Run a block only where there is a peer to talk to.
#define REQUIRE_PES(n)                                   \
    do {                                                 \
        if (shmem_n_pes() < (n)) {                       \
            GTEST_SKIP() << "needs " << (n) << " PEs";   \
        }                                                \
    } while (0)

static inline int right_neighbor() { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static inline int left_neighbor() { return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes(); }

#endif
