// Atomics on the same words through every path at once, in a program started with
// shmem_init (SHMEM_THREAD_SINGLE: built with SHMEMQ_TEST_THREAD_SINGLE), where the
// library may apply work with plain read-modify-writes when nothing else can write.
//
// Every PE adds into the same few counters of EVERY PE, mixing shmem_atomic_add with
// queued adds on the RMA path (node bursts and, across nodes, the AM transport's
// leader-applied bursts) and on the queue's own AM path (batches the target applies
// itself). As two nodes of two, a non-leader PE is then written by batches it applies,
// by its node peer's CPU atomics and by its leader's agent at the same time. Before
// am.c counted node peers, its batches were plain adds there and lost updates
// (bench/histogram -v commq_am, 2026-11-26): RandomHistogramExact found them on PEs 1
// and 3 as two nodes of two in two runs of two. Exact totals, every PE checks its own.
#include "test_util.h"

#include <cstdlib>
#include <vector>
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>

namespace {

struct Path {
    const char *comm_path; // SHMEMQ_COMM_PATH at create
    const char *combine;   // SHMEMQ_COMBINE at create
};
const Path kPaths[] = {{"rma", "0"}, {"am", "0"}, {"am", "1"}};

class AmoPaths : public ::testing::TestWithParam<int> {
  protected:
    void SetUp() override
    {
        setenv("SHMEMQ_COMM_PATH", kPaths[GetParam()].comm_path, 1);
        setenv("SHMEMQ_COMBINE", kPaths[GetParam()].combine, 1);
    }
    void TearDown() override
    {
        unsetenv("SHMEMQ_COMM_PATH");
        unsetenv("SHMEMQ_COMBINE");
    }
};

// counter i of PE `me` gets update r of PE m when (r + m) % n == me and r % N == i
uint64_t expected(int i, int me, int n, int N, int R)
{
    uint64_t want = 0;
    for (int m = 0; m < n; m++)
        for (int r = i; r < R; r += N)
            want += (r + m) % n == me;
    return want;
}

TEST_P(AmoPaths, QueuedAndDirectAddsOnEveryTargetExact)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const int N = 8192, R = 400000;
    uint64_t *ctr = static_cast<uint64_t *>(shmem_calloc(N, sizeof(uint64_t)));
    ASSERT_NE(ctr, nullptr);
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    for (int r = 0; r < R; r++) {
        int pe = (r + me) % n;
        uint64_t one = 1;
        // a quarter as direct AMOs where they are CPU atomics (this node: no round trip
        // slows this PE down, so they overlap the others' bursts), the rest queued
        if (r % 4 == 0 && shmem_ptr(ctr, pe) != nullptr) {
            shmem_uint64_atomic_add(&ctr[r % N], one, pe);
            continue;
        }
        int rc;
        while ((rc = shmem_uint64_queue_comm_push(q, &ctr[r % N], &one, 1, pe,
                                                  SHMEM_OP_ATOMIC_ADD)) == SHMEM_QUEUE_ERR_FULL)
            ASSERT_GE(shmem_queue_progress(q), 0);
        ASSERT_EQ(rc, 0);
    }
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        EXPECT_EQ(ctr[i], expected(i, me, n, N, R)) << "counter " << i << " of PE " << me;
    shmem_barrier_all();
    shmem_free(ctr);
}

// The histogram's shape: random targets and counters over a table that leaves L1, every
// update queued, local flush then barrier with the queue alive. Expected counts are
// computed by every PE for its own table from the same random streams.
TEST_P(AmoPaths, RandomHistogramExact)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const uint64_t T = 10000, U = 2000000;
    int64_t *table = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    ASSERT_NE(table, nullptr);
    auto next = [](uint64_t &x) { // xorshift64: the same stream on every PE for a seed
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    const int64_t one = 1;
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(me + 1);
    for (uint64_t i = 0; i < U; i++) {
        uint64_t g = next(x) % (T * (uint64_t)n);
        int rc;
        while ((rc = shmem_int64_queue_comm_push(q, &table[g / n], &one, 1, (int)(g % n),
                                                 SHMEM_OP_ATOMIC_ADD)) == SHMEM_QUEUE_ERR_FULL)
            ASSERT_GE(shmem_queue_progress(q), 0);
        ASSERT_EQ(rc, 0);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    shmem_barrier_all();
    std::vector<int64_t> want(T, 0);
    for (int m = 0; m < n; m++) {
        uint64_t y = 0x9e3779b97f4a7c15ull * (uint64_t)(m + 1);
        for (uint64_t i = 0; i < U; i++) {
            uint64_t g = next(y) % (T * (uint64_t)n);
            if ((int)(g % n) == me)
                want[g / n]++;
        }
    }
    int64_t wrong = 0;
    for (uint64_t i = 0; i < T; i++)
        wrong += table[i] != want[i];
    EXPECT_EQ(wrong, 0) << "counters wrong on PE " << me;
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    shmem_free(table);
}

INSTANTIATE_TEST_SUITE_P(Paths, AmoPaths, ::testing::Range(0, 3));

} // namespace
