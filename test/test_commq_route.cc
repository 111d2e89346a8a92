// test_commq_route.cc: node-routed comm queues (SHMEMQ_QUEUE_ROUTE=node, src/queue/cq_route.c):
// one slot per node peer and per other node, records for several PEs of a node in one
// burst that the node's server applies PE by PE. Every test runs at every configuration of
// run-mpi.sh: on one node the setting falls back to direct (and the test says so), every PE
// its own node, and two nodes of two. Each PE checks its own words.
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>
#include "atomic_rows.h"
#include "test_util.h"

extern "C" int shmemi_am_on(void);

namespace {

// The setting for the queues a test creates (read at create).
struct Route {
    explicit Route(const char *v) { setenv("SHMEMQ_QUEUE_ROUTE", v, 1); }
    ~Route() { unsetenv("SHMEMQ_QUEUE_ROUTE"); }
};

// PEs of this node, and the nodes of the job (SHMEMQ_NODE_PES cuts consecutive PEs).
int node_pes() { return shmem_team_n_pes(SHMEM_TEAM_SHARED); }
int nodes()
{
    // the lowest PE of each node counts it
    const int me = shmem_my_pe(),
              first = shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD);
    static int64_t *flag = nullptr;
    if (!flag)
        flag = static_cast<int64_t *>(shmem_calloc(1, sizeof(int64_t)));
    *flag = 0;
    shmem_barrier_all();
    if (me == first)
        shmem_int64_atomic_inc(flag, 0);
    shmem_barrier_all();
    int64_t k = shmem_int64_g(flag, 0);
    shmem_barrier_all();
    return (int)k;
}

bool routed(shmem_queue_t q)
{
    shmemx_queue_usage_t u;
    EXPECT_EQ(shmemx_queue_usage(q, &u), 0);
    return u.mode == SHMEMX_QUEUE_MODE_COMM_NODE;
}

int64_t heap_rows[6][64];
uint32_t static_rows[6][64];

// The typed push of the element type (C++ has no _Generic).
int push(shmem_queue_t q, int64_t *d, const int64_t *s, size_t n, int pe, shmem_op_type_t op)
{
    return shmem_int64_queue_comm_push(q, d, s, n, pe, op);
}
int push(shmem_queue_t q, uint32_t *d, const uint32_t *s, size_t n, int pe, shmem_op_type_t op)
{
    return shmem_uint32_queue_comm_push(q, d, s, n, pe, op);
}

} // namespace

// The mode is node exactly where off-node operations take the AM transport; direct
// otherwise, and for the setting's other values.
TEST(NodeRouted, ModeFollowsTheJobAndTheSetting)
{
    const char *vals[3] = {"node", "direct", "bogus"};
    for (const char *v : vals) {
        Route r(v);
        shmem_queue_t q;
        shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        const bool want = std::string(v) == "node" && shmemi_am_on();
        EXPECT_EQ(routed(q), want) << "SHMEMQ_QUEUE_ROUTE=" << v << " PE " << shmem_my_pe();
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    }
    // a queue on the AM path is never node-routed
    Route r("node");
    setenv("SHMEMQ_COMM_PATH", "am", 1);
    shmem_queue_t q;
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    unsetenv("SHMEMQ_COMM_PATH");
    EXPECT_FALSE(routed(q));
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
}

// Every atomic op (the rows of atomic_rows.h), one element at a time (the inline push)
// and several at once, on the heap (int64) and in the data segment (uint32), to every PE:
// exact on every PE. XOR and SET once, the adds R times.
template <typename T> void every_op_exact(T (*w)[64], bool one_at_a_time, bool any_queue)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), W = 64, R = 5;
    rows_reset<T>(&w[0][0], W);
    shmem_barrier_all();
    Route route("node");
    shmem_queue_t any = nullptr;
    if (any_queue) {
        shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ANY);
        ASSERT_EQ(shmem_queue_comm_create(&any, &c), 0);
        EXPECT_EQ(routed(any), (bool)shmemi_am_on());
    }
    for (int row = 0; row < 6; row++) {
        const std::vector<T> v = row_operands<T>(row, W, me);
        shmem_queue_t q = any;
        if (!any_queue) {
            shmem_queue_config_t c = comm_queue_cfg(kRowOps[row]);
            ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        }
        for (int r = 0; r < (row <= 1 || row == 3 || row == 4 ? R : 1); r++)
            for (int d = 0; d < n; d++) {
                const int pe = (me + d) % n;
                if (one_at_a_time) {
                    for (int i = 0; i < W; i++)
                        ASSERT_EQ(push(q, &w[row][i], &v[(size_t)i], 1, pe, kRowOps[row]), 0);
                } else {
                    ASSERT_EQ(push(q, w[row], v.data(), (size_t)W, pe, kRowOps[row]), 0);
                }
            }
        if (!any_queue) {
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
            ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        }
    }
    if (any_queue) {
        ASSERT_EQ(shmem_queue_local_flush(any), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(any), 0);
    }
    shmem_barrier_all();
    EXPECT_EQ(rows_wrong<T>(&w[0][0], W, n, R), 0)
        << "PE " << me << " one_at_a_time " << one_at_a_time << " any " << any_queue;
    shmem_barrier_all();
}

TEST(NodeRouted, EveryAtomicOpExactHeapAndStatic)
{
    for (int one = 0; one < 2; one++)
        for (int any = 0; any < 2; any++) {
            every_op_exact<int64_t>(heap_rows, one, any);
            every_op_exact<uint32_t>(static_rows, one, any);
        }
}

// Puts and gets of one element (the inline push), of several (record streams), of bytes
// (pushmem) and one larger than a chunk, to and from every PE: every value lands, every
// value read is the owner's.
TEST(NodeRouted, PutsAndGetsLandAndReadExactly)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), W = 48;
    const size_t big = (size_t)1 << 18; // larger than any chunk: sent by itself
    int64_t *src = static_cast<int64_t *>(shmem_malloc(sizeof(int64_t) * W));
    int64_t *dst = static_cast<int64_t *>(shmem_malloc(sizeof(int64_t) * W * n));
    char *bigsrc = static_cast<char *>(shmem_malloc(big));
    char *bigdst = static_cast<char *>(shmem_malloc(big * (size_t)n));
    for (int i = 0; i < W; i++)
        src[i] = (int64_t)me * 1000 + i;
    for (size_t i = 0; i < big; i++)
        bigsrc[i] = (char)(me * 7 + (int)(i % 251));
    shmem_barrier_all();
    Route route("node");
    shmem_queue_t q;
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ANY);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    std::vector<int64_t> got1((size_t)(W * n)), gotm((size_t)(W * n));
    std::vector<char> gotbig(big * (size_t)n);
    for (int d = 0; d < n; d++) {
        const int pe = (me + d) % n;
        // puts into my slice of pe's dst: half one at a time, half in one push
        for (int i = 0; i < W / 2; i++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &dst[me * W + i], &src[i], 1, pe, SHMEM_OP_PUT), 0);
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &dst[me * W + W / 2], &src[W / 2], W / 2, pe,
                                              SHMEM_OP_PUT),
                  0);
        ASSERT_EQ(shmem_queue_comm_pushmem(q, bigdst + (size_t)me * big, bigsrc, big, pe, SHMEM_OP_PUT), 0);
        // gets of pe's src: one at a time, in one push, and its big block
        for (int i = 0; i < W; i++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &got1[(size_t)(pe * W + i)], &src[i], 1, pe,
                                                  SHMEM_OP_GET),
                      0);
        ASSERT_EQ(shmem_queue_comm_pushmem(q, &gotm[(size_t)(pe * W)], src, sizeof(int64_t) * W, pe,
                                           SHMEM_OP_GET),
                  0);
        ASSERT_EQ(shmem_queue_comm_pushmem(q, &gotbig[(size_t)pe * big], bigsrc, big, pe, SHMEM_OP_GET), 0);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    int bad_get = 0, bad_big = 0;
    for (int p = 0; p < n; p++) {
        for (int i = 0; i < W; i++) {
            bad_get += got1[(size_t)(p * W + i)] != (int64_t)p * 1000 + i;
            bad_get += gotm[(size_t)(p * W + i)] != (int64_t)p * 1000 + i;
        }
        for (size_t i = 0; i < big; i += 97)
            bad_big += gotbig[(size_t)p * big + i] != (char)(p * 7 + (int)(i % 251));
    }
    EXPECT_EQ(bad_get, 0) << "PE " << me << ": values read from the wrong PE or place";
    EXPECT_EQ(bad_big, 0) << "PE " << me;
    shmem_barrier_all();
    int bad_put = 0;
    for (int p = 0; p < n; p++) {
        for (int i = 0; i < W; i++)
            bad_put += dst[p * W + i] != (int64_t)p * 1000 + i;
        for (size_t i = 0; i < big; i += 97)
            bad_put += bigdst[(size_t)p * big + i] != (char)(p * 7 + (int)(i % 251));
    }
    EXPECT_EQ(bad_put, 0) << "PE " << me << ": values put landed on the wrong PE or place";
    shmem_barrier_all();
    shmem_free(bigdst);
    shmem_free(bigsrc);
    shmem_free(dst);
    shmem_free(src);
}

// What node routing is for: one slot (and at most one burst a flush) per node peer and
// per other node, and per-PE arrays of that many entries, as the model says.
TEST(NodeRouted, OneBurstPerNodePeerAndOtherNodeAndTheModelAgrees)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), nl = node_pes(), nn = nodes();
    int64_t *w = static_cast<int64_t *>(shmem_calloc(8, sizeof(int64_t)));
    shmem_barrier_all();
    shmemx_queue_usage_t ud, ur;
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_SET);
    shmem_queue_t qd, qr;
    ASSERT_EQ(shmem_queue_comm_create(&qd, &c), 0);
    {
        Route route("node");
        ASSERT_EQ(shmem_queue_comm_create(&qr, &c), 0);
    }
    const int64_t v = me + 1;
    for (int d = 0; d < n; d++)
        for (int i = 0; i < 8; i++) {
            ASSERT_EQ(shmem_int64_queue_comm_push(qd, &w[i], &v, 1, d, SHMEM_OP_ATOMIC_SET), 0);
            ASSERT_EQ(shmem_int64_queue_comm_push(qr, &w[i], &v, 1, d, SHMEM_OP_ATOMIC_SET), 0);
        }
    ASSERT_EQ(shmem_queue_local_flush(qd), 0);
    ASSERT_EQ(shmem_queue_local_flush(qr), 0);
    ASSERT_EQ(shmemx_queue_usage(qd, &ud), 0);
    ASSERT_EQ(shmemx_queue_usage(qr, &ur), 0);
    EXPECT_EQ(ud.msgs_last, (uint64_t)n) << "PE " << me;
    EXPECT_EQ(ud.peers_last, (uint64_t)n) << "PE " << me;
    if (shmemi_am_on()) {
        ASSERT_EQ(ur.mode, (uint32_t)SHMEMX_QUEUE_MODE_COMM_NODE);
        EXPECT_EQ(ur.msgs_last, (uint64_t)(nl + nn - 1)) << "PE " << me << " nl " << nl << " nodes " << nn;
        EXPECT_EQ(ur.peers_last, (uint64_t)(nl + nn - 1)) << "PE " << me;
        if (nl > 1) {
            EXPECT_LT(ur.meta_bytes, ud.meta_bytes) << "PE " << me;
        }
        // the model of this mode, at this job's shape, is what the queue holds (the peer
        // marks of its first message included)
        shmemx_queue_model_t m;
        ASSERT_EQ(shmemx_queue_model(&c, SHMEMX_QUEUE_MODE_COMM_NODE, n, nl, &m), 0);
        EXPECT_EQ(m.meta_bytes + m.track_bytes, ur.meta_bytes) << "PE " << me;
    } else {
        EXPECT_EQ(ur.mode, (uint32_t)SHMEMX_QUEUE_MODE_COMM_RMA);
        EXPECT_EQ(ur.msgs_last, (uint64_t)n);
    }
    ASSERT_EQ(shmem_queue_comm_destroy(qd), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(qr), 0);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        EXPECT_TRUE(w[i] >= 1 && w[i] <= n) << "PE " << me << " word " << i;
    shmem_barrier_all();
    shmem_free(w);
}

// Queued adds (node-routed) and shmem_atomic_add of every PE on the same words at once:
// one atomic domain per node holds across both paths.
TEST(NodeRouted, MixedWithShmemAtomicsExact)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), W = 32, R = 200;
    int64_t *w = static_cast<int64_t *>(shmem_calloc(W, sizeof(int64_t)));
    shmem_barrier_all();
    Route route("node");
    shmem_queue_t q;
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    const int64_t one = 1, two = 2;
    for (int r = 0; r < R; r++)
        for (int d = 0; d < n; d++) {
            const int pe = (me + d + r) % n, i = (r + d) % W;
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &w[i], &one, 1, pe, SHMEM_OP_ATOMIC_ADD), 0);
            shmem_int64_atomic_add(&w[(i + 1) % W], two, pe);
        }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    int64_t sum = 0;
    for (int i = 0; i < W; i++)
        sum += w[i];
    EXPECT_EQ(sum, (int64_t)3 * R * n) << "PE " << me;
    shmem_barrier_all();
    shmem_free(w);
}

// A target that does not call the library while the origins flush a node-routed queue to
// it: it computes for half a second (how 0), spins on its own memory (1) or waits in a
// blocking MPI_Barrier (2). The flushes complete, served by its node; the origins' flags
// (spinning, computing) or the barrier (waiting) tell it; it finds every update.
static void flush_to_idle_target(int how)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), target = n - 1, W = 256;
    int64_t *w = static_cast<int64_t *>(shmem_calloc(W + 1, sizeof(int64_t)));
    shmem_barrier_all();
    if (me == target) {
        if (how == 0)
            compute_for(0.5);
        if (how == 2)
            MPI_Barrier(MPI_COMM_WORLD); /* the origins enter it after their flushes */
        else
            ASSERT_TRUE(spin_until_for(&w[W], (int64_t)(n - 1), 60.0))
                << "the origins' flags never came";
        int wrong = 0;
        for (int i = 0; i < W; i++)
            wrong += *(volatile int64_t *)&w[i] != (int64_t)(n - 1) * 3;
        EXPECT_EQ(wrong, 0) << "how " << how;
    } else {
        Route route("node");
        shmem_queue_t q;
        shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        const int64_t three = 3;
        for (int i = 0; i < W; i++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &w[i], &three, 1, target, SHMEM_OP_ATOMIC_ADD), 0);
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        if (how == 2) {
            MPI_Barrier(MPI_COMM_WORLD);
        } else {
            shmem_int64_atomic_inc(&w[W], target);
            shmem_quiet();
        }
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    }
    shmem_barrier_all();
    shmem_free(w);
}

TEST(NodeRouted, FlushToAComputingTargetCompletes)
{
    REQUIRE_PES(2);
    flush_to_idle_target(0);
}
TEST(NodeRouted, FlushToASpinningTargetCompletes)
{
    REQUIRE_PES(2);
    flush_to_idle_target(1);
}
TEST(NodeRouted, FlushToATargetInMpiBarrierCompletes)
{
    REQUIRE_PES(2);
    flush_to_idle_target(2);
}

// Issue 23's measure in the model: a node-routed queue of one op kind holds at most 16 MiB
// a PE at 1M PEs (64 a node) with the default settings, where a direct one holds its
// budget and per-PE arrays (over 100 MiB); a zeroed config included (its op is PUT).
TEST(NodeRouted, ModelUnder16MiBAtOneMillionPes)
{
    const int P = 1 << 20, n = 64;
    const shmem_op_type_t ops[3] = {SHMEM_OP_PUT, SHMEM_OP_ATOMIC_ADD, SHMEM_OP_GET};
    for (shmem_op_type_t op : ops) {
        shmem_queue_config_t c = comm_queue_cfg(op);
        shmemx_queue_model_t node, direct;
        ASSERT_EQ(shmemx_queue_model(&c, SHMEMX_QUEUE_MODE_COMM_NODE, P, n, &node), 0);
        ASSERT_EQ(shmemx_queue_model(&c, SHMEMX_QUEUE_MODE_COMM_RMA, P, n, &direct), 0);
        EXPECT_LE(node.max_total_bytes, (uint64_t)16 << 20) << "op " << (int)op;
        EXPECT_GT(direct.max_total_bytes, (uint64_t)100 << 20) << "op " << (int)op;
        // per-PE arrays: one entry per node peer and per other node
        EXPECT_LT(node.meta_bytes * 40, direct.meta_bytes) << "op " << (int)op;
    }
}
