// test_sim.cc: the dry-run simulator (bench/sim.c) against real data queues. Every PE
// pushes the simulator's own deterministic workload (sim_dest: uniform, and with half
// the records to node 0) through a real queue, direct and routed (SHMEMQ_DATAQ_ROUTE=
// 2hop and 3hop), flushes, and compares shmemx_queue_usage's messages, bytes and distinct
// peers of that flush, and the buffer bytes, with what the simulator computes for this
// PE; and the bytes it pops with what the simulator says arrive (direct). Run by
// run-mpi.sh at 1, 2, 4 PEs (2x2 with SHMEMQ_NODE_PES=2) and by test/scale.sh at 16 PEs
// as 4x4 and 8x2 (3hop's cross hop has 1 peer per PE at 4x4, 4 at 8x2).
#include <gtest/gtest.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <utility>
#include <vector>
#include "test_util.h"
#include "../bench/sim.h"

namespace {

// hops: 1 direct, 2 or 3 routed. nbx: direct flushes through the sparse exchange
// (SHMEMQ_DATAQ_EXCHANGE=nbx), whose counts must be the alltoallv exchange's
// (docs/data_queues.md, "Sparse flushes").
void sim_case(int hops, int hot_pct, size_t elem, int nbx = 0)
{
    const int routed = hops > 1;
    const int np = shmem_n_pes(), me = shmem_my_pe();
    const int n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    // the simulator's grid: nodes of n consecutive PEs (as SHMEMQ_NODE_PES makes them)
    ASSERT_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD), me - me % n);
    ASSERT_EQ(np % n, 0);
    shmem_queue_config_t c = data_queue_cfg(0, elem);
    if (routed)
        setenv("SHMEMQ_DATAQ_ROUTE", hops == 3 ? "3hop" : "2hop", 1);
    setenv("SHMEMQ_DATAQ_EXCHANGE", nbx ? "nbx" : "alltoallv", 1);
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    unsetenv("SHMEMQ_DATAQ_ROUTE");
    unsetenv("SHMEMQ_DATAQ_EXCHANGE");
    shmemx_queue_model_t mf, mr;
    ASSERT_EQ(shmemx_queue_model(&c, SHMEMX_QUEUE_MODE_DATA_FLAT, np, n, &mf), 0);
    ASSERT_EQ(shmemx_queue_model(&c, hops == 3 ? SHMEMX_QUEUE_MODE_DATA_ROUTED3
                                               : SHMEMX_QUEUE_MODE_DATA_ROUTED,
                                 np, n, &mr),
              0);

    sim_cfg_t sc = {np, n, hops, 37, elem, hot_pct, 12345, (size_t)mf.buffer_bytes,
                    (size_t)mr.buffer_bytes};
    sim_t *s = sim_new(&sc);
    ASSERT_NE(s, nullptr);
    std::vector<sim_pe_t> pe(np);
    std::vector<uint64_t> fan(np / n);
    std::vector<unsigned char> e(elem);
    for (int f = 0; f < 3; f++) {
        sim_flush(s, f, pe.data(), fan.data());
        for (int i = 0; i < sc.records; i++) {
            int d = sim_dest(&sc, f, me, i);
            ASSERT_GE(d, 0);
            ASSERT_LT(d, np);
            std::memset(e.data(), (me + i + f) & 0xff, elem);
            ASSERT_EQ(shmem_queue_data_push(q, e.data(), 1, d), 0);
        }
        EXPECT_EQ(pe[me].full, 0u);
        ASSERT_EQ(shmem_queue_global_flush(q), 0);
        shmemx_queue_usage_t u;
        ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
        EXPECT_EQ(u.mode, (uint32_t)(hops == 3 ? SHMEMX_QUEUE_MODE_DATA_ROUTED3
                                     : routed  ? SHMEMX_QUEUE_MODE_DATA_ROUTED
                                     : nbx     ? SHMEMX_QUEUE_MODE_DATA_NBX
                                               : SHMEMX_QUEUE_MODE_DATA_FLAT));
        EXPECT_EQ(u.flushes, (uint64_t)f + 1);
        EXPECT_EQ(u.msgs_last, (uint64_t)pe[me].msgs) << "flush " << f;
        EXPECT_EQ(u.peers_last, (uint64_t)pe[me].peers) << "flush " << f;
        EXPECT_EQ(u.bytes_last, pe[me].bytes) << "flush " << f;
        EXPECT_EQ(u.bytes_last, (uint64_t)sc.records * elem);
        EXPECT_EQ(u.buffer_bytes, pe[me].buf_bytes) << "flush " << f;
        // what arrived: pop every source dry
        uint64_t got = 0;
        for (int p = 0; p < np; p++)
            while (shmem_queue_data_pop(q, e.data(), 1, p) == 0)
                got += elem;
        if (!routed)
            EXPECT_EQ(got, pe[me].wire_recv) << "flush " << f;
        else // the records arriving in the last hop carry it, one header each
            EXPECT_GE(hops == 3 ? pe[me].wire3_recv : pe[me].wire2_recv, got);
        // the simulator's own sums hold across PEs
        uint64_t ms = 0, mr1 = 0, ms2 = 0, mr2 = 0, ms3 = 0, mr3 = 0;
        for (int p = 0; p < np; p++) {
            ms += pe[p].msgs1, mr1 += pe[p].recv1, ms2 += pe[p].msgs2, mr2 += pe[p].recv2;
            ms3 += pe[p].msgs3, mr3 += pe[p].recv3;
        }
        EXPECT_EQ(ms, mr1);
        EXPECT_EQ(ms2, mr2);
        EXPECT_EQ(ms3, mr3);
        // every PE agrees with its own simulation before the next flush
        shmem_barrier_all();
    }
    sim_free(s);
    ASSERT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST(Sim, DirectUniform) { sim_case(1, 0, 8); }
TEST(Sim, DirectHotNode) { sim_case(1, 50, 8); }
TEST(Sim, DirectUniformNbx) { sim_case(1, 0, 8, 1); }
TEST(Sim, DirectHotNodeNbx) { sim_case(1, 50, 8, 1); }
TEST(Sim, RoutedUniform) { sim_case(2, 0, 8); }
TEST(Sim, RoutedHotNode) { sim_case(2, 50, 8); }
TEST(Sim, RoutedOddRecords) { sim_case(2, 0, 12); }
TEST(Sim, Routed3Uniform) { sim_case(3, 0, 8); }
TEST(Sim, Routed3HotNode) { sim_case(3, 50, 8); }
TEST(Sim, Routed3OddRecords) { sim_case(3, 0, 12); }

// The simulator refuses what the queue would not build, and its counts add up for a
// grid larger than the job (no communication).
TEST(Sim, ConfigAndTotals)
{
    sim_cfg_t bad = {10, 4, 2, 4, 8, 0, 1, 4096, 4096};
    EXPECT_EQ(sim_new(&bad), nullptr); // 4 does not divide 10
    sim_cfg_t nohops = {16, 4, 0, 4, 8, 0, 1, 4096, 4096};
    EXPECT_EQ(sim_new(&nohops), nullptr);
    sim_cfg_t c = {64, 8, 2, 100, 8, 0, 7, 4096, 4096};
    sim_t *s = sim_new(&c);
    ASSERT_NE(s, nullptr);
    std::vector<sim_pe_t> pe(64);
    std::vector<uint64_t> fan(8);
    sim_flush(s, 0, pe.data(), fan.data());
    uint64_t bytes = 0, recv = 0;
    for (const sim_pe_t &p : pe) {
        bytes += p.bytes;
        recv += p.wire2_recv;
        EXPECT_LE(p.msgs1, 8u);
        EXPECT_LE(p.msgs2, 8u);
        EXPECT_LE(p.peers, 15u); // n + P/n - 1
    }
    EXPECT_EQ(bytes, 64u * 100 * 8);
    EXPECT_GT(recv, bytes); // headers
    sim_free(s);
}

// Three hops on grids larger than the job, nodes not a multiple of n (residue classes of
// 3 and 2 nodes), against the rule worked out here by brute force: a record from node a
// for d (node b, local rank m) goes (a, src) -> (a, b % n) -> (b, a % n) -> d, one
// message per (sender, receiver) pair per hop, and a PE's peers are the distinct PEs it
// sends to in any hop.
void sim3_brute(int P, int n, int hot_pct, int records)
{
    sim_cfg_t c = {P, n, 3, records, 8, hot_pct, 99, 1 << 20, 4096};
    sim_t *s = sim_new(&c);
    ASSERT_NE(s, nullptr);
    std::vector<sim_pe_t> pe(P);
    std::vector<uint64_t> fan(P / n);
    for (int f = 0; f < 2; f++) {
        sim_flush(s, f, pe.data(), fan.data());
        std::set<std::pair<int, int>> pairs, h[3];
        for (int p = 0; p < P; p++)
            for (int i = 0; i < records; i++)
                pairs.insert({p, sim_dest(&c, f, p, i)});
        std::vector<std::set<int>> peers(P);
        std::vector<uint32_t> sent[3], got[3];
        std::vector<uint64_t> fanin(P / n, 0);
        for (int k = 0; k < 3; k++)
            sent[k].assign(P, 0), got[k].assign(P, 0);
        for (const auto &sd : pairs) {
            int a = sd.first / n, b = sd.second / n;
            int route[4] = {sd.first, a * n + b % n, b * n + a % n, sd.second};
            for (int k = 0; k < 3; k++)
                if (h[k].insert({route[k], route[k + 1]}).second) {
                    sent[k][route[k]]++, got[k][route[k + 1]]++;
                    peers[route[k]].insert(route[k + 1]);
                    if (route[k] / n != route[k + 1] / n)
                        fanin[route[k + 1] / n]++;
                }
        }
        for (int p = 0; p < P; p++) {
            EXPECT_EQ(pe[p].msgs1, sent[0][p]) << "PE " << p;
            EXPECT_EQ(pe[p].msgs2, sent[1][p]) << "PE " << p;
            EXPECT_EQ(pe[p].msgs3, sent[2][p]) << "PE " << p;
            EXPECT_EQ(pe[p].recv1, got[0][p]) << "PE " << p;
            EXPECT_EQ(pe[p].recv2, got[1][p]) << "PE " << p;
            EXPECT_EQ(pe[p].recv3, got[2][p]) << "PE " << p;
            EXPECT_EQ(pe[p].msgs, sent[0][p] + sent[1][p] + sent[2][p]);
            EXPECT_EQ(pe[p].peers, (uint32_t)peers[p].size()) << "PE " << p;
            // rt_track_peers: the node, and a cross hop of at most ceil(P/n / n)
            EXPECT_LE(pe[p].peers, (uint32_t)(n + (P / n + n - 1) / n));
        }
        for (int k = 0; k < P / n; k++)
            EXPECT_EQ(fan[k], fanin[k]) << "node " << k;
    }
    sim_free(s);
}

TEST(Sim, ThreeHopsBruteForce)
{
    sim3_brute(40, 4, 0, 30);   // 10 nodes: cross classes of 3, 3, 2, 2
    sim3_brute(40, 4, 50, 30);
    sim3_brute(130, 2, 0, 50);  // 65 nodes, n = 2
    sim3_brute(200, 5, 25, 200); // dense: most pairs of nodes meet
    sim3_brute(70, 70, 0, 40);  // one node: the cross hop is each PE to itself
    sim3_brute(17, 1, 0, 9);    // one PE per node: every hop is the PE's own
}

} // namespace
