// test_commq_iface.cc: communication queues (docs/queues.md): the push's forms (inline
// and library pushes agree; the C11 generic push, test_commq_generic.c) and queues around
// the engine's life (targets that never create a queue, queues still live at finalize).
// The other data-path tests: test_commq_common.h; the life cycle and contract:
// test_commq_api.cc.
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <cstdlib>
#include <cstring>
#include "test_commq_common.h"

extern "C" int commq_generic_push(shmem_queue_t q, long *l, uint64_t *u, double *d, int pe);
extern "C" int commq_noinline_int64_push(shmem_queue_t q, int64_t *dest, const int64_t *src,
                                         size_t nelems, int pe, shmem_op_type_t op);
extern "C" int commq_noinline_uint32_push(shmem_queue_t q, uint32_t *dest, const uint32_t *src,
                                          size_t nelems, int pe, shmem_op_type_t op);
// The library's finalize step for live queues (src/queue/comm_queue.h).
extern "C" int shmemi_queue_comm_flush_live(int destroy);

// What shmem_finalize does with queues still live: shmemi_queue_comm_flush_live
// completes them (0) or completes and destroys them (1, the finalize case). Adds, a put
// and a get to the right neighbour, never flushed by the test itself.
TEST_P(CommQueueModes, FlushLiveCompletesLiveQueues)
{
    int me = shmem_my_pe(), right = right_neighbor();
    const int N = 100;
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(N, sizeof(int64_t)));
    int64_t *src = static_cast<int64_t *>(shmem_malloc(2 * sizeof(int64_t)));
    src[0] = 1000 + me;
    src[1] = 0;
    shmem_barrier_all();
    for (int destroy = 0; destroy < 2; destroy++) {
        shmem_queue_t q1, q2;
        shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
        ASSERT_EQ(shmem_queue_comm_create(&q1, &c), 0);
        ASSERT_EQ(shmem_queue_comm_create(&q2, &c), 0);
        int64_t got = -1;
        for (int i = 0; i < N; i++) {
            int64_t v = i + 1;
            ASSERT_EQ(shmem_int64_queue_comm_push(q1, &ctr[i], &v, 1, right, SHMEM_OP_ATOMIC_ADD), 0);
        }
        ASSERT_EQ(shmem_int64_queue_comm_push(q2, &src[1], &src[0], 1, right, SHMEM_OP_PUT), 0);
        ASSERT_EQ(shmem_int64_queue_comm_push(q2, &got, &src[0], 1, right, SHMEM_OP_GET), 0);
        EXPECT_GE(shmemi_queue_comm_flush_live(destroy), 2);
        // the GET is complete here, before any barrier
        EXPECT_EQ(got, 1000 + right);
        size_t sz = 1;
        if (destroy) {
            EXPECT_EQ(shmem_query_size(q1, &sz), SHMEM_QUEUE_ERR_STATE);
            EXPECT_EQ(shmem_queue_local_flush(q2), SHMEM_QUEUE_ERR_STATE);
        } else {
            EXPECT_EQ(shmem_query_size(q1, &sz), 0);
            EXPECT_EQ(sz, 0u);
            EXPECT_EQ(shmem_queue_comm_destroy(q1), 0);
            EXPECT_EQ(shmem_queue_comm_destroy(q2), 0);
        }
        shmem_barrier_all();
        int left = left_neighbor();
        for (int i = 0; i < N; i++)
            ASSERT_EQ(ctr[i], (int64_t)(destroy + 1) * (i + 1)) << i;
        EXPECT_EQ(src[1], 1000 + left);
        src[1] = 0;
        shmem_barrier_all();
    }
    shmem_free(ctr);
    shmem_free(src);
}

INSTANTIATE_TEST_SUITE_P(Paths, CommQueueModes, ::testing::Values(0, 1, 2, 3));

static int64_t g_inl_ctr[3];

// In C and C++ the typed pushes are inline (shmemq/queue_inline.h) unless SHMEMQ_NO_INLINE;
// both forms must queue the same operations, refuse the same input with the same codes and
// say FULL at the same point.
TEST(CommQueue, InlineAndLibraryPushesAgree)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int64_t *t = static_cast<int64_t *>(shmem_calloc(8, sizeof(int64_t)));
    uint32_t *u = static_cast<uint32_t *>(shmem_calloc(2, sizeof(uint32_t)));
    std::memset(g_inl_ctr, 0, sizeof g_inl_ctr);
    shmem_barrier_all();
    using push64 = int (*)(shmem_queue_t, int64_t *, const int64_t *, size_t, int, shmem_op_type_t);
    push64 inl = [](shmem_queue_t q, int64_t *d, const int64_t *s, size_t k, int pe, shmem_op_type_t op) {
        return shmem_int64_queue_comm_push(q, d, s, k, pe, op);
    };
    push64 lib = commq_noinline_int64_push;
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    const int64_t three = 3, minus = -2;
    const uint32_t bits = 1u << (me % 32), seven = 7;
    for (int k = 0; k < n; k++) {
        for (int r = 0; r < 10; r++) {
            ASSERT_EQ(inl(q, &t[0], nullptr, 1, k, SHMEM_OP_ATOMIC_INC), 0);
            ASSERT_EQ(lib(q, &t[1], nullptr, 1, k, SHMEM_OP_ATOMIC_INC), 0);
            ASSERT_EQ(inl(q, &t[2], &three, 1, k, SHMEM_OP_ATOMIC_ADD), 0);
            ASSERT_EQ(lib(q, &t[3], &minus, 1, k, SHMEM_OP_ATOMIC_ADD), 0);
            ASSERT_EQ(inl(q, &g_inl_ctr[0], &three, 1, k, SHMEM_OP_ATOMIC_ADD), 0);
            ASSERT_EQ(lib(q, &g_inl_ctr[1], &three, 1, k, SHMEM_OP_ATOMIC_ADD), 0);
        }
        ASSERT_EQ(shmem_uint32_queue_comm_push(q, &u[0], &bits, 1, k, SHMEM_OP_ATOMIC_OR), 0);
        ASSERT_EQ(commq_noinline_uint32_push(q, &u[1], &seven, 1, k, SHMEM_OP_ATOMIC_SET), 0);
    }
    // refused input: the inline form falls back to the library, which reports it
    int pe = (me + 1) % n;
    const int64_t v = 1;
    int64_t local = 0;
    for (push64 f : {inl, lib}) {
        EXPECT_EQ(f(q, &t[4], &v, 1, n, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_ARG);
        EXPECT_EQ(f(q, &t[4], &v, 1, -1, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_ARG);
        EXPECT_EQ(f(q, &t[4], nullptr, 1, pe, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_ARG);
        EXPECT_EQ(f(q, &local, &v, 1, pe, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_ADDR);
        EXPECT_EQ(f(q, &t[4], &v, 1, pe, (shmem_op_type_t)9), SHMEM_QUEUE_ERR_ARG);
        EXPECT_EQ(f(nullptr, &t[4], &v, 1, pe, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_ARG);
        EXPECT_EQ(f(q, &t[4], &v, 0, pe, SHMEM_OP_ATOMIC_ADD), 0); // no-op
    }
    shmemx_queue_stats_t st;
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_EQ(st.ops_pushed, (uint64_t)n * 62);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    // use after destroy, both forms
    EXPECT_EQ(inl(q, &t[4], &v, 1, pe, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(lib(q, &t[4], &v, 1, pe, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_STATE);

    // FULL at the same count, and a queue where every push takes the library path
    for (double timeout : {SHMEM_QUEUE_MAX_TIMEOUT, 60.0}) {
        for (push64 f : {inl, lib}) {
            c = cfg(SHMEM_OP_ATOMIC_ADD, 5, timeout);
            ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
            int ok = 0, rc;
            while ((rc = f(q, &g_inl_ctr[2], &v, 1, pe, SHMEM_OP_ATOMIC_ADD)) == 0)
                ok++;
            EXPECT_EQ(rc, SHMEM_QUEUE_ERR_FULL);
            EXPECT_EQ(ok, 5);
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
            ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        }
    }
    shmem_barrier_all();
    EXPECT_EQ(t[0], 10 * n);
    EXPECT_EQ(t[1], 10 * n);
    EXPECT_EQ(t[2], 30 * n);
    EXPECT_EQ(t[3], -20 * n);
    EXPECT_EQ(t[4], 0);
    EXPECT_EQ(g_inl_ctr[0], 30 * n);
    EXPECT_EQ(g_inl_ctr[1], 30 * n);
    EXPECT_EQ(g_inl_ctr[2], 20); // 4 rounds of 5 from the left neighbour
    uint32_t want = 0;
    for (int k = 0; k < n; k++)
        want |= 1u << (k % 32);
    EXPECT_EQ(u[0], want);
    EXPECT_EQ(u[1], 7u);
    shmem_barrier_all();
    shmem_free(t);
    shmem_free(u);
}

// The C11 generic push selects the typed routine from dest's type.
TEST(CommQueue, GenericPushFromC)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int pe = (me + 1) % n;
    struct G {
        long l;
        uint64_t u;
        double d;
    };
    G *g = static_cast<G *>(shmem_calloc(1, sizeof(G)));
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    EXPECT_EQ(commq_generic_push(q, &g->l, &g->u, &g->d, pe), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    EXPECT_EQ(g->l, 5);
    EXPECT_EQ(g->u, 7u);
    EXPECT_EQ(g->d, 2.5);
    shmem_barrier_all();
    shmem_free(g);
}

// PEs that never create a queue still apply what others push (the engine is up from
// shmem_init; they progress inside the barrier while PE 0 flushes).
TEST(CommQueue, TargetsWithoutQueues)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const int N = 64, R = 5000;
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(N, sizeof(int64_t)));
    shmem_barrier_all();
    for (int mode = 0; mode < 2; mode++) {
        if (me == 0) {
            setenv("SHMEMQ_COMM_PATH", mode ? "am" : "rma", 1);
            shmem_queue_t q;
            shmem_queue_config_t c = cfg(SHMEM_OP_ATOMIC_INC);
            ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
            unsetenv("SHMEMQ_COMM_PATH");
            for (int r = 0; r < R; r++)
                ASSERT_EQ(shmem_int64_queue_comm_push(q, &ctr[r % N], nullptr, 1, r % n, SHMEM_OP_ATOMIC_INC), 0);
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
            ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        }
        shmem_barrier_all();
    }
    int64_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += ctr[i];
    int64_t mine = 0;
    for (int r = 0; r < R; r++)
        mine += (r % n == me) ? 2 : 0;
    EXPECT_EQ(sum, mine);
    shmem_barrier_all();
    shmem_free(ctr);
}

// Left live on purpose: shmem_finalize (after the last test) must complete these ops
// without hanging; the values cannot be checked after finalize, the same routine is
// checked by FlushLiveCompletesLiveQueues.
TEST(CommQueue, LeftLiveUntilFinalize)
{
    static int64_t sink[4]; // static: symmetric data segment
    for (const char *path : {"am", "rma"}) {
        setenv("SHMEMQ_COMM_PATH", path, 1);
        shmem_queue_t q;
        shmem_queue_config_t c = cfg(SHMEM_OP_ANY);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        unsetenv("SHMEMQ_COMM_PATH");
        int64_t one = 1;
        for (int i = 0; i < 1000; i++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &sink[i % 4], &one, 1, right_neighbor(),
                                                  SHMEM_OP_ATOMIC_ADD), 0);
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &sink[3], &one, 1, right_neighbor(), SHMEM_OP_PUT), 0);
    }
}
