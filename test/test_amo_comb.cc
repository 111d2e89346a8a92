// test_amo_comb.cc: non-fetching atomics to PEs of other nodes are combined (issue 21;
// src/mpi_rma/xport_am_comb.c): held per target PE and sent as one request of
// many, in a process whose node agent runs. What must still hold: exact totals whatever
// the mix of ops and sizes, program order towards one PE (a fence, a fetch or a get after
// the adds sees them), and delivery while the origin spins on its own memory without
// calling the library (the agent sends what is held).
//
// run-mpi.sh runs it at 1/2/4 PEs on one node (nothing is combined: node peers apply
// with CPU atomics), every PE its own node, and two nodes of two. A waiting PE gives up
// after kDeadline seconds and fails instead of hanging.
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>

#include <cstdint>
#include <cstring>

#include "test_util.h"

extern "C" int shmemi_am_on(void);
extern "C" int shmemi_agent_running(void);
extern "C" void shmemi_am_comb_stats(uint64_t out[2]); // xport_am.c, for tests
extern "C" void shmemi_am_comb_cap(int cap);             // xport_am.c, for tests

namespace {

const double kDeadline = 60.0;
const int kMaxPes = 64;

// Globals: symmetric through the data segment.
long g_sum[kMaxPes];             // 64-bit adds, one word per origin
int32_t g_sum32[kMaxPes];        // 32-bit adds, one word per origin
uint64_t g_xor[kMaxPes];         // xor, one word per origin
long g_shared[8];                // adds of every origin on the same words
long g_flag[kMaxPes];
long g_ping, g_pong;

// Does this PE combine? Its agent runs and some PE is on another node.
bool combines()
{
    return shmemi_am_on() && shmemi_agent_running() &&
           shmem_team_n_pes(SHMEM_TEAM_SHARED) < shmem_n_pes();
}

// Every PE sends to every PE (itself included) adds of both sizes, xors and adds on
// words all origins share, interleaved so that the held op and size change often and
// also run long enough to fill a buffer; the totals are exact on every PE. Run with
// the most buffers held at once (16) and with one, where every change of target PE
// sends the held buffer early.
void exact_totals(int cap)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    ASSERT_LE(n, kMaxPes);
    std::memset(g_sum, 0, sizeof g_sum);
    std::memset(g_sum32, 0, sizeof g_sum32);
    std::memset(g_xor, 0, sizeof g_xor);
    std::memset(g_shared, 0, sizeof g_shared);
    uint64_t before[2], after[2];
    if (shmemi_am_on())
        shmemi_am_comb_cap(cap);
    shmemi_am_comb_stats(before);
    shmem_barrier_all();
    const int K = 3000;
    for (int k = 0; k < K; k++) {
        for (int d = 0; d < n; d++) {
            int pe = (me + d) % n;
            shmem_long_atomic_add(&g_sum[me], k + 1, pe);
            if (k % 3 == 0)
                shmem_int32_atomic_add(&g_sum32[me], 2, pe);
            if (k % 7 == 0)
                shmem_uint64_atomic_xor(&g_xor[me], (uint64_t)k * 0x9E3779B97F4A7C15ULL, pe);
            shmem_long_atomic_inc(&g_shared[k % 8], pe);
        }
    }
    // long runs of one kind: more than a buffer holds
    for (int d = 0; d < n; d++)
        for (int k = 0; k < 1500; k++)
            shmem_long_atomic_add(&g_sum[me], 1, (me + d) % n);
    shmem_barrier_all();
    shmemi_am_comb_stats(after);

    uint64_t want_xor = 0;
    for (int k = 0; k < K; k += 7)
        want_xor ^= (uint64_t)k * 0x9E3779B97F4A7C15ULL;
    for (int o = 0; o < n; o++) {
        EXPECT_EQ(g_sum[o], (long)K * (K + 1) / 2 + 1500) << "64-bit adds from PE " << o;
        EXPECT_EQ(g_sum32[o], 2 * ((K + 2) / 3)) << "32-bit adds from PE " << o;
        EXPECT_EQ(g_xor[o], want_xor) << "xors from PE " << o;
    }
    long shared = 0;
    for (int w = 0; w < 8; w++)
        shared += g_shared[w];
    EXPECT_EQ(shared, (long)K * n) << "incs every origin made on shared words";
    for (int w = 0; w < 8; w++)
        EXPECT_EQ(g_shared[w], (long)n * ((K - w + 7) / 8)) << "shared word " << w;
    if (combines()) { // the path under test was taken: fewer requests than atomics
        EXPECT_GT(after[0] - before[0], 0u);
        EXPECT_LT(after[1] - before[1], after[0] - before[0]);
    } else {
        EXPECT_EQ(after[0], before[0]) << "combined without an agent or another node";
    }
    shmem_barrier_all();
    if (shmemi_am_on())
        shmemi_am_comb_cap(16);
}

TEST(AmoComb, ExactTotalsAcrossOpsAndSizes) { exact_totals(16); }
TEST(AmoComb, ExactTotalsOneBufferHeld) { exact_totals(1); }

// Order towards one PE: adds, then a fence and a put of a flag; the target, seeing the
// flag, sees every add. Adds, then a fetch of the same word from the same origin: the
// fetch sees them all.
TEST(AmoComb, FenceAndFetchSeeEarlierAdds)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    std::memset(g_sum, 0, sizeof g_sum);
    std::memset(g_flag, 0, sizeof g_flag);
    shmem_barrier_all();
    const int R = 300, A = 3; // few adds, then at once the fetch: before the agent sends them
    long mine = 0;
    for (int r = 1; r <= R; r++) {
        for (int a = 0; a < A; a++)
            shmem_long_atomic_add(&g_sum[me], 1, right);
        mine += A;
        EXPECT_EQ(shmem_long_atomic_fetch(&g_sum[me], right), mine) << "round " << r;
        for (int a = 0; a < A; a++)
            shmem_long_atomic_add(&g_sum[me], 1, right);
        mine += A;
        shmem_fence();
        shmem_long_p(&g_flag[me], r, right);
        shmem_long_wait_until(&g_flag[left], SHMEM_CMP_GE, (long)r);
        // every add the left PE made before its fence is in (it may be into the next
        // round's by now)
        EXPECT_GE(shmem_long_atomic_fetch(&g_sum[left], me), 2L * A * r) << "round " << r;
    }
    shmem_barrier_all();
    EXPECT_EQ(g_sum[left], 2L * A * R);
}

// An add, then the origin spins on its own memory with plain loads and never calls the
// library: the add must still arrive (the agent sends it). Each PE adds to its right
// neighbour's g_ping and spins on g_pong; the neighbour, seeing the add, puts g_pong back.
TEST(AmoComb, HeldAddReachesTargetWhileOriginSpins)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    if (n == 1) { // nobody to answer: the add to itself is there at once
        g_ping = 0;
        shmem_long_atomic_add(&g_ping, 3, 0);
        EXPECT_TRUE(spin_until_for(&g_ping, 3L, kDeadline));
        return;
    }
    // Spinning on plain loads needs someone to serve this PE meanwhile
    // (test_offnode_common.h, spin_servable): one node, or the AM transport with its
    // agents. Else it waits in the library, which still checks that the held add arrives.
    int one_node = shmem_team_n_pes(SHMEM_TEAM_SHARED) == n, spin = one_node || shmemi_am_on();
    for (int r = 1; r <= 5; r++) {
        g_ping = 0;
        g_pong = 0;
        shmem_barrier_all();
        shmem_long_atomic_add(&g_ping, r, right);
        if (me % 2 == 0) { // the even PEs spin first, so a whole ring never waits in calls
            if (spin)
                ASSERT_TRUE(spin_until_for(&g_pong, (long)r, kDeadline)) << "round " << r;
            else
                shmem_long_wait_until(&g_pong, SHMEM_CMP_EQ, (long)r);
            shmem_long_wait_until(&g_ping, SHMEM_CMP_EQ, (long)r);
            shmem_long_p(&g_pong, r, left);
        } else {
            shmem_long_wait_until(&g_ping, SHMEM_CMP_EQ, (long)r);
            shmem_long_p(&g_pong, r, left);
            if (spin)
                ASSERT_TRUE(spin_until_for(&g_pong, (long)r, kDeadline)) << "round " << r;
            else
                shmem_long_wait_until(&g_pong, SHMEM_CMP_EQ, (long)r);
        }
        shmem_barrier_all();
    }
}

// The last PE computes without calling the library (how 0) or sits in MPI_Barrier of
// its own (how 1) while every other PE sends it plain adds (held, where this PE
// combines), quiets and fetches its word: the fetch sees all of this origin's adds at
// once (the held ones leave before it), and the totals are exact. Only the node's agent
// (or MPI's own progress) can serve the target meanwhile.
void held_adds_to_busy_target(int how)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), target = n - 1;
    const int K = 700; // more than one held buffer (COMB_MAX 512) and a tail
    long *ctr = (long *)shmem_calloc(kMaxPes, sizeof(long));
    ASSERT_NE(ctr, nullptr);
    ASSERT_LE(n, kMaxPes);
    long want = 0;
    for (int k = 0; k < K; k++)
        want += 1 + k % 3;
    uint64_t before[2], after[2];
    if (shmemi_am_on())
        shmemi_am_comb_stats(before);
    shmem_barrier_all();
    if (me == target) {
        if (how == 0)
            compute_for(0.3);
    } else {
        for (int k = 0; k < K; k++)
            shmem_long_atomic_add(&ctr[me], 1 + k % 3, target);
        shmem_quiet();
        EXPECT_EQ(shmem_long_atomic_fetch(&ctr[me], target), want) << "PE " << me << " how " << how;
    }
    if (how == 1)
        MPI_Barrier(MPI_COMM_WORLD);
    shmem_barrier_all();
    for (int p = 0; p < n - 1; p++)
        EXPECT_EQ(shmem_long_g(&ctr[p], target), want) << "origin " << p << " how " << how;
    if (shmemi_am_on()) {
        shmemi_am_comb_stats(after);
        // an origin that combines and sits on another node than the target held some
        int tnode = shmem_team_translate_pe(SHMEM_TEAM_WORLD, target, SHMEM_TEAM_SHARED);
        if (me != target && combines() && tnode < 0) {
            EXPECT_GT(after[0], before[0]) << "PE " << me << ": nothing was held";
        }
    }
    shmem_barrier_all();
    shmem_free(ctr);
}

TEST(AmoComb, HeldAddsReachComputingTarget) { held_adds_to_busy_target(0); }
TEST(AmoComb, HeldAddsReachTargetInMpiBarrier) { held_adds_to_busy_target(1); }

} // namespace
