// test_offnode_standdown.cc: PEs of other nodes by default (issue 21;
// test_offnode_common.h): the node agent's stand-down, while its process waits and only
// then, and a computing node peer still served meanwhile.
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstring>
#include <vector>

#include "test_offnode_common.h"

extern "C" int shmemi_agent_stats(uint64_t out[2]);        // agent.c, for tests
extern "C" int shmemi_agent_defer_stats(uint64_t *deferred); // agent.c, for tests

namespace {

// ---- The agent's stand-down (agent.c): it sleeps while a thread of its own process waits
// in a loop that does its work (shmemi_wait_request), and only then.

// A target X computes (plain loads on its flag, no library call) while a PE S of another
// node sends it adds, a put and a flag, and meanwhile X's node peer sits in a collective
// (a team sync across nodes, completed through MPI: shmemi_wait_request) that ends only
// once S is done. Round 0: X is its node's leader, so the agent runs in X's process, no
// thread there waits, and the agent must keep serving. Round 1 (nodes of two or more): X
// is not the leader and the waiting peer is, so the agent stands down and the leader's
// wait serves X's memory instead. Either way every operation completes while X computes.
// Every PE its own node: X has no peer, its agent serves it; one node: the node transport.
TEST(OffNode, StandDownKeepsServingAComputingNodePeer)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int k = shmem_team_n_pes(SHMEM_TEAM_SHARED), nodes = n / k;
    const bool spin = spin_servable();
    const int M = 300, B = 4096;
    long *ctr = (long *)shmem_calloc(2, sizeof(long)); // [0] adds, [1] flag
    char *blk = (char *)shmem_calloc(B, 1);
    long *go = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_TRUE(ctr && blk && go);
    ASSERT_EQ(n % k, 0);
    for (int x = 0; x < 2 && x < n; x++) {
        const bool pair = nodes >= 2 && k >= 2; // a node peer that can wait meanwhile
        const int X = x, S = pair ? x + k : (x + 1) % n;
        const int W = 1 - x;                     // X's peer on node 0 (pair only)
        shmem_team_t t = SHMEM_TEAM_INVALID;     // {W, W + k, ...}: one PE per node
        if (pair) {
            ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, W, k, nodes, NULL, 0, &t), 0);
        }
        shmem_barrier_all();
        if (n > 1 && me == S) {
            std::vector<char> src((size_t)B);
            for (int i = 0; i < B; i++)
                src[(size_t)i] = (char)(x * 13 + i * 7 + 1);
            for (int i = 0; i < M; i++)
                shmem_long_atomic_add(&ctr[0], 1, X);
            shmem_putmem(blk, src.data(), (size_t)B, X);
            shmem_quiet();
            shmem_long_atomic_set(&ctr[1], 1, X);
            if (pair)
                shmem_long_atomic_set(go, 1, W + k); // S's node peer in the team: now
        }
        if (n > 1 && me == X) {
            bool got = spin ? spin_until_for(&ctr[1], 1L, 20.0)
                            : (shmem_long_wait_until(&ctr[1], SHMEM_CMP_EQ, 1), true);
            // EXPECT, not ASSERT: the others must not be left in the collectives below
            EXPECT_TRUE(got) << "round " << x << ": PE " << me << " computing: the flag never came";
            if (!got) // let S finish (inside the library now) so that the job ends
                shmem_long_wait_until(&ctr[1], SHMEM_CMP_EQ, 1);
            EXPECT_EQ(*(volatile long *)&ctr[0], (long)M) << "round " << x;
            int bad = 0;
            for (int i = 0; i < B; i++)
                bad += blk[i] != (char)(x * 13 + i * 7 + 1);
            EXPECT_EQ(bad, 0) << "round " << x << ": bytes of the put wrong";
        }
        if (t != SHMEM_TEAM_INVALID) { // W and its like wait here until S is done
            if (me == W + k)
                shmem_long_wait_until(go, SHMEM_CMP_EQ, 1);
            shmem_team_sync(t);
        }
        shmem_barrier_all();
        ctr[0] = ctr[1] = 0, *go = 0;
        std::memset(blk, 0, (size_t)B);
        if (t != SHMEM_TEAM_INVALID)
            shmem_team_destroy(t);
        shmem_barrier_all();
    }
    shmem_free(go);
    shmem_free(blk);
    shmem_free(ctr);
}

// The agent stands down while its process waits, and not while it computes: the node
// leaders meet in a team sync (through MPI) that the last of them joins only after
// computing ~0.5 s. A waiting leader's agent stands down and polls (almost) not at all
// meanwhile (without the stand-down it polls once per 500 us at least: ~1000 passes);
// the computing leader's agent does not stand down (once per 500 us if it did) and keeps
// polling.
TEST(OffNode, StandDownWhileItsProcessWaitsOnly)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int k = shmem_team_n_pes(SHMEM_TEAM_SHARED), nodes = n / k;
    shmem_team_t leaders;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, k, nodes, NULL, 0, &leaders), 0);
    uint64_t b[2] = {0, 0}, a[2] = {0, 0};
    const int lead = me % k == 0, last = me == (nodes - 1) * k;
    int agent = shmemi_agent_stats(b) == 0;
    if (agent) {
        EXPECT_TRUE(lead) << "PE " << me << ": an agent outside a node's leader";
    }
    // The team's first collective sets up its collective state with blocking MPI calls
    // (a communicator split: up to ~100 ms with MPICH at 4 PEs on 2 cores), inside which
    // the agent rightly keeps polling: done here, outside the window measured below.
    if (lead)
        shmem_team_sync(leaders);
    shmem_barrier_all();
    if (lead) {
        (void)shmemi_agent_stats(b);
        if (last)
            compute_for(0.5);
        (void)shmemi_agent_stats(a); // the computing leader: before it syncs
        if (!last || nodes == 1)
            shmem_team_sync(leaders);
        if (!last)
            (void)shmemi_agent_stats(a);
        if (last && nodes > 1)
            shmem_team_sync(leaders);
    }
    if (agent && nodes > 1 && !last) {
        EXPECT_GE(a[1] - b[1], (uint64_t)1) << "PE " << me << ": the agent never stood down";
        EXPECT_LT(a[0] - b[0], (uint64_t)100) << "PE " << me << ": the agent polled beside the wait";
    }
    if (agent && last) {
        // at most the one stand-down begun in the barrier before and counted as it ends
        EXPECT_LE(a[1] - b[1], (uint64_t)1) << "PE " << me << ": the agent stood down while its PE computed";
        EXPECT_GT(a[0] - b[0], (uint64_t)0) << "PE " << me << ": the agent did not poll while its PE computed";
    }
    shmem_barrier_all();
    shmem_team_destroy(leaders);
}

// A wait for an AM reply outside the transport's lock runs every hook, so it counts as
// its process progressing itself: node 0's leader makes blocking fetch-adds to the last
// node's leader, and its agent stands down at least once meanwhile (it used to poll
// beside such waits); every fetch returns the count before it, so none was lost.
TEST(OffNode, StandDownWhileWaitingForAnAmoReply)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int k = shmem_team_n_pes(SHMEM_TEAM_SHARED), nodes = n / k;
    const int T = (nodes - 1) * k, M = 2000;
    long *ctr = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_NE(ctr, nullptr);
    uint64_t b[2] = {0, 0}, a[2] = {0, 0};
    const int agent = shmemi_agent_stats(b) == 0;
    shmem_barrier_all();
    if (me == 0 && nodes > 1) {
        (void)shmemi_agent_stats(b);
        int wrong = 0;
        for (long i = 0; i < M; i++)
            wrong += shmem_long_atomic_fetch_add(ctr, 1, T) != i;
        (void)shmemi_agent_stats(a);
        EXPECT_EQ(wrong, 0) << "fetches that did not return the count before them";
        if (agent) {
            EXPECT_GE(a[1] - b[1], (uint64_t)1) << "the agent never stood down in " << M << " AMO waits";
        }
    }
    shmem_barrier_all();
    if (me == T && nodes > 1) {
        EXPECT_EQ(*ctr, (long)M);
    }
    shmem_barrier_all();
    shmem_free(ctr);
}

// An agent that shares a core with PEs (PEs and agents outnumber the cores: every layout
// of 2 and 4 PEs on CI's 2 cores) leaves its passes to its process while that process
// progresses itself (agent.c, "Deferral"): PE 0 polls shmem_test for 0.3 s while a PE of
// another node sends it adds and then a flag; every add lands, the flag comes, and PE 0's
// agent deferred at least once. An agent with a core of its own never defers. (That a
// deferring agent still serves a PE that computes: StandDownWhileItsProcessWaitsOnly and
// StandDownKeepsServingAComputingNodePeer.)
TEST(OffNode, AgentDefersWhileItsProcessProgresses)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int k = shmem_team_n_pes(SHMEM_TEAM_SHARED), nodes = n / k;
    const int S = nodes > 1 ? k : -1, M = 500; // the sender: node 1's first PE
    long *ctr = (long *)shmem_calloc(2, sizeof(long)); // [0] adds, [1] flag
    ASSERT_NE(ctr, nullptr);
    uint64_t d0 = 0, d1 = 0, st[2];
    const int agent = shmemi_agent_stats(st) == 0;
    shmem_barrier_all();
    if (me == S) {
        for (int i = 0; i < M; i++)
            shmem_long_atomic_add(&ctr[0], 1, 0);
        shmem_quiet();
        shmem_long_atomic_set(&ctr[1], 1, 0);
    }
    if (me == 0) {
        const int defer = shmemi_agent_defer_stats(&d0);
        const double t0 = MPI_Wtime();
        bool got = S < 0;
        while (MPI_Wtime() - t0 < 0.3 || (!got && MPI_Wtime() - t0 < kDeadline))
            if (shmem_long_test(&ctr[1], SHMEM_CMP_EQ, 1)) // always called: it progresses
                got = true;
        (void)shmemi_agent_defer_stats(&d1);
        EXPECT_TRUE(got) << "the flag never came";
        if (S >= 0) {
            EXPECT_EQ(*(volatile long *)&ctr[0], (long)M);
        }
        if (agent && defer) {
            EXPECT_GE(d1 - d0, (uint64_t)1) << "a deferring agent never deferred in 0.3 s of shmem_test";
        } else {
            EXPECT_EQ(d1 - d0, (uint64_t)0) << "deferred with a core of its own (or no agent)";
        }
    }
    shmem_barrier_all();
    shmem_free(ctr);
}

} // namespace
