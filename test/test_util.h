// test_util.h: helpers shared by the GoogleTest binaries.
#ifndef SHMEMQ_TEST_UTIL_H
#define SHMEMQ_TEST_UTIL_H

#include <shmem.h>
#include <mpi.h>
#include <shmemx.h>

#include <cstring>

// Run a block only where there is a peer to talk to.
#define REQUIRE_PES(n)                                   \
    do {                                                 \
        if (shmem_n_pes() < (n)) {                       \
            GTEST_SKIP() << "needs " << (n) << " PEs";   \
        }                                                \
    } while (0)

// A comm-queue config: one op kind (or SHMEM_OP_ANY), max_elems (0: default), timeout.
static inline shmem_queue_config_t comm_queue_cfg(shmem_op_type_t op = SHMEM_OP_ANY,
                                                  uint64_t max = 0,
                                                  double timeout = SHMEM_QUEUE_MAX_TIMEOUT)
{
    shmem_queue_config_t c;
    std::memset(&c, 0, sizeof c);
    c.qtype = SHMEM_QUEUE_COMM;
    c.op_type = op;
    c.max_elems = max;
    c.timeout_flush = timeout;
    c.pe_type = SHMEM_PE_ALL;
    return c;
}

static inline int right_neighbor() { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static inline int left_neighbor() { return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes(); }

#endif
