// test_coll_legacy.cc: the deprecated active-set collectives (OpenSHMEM 1.4 forms) on
// the whole world and on strided active sets.
// Open MPI's C++ bindings do not compile cleanly with -Werror; the tests use the C API.
#define OMPI_SKIP_MPICXX 1
#include <gtest/gtest.h>
#include <shmem.h>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include "test_util.h"

namespace {

long pSync[SHMEM_REDUCE_SYNC_SIZE];
long pWrk_l[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 16];

struct ActiveSet {
    int start, logstride, size;
    int index(int pe) const // position of pe in the set, or -1
    {
        int d = pe - start;
        if (d < 0 || d % (1 << logstride) != 0 || (d >> logstride) >= size)
            return -1;
        return d >> logstride;
    }
    int pe(int i) const { return start + (i << logstride); }
};

std::vector<ActiveSet> sets()
{
    int n = shmem_n_pes();
    std::vector<ActiveSet> v;
    v.push_back({0, 0, n});               // everyone
    v.push_back({0, 1, (n + 1) / 2});     // even PEs: {0, 2} over 4
    if (n >= 2)
        v.push_back({1, 1, n / 2});       // odd PEs
    if (n >= 4)
        v.push_back({0, 2, 1});           // PE 0 alone, with a stride
    if (n >= 3)
        v.push_back({1, 0, n - 1});       // all but PE 0
    return v;
}

template <typename T> struct Buf {
    T *p;
    explicit Buf(size_t n) : p((T *)shmem_malloc(n * sizeof(T))) {}
    ~Buf()
    {
        shmem_barrier_all();
        shmem_free(p);
    }
};

TEST(Legacy, BarrierAndSync)
{
    int me = shmem_my_pe();
    Buf<int> box(1);
    for (const ActiveSet &s : sets()) {
        int i = s.index(me);
        *box.p = -1;
        shmem_barrier_all();
        if (i < 0)
            continue;
        // Put my index into the next member's box; after the barrier mine holds the
        // previous member's.
        int next = s.pe((i + 1) % s.size);
        shmem_int_p(box.p, i, next);
        shmem_barrier(s.start, s.logstride, s.size, pSync);
        EXPECT_EQ(*box.p, (i + s.size - 1) % s.size);
        shmem_sync(s.start, s.logstride, s.size, pSync);
    }
    shmem_barrier_all();
}

TEST(Legacy, Broadcast)
{
    int me = shmem_my_pe();
    const size_t N = 5;
    Buf<int32_t> s32(N), d32(N);
    Buf<int64_t> s64(N), d64(N);
    for (const ActiveSet &s : sets()) {
        int i = s.index(me);
        if (i < 0)
            continue;
        SCOPED_TRACE(testing::Message() << s.start << "/" << s.logstride << "/" << s.size);
        int root = s.size > 1 ? 1 : 0; // relative to the set
        for (size_t k = 0; k < N; k++) {
            s32.p[k] = me * 100 + (int)k;
            s64.p[k] = (int64_t)me << 40 | (int64_t)k;
            d32.p[k] = -1;
            d64.p[k] = -1;
        }
        shmem_broadcast32(d32.p, s32.p, N, root, s.start, s.logstride, s.size, pSync);
        shmem_broadcast64(d64.p, s64.p, N, root, s.start, s.logstride, s.size, pSync);
        int rootpe = s.pe(root);
        for (size_t k = 0; k < N; k++) {
            if (i == root) { // 1.4: the root's dest is not written
                EXPECT_EQ(d32.p[k], -1);
                EXPECT_EQ(d64.p[k], -1);
            } else {
                EXPECT_EQ(d32.p[k], rootpe * 100 + (int)k);
                EXPECT_EQ(d64.p[k], (int64_t)rootpe << 40 | (int64_t)k);
            }
        }
        shmem_sync(s.start, s.logstride, s.size, pSync);
    }
    shmem_barrier_all();
}

// The 1.4 broadcast's root leaves once its data are posted (coll_node.c): back to back
// with no barrier between, mixed with other collectives on the same PEs, sizes that
// travel in the root's slot and sizes read from its source, and a PE arriving late. The
// root overwrites its source at once after each call; every PE checks every round.
TEST(Legacy, BroadcastBackToBackRootRunsAhead)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const size_t big = 3000; // 24000 bytes: more than a node slot holds
    Buf<int64_t> src(big + 1), dst(big + 1), red(2);
    for (int pass = 0; pass < 2; pass++) { // a fixed root, then a rotating one
        SCOPED_TRACE(pass == 0 ? "fixed root" : "rotating root");
        for (int r = 0; r < 200; r++) {
            int root = pass == 0 ? n - 1 : r % n;
            size_t k = r % 11 == 0 ? 0 : r % 5 == 4 ? big : (size_t)(1 + r % 7);
            for (size_t w = 0; w <= big; w++)
                dst.p[w] = -1;
            if (me == root)
                for (size_t w = 0; w < k; w++)
                    src.p[w] = (int64_t)r * 100000 + (int64_t)w + 1;
            if (r == 50 && me == (root + 1) % n)
                compute_for(0.2); // the root is at most one step ahead of this PE
            shmem_broadcast64(dst.p, src.p, k, root, 0, 0, n, pSync);
            if (me == root) {
                for (size_t w = 0; w < k; w++)
                    src.p[w] = -7; // the data left with the call
                for (size_t w = 0; w <= big; w++)
                    ASSERT_EQ(dst.p[w], -1) << "round " << r << ": the root's dest was written";
            } else {
                for (size_t w = 0; w < k; w++)
                    ASSERT_EQ(dst.p[w], (int64_t)r * 100000 + (int64_t)w + 1)
                        << "round " << r << " word " << w;
                ASSERT_EQ(dst.p[k], -1) << "round " << r << ": written past the end";
            }
            if (r % 16 == 15) { // other collectives on the same PEs, no barrier between
                red.p[0] = me + r;
                ASSERT_EQ(shmem_int64_sum_reduce(SHMEM_TEAM_WORLD, &red.p[1], &red.p[0], 1), 0);
                ASSERT_EQ(red.p[1], (int64_t)n * (n - 1) / 2 + (int64_t)n * r);
                long *l = reinterpret_cast<long *>(red.p);
                l[0] = 2;
                shmem_long_prod_to_all(&l[1], &l[0], 1, 0, 0, n, pWrk_l, pSync);
                ASSERT_EQ(l[1], 1L << n);
            }
        }
    }
    shmem_barrier_all();
}

// A non-root rejects its dest: nothing is written anywhere, the bad PE says why and every
// other PE says which PE rejected, the root too, which left the broadcast without
// waiting and learns it at its next collective (the barrier here).
TEST(Legacy, BroadcastRejectedByOnePeIsReportedByTheRoot)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    REQUIRE_PES(2);
    int bad = n - 1;
    Buf<int64_t> src(2), dst(2);
    int64_t local[2] = {-1, -1};
    src.p[0] = 77;
    dst.p[0] = -1;
    shmem_barrier_all();
    testing::internal::CaptureStderr();
    shmem_broadcast64(me == bad ? local : dst.p, src.p, 1, 0, 0, 0, n, pSync);
    shmem_barrier_all();
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(dst.p[0], -1);
    EXPECT_EQ(local[0], -1);
    std::string pe = "[shmemq PE " + std::to_string(me) + "] shmem_broadcast64: ";
    if (me == bad) {
        EXPECT_NE(err.find(pe + "dest"), std::string::npos) << err;
    } else {
        EXPECT_NE(err.find(pe + "team PE " + std::to_string(bad) + " rejected its arguments"),
                  std::string::npos)
            << err;
    }
    // and the next broadcast is whole
    shmem_broadcast64(dst.p, src.p, 1, 0, 0, 0, n, pSync);
    if (me != 0) {
        EXPECT_EQ(dst.p[0], 77);
    }
    shmem_barrier_all();
}

TEST(Legacy, CollectFcollectAlltoall)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    size_t words = (size_t)n * n * 4 + 8;
    Buf<int32_t> s32(words), d32(words);
    Buf<int64_t> s64(words), d64(words);
    for (const ActiveSet &s : sets()) {
        int i = s.index(me);
        if (i < 0)
            continue;
        SCOPED_TRACE(testing::Message() << s.start << "/" << s.logstride << "/" << s.size);
        // collect64: member i contributes i + 1 elements.
        for (int k = 0; k <= i; k++)
            s64.p[k] = i * 10 + k;
        for (size_t k = 0; k < words; k++)
            d64.p[k] = -1;
        shmem_collect64(d64.p, s64.p, (size_t)i + 1, s.start, s.logstride, s.size, pSync);
        size_t at = 0;
        for (int j = 0; j < s.size; j++)
            for (int k = 0; k <= j; k++, at++)
                EXPECT_EQ(d64.p[at], j * 10 + k);
        EXPECT_EQ(d64.p[at], -1);
        // fcollect32: 3 each.
        for (int k = 0; k < 3; k++)
            s32.p[k] = i * 7 + k;
        shmem_fcollect32(d32.p, s32.p, 3, s.start, s.logstride, s.size, pSync);
        for (int j = 0; j < s.size; j++)
            for (int k = 0; k < 3; k++)
                EXPECT_EQ(d32.p[j * 3 + k], j * 7 + k);
        shmem_sync(s.start, s.logstride, s.size, pSync);
        // alltoall64: 2 per member.
        for (int j = 0; j < s.size; j++)
            for (int k = 0; k < 2; k++)
                s64.p[j * 2 + k] = i * 1000 + j * 10 + k;
        shmem_alltoall64(d64.p, s64.p, 2, s.start, s.logstride, s.size, pSync);
        for (int j = 0; j < s.size; j++)
            for (int k = 0; k < 2; k++)
                EXPECT_EQ(d64.p[j * 2 + k], j * 1000 + i * 10 + k);
        shmem_sync(s.start, s.logstride, s.size, pSync);
        // alltoalls32: dst 3, sst 2, 2 elements per member.
        for (size_t k = 0; k < words; k++) {
            s32.p[k] = -2;
            d32.p[k] = -1;
        }
        for (int j = 0; j < s.size; j++)
            for (int k = 0; k < 2; k++)
                s32.p[(j * 2 + k) * 2] = i * 1000 + j * 10 + k;
        shmem_alltoalls32(d32.p, s32.p, 3, 2, 2, s.start, s.logstride, s.size, pSync);
        for (size_t w = 0; w < (size_t)s.size * 2 * 3; w++) {
            if (w % 3 == 0) {
                int j = (int)(w / 3 / 2), k = (int)(w / 3 % 2);
                EXPECT_EQ(d32.p[w], j * 1000 + i * 10 + k) << w;
            } else {
                EXPECT_EQ(d32.p[w], -1) << w;
            }
        }
        shmem_sync(s.start, s.logstride, s.size, pSync);
    }
    shmem_barrier_all();
}

TEST(Legacy, Reductions)
{
    int me = shmem_my_pe();
    Buf<char> sb(256), db(256);
    for (const ActiveSet &s : sets()) {
        int i = s.index(me);
        if (i < 0)
            continue;
        SCOPED_TRACE(testing::Message() << s.start << "/" << s.logstride << "/" << s.size);
        int m = s.size;
        int *is = (int *)sb.p, *id = (int *)db.p;
        is[0] = i + 1;
        is[1] = -(i + 1);
        shmem_int_sum_to_all(id, is, 2, s.start, s.logstride, s.size, (int *)pWrk_l, pSync);
        EXPECT_EQ(id[0], m * (m + 1) / 2);
        EXPECT_EQ(id[1], -m * (m + 1) / 2);
        long *ls = (long *)sb.p, *ld = (long *)db.p;
        ls[0] = i * 3;
        shmem_long_max_to_all(ld, ls, 1, s.start, s.logstride, s.size, pWrk_l, pSync);
        EXPECT_EQ(ld[0], (m - 1) * 3);
        double *ds = (double *)sb.p, *dd = (double *)db.p;
        ds[0] = 1.5 + i;
        shmem_double_min_to_all(dd, ds, 1, s.start, s.logstride, s.size, (double *)pWrk_l,
                                pSync);
        EXPECT_EQ(dd[0], 1.5);
        short *ss = (short *)sb.p, *sd = (short *)db.p;
        ss[0] = (short)(0x7F00 | (1 << i));
        shmem_short_and_to_all(sd, ss, 1, s.start, s.logstride, s.size, (short *)pWrk_l, pSync);
        EXPECT_EQ(sd[0], (short)(0x7F00 | (m == 1 ? 1 : 0)));
        long long *qs = (long long *)sb.p, *qd = (long long *)db.p;
        qs[0] = 1LL << (i + 32);
        shmem_longlong_xor_to_all(qd, qs, 1, s.start, s.logstride, s.size, (long long *)pWrk_l,
                                  pSync);
        EXPECT_EQ(qd[0], ((1LL << m) - 1) << 32);
        shmem_longlong_or_to_all(qd, qs, 1, s.start, s.logstride, s.size, (long long *)pWrk_l,
                                 pSync);
        EXPECT_EQ(qd[0], ((1LL << m) - 1) << 32);
        float *fs = (float *)sb.p, *fd = (float *)db.p;
        fs[0] = 2.0f;
        shmem_float_prod_to_all(fd, fs, 1, s.start, s.logstride, s.size, (float *)pWrk_l, pSync);
        EXPECT_EQ(fd[0], (float)(1 << m));
        long double *es = (long double *)sb.p;
        es[0] = 0.25L * (i + 1);
        // In place.
        shmem_longdouble_sum_to_all(es, es, 1, s.start, s.logstride, s.size,
                                    (long double *)pWrk_l, pSync);
        EXPECT_EQ(es[0], 0.25L * m * (m + 1) / 2);
        double _Complex *zs = (double _Complex *)sb.p, *zd = (double _Complex *)db.p;
        __real__ zs[0] = i;
        __imag__ zs[0] = 1.0;
        shmem_complexd_sum_to_all(zd, zs, 1, s.start, s.logstride, s.size,
                                  (double _Complex *)pWrk_l, pSync);
        EXPECT_EQ(__real__ zd[0], m * (m - 1) / 2.0);
        EXPECT_EQ(__imag__ zd[0], (double)m);
        float _Complex *cs = (float _Complex *)sb.p, *cd = (float _Complex *)db.p;
        __real__ cs[0] = 0.0f;
        __imag__ cs[0] = 1.0f; // i^m
        shmem_complexf_prod_to_all(cd, cs, 1, s.start, s.logstride, s.size,
                                   (float _Complex *)pWrk_l, pSync);
        const float re[4] = {1, 0, -1, 0}, im[4] = {0, 1, 0, -1};
        EXPECT_EQ(__real__ cd[0], re[m % 4]);
        EXPECT_EQ(__imag__ cd[0], im[m % 4]);
        shmem_sync(s.start, s.logstride, s.size, pSync);
    }
    shmem_barrier_all();
}

TEST(Legacy, InvalidActiveSetIsRejected)
{
    // Every PE passes the same bad set: each reports it and returns without hanging.
    int n = shmem_n_pes();
    Buf<int> d(4), s(4);
    d.p[0] = -1;
    s.p[0] = 1;
    shmem_barrier(0, 0, 0, pSync);
    shmem_barrier(0, 0, n + 1, pSync);
    shmem_int_sum_to_all(d.p, s.p, 1, -1, 0, 1, nullptr, pSync);
    shmem_broadcast32(d.p, s.p, 1, 0, 0, 40, 1, pSync);
    EXPECT_EQ(d.p[0], -1);
    shmem_barrier_all();
}

} // namespace
