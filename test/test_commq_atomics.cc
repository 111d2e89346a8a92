// test_commq_atomics.cc: communication queues (docs/queues.md), their data paths: queued
// atomics (exact totals from every PE, every op and several types in one queue,
// concurrent adds to the same counters) and the AM path's packed uniform batches, on both
// paths (SHMEMQ_COMM_PATH) and with combining (SHMEMQ_COMBINE). The other data-path
// tests: test_commq_common.h; the life cycle and contract: test_commq_api.cc.
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <cstdlib>
#include <cstring>
#include "test_commq_common.h"

extern "C" int shmemi_am_on(void);

// Every PE adds to every PE's counters: exact totals, including self targets.
TEST_P(CommQueueModes, AtomicAddsFromAllPesExact)
{
    int n = shmem_n_pes();
    const int N = 257, R = 3000;
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(N, sizeof(int64_t)));
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ATOMIC_ADD);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    for (int r = 0; r < R; r++) {
        for (int pe = 0; pe < n; pe++) {
            int64_t v = (r % N) + 1; // stack operand reused at once
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &ctr[r % N], &v, 1, pe, SHMEM_OP_ATOMIC_ADD), 0);
            v = -12345;
        }
        ASSERT_GE(shmem_queue_progress(q), 0);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    size_t sz = 9;
    EXPECT_EQ(shmem_query_size(q, &sz), 0);
    EXPECT_EQ(sz, 0u);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        int64_t per = 0;
        for (int r = 0; r < R; r++)
            if (r % N == i)
                per += i + 1;
        ASSERT_EQ(ctr[i], per * n) << "counter " << i;
    }
    shmemx_queue_stats_t st;
    ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_EQ(st.ops_pushed, (uint64_t)R * n);
    EXPECT_GE(st.flushes, 1u);
    if (kModes[GetParam()].combine[0] == '1' && n > 1) {
        EXPECT_GT(st.combined_ops, 0u);
    }
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    shmem_free(ctr);
}

// Every op and several types in one mixed queue; flush makes everything visible.
TEST_P(CommQueueModes, MixedOpsAndTypes)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int pe = (me + 1) % n, from = (me + n - 1) % n;
    struct S {
        int64_t add[8];
        uint32_t inc[4];
        double set[3];
        float fset;
        uint64_t bits[3];
        char put[40];
        long double ld[2];
        short sh[5];
        int64_t src[6];
    };
    S *s = static_cast<S *>(shmem_calloc(1, sizeof(S)));
    for (int i = 0; i < 6; i++)
        s->src[i] = 1000 * me + i;
    s->bits[0] = 0xff; s->bits[1] = 0xf0; s->bits[2] = 0x0f;
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    int64_t a8[8];
    for (int i = 0; i < 8; i++)
        a8[i] = i + 1;
    ASSERT_EQ(shmem_int64_queue_comm_push(q, s->add, a8, 8, pe, SHMEM_OP_ATOMIC_ADD), 0);
    for (int k = 0; k < 5; k++)
        ASSERT_EQ(shmem_uint32_queue_comm_push(q, &s->inc[k % 4], nullptr, 1, pe, SHMEM_OP_ATOMIC_INC), 0);
    double dv[3] = {1.5, -2.25, 3e10};
    ASSERT_EQ(shmem_double_queue_comm_push(q, s->set, dv, 3, pe, SHMEM_OP_ATOMIC_SET), 0);
    float fv = 0.5f + me;
    ASSERT_EQ(shmem_float_queue_comm_push(q, &s->fset, &fv, 1, pe, SHMEM_OP_ATOMIC_SET), 0);
    uint64_t m1 = 0x3c, m2 = 0x0f, m3 = 0xff;
    ASSERT_EQ(shmem_uint64_queue_comm_push(q, &s->bits[0], &m1, 1, pe, SHMEM_OP_ATOMIC_AND), 0);
    ASSERT_EQ(shmem_uint64_queue_comm_push(q, &s->bits[1], &m2, 1, pe, SHMEM_OP_ATOMIC_OR), 0);
    ASSERT_EQ(shmem_uint64_queue_comm_push(q, &s->bits[2], &m3, 1, pe, SHMEM_OP_ATOMIC_XOR), 0);
    char msg[40];
    for (int i = 0; i < 40; i++)
        msg[i] = (char)('a' + (i + me) % 26);
    ASSERT_EQ(shmem_queue_comm_pushmem(q, s->put, msg, 40, pe, SHMEM_OP_PUT), 0);
    std::memset(msg, 0, sizeof msg); // push copied it
    long double ldv[2] = {1.25L, -7.5L};
    ASSERT_EQ(shmem_longdouble_queue_comm_push(q, s->ld, ldv, 2, pe, SHMEM_OP_PUT), 0);
    short shv[5] = {1, 2, 3, 4, 5};
    ASSERT_EQ(shmem_short_queue_comm_push(q, s->sh, shv, 5, pe, SHMEM_OP_PUT), 0);
    // GET from the right neighbour's src (set before the barrier)
    int64_t got[6] = {0};
    ASSERT_EQ(shmem_int64_queue_comm_push(q, got, s->src, 6, pe, SHMEM_OP_GET), 0);
    shmem_queue_attr_t a;
    ASSERT_EQ(shmem_query_attr(q, &a), 0);
    EXPECT_GT(a.outstanding_elems + (pe == me ? 100u : 0u), 0u);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    for (int i = 0; i < 6; i++)
        EXPECT_EQ(got[i], 1000 * pe + i);
    ASSERT_EQ(shmem_query_attr(q, &a), 0);
    EXPECT_EQ(a.outstanding_elems, 0u);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        EXPECT_EQ(s->add[i], i + 1);
    EXPECT_EQ(s->inc[0], 2u);
    EXPECT_EQ(s->inc[1], 1u);
    EXPECT_EQ(s->set[0], 1.5);
    EXPECT_EQ(s->set[1], -2.25);
    EXPECT_EQ(s->set[2], 3e10);
    EXPECT_EQ(s->fset, 0.5f + from);
    EXPECT_EQ(s->bits[0], 0x3cu);
    EXPECT_EQ(s->bits[1], 0xffu);
    EXPECT_EQ(s->bits[2], 0xf0u);
    for (int i = 0; i < 40; i++)
        EXPECT_EQ(s->put[i], (char)('a' + (i + from) % 26));
    EXPECT_EQ(s->ld[0], 1.25L);
    EXPECT_EQ(s->ld[1], -7.5L);
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(s->sh[i], i + 1);
    shmem_barrier_all();
    shmem_free(s);
}

// Concurrent queued adds from every PE into the same counters (atomicity) and a
// generic-selection push.
TEST_P(CommQueueModes, ConcurrentAddsSameCounters)
{
    int n = shmem_n_pes();
    const int N = 16, R = 8000;
    uint64_t *ctr = static_cast<uint64_t *>(shmem_calloc(N, sizeof(uint64_t)));
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ATOMIC_ADD, 1000);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    for (int r = 0; r < R; r++) {
        uint64_t one = 1;
        int rc;
        while ((rc = shmem_uint64_queue_comm_push(q, &ctr[r % N], &one, 1, 0, SHMEM_OP_ATOMIC_ADD)) ==
               SHMEM_QUEUE_ERR_FULL)
            ASSERT_GE(shmem_queue_progress(q), 0);
        ASSERT_EQ(rc, 0);
    }
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        for (int i = 0; i < N; i++)
            EXPECT_EQ(ctr[i], (uint64_t)(R / N) * n);
    }
    shmem_barrier_all();
    shmem_free(ctr);
}

INSTANTIATE_TEST_SUITE_P(Paths, CommQueueModes, ::testing::Values(0, 1, 2, 3));

// AM path: a batch whose operands are all equal goes as 32-bit displacements and one
// operand (docs/queues.md, PACKED). Every atomic op and both element sizes, on the heap
// and the data segment; a batch with one differing operand is sent as it is. The bytes
// that left show which form was used.
static int64_t g_pack_ctr[64];

TEST(CommQueue, UniformBatchesPackedExactly)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const int N = 64;
    int64_t *add = static_cast<int64_t *>(shmem_calloc(N, sizeof(int64_t)));
    uint32_t *bits = static_cast<uint32_t *>(shmem_calloc(N, sizeof(uint32_t)));
    uint64_t *xr = static_cast<uint64_t *>(shmem_calloc(N, sizeof(uint64_t)));
    int32_t *set = static_cast<int32_t *>(shmem_calloc(N, sizeof(int32_t)));
    int64_t *mixed = static_cast<int64_t *>(shmem_calloc(N, sizeof(int64_t)));
    std::memset(g_pack_ctr, 0, sizeof g_pack_ctr);
    shmem_barrier_all();
    setenv("SHMEMQ_COMM_PATH", "am", 1);
    setenv("SHMEMQ_COMBINE", "0", 1);
    uint64_t bytes[2] = {0, 0};
    for (int pack = 0; pack < 2; pack++) {
        setenv("SHMEMQ_PACK", pack ? "1" : "0", 1);
        shmem_queue_t q;
        shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        const int64_t five = 5;
        const uint32_t bit = 1u << (me % 32);
        const uint64_t pattern = 0x0101010101010101ull;
        const int32_t seven = 7;
        // one kind at a time, flushed: INC and int64 ADD on the heap share a burst buffer
        for (int kind = 0; kind < 6; kind++) {
            for (int k = 0; k < n; k++) {
                for (int i = 0; i < N; i++) {
                    int64_t v = i == N / 2 ? 2 : 1; // one odd operand: sent unpacked
                    int rc = -1;
                    switch (kind) {
                    case 0: rc = shmem_int64_queue_comm_push(q, &add[i], nullptr, 1, k, SHMEM_OP_ATOMIC_INC); break;
                    case 1: rc = shmem_int64_queue_comm_push(q, &g_pack_ctr[i], &five, 1, k, SHMEM_OP_ATOMIC_ADD); break;
                    case 2: rc = shmem_uint32_queue_comm_push(q, &bits[i], &bit, 1, k, SHMEM_OP_ATOMIC_OR); break;
                    case 3: rc = shmem_uint64_queue_comm_push(q, &xr[i], &pattern, 1, k, SHMEM_OP_ATOMIC_XOR); break;
                    case 4: rc = shmem_int32_queue_comm_push(q, &set[i], &seven, 1, k, SHMEM_OP_ATOMIC_SET); break;
                    case 5: rc = shmem_int64_queue_comm_push(q, &mixed[i], &v, 1, k, SHMEM_OP_ATOMIC_ADD); break;
                    }
                    ASSERT_EQ(rc, 0) << "kind " << kind;
                }
            }
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
        }
        shmemx_queue_stats_t st;
        ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
        bytes[pack] = st.bytes;
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    }
    unsetenv("SHMEMQ_PACK");
    unsetenv("SHMEMQ_COMM_PATH");
    unsetenv("SHMEMQ_COMBINE");
    shmem_barrier_all();
    uint32_t want_bits = 0;
    for (int k = 0; k < n; k++)
        want_bits |= 1u << (k % 32);
    // XOR of the pattern 2n times (twice per PE) is zero
    for (int i = 0; i < N; i++) {
        ASSERT_EQ(add[i], 2 * n) << i;
        ASSERT_EQ(g_pack_ctr[i], 10 * n) << i;
        ASSERT_EQ(bits[i], want_bits) << i;
        ASSERT_EQ(xr[i], 0u) << i;
        ASSERT_EQ(set[i], 7) << i;
        ASSERT_EQ(mixed[i], (i == N / 2 ? 4 : 2) * n) << i;
    }
    // Batches travel as messages only to PEs whose atomics are not CPU atomics here:
    // node peers (and this PE) get their bursts applied through shared memory when the
    // job is one node or has one atomic domain per node (the AM transport, xport.h);
    // with MPI across nodes every other PE's atomics travel, node peers' included.
    uint64_t off_node = 0;
    for (int k = 0; k < n; k++)
        off_node += shmem_ptr(add, k) == nullptr;
    uint64_t remote = off_node == 0 || shmemi_am_on() ? off_node : (uint64_t)n - 1;
    if (remote > 0) {
        // per remote PE: 5 packed batches of 64 (4 B each + one operand) instead of
        // 64 x (8 + esize) each; the mixed batch is the same size either way
        uint64_t unpacked_uniform = remote * N * (16 + 16 + 12 + 16 + 12);
        uint64_t packed_uniform = remote * (5 * N * 4 + 8 + 8 + 4 + 8 + 4);
        EXPECT_EQ(bytes[0] - bytes[1], unpacked_uniform - packed_uniform);
    } else {
        EXPECT_EQ(bytes[0], bytes[1]);
    }
    shmem_barrier_all();
    shmem_free(add);
    shmem_free(bits);
    shmem_free(xr);
    shmem_free(set);
    shmem_free(mixed);
}
