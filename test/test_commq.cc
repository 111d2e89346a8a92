// test_commq.cc: communication queues (docs/queues.md), their data paths: every push
// type and op, FULL/progress/retry, flush = remote completion, GET, concurrent queued
// atomics, packed and inline pushes, both paths (SHMEMQ_COMM_PATH) and combining
// (SHMEMQ_COMBINE). The life cycle and contract: test_commq_api.cc.
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include "test_util.h"


extern "C" int commq_generic_push(shmem_queue_t q, long *l, uint64_t *u, double *d, int pe);
extern "C" int commq_noinline_int64_push(shmem_queue_t q, int64_t *dest, const int64_t *src,
                                         size_t nelems, int pe, shmem_op_type_t op);
extern "C" int commq_noinline_uint32_push(shmem_queue_t q, uint32_t *dest, const uint32_t *src,
                                          size_t nelems, int pe, shmem_op_type_t op);
// The library's finalize step for live queues (src/queue/comm_queue.h).
extern "C" int shmemi_queue_comm_flush_live(int destroy);
extern "C" int shmemi_am_on(void);

namespace {

shmem_queue_config_t cfg(shmem_op_type_t op = SHMEM_OP_ANY, uint64_t max = 0,
                         double timeout = SHMEM_QUEUE_MAX_TIMEOUT)
{
    return comm_queue_cfg(op, max, timeout);
}

// Runs a test body once per (path, combine) setting.
struct Mode {
    const char *path;
    const char *combine;
};
const Mode kModes[] = {{"rma", "0"}, {"am", "0"}, {"am", "1"}, {"rma", "1"}};

void set_mode(const Mode &m)
{
    setenv("SHMEMQ_COMM_PATH", m.path, 1);
    setenv("SHMEMQ_COMBINE", m.combine, 1);
}

} // namespace


class CommQueueModes : public ::testing::TestWithParam<int> {
  protected:
    void SetUp() override { set_mode(kModes[GetParam()]); }
    void TearDown() override
    {
        unsetenv("SHMEMQ_COMM_PATH");
        unsetenv("SHMEMQ_COMBINE");
    }
};

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

// Capacity is granted to open chunks in parts (docs/queues.md, "Capacity by grants"):
// pushes spread over every PE and three operations must still reach exactly max_elems
// before FULL, and the counts must leave unused grants out at every step.
// The outstanding count has two modes (comm_queue.h): summed over the slots when the
// program asks rarely, kept by every push once it asks often. Exact in both, and across
// the switches: on after a few queries, off again at bursts nobody asked between.
TEST_P(CommQueueModes, OutstandingCountExactWhetherAskedOftenOrNot)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const int T = 8;
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ATOMIC_ADD, 1u << 20);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    int64_t one = 1;
    long pushed = 0; // every PE pushes the same sequence
    auto push = [&](long k) {
        for (long i = 0; i < k; i++, pushed++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &ctr[pushed % T], &one, 1,
                                                 (int)((pushed + me) % n), SHMEM_OP_ATOMIC_ADD),
                      0);
    };
    auto count = [&]() {
        size_t sz = 0;
        EXPECT_EQ(shmem_query_size(q, &sz), 0);
        return (long)sz;
    };
    push(100); // asked rarely: summed
    EXPECT_EQ(count(), 100);
    for (int i = 1; i <= 10; i++) { // asked after every push: counting from the 4th on
        push(1);
        EXPECT_EQ(count(), 100 + i);
        EXPECT_EQ(shmem_queue_progress(q), 100 + i); // nothing issued yet: all outstanding
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(count(), 0);
    // asked after every push across bursts: never more than pushed since the flush
    // (issued operations may complete, so not exact), nothing left after the flush
    for (long i = 1; i <= 3 * 8192; i++) {
        push(1);
        ASSERT_LE(count(), i);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(count(), 0);
    push(50);
    EXPECT_EQ(count(), 50);
    // many bursts with no query between them (counting stops), then asked again
    push(200000);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(count(), 0);
    push(7);
    EXPECT_EQ(count(), 7);
    for (int i = 1; i <= 6; i++) {
        push(1);
        EXPECT_EQ(count(), 7 + i);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(count(), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    // update j went to PE (j + r) % n for PE r, counter j % T: count ours
    for (int t = 0; t < T; t++) {
        long want = 0;
        for (int r = 0; r < n; r++)
            for (long j = t; j < pushed; j += T)
                want += (int)((j + r) % n) == me;
        EXPECT_EQ(ctr[t], want) << "counter " << t;
    }
    shmem_barrier_all();
    shmem_free(ctr);
}

TEST_P(CommQueueModes, FullAtExactlyMaxElemsAcrossTargets)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const uint64_t M = 37; // odd, below one grant, not a multiple of n
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(3, sizeof(int64_t)));
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY, M);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    const shmem_op_type_t ops[3] = {SHMEM_OP_ATOMIC_ADD, SHMEM_OP_ATOMIC_INC, SHMEM_OP_ATOMIC_OR};
    int64_t one = 1;
    long ok = 0, per_op[3] = {0, 0, 0};
    for (int round = 0; round < 2; round++) {
        int rc;
        for (uint64_t i = 0;; i++) {
            int k = (int)(i % 3), pe = (int)((i / 3 + (uint64_t)me) % (uint64_t)n);
            int64_t *dest = k == 1 ? &ctr[0] : &ctr[k];
            rc = shmem_int64_queue_comm_push(q, dest, &one, 1, pe, ops[k]);
            if (rc != 0)
                break;
            ok++;
            per_op[k]++;
            size_t sz;
            ASSERT_EQ(shmem_query_size(q, &sz), 0);
            ASSERT_EQ(sz, (size_t)(i + 1));
        }
        EXPECT_EQ(rc, SHMEM_QUEUE_ERR_FULL);
        shmem_queue_attr_t a;
        ASSERT_EQ(shmem_query_attr(q, &a), 0);
        EXPECT_EQ(a.outstanding_elems, M);
        EXPECT_EQ(a.available_elems, 0u);
        int p = shmem_queue_progress(q); // full: must make room
        ASSERT_GE(p, 0);
        EXPECT_LT((uint64_t)p, M);
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_query_attr(q, &a), 0);
        EXPECT_EQ(a.outstanding_elems, 0u);
        EXPECT_EQ(a.available_elems, M);
    }
    EXPECT_EQ(ok, (long)(2 * M));
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    // every PE pushed the same sequence, rotated by its rank: sum the adds over PEs
    int64_t adds = 0, ors = 0;
    for (int r = 0; r < n; r++) {
        long cnt = 0;
        for (int round = 0; round < 2; round++)
            for (uint64_t i = 0; i < M; i++)
                if ((int)((i / 3 + (uint64_t)r) % (uint64_t)n) == me && i % 3 != 2)
                    cnt++;
        adds += cnt;
        for (int round = 0; round < 2; round++)
            for (uint64_t i = 0; i < M; i++)
                if ((int)((i / 3 + (uint64_t)r) % (uint64_t)n) == me && i % 3 == 2)
                    ors = 1;
    }
    EXPECT_EQ(ctr[0], adds);
    EXPECT_EQ(ctr[2], ors);
    EXPECT_EQ(per_op[0] + per_op[1] + per_op[2], ok);
    shmem_barrier_all();
    shmem_free(ctr);
}

// Full queue: FULL queues nothing, progress frees room, retry succeeds.
TEST_P(CommQueueModes, FullThenProgressThenRetry)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int pe = (me + 1) % n;
    const int M = 8, TOTAL = 200;
    long *ctr = static_cast<long *>(shmem_calloc(1, sizeof(long)));
    long *arr = static_cast<long *>(shmem_calloc(TOTAL, sizeof(long)));
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY, M);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    int fulls = 0;
    for (int i = 0; i < TOTAL;) {
        long v = i; // PUT of a reused stack variable
        int rc = shmem_long_queue_comm_push(q, &arr[i], &v, 1, pe, SHMEM_OP_PUT);
        if (rc == SHMEM_QUEUE_ERR_FULL) {
            fulls++;
            size_t sz;
            ASSERT_EQ(shmem_query_size(q, &sz), 0);
            ASSERT_EQ(sz, (size_t)M);
            shmem_queue_attr_t a;
            ASSERT_EQ(shmem_query_attr(q, &a), 0);
            ASSERT_EQ(a.available_elems, 0u);
            int p = shmem_queue_progress(q);
            ASSERT_GE(p, 0);
            ASSERT_LT(p, M);
            continue;
        }
        ASSERT_EQ(rc, 0);
        rc = shmem_long_queue_comm_push(q, ctr, nullptr, 1, pe, SHMEM_OP_ATOMIC_INC);
        while (rc == SHMEM_QUEUE_ERR_FULL) {
            fulls++; // PUTs to node peers are copies made at once: only the INCs fill up
            ASSERT_GE(shmem_queue_progress(q), 0);
            rc = shmem_long_queue_comm_push(q, ctr, nullptr, 1, pe, SHMEM_OP_ATOMIC_INC);
        }
        ASSERT_EQ(rc, 0);
        i++;
    }
    if (pe != me || std::string(kModes[GetParam()].path) == "rma") {
        EXPECT_GT(fulls, 0);
    }
    shmemx_queue_stats_t st;
    ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_GE(st.full_returns, (uint64_t)fulls);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0); // destroy completes outstanding ops
    shmem_barrier_all();
    EXPECT_EQ(*ctr, TOTAL);
    for (int i = 0; i < TOTAL; i++)
        ASSERT_EQ(arr[i], i);
    shmem_barrier_all();
    shmem_free(ctr);
    shmem_free(arr);
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
