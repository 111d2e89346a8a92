// test_offnode_queue_amo.cc: PEs of other nodes by default (issue 21;
// test_offnode_common.h): queued atomics, to a target that sits in MPI_Barrier, spins or
// computes, and as bursts packed or not, every op, both word sizes.
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <vector>

#include "atomic_rows.h"
#include "test_offnode_common.h"

extern "C" void shmemi_am_burst_stats(uint64_t out[6]); // xport_am_burst.c, for tests
extern "C" uint64_t shmemi_queue_comm_rheld(shmem_queue_t q); // cq_rhold.c, for tests

namespace {

// The last PE does not call the library while the others push queued atomic adds to it,
// flush, and fetch-add on it; all complete. Three queues: adds of one constant (bursts that
// travel packed off the node, xport_am.c), adds of differing values (bursts as they
// are), and a histogram's adds of 1 whose full bursts leave before the flush and are
// held as sums (cq_rhold.c) until the flush sends or applies them. how 0:
// the target sits in MPI_Barrier (the program's own); 1: it spins on plain loads of its
// own flag, set after the origins' flushes (where a spinning PE can be served:
// spin_servable; otherwise it waits in shmem_wait_until); 2: it computes for about a
// second (compute_for), so the origins' bursts and flushes meet a target not in the
// library at all.
void queued_adds_to_idle_target(int how)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), target = n - 1;
    const int N = 256;
    // P adds of 1 over H words: two full bursts (4,096 adds of 8 bytes each on the RMA
    // path) leave before the flush, and a window of H words is sent only at 64 records a
    // word, so both are still held when the flush comes.
    const int H = 1000, P = 10000;
    int64_t *cells = (int64_t *)shmem_calloc(2 * N + 1, sizeof(int64_t));
    int64_t *hist = (int64_t *)shmem_calloc(H, sizeof(int64_t));
    long *flag = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_TRUE(cells && hist && flag);
    const bool spin = spin_servable();
    uint64_t before[6], after[6]; // atomic, typed put, typed get: plain, packed
    shmemi_am_burst_stats(before);
    // on another node than the target: its node's leader is not ours
    int mylead = shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD);
    int tlead = mylead;
    MPI_Bcast(&tlead, 1, MPI_INT, target, MPI_COMM_WORLD);
    const bool offnode = tlead != mylead;
    shmem_barrier_all();
    if (me != target) {
        shmem_queue_t q, q2, qh;
        shmem_queue_config_t c = comm_queue_cfg(), ch = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        ASSERT_EQ(shmem_queue_comm_create(&q2, &c), 0);
        ASSERT_EQ(shmem_queue_comm_create(&qh, &ch), 0);
        const int64_t three = 3, one = 1;
        for (int r = 0; r < 4; r++)
            for (int i = 0; i < N; i++) {
                const int64_t v = i % 5 + 1;
                ASSERT_EQ(shmem_int64_queue_comm_push(q, &cells[i], &three, 1, target,
                                                      SHMEM_OP_ATOMIC_ADD), 0);
                ASSERT_EQ(shmem_int64_queue_comm_push(q2, &cells[N + i], &v, 1, target,
                                                      SHMEM_OP_ATOMIC_ADD), 0);
            }
        for (int i = 0; i < P; i++)
            ASSERT_EQ(shmem_int64_queue_comm_push(qh, &hist[i % H], &one, 1, target,
                                                  SHMEM_OP_ATOMIC_ADD), 0);
        // held on the RMA path (the default), and for a node peer wherever the node
        // transport applies its atomics (one node, or each node its own atomic domain)
        shmemx_queue_usage_t u;
        ASSERT_EQ(shmemx_queue_usage(qh, &u), 0);
        const uint64_t held = shmemi_queue_comm_rheld(qh);
        const bool node_transport = shmem_team_n_pes(SHMEM_TEAM_SHARED) == n || shmemi_am_on();
        if (u.mode == SHMEMX_QUEUE_MODE_COMM_RMA || u.mode == SHMEMX_QUEUE_MODE_COMM_NODE ||
            (!offnode && node_transport)) {
            EXPECT_GT(held, 0u) << "PE " << me << ": no burst to the target was held";
        } else {
            EXPECT_EQ(held, 0u) << "PE " << me << ": held off the node on the AM path";
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_queue_local_flush(q2), 0);
        ASSERT_EQ(shmem_queue_local_flush(qh), 0);
        EXPECT_EQ(shmemi_queue_comm_rheld(qh), 0u) << "PE " << me << ": held after the flush";
        for (int k = 0; k < 50; k++)
            (void)shmem_int64_atomic_fetch_add(&cells[2 * N], 1, target);
        ASSERT_EQ(shmem_queue_comm_destroy(qh), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q2), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        if (how == 1)
            shmem_long_atomic_add(flag, 1, target);
    } else if (how == 1) {
        if (spin)
            ASSERT_TRUE(spin_until(flag, (long)(n - 1))) << "the origins' flags never came";
        else
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, (long)(n - 1));
        // spinning, the target saw every flushed add before any flag, held sums too
        for (int i = 0; i < N; i++) {
            EXPECT_EQ(*(volatile int64_t *)&cells[i], (int64_t)12 * (n - 1)) << i;
            EXPECT_EQ(*(volatile int64_t *)&cells[N + i], (int64_t)4 * (i % 5 + 1) * (n - 1)) << i;
        }
        int short_words = 0;
        for (int k = 0; k < H; k++)
            short_words += *(volatile int64_t *)&hist[k] != (int64_t)(P / H) * (n - 1);
        EXPECT_EQ(short_words, 0) << "table words without their total when the flags came";
    } else if (how == 2) {
        compute_for(1.0);
    }
    if (how == 0)
        MPI_Barrier(MPI_COMM_WORLD);
    shmemi_am_burst_stats(after);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        ASSERT_EQ(shmem_int64_g(&cells[i], target), (int64_t)12 * (n - 1)) << i;
        ASSERT_EQ(shmem_int64_g(&cells[N + i], target), (int64_t)4 * (i % 5 + 1) * (n - 1)) << i;
    }
    EXPECT_EQ(shmem_int64_g(&cells[2 * N], target), (int64_t)50 * (n - 1));
    std::vector<int64_t> got((size_t)H);
    shmem_getmem(got.data(), hist, H * sizeof(int64_t), target);
    int wrong = 0;
    for (int k = 0; k < H; k++)
        wrong += got[(size_t)k] != (int64_t)(P / H) * (n - 1);
    EXPECT_EQ(wrong, 0) << "PE " << me << ": words of the target's table with the wrong total";
    // an origin on another node than the target sent both forms through the AM transport
    if (me != target && offnode && shmemi_am_on()) {
        EXPECT_GT(after[1], before[1]) << "PE " << me << ": no packed burst";
        EXPECT_GT(after[0], before[0]) << "PE " << me << ": no plain burst";
    }
    shmem_barrier_all();
    shmem_free(flag);
    shmem_free(hist);
    shmem_free(cells);
}

TEST(OffNode, QueueFlushAndAmosToTargetInMpiBarrier) { queued_adds_to_idle_target(0); }
TEST(OffNode, QueueFlushAndAmosToSpinningTarget) { queued_adds_to_idle_target(1); }
TEST(OffNode, QueueFlushAndAmosToComputingTarget) { queued_adds_to_idle_target(2); }

// Queued atomics off the node leave as one AM request per burst: packed when every record
// has the same operand (a histogram's adds of 1: 4-byte displacements and one operand,
// xport_am.c's AM_BURSTP), as they are otherwise. Both forms, every op the server's loop
// chooses between, 8- and 4-byte words, on the heap and on globals (the data segment's
// region), from every PE to every PE: exact results, and where the AM transport is on,
// both forms counted.
int64_t g_acc64[6][40];
uint32_t g_acc32[6][40];

template <typename T>
void push_all(shmem_queue_t q, T *dest, const std::vector<T> &v, int pe, shmem_op_type_t op);
template <>
void push_all<int64_t>(shmem_queue_t q, int64_t *dest, const std::vector<int64_t> &v, int pe,
                       shmem_op_type_t op)
{
    ASSERT_EQ(shmem_int64_queue_comm_push(q, dest, v.data(), v.size(), pe, op), 0);
}
template <>
void push_all<uint32_t>(shmem_queue_t q, uint32_t *dest, const std::vector<uint32_t> &v,
                        int pe, shmem_op_type_t op)
{
    ASSERT_EQ(shmem_uint32_queue_comm_push(q, dest, v.data(), v.size(), pe, op), 0);
}

// The rows of atomic_rows.h, one queue per row (a burst holds one row's records, uniform
// or not), R rounds (odd: each XOR bit once).
template <typename T> void queued_bursts_exact(T (*w)[40])
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), W = 40, R = 33;
    rows_reset<T>(&w[0][0], W);
    shmem_barrier_all();
    for (int row = 0; row < 6; row++) {
        const std::vector<T> v = row_operands<T>(row, W, me);
        shmem_queue_t q;
        shmem_queue_config_t c = comm_queue_cfg(kRowOps[row]);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        for (int r = 0; r < (row == 5 ? 1 : R); r++)
            for (int d = 0; d < n; d++)
                push_all<T>(q, w[row], v, (me + d) % n, kRowOps[row]);
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    }
    shmem_barrier_all();
    EXPECT_EQ(rows_wrong<T>(&w[0][0], W, n, R), 0) << "PE " << me;
    shmem_barrier_all();
}

TEST(OffNode, QueuedAtomicBurstsExactPackedOrNot)
{
    uint64_t before[6], after[6]; // atomic, typed put, typed get: plain, packed
    shmemi_am_burst_stats(before);
    int64_t(*h64)[40] = (int64_t(*)[40])shmem_malloc(sizeof g_acc64);
    uint32_t(*h32)[40] = (uint32_t(*)[40])shmem_malloc(sizeof g_acc32);
    ASSERT_TRUE(h64 && h32);
    queued_bursts_exact<int64_t>(h64);
    queued_bursts_exact<uint32_t>(h32);
    queued_bursts_exact<int64_t>(g_acc64);
    queued_bursts_exact<uint32_t>(g_acc32);
    shmemi_am_burst_stats(after);
    int one_node = shmem_team_n_pes(SHMEM_TEAM_SHARED) == shmem_n_pes();
    if (shmemi_am_on() && !one_node) { // this PE has PEs of other nodes: both forms went
        EXPECT_GT(after[1], before[1]) << "PE " << shmem_my_pe() << ": no packed burst";
        EXPECT_GT(after[0], before[0]) << "PE " << shmem_my_pe() << ": no plain burst";
    } else {
        EXPECT_EQ(after[1], before[1]) << "PE " << shmem_my_pe();
    }
    shmem_free(h32);
    shmem_free(h64);
}

} // namespace
