// test_util.h: helpers shared by the GoogleTest binaries.
#ifndef SHMEMQ_TEST_UTIL_H
#define SHMEMQ_TEST_UTIL_H

#include <gtest/gtest.h>
#include <shmem.h>
#include <mpi.h>
#include <shmemx.h>

#include <cstdint>
#include <cstring>
#include <ctime>
#include <sched.h>

// Run a block only where there is a peer to talk to.
#define REQUIRE_PES(n)                                   \
    do {                                                 \
        if (shmem_n_pes() < (n)) {                       \
            GTEST_SKIP() << "needs " << (n) << " PEs";   \
        }                                                \
    } while (0)

// Seconds on the monotonic clock.
static inline double test_now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Compute about `seconds` without calling the library: a target that is busy, not
// waiting, in the one-sided tests.
static inline void compute_for(double seconds)
{
    double x = 1.0, t0 = test_now();
    while (test_now() - t0 < seconds)
        for (int i = 0; i < 20000; i++)
            x = x * 1.0000001 + 1e-9;
    EXPECT_GT(x, 0.0);
}

// Spin on plain loads (no library call) until *p == want; false after deadline seconds:
// how a target that never enters the library waits in the one-sided tests.
template <typename T> static inline bool spin_until_for(const T *p, T want, double deadline)
{
    double t0 = test_now();
    while (*(const volatile T *)p != want)
        if (test_now() - t0 > deadline)
            return false;
    return true;
}

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

// A data-queue config: max_bytes per destination (0: default), elem-byte elements.
static inline shmem_queue_config_t data_queue_cfg(uint64_t max_bytes, size_t elem)
{
    shmem_queue_config_t c;
    std::memset(&c, 0, sizeof c);
    c.qtype = SHMEM_QUEUE_DATA;
    c.max_bytes = max_bytes;
    c.data_elem_size = elem;
    c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    return c;
}

// MPI_Allreduce of one int64 over MPI_COMM_WORLD that yields the core while it waits
// (more PEs than cores here: a spinning blocking collective makes the others crawl).
static inline int64_t yielding_allreduce(int64_t v, MPI_Op op)
{
    int64_t r = 0;
    MPI_Request req;
    MPI_Iallreduce(&v, &r, 1, MPI_INT64_T, op, MPI_COMM_WORLD, &req);
    for (int done = 0; !done;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done)
            sched_yield();
    }
    return r;
}

// The value a data-queue test pushes as element `seq` from team PE src to dst: every
// receiver can check source, destination and order.
static inline int64_t dataq_val(int src, int dst, int64_t seq)
{
    return ((int64_t)src << 40) | ((int64_t)dst << 24) | seq;
}

// Every PE got `want` from a call of a collective (or of a routine every PE calls):
// each PE checks its own rc, and that no PE got another.
static inline void expect_all_rc(int rc, int want)
{
    int64_t all = yielding_allreduce(rc == want ? 1 : 0, MPI_MIN);
    EXPECT_EQ(rc, want) << shmemx_queue_strerror(rc);
    EXPECT_EQ(all, 1) << "another PE got a different return code";
}

// A 64-bit mixer (murmur3's finaliser): random test data every PE can recompute for
// every other PE.
static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

static inline int right_neighbor() { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static inline int left_neighbor() { return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes(); }

#endif
