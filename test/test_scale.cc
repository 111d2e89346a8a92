// test_scale.cc: shmemx_queue_usage against the memory model (shmemx_queue_model) for
// comm and data queues, exactly: bytes of the queue object and its per-PE arrays,
// buffers and their bytes, scratch; traffic per flush (messages, bytes, distinct peers)
// against what the test pushed; argument checks. Run by run-mpi.sh at 1, 2, 4 PEs, every
// PE its own node and nodes of two, and by test/scale.sh at 8 and 16 PEs.
#include <gtest/gtest.h>
#include <shmemx.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "test_util.h"

extern "C" int shmemi_am_on(void); // the job's off-node transport is AM (xport_am_init.c)

namespace {

// PEs of this PE's node, as the library groups them (SHMEMQ_NODE_PES included).
int node_pes() { return shmem_team_n_pes(SHMEM_TEAM_SHARED); }

// PEs whose heap this PE maps (its node, itself included): the same test the inline
// push makes (shmem_ptr gives the mapped address).
int mapped_pes(void *sym)
{
    int n = 0;
    for (int p = 0; p < shmem_n_pes(); p++)
        n += shmem_ptr(sym, p) != nullptr;
    return n;
}

shmemx_queue_usage_t usage(shmem_queue_t q)
{
    shmemx_queue_usage_t u;
    std::memset(&u, 0xff, sizeof u); // every field must be written
    EXPECT_EQ(shmemx_queue_usage(q, &u), 0);
    return u;
}

shmemx_queue_model_t model(const shmem_queue_config_t &c, int mode, int npes, int npn)
{
    shmemx_queue_model_t m;
    std::memset(&m, 0xff, sizeof m);
    EXPECT_EQ(shmemx_queue_model(&c, mode, npes, npn, &m), 0);
    return m;
}

// k elements of elem bytes from this PE to every PE of the queue's team, each a byte
// pattern of (me, p, j).
static void push_to_every_pe(shmem_queue_t q, int me, int np, size_t elem, int k)
{
    std::vector<unsigned char> e(elem);
    for (int p = 0; p < np; p++)
        for (int j = 0; j < k; j++) {
            std::memset(e.data(), (me * 7 + p * 3 + j) & 0xff, elem);
            ASSERT_EQ(shmem_queue_data_push(q, e.data(), 1, p), 0);
        }
}

// The flat and routed cases' first flush: k elements to every PE (push_to_every_pe),
// held until the flush, which then moved them all; *after: the usage after it.
static void push_and_flush_once(shmem_queue_t q, int me, int np, size_t elem, int k,
                                shmemx_queue_usage_t *after)
{
    const uint64_t bytes = (uint64_t)np * k * elem;
    push_to_every_pe(q, me, np, elem, k);
    EXPECT_EQ(usage(q).held_bytes, bytes);
    ASSERT_EQ(shmem_queue_global_flush(q), 0);
    *after = usage(q);
    EXPECT_EQ(after->flushes, 1u);
    EXPECT_EQ(after->bytes_last, bytes);
    EXPECT_EQ(after->held_bytes, bytes); // arrived, not popped
}

// Pops what push_to_every_pe sent to this PE from every PE, and checks each pattern.
static void pop_from_every_pe(shmem_queue_t q, int me, int np, size_t elem, int k)
{
    std::vector<unsigned char> e(elem);
    for (int p = 0; p < np; p++)
        for (int j = 0; j < k; j++) {
            ASSERT_EQ(shmem_queue_data_pop(q, e.data(), 1, p), 0);
            EXPECT_EQ(e[0], (unsigned char)((p * 7 + me * 3 + j) & 0xff));
        }
}

TEST(Scale, ArgumentsAreChecked)
{
    shmemx_queue_usage_t u;
    EXPECT_EQ(shmemx_queue_usage(nullptr, &u), SHMEM_QUEUE_ERR_ARG);
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    EXPECT_EQ(shmemx_queue_usage(q, nullptr), SHMEM_QUEUE_ERR_ARG);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    EXPECT_EQ(shmemx_queue_usage(q, &u), SHMEM_QUEUE_ERR_STATE); // destroyed

    shmem_queue_config_t d = data_queue_cfg(64, 8);
    shmem_queue_t dq = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&dq, &d, SHMEM_TEAM_WORLD), 0);
    EXPECT_EQ(shmemx_queue_usage(dq, nullptr), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmemx_queue_usage(dq, &u), 0);
    ASSERT_EQ(shmem_queue_data_destroy(&dq, SHMEM_TEAM_WORLD), 0);

    shmemx_queue_model_t m;
    EXPECT_EQ(shmemx_queue_model(nullptr, SHMEMX_QUEUE_MODE_COMM_RMA, 4, 2, &m), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmemx_queue_model(&c, SHMEMX_QUEUE_MODE_COMM_RMA, 4, 2, nullptr), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmemx_queue_model(&c, 0, 4, 2, &m), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmemx_queue_model(&c, 99, 4, 2, &m), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmemx_queue_model(&c, SHMEMX_QUEUE_MODE_COMM_RMA, 0, 1, &m), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmemx_queue_model(&c, SHMEMX_QUEUE_MODE_COMM_RMA, 4, 0, &m), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmemx_queue_model(&c, SHMEMX_QUEUE_MODE_DATA_FLAT, 4, 2, &m), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmemx_queue_model(&d, SHMEMX_QUEUE_MODE_COMM_AM, 4, 2, &m), SHMEM_QUEUE_ERR_ARG);
    shmem_queue_config_t tiny = data_queue_cfg(3, 8); // less than one element
    EXPECT_EQ(shmemx_queue_model(&tiny, SHMEMX_QUEUE_MODE_DATA_FLAT, 4, 2, &m), SHMEM_QUEUE_ERR_ARG);
    shmem_queue_config_t badop = comm_queue_cfg((shmem_op_type_t)42);
    EXPECT_EQ(shmemx_queue_model(&badop, SHMEMX_QUEUE_MODE_COMM_RMA, 4, 2, &m), SHMEM_QUEUE_ERR_ARG);
}

// The model is a + b*P in its per-PE arrays, and the default data room follows
// max(4 KiB, cache/(2P)), whole elements.
TEST(Scale, ModelFormulasAtLargeP)
{
    shmem_queue_config_t d = data_queue_cfg(0, 8);
    shmemx_queue_model_t m1 = model(d, SHMEMX_QUEUE_MODE_DATA_FLAT, 1000, 10);
    shmemx_queue_model_t m2 = model(d, SHMEMX_QUEUE_MODE_DATA_FLAT, 2000, 10);
    shmemx_queue_model_t m3 = model(d, SHMEMX_QUEUE_MODE_DATA_FLAT, 3000, 10);
    EXPECT_EQ(m2.meta_bytes - m1.meta_bytes, m3.meta_bytes - m2.meta_bytes);
    EXPECT_EQ(m1.max_buffers, 2000u);
    EXPECT_EQ(m1.max_total_bytes, m1.meta_bytes + m1.track_bytes + 2000u * m1.buffer_bytes);
    // 100,000 PEs at the floor: the issue's ~800 MB per data queue per PE
    shmemx_queue_model_t big = model(d, SHMEMX_QUEUE_MODE_DATA_FLAT, 100000, 64);
    EXPECT_EQ(big.buffer_bytes, 4096u); // the floor (any cache below 800 MB)
    EXPECT_GE(big.max_total_bytes, 2ull * 100000 * 4096);
    EXPECT_LT(big.max_total_bytes, 2ull * 100000 * 4096 + 100000ull * 256);

    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
    shmemx_queue_model_t c1 = model(c, SHMEMX_QUEUE_MODE_COMM_RMA, 1000, 10);
    shmemx_queue_model_t c2 = model(c, SHMEMX_QUEUE_MODE_COMM_RMA, 2000, 10);
    shmemx_queue_model_t c3 = model(c, SHMEMX_QUEUE_MODE_COMM_RMA, 3000, 10);
    EXPECT_EQ(c2.meta_bytes - c1.meta_bytes, c3.meta_bytes - c2.meta_bytes);
    EXPECT_EQ(c1.max_buffers, 1000u); // one ADD slot per PE
    // Per target PE: a slot per op slot the queue carries (one for one op kind, 7 for
    // SHMEM_OP_ANY) and the RMA target list (an int and a flag); the AM path adds its
    // flush-epoch state (a flag, two requests, a 16-byte header).
    const uint64_t slot = sizeof(shmemq_cq_slot_t), rma_list = sizeof(int) + 1;
    const uint64_t am_epoch = 1 + 2 * sizeof(MPI_Request) + 16;
    EXPECT_EQ((c2.meta_bytes - c1.meta_bytes) / 1000, slot + rma_list);
    shmem_queue_config_t inc = comm_queue_cfg(SHMEM_OP_ATOMIC_INC), any = comm_queue_cfg();
    EXPECT_EQ(model(inc, SHMEMX_QUEUE_MODE_COMM_RMA, 1000, 10).meta_bytes, c1.meta_bytes);
    EXPECT_EQ((model(any, SHMEMX_QUEUE_MODE_COMM_RMA, 2000, 10).meta_bytes -
               model(any, SHMEMX_QUEUE_MODE_COMM_RMA, 1000, 10).meta_bytes) / 1000,
              7 * slot + rma_list);
    EXPECT_EQ((model(c, SHMEMX_QUEUE_MODE_COMM_AM, 2000, 10).meta_bytes -
               model(c, SHMEMX_QUEUE_MODE_COMM_AM, 1000, 10).meta_bytes) / 1000,
              slot + rma_list + am_epoch);
    // several nodes: a node summing array (48 Ki words) only where atomics follow one
    // domain per node (this job's off-node transport is AM), and the 4 windows of sums
    // held for other PEs (16 Ki words each) unless the queue is timed or they are off
    const uint64_t node_arr = shmemi_am_on() ? 393216u : 0u;
    EXPECT_EQ(c1.scratch_once_bytes, node_arr + 524288u);
    shmem_queue_config_t timed = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD, 0, 0.5);
    EXPECT_EQ(model(timed, SHMEMX_QUEUE_MODE_COMM_RMA, 1000, 10).scratch_once_bytes, node_arr);
    setenv("SHMEMQ_HOLD_SUMS", "0", 1);
    EXPECT_EQ(model(c, SHMEMX_QUEUE_MODE_COMM_RMA, 1000, 10).scratch_once_bytes, node_arr);
    unsetenv("SHMEMQ_HOLD_SUMS");
    // the AM path holds only node peers' sums, and only where the node transport takes them
    EXPECT_EQ(model(c, SHMEMX_QUEUE_MODE_COMM_AM, 1000, 10).scratch_once_bytes,
              shmemi_am_on() ? 393216u + 524288u : 0u);
    EXPECT_EQ(model(c, SHMEMX_QUEUE_MODE_COMM_AM, 1000, 1).scratch_once_bytes, node_arr);
    EXPECT_EQ(model(c, SHMEMX_QUEUE_MODE_COMM_AM, 4, 4).scratch_once_bytes, 393216u + 524288u);
    EXPECT_EQ(model(c, SHMEMX_QUEUE_MODE_COMM_RMA, 1, 1).scratch_once_bytes, 393216u);
    shmemx_queue_model_t one = model(c, SHMEMX_QUEUE_MODE_COMM_RMA, 4, 4);
    EXPECT_GT(one.scratch_once_bytes, 0u);
    EXPECT_EQ(one.max_buffers, 64u); // the RMA pool bounds it at few PEs
    EXPECT_EQ(model(any, SHMEMX_QUEUE_MODE_COMM_RMA, 1000, 10).max_buffers, 7000u);
}

// One ADD to every PE, then three to the right neighbour only: buffers, bytes, messages
// and peers exactly as the model and the pushes say, and the counters right.
// path: SHMEMQ_COMM_PATH at create ("rma": the default; "am": the active-message path,
// whose chunks and scratch are twice the size and whose bursts to self are applied here).
void comm_usage_case(const char *path, int want_mode)
{
    const int np = shmem_n_pes(), me = shmem_my_pe();
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(16, sizeof(int64_t)));
    ASSERT_NE(ctr, nullptr);
    shmem_barrier_all();
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
    shmem_queue_t q = nullptr;
    setenv("SHMEMQ_COMM_PATH", path, 1);
    int crc = shmem_queue_comm_create(&q, &c);
    unsetenv("SHMEMQ_COMM_PATH");
    ASSERT_EQ(crc, 0);
    shmemx_queue_usage_t u = usage(q);
    ASSERT_EQ(u.mode, (uint32_t)want_mode);
    shmemx_queue_model_t m = model(c, (int)u.mode, np, node_pes());
    EXPECT_EQ(u.npes, (uint32_t)np);
    EXPECT_EQ(u.meta_bytes, m.meta_bytes);
    EXPECT_EQ(u.scratch_bytes, m.scratch_bytes);
    EXPECT_EQ(u.buffers, m.min_buffers);
    EXPECT_EQ(u.buffer_bytes, 0u);
    EXPECT_EQ(u.held_bytes, 0u);
    EXPECT_EQ(u.msgs_total, 0u);
    EXPECT_EQ(u.flushes, 0u);

    const int64_t one = 1;
    for (int p = 0; p < np; p++)
        ASSERT_EQ(shmem_int64_queue_comm_push(q, ctr, &one, 1, p, SHMEM_OP_ATOMIC_ADD), 0);
    u = usage(q);
    EXPECT_EQ(u.buffers, (uint64_t)np); // one open chunk per target
    EXPECT_EQ(u.buffer_bytes, (uint64_t)np * m.buffer_bytes);
    EXPECT_LE(u.buffers, m.max_buffers);
    EXPECT_EQ(u.held_bytes, (uint64_t)np * 16); // displacement + operand
    EXPECT_EQ(u.msgs_total, 0u);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    u = usage(q);
    EXPECT_EQ(u.held_bytes, 0u);
    EXPECT_EQ(u.flushes, 1u);
    EXPECT_EQ(u.msgs_last, (uint64_t)np);
    EXPECT_EQ(u.peers_last, (uint64_t)np);
    EXPECT_EQ(u.peers_total, (uint64_t)np);
    EXPECT_EQ(u.msgs_total, (uint64_t)np);
    if (u.mode == SHMEMX_QUEUE_MODE_COMM_RMA) {
        EXPECT_EQ(u.bytes_last, (uint64_t)np * 8); // operands (RMA and node bursts)
    }
    EXPECT_EQ(u.bytes_total, u.bytes_last);
    EXPECT_EQ(u.meta_bytes, m.meta_bytes + m.track_bytes);
    EXPECT_EQ(u.scratch_bytes, m.scratch_bytes); // bursts of < 64 adds are never summed
    EXPECT_EQ(u.buffers, (uint64_t)np); // kept for the next bursts

    const int right = (me + 1) % np;
    shmemx_queue_stats_t st0, st1;
    ASSERT_EQ(shmemx_queue_stats(q, &st0), 0);
    for (int k = 0; k < 3; k++)
        ASSERT_EQ(shmem_int64_queue_comm_push(q, ctr, &one, 1, right, SHMEM_OP_ATOMIC_ADD), 0);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    u = usage(q);
    EXPECT_EQ(u.flushes, 2u);
    EXPECT_EQ(u.msgs_last, 1u);
    EXPECT_EQ(u.peers_last, 1u);
    EXPECT_EQ(u.peers_total, (uint64_t)np);
    EXPECT_EQ(u.msgs_total, (uint64_t)np + 1);
    ASSERT_EQ(shmemx_queue_stats(q, &st1), 0);
    if (u.mode == SHMEMX_QUEUE_MODE_COMM_RMA) { // adds merged first (Open MPI's RMA path) leave no bytes
        EXPECT_EQ(u.bytes_last, 24u - 8 * (st1.combined_ops - st0.combined_ops));
    }
    EXPECT_EQ(u.buffers, (uint64_t)np); // no new chunk: the kept ones serve

    // 64 adds to one word of this PE: a node burst in a one-node job, summed in the
    // node array the model counts once; elsewhere an RMA burst and no array. The model's
    // once also counts the windows of sums held for other PEs: not made yet. A PE's
    // sums are held for a node peer where atomics take the node transport, and for any
    // PE on the RMA path.
    const int npn = node_pes(), my_node = me / npn;
    const bool rma = want_mode == SHMEMX_QUEUE_MODE_COMM_RMA;
    const bool node_atomics = npn == np || shmemi_am_on();
    auto held_for = [&](int p) { return p != me && (rma || (p / npn == my_node && node_atomics)); };
    const uint64_t rwin = np > 1 && (rma || (npn > 1 && node_atomics)) ? 4 * 131072u : 0u;
    ASSERT_GE(m.scratch_once_bytes, rwin);
    for (int k = 0; k < 64; k++)
        ASSERT_EQ(shmem_int64_queue_comm_push(q, ctr, &one, 1, me, SHMEM_OP_ATOMIC_ADD), 0);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    u = usage(q);
    const uint64_t node_once = m.scratch_once_bytes - rwin;
    EXPECT_EQ(u.scratch_bytes, m.scratch_bytes + node_once);
    EXPECT_EQ(u.peers_last, 1u);
    // 64 adds over 16 words of each other PE: held for it in a window of its own where
    // the rule above holds, made now (at most 4), and sent or applied at the flush (16
    // words: 64 records are too few for the window to leave at once, so each target
    // takes one)
    int held = 0;
    for (int p = 0; p < np; p++) {
        if (p == me)
            continue;
        held += held_for(p);
        for (int k = 0; k < 64; k++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, ctr + k % 16, &one, 1, p, SHMEM_OP_ATOMIC_ADD), 0);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    u = usage(q);
    const uint64_t windows = (uint64_t)(held < 4 ? held : 4);
    EXPECT_EQ(u.peers_last, (uint64_t)(np - 1)); // held sums, applied or sent, count too
    EXPECT_EQ(u.scratch_bytes, m.scratch_bytes + node_once + windows * 131072u);
    EXPECT_LE(u.scratch_bytes, m.scratch_bytes + m.scratch_once_bytes);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    EXPECT_EQ(ctr[0], np + 3 + 64 + 4 * (np - 1));
    for (int w = 1; w < 16; w++)
        EXPECT_EQ(ctr[w], 4 * (np - 1)) << "word " << w;
    shmem_barrier_all();
    shmem_free(ctr);
}

TEST(Scale, CommQueueUsageMatchesModelRma) { comm_usage_case("rma", SHMEMX_QUEUE_MODE_COMM_RMA); }
TEST(Scale, CommQueueUsageMatchesModelAm) { comm_usage_case("am", SHMEMX_QUEUE_MODE_COMM_AM); }

// A mixed queue: one-element PUTs to PEs of this node are copies made by the push (no
// buffer); to every other PE they open a chunk, as do the ADDs everywhere. So the buffers
// follow PEs per node: P + (P - mapped PEs).
TEST(Scale, CommBuffersFollowPesPerNode)
{
    const int np = shmem_n_pes(), me = shmem_my_pe();
    int64_t *cell = static_cast<int64_t *>(shmem_calloc((size_t)np + 1, sizeof(int64_t)));
    ASSERT_NE(cell, nullptr);
    shmem_barrier_all();
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ANY);
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    shmemx_queue_usage_t u = usage(q);
    shmemx_queue_model_t m = model(c, (int)u.mode, np, node_pes());
    const int64_t one = 1, mine = 100 + me;
    for (int p = 0; p < np; p++) {
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &cell[np], &one, 1, p, SHMEM_OP_ATOMIC_ADD), 0);
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &cell[me], &mine, 1, p, SHMEM_OP_PUT), 0);
    }
    const int far = np - mapped_pes(cell);
    u = usage(q);
    EXPECT_EQ(u.buffers, (uint64_t)(np + far));
    EXPECT_EQ(u.buffer_bytes, (uint64_t)(np + far) * m.buffer_bytes);
    EXPECT_LE(u.buffers, m.max_buffers);
    EXPECT_EQ(u.held_bytes, (uint64_t)(np + far) * 16);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    u = usage(q);
    EXPECT_EQ(u.msgs_last, (uint64_t)(np + far));
    EXPECT_EQ(u.peers_last, (uint64_t)np);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    for (int p = 0; p < np; p++)
        EXPECT_EQ(cell[p], 100 + p) << "from PE " << p;
    EXPECT_EQ(cell[np], np);
    shmem_barrier_all();
    shmem_free(cell);
}

void data_usage_case(uint64_t max_bytes, size_t elem)
{
    const int np = shmem_n_pes(), me = shmem_my_pe();
    shmem_queue_config_t c = data_queue_cfg(max_bytes, elem);
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    shmemx_queue_model_t m = model(c, SHMEMX_QUEUE_MODE_DATA_FLAT, np, node_pes());
    shmemx_queue_usage_t u = usage(q);
    EXPECT_EQ(u.mode, (uint32_t)SHMEMX_QUEUE_MODE_DATA_FLAT);
    EXPECT_EQ(u.npes, (uint32_t)np);
    EXPECT_EQ(u.meta_bytes, m.meta_bytes);
    EXPECT_EQ(u.scratch_bytes, 0u);
    EXPECT_EQ(u.buffers, m.min_buffers);
    EXPECT_EQ(u.buffers, 2u * np);
    EXPECT_EQ(u.buffer_bytes, m.max_buffers * m.buffer_bytes);
    if (max_bytes) {
        EXPECT_EQ(m.buffer_bytes, max_bytes - max_bytes % elem);
    }
    EXPECT_EQ(u.held_bytes, 0u);

    const int k = 3;
    ASSERT_NO_FATAL_FAILURE(push_and_flush_once(q, me, np, elem, k, &u));
    EXPECT_EQ(u.msgs_last, (uint64_t)np);
    EXPECT_EQ(u.peers_last, (uint64_t)np);
    EXPECT_EQ(u.peers_total, (uint64_t)np);
    EXPECT_EQ(u.bytes_total, u.bytes_last);
    EXPECT_EQ(u.meta_bytes, m.meta_bytes + m.track_bytes);
    EXPECT_EQ(u.meta_bytes + u.scratch_bytes + u.buffer_bytes, m.max_total_bytes);
    ASSERT_NO_FATAL_FAILURE(pop_from_every_pe(q, me, np, elem, k));
    EXPECT_EQ(usage(q).held_bytes, 0u);

    const int right = (me + 1) % np, left = (me + np - 1) % np;
    std::vector<unsigned char> e(elem);
    std::memset(e.data(), 0x5a, elem);
    ASSERT_EQ(shmem_queue_data_push(q, e.data(), 1, right), 0);
    ASSERT_EQ(shmem_queue_global_flush(q), 0);
    u = usage(q);
    EXPECT_EQ(u.msgs_last, 1u);
    EXPECT_EQ(u.peers_last, 1u);
    EXPECT_EQ(u.bytes_last, (uint64_t)elem);
    EXPECT_EQ(u.peers_total, (uint64_t)np);
    EXPECT_EQ(u.msgs_total, (uint64_t)np + 1);
    EXPECT_EQ(u.flushes, 2u);
    ASSERT_EQ(shmem_queue_data_pop(q, e.data(), 1, left), 0);
    EXPECT_EQ(e[0], 0x5a);
    ASSERT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

// Routed mode (SHMEMQ_DATAQ_ROUTE=2hop): the world's nodes of node_pes() (SHMEMQ_NODE_PES
// groups consecutive PEs, so PE p is node p / n, local rank p % n). At create: meta and
// the n porter buffers exactly as modelled, no staging. Traffic per flush: hop 1 to the
// porters that serve the destinations, hop 2 from this PE as a porter to the columns'
// nodes; this PE's own bytes.
// A routed queue over the world made with SHMEMQ_DATAQ_ROUTE=route, checked at create
// against the model of `mode`: meta and the n porter buffers exactly, no staging.
void routed_at_create(const char *route, uint32_t mode, uint64_t max_bytes, size_t elem,
                      shmem_queue_t *q, shmemx_queue_model_t *m)
{
    const int np = shmem_n_pes(), n = node_pes();
    setenv("SHMEMQ_DATAQ_ROUTE", route, 1);
    shmem_queue_config_t c = data_queue_cfg(max_bytes, elem);
    int rc = shmem_queue_data_create(q, &c, SHMEM_TEAM_WORLD);
    unsetenv("SHMEMQ_DATAQ_ROUTE");
    ASSERT_EQ(rc, 0);
    *m = model(c, (int)mode, np, n);
    shmemx_queue_usage_t u = usage(*q);
    EXPECT_EQ(u.mode, mode);
    EXPECT_EQ(u.npes, (uint32_t)np);
    EXPECT_EQ(u.meta_bytes, m->meta_bytes);
    EXPECT_EQ(u.scratch_bytes, 0u);
    EXPECT_EQ(u.buffers, m->min_buffers);
    EXPECT_EQ(u.buffers, (uint64_t)n);
    EXPECT_EQ(u.buffer_bytes, m->max_buffers * m->buffer_bytes);
    EXPECT_EQ(u.meta_bytes + u.buffer_bytes + m->track_bytes, m->max_total_bytes);
    EXPECT_EQ(u.held_bytes, 0u);
}

void data_routed_usage_case(uint64_t max_bytes, size_t elem)
{
    const int np = shmem_n_pes(), me = shmem_my_pe(), n = node_pes(), nn = np / n;
    shmem_queue_t q = nullptr;
    shmemx_queue_model_t m;
    ASSERT_NO_FATAL_FAILURE(
        routed_at_create("2hop", SHMEMX_QUEUE_MODE_DATA_ROUTED, max_bytes, elem, &q, &m));
    shmemx_queue_usage_t u;

    const int k = 3;
    ASSERT_NO_FATAL_FAILURE(push_and_flush_once(q, me, np, elem, k, &u));
    EXPECT_EQ(u.msgs_last, (uint64_t)(n + nn));      // every porter, every column node
    EXPECT_EQ(u.peers_last, (uint64_t)(n + nn - 1)); // this PE is in both
    EXPECT_EQ(u.meta_bytes, m.meta_bytes + m.track_bytes);
    EXPECT_GE(u.scratch_bytes, (uint64_t)np * k * elem); // staging and the FIFOs
    ASSERT_NO_FATAL_FAILURE(pop_from_every_pe(q, me, np, elem, k));

    // a ring: hop 1 to the porter of right's local rank; hop 2 for the node peers j
    // whose right neighbour has this PE's local rank, to that neighbour's node
    const int right = (me + 1) % np, left = (me + np - 1) % np;
    std::vector<int> peers{(me / n) * n + right % n};
    std::vector<int> nodes;
    for (int j = (me / n) * n; j < (me / n + 1) * n; j++) {
        int r = (j + 1) % np;
        if (r % n == me % n && std::find(nodes.begin(), nodes.end(), r / n) == nodes.end())
            nodes.push_back(r / n);
    }
    for (int k2 : nodes)
        if (std::find(peers.begin(), peers.end(), k2 * n + me % n) == peers.end())
            peers.push_back(k2 * n + me % n);
    std::vector<unsigned char> e(elem);
    std::memset(e.data(), 0x5a, elem);
    ASSERT_EQ(shmem_queue_data_push(q, e.data(), 1, right), 0);
    ASSERT_EQ(shmem_queue_global_flush(q), 0);
    u = usage(q);
    EXPECT_EQ(u.msgs_last, 1u + nodes.size());
    EXPECT_EQ(u.peers_last, (uint64_t)peers.size());
    EXPECT_EQ(u.bytes_last, (uint64_t)elem);
    EXPECT_EQ(u.msgs_total, (uint64_t)(n + nn) + 1 + nodes.size());
    EXPECT_EQ(u.flushes, 2u);
    ASSERT_EQ(shmem_queue_data_pop(q, e.data(), 1, left), 0);
    EXPECT_EQ(e[0], 0x5a);
    ASSERT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

// Three hops (SHMEMQ_DATAQ_ROUTE=3hop): at create exactly the model's meta and porter
// buffers; after a flush to every PE the meta adds the model's peer marks; the peers a
// flush meets are test_dataq_route3's (ThreeHopsMeetTheCrossPeersOnly).
void data_routed3_usage_case(uint64_t max_bytes, size_t elem)
{
    const int np = shmem_n_pes(), me = shmem_my_pe();
    shmem_queue_t q = nullptr;
    shmemx_queue_model_t m;
    ASSERT_NO_FATAL_FAILURE(
        routed_at_create("3hop", SHMEMX_QUEUE_MODE_DATA_ROUTED3, max_bytes, elem, &q, &m));
    shmemx_queue_usage_t u;
    const int k = 3;
    ASSERT_NO_FATAL_FAILURE(push_and_flush_once(q, me, np, elem, k, &u));
    EXPECT_EQ(u.meta_bytes, m.meta_bytes + m.track_bytes);
    EXPECT_EQ(u.bytes_last, (uint64_t)np * k * elem);
    ASSERT_NO_FATAL_FAILURE(pop_from_every_pe(q, me, np, elem, k));
    ASSERT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST(Scale, RoutedDataQueueUsageMatchesModelDefaultRoom) { data_routed_usage_case(0, 8); }
TEST(Scale, ThreeHopDataQueueUsageMatchesModel) { data_routed3_usage_case(1000, 12); }
TEST(Scale, RoutedDataQueueUsageMatchesModelOddRoom) { data_routed_usage_case(1000, 12); }

// Routed model: n porter buffers of the default room for n + P/n peers; nothing grows
// with P but the per-hop arrays (n + P/n); a P that is not whole nodes is refused (it
// would be direct). Issue 23's measure: at 1M PEs, 64 per node, a routed queue of the
// default config holds at most 16 MiB; direct mode's figure beside it.
TEST(Scale, RoutedModelAtLargeP)
{
    shmem_queue_config_t d = data_queue_cfg(0, 8);
    shmemx_queue_model_t r1 = model(d, SHMEMX_QUEUE_MODE_DATA_ROUTED, 64 * 1024, 64);
    shmemx_queue_model_t r2 = model(d, SHMEMX_QUEUE_MODE_DATA_ROUTED, 64 * 2048, 64);
    shmemx_queue_model_t f1 = model(d, SHMEMX_QUEUE_MODE_DATA_FLAT, 64 * 1024, 64);
    EXPECT_EQ(r1.min_buffers, 64u);
    EXPECT_EQ(r1.max_buffers, 64u);
    EXPECT_EQ(r1.buffer_bytes, 4096u); // the floor: 64 + 1024 peers
    EXPECT_LT(r1.max_total_bytes * 10, f1.max_total_bytes);
    EXPECT_GT(r2.meta_bytes, r1.meta_bytes);
    EXPECT_EQ(r1.max_total_bytes, r1.meta_bytes + r1.track_bytes + 64u * 4096u);
    EXPECT_EQ(r1.track_bytes, (64u + 1024u) * 4u); // the node's and the column's peers
    shmemx_queue_model_t big = model(d, SHMEMX_QUEUE_MODE_DATA_ROUTED, 1 << 20, 64);
    shmemx_queue_model_t bigf = model(d, SHMEMX_QUEUE_MODE_DATA_FLAT, 1 << 20, 64);
    EXPECT_LE(big.max_total_bytes, (uint64_t)16 << 20);
    EXPECT_EQ(big.track_bytes, (64u + 16384u) * 4u);
    EXPECT_GT(bigf.max_total_bytes, (uint64_t)8 << 30); // 2P rooms of 4 KiB and more
    // what grows with P: the per-hop arrays only, by the nodes added (16x as many here)
    shmemx_queue_model_t big2 = model(d, SHMEMX_QUEUE_MODE_DATA_ROUTED, 1 << 21, 64);
    EXPECT_EQ(big2.meta_bytes - big.meta_bytes, 16 * (r2.meta_bytes - r1.meta_bytes));
    if (shmem_my_pe() == 0)
        std::printf("model at 1M PEs, 64 per node, default config: routed %llu B, "
                    "direct %llu B\n",
                    (unsigned long long)big.max_total_bytes,
                    (unsigned long long)bigf.max_total_bytes);
    shmemx_queue_model_t m;
    EXPECT_EQ(shmemx_queue_model(&d, SHMEMX_QUEUE_MODE_DATA_ROUTED, 10, 4, &m),
              SHMEM_QUEUE_ERR_ARG);
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
    EXPECT_EQ(shmemx_queue_model(&c, SHMEMX_QUEUE_MODE_DATA_ROUTED, 16, 4, &m),
              SHMEM_QUEUE_ERR_ARG);
}

// Three hops: the cross hop meets ceil(P/n / n) nodes, so peer marks are n + P/n^2 and
// the hop arrays max(n, 2 P/n^2): at 1M PEs, 64 per node, 64 + 256 marks and below the
// two-hop figure; P/n^2 below n (1,024 PEs) leaves the node's n as the arrays' length.
TEST(Scale, ThreeHopModelAtLargeP)
{
    shmem_queue_config_t d = data_queue_cfg(0, 8);
    shmemx_queue_model_t t1 = model(d, SHMEMX_QUEUE_MODE_DATA_ROUTED3, 64 * 1024, 64);
    shmemx_queue_model_t two = model(d, SHMEMX_QUEUE_MODE_DATA_ROUTED, 1 << 20, 64);
    shmemx_queue_model_t big = model(d, SHMEMX_QUEUE_MODE_DATA_ROUTED3, 1 << 20, 64);
    shmemx_queue_model_t big2 = model(d, SHMEMX_QUEUE_MODE_DATA_ROUTED3, 1 << 21, 64);
    EXPECT_EQ(t1.min_buffers, 64u);
    EXPECT_EQ(t1.max_buffers, 64u);
    EXPECT_EQ(t1.track_bytes, (64u + 16u) * 4u);
    EXPECT_EQ(big.track_bytes, (64u + 256u) * 4u);
    EXPECT_EQ(big.buffer_bytes, 4096u);
    EXPECT_EQ(big.max_total_bytes, big.meta_bytes + big.track_bytes + 64u * 4096u);
    EXPECT_LT(big.max_total_bytes, two.max_total_bytes);
    EXPECT_LE(big.max_total_bytes, (uint64_t)1 << 20);
    // what grows with P: the hop arrays, 64 entries at 64K PEs (the node's n), 2 x 256 at
    // 1M, 2 x 512 at 2M, the same bytes each (their size depends on the MPI's handles)
    EXPECT_GT(big.meta_bytes, t1.meta_bytes);
    EXPECT_EQ((big2.meta_bytes - big.meta_bytes) * (512u - 64u),
              (big.meta_bytes - t1.meta_bytes) * 512u);
}

TEST(Scale, DataQueueUsageMatchesModelDefaultRoom) { data_usage_case(0, 8); }
TEST(Scale, DataQueueUsageMatchesModelOddRoom) { data_usage_case(1000, 12); }

} // namespace
