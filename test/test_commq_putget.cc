// test_commq_putget.cc: communication queues (docs/queues.md), their data paths: PUT
// and GET bursts of every size, large and strided transfers, targets in both windows
// (the heap and the data segment), on both paths (SHMEMQ_COMM_PATH) and with combining
// (SHMEMQ_COMBINE). Atomics: test_commq_atomics.cc; FULL and capacity:
// test_commq_full.cc; the push's forms and live queues at finalize: test_commq_iface.cc;
// the life cycle and contract: test_commq_api.cc.
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "test_commq_common.h"

// Typed comm-queue push, as a pointer (the shmem_<T>_queue_comm_push family).
template <typename T>
using TypedPush = int (*)(shmem_queue_t, T *, const T *, size_t, int, shmem_op_type_t);

// One-element PUTs (src -> remote[j]) or GETs (remote[j] -> local[j]) of M slots to
// `pe`, then a flush, so that the chunk holds records of one length only.
template <typename T>
void one_size_burst(shmem_queue_t q, TypedPush<T> push, shmem_op_type_t op, T *local,
                    T *remote, int M, int pe)
{
    for (int j = 0; j < M; j++) {
        if (op == SHMEM_OP_PUT)
            ASSERT_EQ(push(q, &remote[j], &local[j], 1, pe, op), 0) << j;
        else
            ASSERT_EQ(push(q, &local[j], &remote[j], 1, pe, op), 0) << j;
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
}

// Bursts of one-element PUTs and GETs of every size (1 to 16 bytes) to every PE, a
// flush after each size so that each chunk holds records of one length, which the RMA
// path describes with block datatypes (cq_rma.c); then PUTs of 1-3 elements mixed in one
// chunk (the general description).
// Every PE writes slot j of PE p with the same value, so the result is exact.
TEST_P(CommQueueModes, OneElementPutGetBurstsEverySize)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    const int M = 300;
    struct Slots {
        int8_t b[M];
        int16_t h[M];
        int32_t w[M];
        int64_t d[M];
        long double ld[M];
        int64_t mixed[3 * M];
    };
    Slots *s = static_cast<Slots *>(shmem_calloc(1, sizeof(Slots)));
    // local side: the values for one PE (PUT sources), then the n*M GET results; all
    // from calloc: a long double's 6 padding bytes travel too and must be defined for
    // valgrind (a local variable's are not, and would taint the heap for later tests)
    Slots *src = static_cast<Slots *>(std::calloc(1, sizeof(Slots)));
    Slots *got = static_cast<Slots *>(std::calloc((size_t)n, sizeof(Slots)));
    ASSERT_TRUE(s && src && got);
    auto val = [](int p, int j) { return (int64_t)p * 1000003 + j * 7 + 1; };
    auto fill = [&](Slots *x, int p) {
        for (int j = 0; j < M; j++) {
            x->b[j] = (int8_t)val(p, j);
            x->h[j] = (int16_t)val(p, j);
            x->w[j] = (int32_t)val(p, j);
            x->d[j] = val(p, j);
            x->ld[j] = (long double)val(p, j) / 4;
        }
    };
    auto check = [&](const Slots *x, int p) {
        for (int j = 0; j < M; j++) {
            ASSERT_EQ(x->b[j], (int8_t)val(p, j)) << p << " " << j;
            ASSERT_EQ(x->h[j], (int16_t)val(p, j)) << p << " " << j;
            ASSERT_EQ(x->w[j], (int32_t)val(p, j)) << p << " " << j;
            ASSERT_EQ(x->d[j], val(p, j)) << p << " " << j;
            ASSERT_EQ(x->ld[j], (long double)val(p, j) / 4) << p << " " << j;
        }
    };
    shmem_queue_t q = nullptr;
    auto every_size = [&](shmem_op_type_t op, Slots *local, int p) {
        one_size_burst<int8_t>(q, shmem_int8_queue_comm_push, op, local->b, s->b, M, p);
        one_size_burst<int16_t>(q, shmem_int16_queue_comm_push, op, local->h, s->h, M, p);
        one_size_burst<int32_t>(q, shmem_int32_queue_comm_push, op, local->w, s->w, M, p);
        one_size_burst<int64_t>(q, shmem_int64_queue_comm_push, op, local->d, s->d, M, p);
        one_size_burst<long double>(q, shmem_longdouble_queue_comm_push, op, local->ld, s->ld, M, p);
    };
    shmem_barrier_all();
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    for (int k = 0; k < n; k++) {
        int p = (me + k) % n;
        fill(src, p);
        every_size(SHMEM_OP_PUT, src, p);
        shmemx_queue_stats_t st0, st1;
        ASSERT_EQ(shmemx_queue_stats(q, &st0), 0);
        for (int j = 0; j < 3 * M;) { // runs of 1, 2, 3 elements in one chunk
            int len = 1 + j % 3 < 3 * M - j ? 1 + j % 3 : 3 * M - j;
            int64_t v[3];
            for (int e = 0; e < len; e++)
                v[e] = val(p, j + e);
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &s->mixed[j], v, (size_t)len, p, SHMEM_OP_PUT), 0);
            j += len;
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        // the one-element pushes join the multi-element records: no burst per switch
        ASSERT_EQ(shmemx_queue_stats(q, &st1), 0);
        EXPECT_LT(st1.bursts - st0.bursts, 50u) << "to PE " << p;
    }
    shmem_barrier_all();
    check(s, me);
    for (int j = 0; j < 3 * M; j++)
        ASSERT_EQ(s->mixed[j], val(me, j)) << j;
    // GETs of every size from every PE back into private memory
    for (int p = 0; p < n; p++)
        every_size(SHMEM_OP_GET, &got[p], p);
    for (int p = 0; p < n; p++)
        check(&got[p], p);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    std::free(src);
    std::free(got);
    shmem_free(s);
}

// Large puts/gets (bigger than a chunk) and strided pushes.
TEST_P(CommQueueModes, LargeAndStrided)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int pe = (me + 1) % n, from = (me + n - 1) % n;
    const size_t BIG = 200000;
    char *big = static_cast<char *>(shmem_malloc(BIG));
    int32_t *grid = static_cast<int32_t *>(shmem_calloc(64, sizeof(int32_t)));
    std::vector<char> src(BIG), back(BIG);
    for (size_t i = 0; i < BIG; i++)
        src[i] = (char)(i * 7 + me);
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    ASSERT_EQ(shmem_queue_comm_pushmem(q, big, src.data(), BIG, pe, SHMEM_OP_PUT), 0);
    int32_t col[8];
    for (int i = 0; i < 8; i++)
        col[i] = 100 * me + i;
    // column 3 of an 8x8 grid: dst stride 32 bytes, src contiguous
    ASSERT_EQ(shmemx_queue_comm_push_strided(q, &grid[3], col, 32, 4, 4, 8, pe, SHMEM_OP_PUT), 0);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    shmem_barrier_all();
    for (size_t i = 0; i < BIG; i++)
        ASSERT_EQ(big[i], (char)(i * 7 + from));
    for (int r = 0; r < 8; r++)
        for (int k = 0; k < 8; k++)
            ASSERT_EQ(grid[r * 8 + k], k == 3 ? 100 * from + r : 0);
    // read them back from the neighbour
    int32_t rcol[8] = {0};
    ASSERT_EQ(shmem_queue_comm_pushmem(q, back.data(), big, BIG, pe, SHMEM_OP_GET), 0);
    ASSERT_EQ(shmemx_queue_comm_push_strided(q, rcol, &grid[3], 4, 32, 4, 8, pe, SHMEM_OP_GET), 0);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    for (size_t i = 0; i < BIG; i++)
        ASSERT_EQ(back[i], (char)(i * 7 + me));
    for (int r = 0; r < 8; r++)
        EXPECT_EQ(rcol[r], 100 * me + r);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    shmem_free(big);
    shmem_free(grid);
}

static int64_t g_static_ctr[4];
static char g_static_buf[24];

// Targets in the data/bss segment (the second window) on every path.
TEST_P(CommQueueModes, StaticTargets)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int pe = (me + 1) % n, from = (me + n - 1) % n;
    std::memset(g_static_ctr, 0, sizeof g_static_ctr);
    std::memset(g_static_buf, 0, sizeof g_static_buf);
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    for (int r = 0; r < 100; r++)
        for (int k = 0; k < n; k++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &g_static_ctr[r % 4], nullptr, 1, k, SHMEM_OP_ATOMIC_INC), 0);
    char msg[24];
    std::snprintf(msg, sizeof msg, "hello from %d", me);
    ASSERT_EQ(shmem_char_queue_comm_push(q, g_static_buf, msg, sizeof msg, pe, SHMEM_OP_PUT), 0);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(g_static_ctr[i], 25 * n);
    char want[24];
    std::snprintf(want, sizeof want, "hello from %d", from);
    EXPECT_STREQ(g_static_buf, want);
    shmem_barrier_all();
}

static int64_t g_put_dst[300];

// Many small PUTs alternating between the heap and the data-segment window, queue
// re-created every round: every value must land at its own index (a regression test for
// puts landing on wrong indices at 4 PEs under THREAD_MULTIPLE).
TEST_P(CommQueueModes, SmallPutsAlternatingWindowsLandExactly)
{
    const int N = 300;
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int64_t *heap = (int64_t *)shmem_calloc(N, sizeof(int64_t));
    ASSERT_NE(heap, nullptr);
    for (int round = 0; round < 10; round++) {
        for (int i = 0; i < N; i++)
            heap[i] = g_put_dst[i] = -1;
        shmem_barrier_all();
        shmem_queue_t q;
        shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        for (int i = 0; i < N; i++) {
            int64_t v = round * 1000000L + me * 1000L + i; // a reused stack variable
            ASSERT_EQ(shmem_queue_comm_pushmem(q, &heap[i], &v, sizeof v, right, SHMEM_OP_PUT), 0);
            ASSERT_EQ(shmem_queue_comm_pushmem(q, &g_put_dst[i], &v, sizeof v, right, SHMEM_OP_PUT), 0);
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        shmem_barrier_all();
        for (int i = 0; i < N; i++) {
            int64_t e = round * 1000000L + left * 1000L + i;
            ASSERT_EQ(heap[i], e) << "heap index " << i << " round " << round;
            ASSERT_EQ(g_put_dst[i], e) << "static index " << i << " round " << round;
        }
    }
    shmem_barrier_all();
    shmem_free(heap);
}

static int64_t g_put_dst2[300];

// The same to two PEs at once (the right neighbour and the one after it), so the queue
// completes several targets: on MPICH 4.0.2 ch4:ucx, MPI_Win_flush_all/flush_local_all
// left such PUT bursts incomplete and reused chunks put later values at earlier indices
// (4 PEs off the node); the queue now flushes each target (cq_rma.c).
TEST_P(CommQueueModes, PutsToSeveralPesAlternatingWindowsLandExactly)
{
    const int N = 300;
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int right2 = (me + 2) % n, left2 = (me + 2 * n - 2) % n;
    int64_t *heap = (int64_t *)shmem_calloc(N, sizeof(int64_t));
    int64_t *heap2 = (int64_t *)shmem_calloc(N, sizeof(int64_t));
    ASSERT_NE(heap, nullptr);
    ASSERT_NE(heap2, nullptr);
    for (int round = 0; round < 10; round++) {
        for (int i = 0; i < N; i++)
            heap[i] = g_put_dst[i] = heap2[i] = g_put_dst2[i] = -1;
        shmem_barrier_all();
        shmem_queue_t q;
        shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        for (int i = 0; i < N; i++) {
            int64_t v = round * 1000000L + me * 1000L + i, v2 = v + 500;
            ASSERT_EQ(shmem_queue_comm_pushmem(q, &heap[i], &v, sizeof v, right, SHMEM_OP_PUT), 0);
            ASSERT_EQ(shmem_queue_comm_pushmem(q, &g_put_dst[i], &v, sizeof v, right, SHMEM_OP_PUT), 0);
            ASSERT_EQ(shmem_queue_comm_pushmem(q, &heap2[i], &v2, sizeof v2, right2, SHMEM_OP_PUT), 0);
            ASSERT_EQ(shmem_queue_comm_pushmem(q, &g_put_dst2[i], &v2, sizeof v2, right2, SHMEM_OP_PUT),
                      0);
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        shmem_barrier_all();
        for (int i = 0; i < N; i++) {
            int64_t e = round * 1000000L + left * 1000L + i, e2 = round * 1000000L + left2 * 1000L + i + 500;
            ASSERT_EQ(heap[i], e) << "heap index " << i << " round " << round;
            ASSERT_EQ(g_put_dst[i], e) << "static index " << i << " round " << round;
            ASSERT_EQ(heap2[i], e2) << "second heap index " << i << " round " << round;
            ASSERT_EQ(g_put_dst2[i], e2) << "second static index " << i << " round " << round;
        }
    }
    shmem_barrier_all();
    shmem_free(heap2);
    shmem_free(heap);
}

INSTANTIATE_TEST_SUITE_P(Paths, CommQueueModes, ::testing::Values(0, 1, 2, 3));
