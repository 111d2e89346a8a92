// test_cqsim.cc: the comm-queue simulator (bench/cqsim.c) against real comm queues. Every
// PE pushes the simulator's own workload (sim_pick: uniform, and half to node 0) as ADDs
// into a real ATOMIC_ADD queue, flushes, and compares shmemx_queue_usage's bursts, bytes
// and distinct peers of that flush, its chunks held, and the chunks the budget issued
// early, with what the simulator computes for this PE; then the table's sums with the
// adds the simulator's workload sends here. Small chunks (SHMEMQ_RMA_CHUNK_BYTES) make
// full chunks, the RMA pool and, with a budget of a few chunks, early bursts happen at
// 1, 2 and 4 PEs. Run by run-mpi.sh in every configuration.
#include <gtest/gtest.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "test_util.h"
#include "../bench/cqsim.h"
#include "../bench/sim.h"
#include "../src/queue/cq_plan.h"

extern "C" int shmemi_queue_comm_budget_stats(shmem_queue_t q, uint64_t out[2]);
// later creates and model calls take this budget (NULL: SHMEMQ_QUEUE_BUDGET's, queue_usage.c)
extern "C" void shmemi_queue_comm_budget_test(const char *value);
extern "C" int shmemi_am_on(void);

namespace {

const int kTable = 512; // 4 KiB of counters: node bursts are never owner-posted (< 32 KiB)

const shmem_op_type_t kOps[5] = {SHMEM_OP_ATOMIC_ADD, SHMEM_OP_ATOMIC_SET, SHMEM_OP_ATOMIC_AND,
                                  SHMEM_OP_ATOMIC_OR, SHMEM_OP_ATOMIC_XOR};

int push_op(shmem_queue_t q, int64_t *dest, const int64_t *v, int pe, shmem_op_type_t op)
{
    return shmem_int64_queue_comm_push(q, dest, v, 1, pe, op);
}
int push_op(shmem_queue_t q, int32_t *dest, const int32_t *v, int pe, shmem_op_type_t op)
{
    return shmem_int32_queue_comm_push(q, dest, v, 1, pe, op);
}

// kinds: op kinds pushed in turn (1: an ATOMIC_ADD queue; more: SHMEM_OP_ANY). chunk:
// SHMEMQ_RMA_CHUNK_BYTES. budget: 0 the default, else the queue's budget in chunks
// (bytes per op kind, rounded up so that the queue's kinds give exactly it; set through
// the library's test hook, as SHMEMQ_QUEUE_BUDGET is read at shmem_init). node: ask for
// a node-routed queue (SHMEMQ_QUEUE_ROUTE=node), taken where the job's off-node operations
// take the AM transport, and simulated as it is taken.
template <typename T>
void cqsim_case(int hot_pct, int kinds, size_t chunk, uint64_t budget, int records,
                bool node = false)
{
    const int np = shmem_n_pes(), me = shmem_my_pe();
    const int n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    // the simulator's grid: nodes of n consecutive PEs (as SHMEMQ_NODE_PES makes them)
    ASSERT_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD), me - me % n);
    ASSERT_EQ(np % n, 0);
    const uint64_t qkinds = kinds > 1 ? 7 : 1; // the budget's op kinds of the queue
    const size_t cbytes = cq_plan_chunk_bytes(chunk, np);
    const uint64_t alloc = cq_plan_chunk_alloc(cbytes);
    const bool routed = node && shmemi_am_on();
    const uint64_t per_kind = budget   ? (budget * alloc + qkinds - 1) / qkinds
                              : routed ? CQ_PLAN_BUDGET_NODE_DEFAULT
                                       : CQ_PLAN_BUDGET_DEFAULT;
    T *table = static_cast<T *>(shmem_calloc(2 * kTable, sizeof(T)));
    ASSERT_NE(table, nullptr);
    shmem_barrier_all();
    shmem_queue_config_t c =
        comm_queue_cfg(kinds > 1 ? SHMEM_OP_ANY : SHMEM_OP_ATOMIC_ADD, 1u << 20);
    shmem_queue_t q = nullptr;
    setenv("SHMEMQ_RMA_CHUNK_BYTES", std::to_string(chunk).c_str(), 1);
    if (budget)
        shmemi_queue_comm_budget_test(std::to_string(per_kind).c_str());
    setenv("SHMEMQ_COMBINE", "0", 1);     // bursts carry every record
    setenv("SHMEMQ_OWNER_APPLY", "0", 1); // node bursts are applied by the origin
    setenv("SHMEMQ_HOLD_SUMS", "0", 1);   // bursts to other nodes leave as pushed
    if (node)
        setenv("SHMEMQ_QUEUE_ROUTE", "node", 1);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    unsetenv("SHMEMQ_QUEUE_ROUTE");
    shmemx_queue_usage_t u0;
    ASSERT_EQ(shmemx_queue_usage(q, &u0), 0);
    ASSERT_EQ(u0.mode, (uint32_t)(routed ? SHMEMX_QUEUE_MODE_COMM_NODE : SHMEMX_QUEUE_MODE_COMM_RMA));
    shmemx_queue_model_t m;
    ASSERT_EQ(shmemx_queue_model(&c, (int)u0.mode, np, n, &m), 0);
    unsetenv("SHMEMQ_RMA_CHUNK_BYTES");
    shmemi_queue_comm_budget_test(nullptr);
    unsetenv("SHMEMQ_COMBINE");
    unsetenv("SHMEMQ_OWNER_APPLY");
    unsetenv("SHMEMQ_HOLD_SUMS");
    // the queue's own sizes are the plan's
    EXPECT_EQ(m.buffer_bytes, alloc);
    uint64_t st[2];
    ASSERT_EQ(shmemi_queue_comm_budget_stats(q, st), 0);
    EXPECT_EQ(st[0], cq_plan_budget_chunks(per_kind, qkinds, cbytes));
    if (budget) {
        EXPECT_EQ(st[0], budget);
    }

    // node bursts where adds take the node transport (the model's summing array says so)
    cqsim_cfg_t sc = {np, n, m.scratch_once_bytes != 0, records, kinds, sizeof(T), hot_pct,
                      4242, cbytes, st[0], routed};
    cqsim_t *s = cqsim_new(&sc);
    ASSERT_NE(s, nullptr);
    std::vector<cqsim_pe_t> pe(np);
    std::vector<uint64_t> fan(np / n);
    uint64_t want = 0, early = 0; // adds of 1 sent to this PE; chunks issued early
    for (int f = 0; f < 3; f++) {
        cqsim_flush(s, f, pe.data(), fan.data());
        for (int i = 0; i < records; i++) {
            int d = sim_pick(sc.seed, np, n, hot_pct, f, me, i);
            ASSERT_GE(d, 0);
            ASSERT_LT(d, np);
            int k = i % kinds; // the simulator's kind of record i
            const T v = k == 0 ? 1 : (T)(i & 0x7f);
            T *dest = &table[(k ? kTable : 0) + (me * 7 + i) % kTable]; // adds: first half
            ASSERT_EQ(push_op(q, dest, &v, d, kOps[k]), 0);
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        shmemx_queue_usage_t u;
        ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
        const cqsim_pe_t &e = pe[me];
        EXPECT_EQ(u.flushes, (uint64_t)f + 1);
        EXPECT_EQ(u.msgs_last, (uint64_t)e.msgs) << "PE " << me << " flush " << f;
        EXPECT_EQ(u.peers_last, (uint64_t)e.peers) << "PE " << me << " flush " << f;
        EXPECT_EQ(u.bytes_last, e.bytes) << "PE " << me << " flush " << f;
        EXPECT_EQ(u.bytes_last, (uint64_t)records * sizeof(T));
        EXPECT_EQ(u.buffers, e.chunks) << "PE " << me << " flush " << f;
        EXPECT_EQ(u.buffer_bytes, e.chunks * alloc);
        ASSERT_EQ(shmemi_queue_comm_budget_stats(q, st), 0);
        EXPECT_EQ(st[1], e.early_total) << "PE " << me << " flush " << f;
        EXPECT_LE(e.chunks, st[0]);
        early += e.early;
        // what arrives here, from every PE's workload
        for (int p = 0; p < np; p++)
            for (int i = 0; i < records; i += kinds)
                want += sim_pick(sc.seed, np, n, hot_pct, f, p, i) == me;
        // the simulator's own sums across PEs
        uint64_t sent = 0, recv = 0;
        for (int p = 0; p < np; p++)
            sent += pe[p].msgs, recv += pe[p].recv;
        EXPECT_EQ(sent, recv);
        shmem_barrier_all(); // every PE's adds have landed (each flushed before)
    }
    // more slots in use than the budget holds: early bursts, on the queue and simulated
    const uint64_t slots = routed ? (uint64_t)(n + np / n - 1) : (uint64_t)np;
    if (budget && slots * kinds > budget) {
        EXPECT_GT(early, 0u) << "PE " << me;
    }
    uint64_t sum = 0;
    for (int k = 0; k < kTable; k++)
        sum += (uint64_t)table[k];
    EXPECT_EQ(sum, want) << "PE " << me;
    cqsim_free(s);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    shmem_free(table);
}

// Chunks of 1 KiB (64 int64 records): full chunks, and past the RMA pool of 64 chunks
// where bursts take the RMA path; 64 KiB chunks of int32 adds (5,461 records).
TEST(CqSim, UniformInt64) { cqsim_case<int64_t>(0, 1, 1024, 0, 6000); }
TEST(CqSim, HotNodeInt64) { cqsim_case<int64_t>(50, 1, 1024, 0, 6000); }
TEST(CqSim, UniformInt32DefaultChunk) { cqsim_case<int32_t>(0, 1, 65536, 0, 12000); }
// Budgets of 1 and 3 chunks: the fullest open chunk leaves early, as simulated.
TEST(CqSim, BudgetOneChunk) { cqsim_case<int64_t>(0, 1, 4096, 1, 1500); }
TEST(CqSim, BudgetThreeChunksHotNode) { cqsim_case<int64_t>(50, 1, 4096, 3, 1500); }
// Five op kinds (a SHMEM_OP_ANY queue): up to 20 open chunks at 4 PEs, so a budget of 17
// issues the fullest eighth (2 at 16 open) and one of 3 the fullest one.
TEST(CqSim, FiveKindsBudgetSeventeen) { cqsim_case<int64_t>(0, 5, 1024, 17, 4000); }
TEST(CqSim, FiveKindsBudgetThreeHotNode) { cqsim_case<int32_t>(50, 5, 1024, 3, 3000); }
TEST(CqSim, FiveKindsDefaultBudget) { cqsim_case<int32_t>(0, 5, 1024, 0, 6000); }
// Node-routed queues (where the job takes them: off the node): a chunk per other node,
// full chunks, the RMA pool, the node default budget and a budget of 3 chunks.
TEST(CqSim, NodeRoutedUniform) { cqsim_case<int64_t>(0, 1, 1024, 0, 6000, true); }
TEST(CqSim, NodeRoutedHotNodeBudgetThree) { cqsim_case<int64_t>(50, 1, 4096, 3, 1500, true); }
TEST(CqSim, NodeRoutedFiveKinds) { cqsim_case<int32_t>(0, 5, 1024, 0, 6000, true); }

// Bad configs are refused; a grid larger than the job adds up (no communication).
TEST(CqSim, ConfigAndTotals)
{
    cqsim_cfg_t bad = {10, 4, 1, 4, 1, 8, 0, 1, 4096, 10, 0};
    EXPECT_EQ(cqsim_new(&bad), nullptr); // 4 does not divide 10
    cqsim_cfg_t bad2 = {8, 4, 1, 4, 1, 2, 0, 1, 4096, 10, 0};
    EXPECT_EQ(cqsim_new(&bad2), nullptr); // 2-byte operands: not an ADD queue's
    cqsim_cfg_t bad3 = {8, 4, 1, 4, 6, 8, 0, 1, 4096, 10, 0};
    EXPECT_EQ(cqsim_new(&bad3), nullptr); // five atomic kinds at most
    cqsim_cfg_t c = {64, 8, 1, 2000, 1, 8, 0, 7, 1024, 8, 0};
    cqsim_t *s = cqsim_new(&c);
    ASSERT_NE(s, nullptr);
    std::vector<cqsim_pe_t> pe(64);
    std::vector<uint64_t> fan(8);
    cqsim_flush(s, 0, pe.data(), fan.data());
    uint64_t bytes = 0, sent = 0, recv = 0, off = 0, fin = 0;
    for (const cqsim_pe_t &p : pe) {
        bytes += p.bytes;
        sent += p.msgs, recv += p.recv, off += p.recv_off;
        EXPECT_LE(p.chunks, 8u);         // the budget holds
        EXPECT_GT(p.early, 0u);          // 64 targets, 8 chunks: early bursts
        EXPECT_LE(p.peers, 64u);
        EXPECT_LE(p.peers_node, 8u);
        EXPECT_LE(p.sweep_first, 64u);
    }
    for (uint64_t v : fan)
        fin += v;
    EXPECT_EQ(bytes, 64u * 2000 * 8);
    EXPECT_EQ(sent, recv);
    EXPECT_EQ(off, fin);
    cqsim_free(s);
    // node-routed: a PE's peers are its node's 8 PEs and the 7 other nodes' servers, and
    // only servers receive from other nodes
    c.node_routed = 1;
    s = cqsim_new(&c);
    ASSERT_NE(s, nullptr);
    cqsim_flush(s, 0, pe.data(), fan.data());
    bytes = sent = recv = 0;
    for (int p = 0; p < 64; p++) {
        bytes += pe[p].bytes;
        sent += pe[p].msgs, recv += pe[p].recv;
        EXPECT_LE(pe[p].peers, 15u) << p;
        EXPECT_GT(pe[p].peers, 8u) << p;
        if (p % 8) {
            EXPECT_EQ(pe[p].recv_off, 0u) << p;
        }
    }
    EXPECT_EQ(bytes, 64u * 2000 * 8);
    EXPECT_EQ(sent, recv);
    cqsim_free(s);
}

} // namespace
