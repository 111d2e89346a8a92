// test_p2p.cc: point-to-point synchronization: wait_until / test and the 1.5 _all, _any,
// _some and _vector forms, with flags updated by remote puts and by remote accumulates.
#include <gtest/gtest.h>
#include <shmem.h>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>
#include "test_util.h"

extern "C" {
int c11_generic_p2p(long *flags, int n); // test_p2p_c11.c
int c11_generic_put_signal(long *dst, uint64_t *sig, int pe);
int pshmem_names_work(long *flag, int pe);
}

static long static_flag;
static int static_flags[8];

TEST(Wait, UntilPutFromLeftNeighbor)
{
    long *flag = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_NE(flag, nullptr);
    shmem_barrier_all();
    for (long round = 1; round <= 20; round++) {
        shmem_long_p(flag, round, right_neighbor());
        shmem_long_wait_until(flag, SHMEM_CMP_GE, round);
        EXPECT_GE(*flag, round);
    }
    shmem_barrier_all();
    EXPECT_EQ(*flag, 20);
    shmem_free(flag);
}

TEST(Wait, UntilPutOnStaticVariable)
{
    static_flag = 0;
    shmem_barrier_all();
    const long seven = 7;
    shmem_long_put(&static_flag, &seven, 1, right_neighbor());
    shmem_long_wait_until(&static_flag, SHMEM_CMP_EQ, 7);
    EXPECT_EQ(static_flag, 7);
    shmem_barrier_all();
    // deprecated forms: wait while equal
    static_flag = 0;
    shmem_barrier_all();
    shmem_long_p(&static_flag, 3, right_neighbor());
    shmem_long_wait(&static_flag, 0);
    EXPECT_EQ(static_flag, 3);
    shmem_barrier_all();
    shmem_long_p(&static_flag, 4, right_neighbor());
    shmem_wait(&static_flag, 3);
    EXPECT_EQ(static_flag, 4);
    shmem_barrier_all();
    shmem_long_p(&static_flag, 5, right_neighbor());
    (shmem_wait_until)(&static_flag, SHMEM_CMP_EQ, 5);
    EXPECT_EQ(static_flag, 5);
    shmem_barrier_all();
}

// A flag set with an MPI accumulate (MPI_REPLACE), which is how shmem_atomic_set and
// shmem_signal_set reach the target: the waiter must keep MPI progressing.
TEST(Wait, UntilAccumulateFromLeftNeighbor)
{
    uint64_t *flag = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    ASSERT_NE(flag, nullptr);
    shmem_barrier_all();
    for (uint64_t round = 1; round <= 20; round++) {
        shmem_signal_set(flag, round, right_neighbor());
        shmem_uint64_wait_until(flag, SHMEM_CMP_GE, round);
    }
    shmem_barrier_all();
    EXPECT_EQ(*flag, 20u);
    // the same on a long flag with shmem_long_wait_until (long and uint64_t share the
    // representation; the update is an MPI_Accumulate with MPI_REPLACE of 8 bytes)
    long *lflag = (long *)flag;
    *lflag = 0;
    shmem_barrier_all();
    for (long round = 1; round <= 20; round++) {
        shmem_signal_set((uint64_t *)lflag, (uint64_t)round, right_neighbor());
        shmem_long_wait_until(lflag, SHMEM_CMP_GE, round); // the left PE may be a round ahead
    }
    shmem_barrier_all();
    EXPECT_EQ(*lflag, 20);
    shmem_free(flag);
}

TEST(Test, LocalSemantics)
{
    int *v = (int *)shmem_malloc(6 * sizeof(int));
    ASSERT_NE(v, nullptr);
    int init[6] = {0, 5, 0, 7, 0, 9};
    memcpy(v, init, sizeof init);
    EXPECT_TRUE(shmem_int_test(&v[1], SHMEM_CMP_EQ, 5));
    EXPECT_FALSE(shmem_int_test(&v[1], SHMEM_CMP_NE, 5));
    EXPECT_TRUE(shmem_int_test(&v[1], SHMEM_CMP_GT, 4));
    EXPECT_TRUE(shmem_int_test(&v[1], SHMEM_CMP_LE, 5));
    EXPECT_TRUE(shmem_int_test(&v[1], SHMEM_CMP_LT, 6));
    EXPECT_TRUE(shmem_int_test(&v[1], SHMEM_CMP_GE, 5));
    EXPECT_FALSE(shmem_int_test(&v[1], SHMEM_CMP_GE, 6));

    int mask_odd[6] = {1, 0, 1, 0, 1, 0}; // test set: 1, 3, 5
    int mask_all[6] = {1, 1, 1, 1, 1, 1};
    EXPECT_EQ(shmem_int_test_all(v, 6, mask_odd, SHMEM_CMP_GT, 0), 1);
    EXPECT_EQ(shmem_int_test_all(v, 6, NULL, SHMEM_CMP_GT, 0), 0);
    EXPECT_EQ(shmem_int_test_all(v, 6, mask_all, SHMEM_CMP_GT, 0), 1); // empty set
    EXPECT_EQ(shmem_int_test_all(v, 0, NULL, SHMEM_CMP_GT, 0), 1);

    EXPECT_EQ(shmem_int_test_any(v, 6, NULL, SHMEM_CMP_EQ, 7), 3u);
    EXPECT_EQ(shmem_int_test_any(v, 6, NULL, SHMEM_CMP_EQ, 8), SIZE_MAX);
    EXPECT_EQ(shmem_int_test_any(v, 6, mask_all, SHMEM_CMP_EQ, 7), SIZE_MAX);
    EXPECT_EQ(shmem_int_test_any(v, 0, NULL, SHMEM_CMP_EQ, 7), SIZE_MAX);
    // _any eventually reports every satisfying index
    bool seen[6] = {};
    for (int i = 0; i < 12; i++) {
        size_t k = shmem_int_test_any(v, 6, mask_odd, SHMEM_CMP_GT, 0);
        ASSERT_LT(k, 6u);
        EXPECT_EQ(k % 2, 1u);
        seen[k] = true;
    }
    EXPECT_TRUE(seen[1] && seen[3] && seen[5]);

    size_t idx[6];
    size_t n = shmem_int_test_some(v, 6, idx, NULL, SHMEM_CMP_EQ, 0);
    ASSERT_EQ(n, 3u);
    std::vector<size_t> got(idx, idx + n);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, (std::vector<size_t>{0, 2, 4}));
    EXPECT_EQ(shmem_int_test_some(v, 6, idx, mask_odd, SHMEM_CMP_EQ, 0), 0u);
    EXPECT_EQ(shmem_int_test_some(v, 6, idx, mask_all, SHMEM_CMP_NE, 0), 0u);

    int want[6] = {0, 5, 1, 7, 1, 8};
    EXPECT_EQ(shmem_int_test_all_vector(v, 6, mask_odd, SHMEM_CMP_GE, want), 1);
    EXPECT_EQ(shmem_int_test_all_vector(v, 6, NULL, SHMEM_CMP_EQ, want), 0);
    EXPECT_EQ(shmem_int_test_any_vector(v, 6, mask_odd, SHMEM_CMP_GT, want), 5u);
    EXPECT_EQ(shmem_int_test_any_vector(v, 6, mask_odd, SHMEM_CMP_LT, want), SIZE_MAX);
    n = shmem_int_test_some_vector(v, 6, idx, NULL, SHMEM_CMP_EQ, want);
    ASSERT_EQ(n, 3u);
    got.assign(idx, idx + n);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, (std::vector<size_t>{0, 1, 3}));

    // the waits return at once when satisfied or when the test set is empty
    shmem_int_wait_until_all(v, 6, mask_all, SHMEM_CMP_EQ, 42);
    EXPECT_EQ(shmem_int_wait_until_any(v, 6, mask_all, SHMEM_CMP_EQ, 42), SIZE_MAX);
    EXPECT_EQ(shmem_int_wait_until_some(v, 6, idx, mask_all, SHMEM_CMP_EQ, 42), 0u);
    EXPECT_EQ(shmem_int_wait_until_any_vector(v, 0, NULL, SHMEM_CMP_EQ, want), SIZE_MAX);
    EXPECT_EQ(shmem_int_wait_until_some_vector(v, 6, idx, mask_odd, SHMEM_CMP_EQ, want), 2u);
    shmem_int_wait_until_all_vector(v, 6, mask_odd, SHMEM_CMP_GE, want);
    EXPECT_EQ(shmem_int_wait_until_any(v, 6, NULL, SHMEM_CMP_EQ, 9), 5u);
    shmem_free(v);
}

// Every PE sets its own slot on every PE; each PE waits with the array forms.
TEST(Wait, ArrayFormsWithRemoteWriters)
{
    int npes = shmem_n_pes(), me = shmem_my_pe();
    long *flags = (long *)shmem_calloc((size_t)npes, sizeof(long));
    ASSERT_NE(flags, nullptr);
    std::vector<int> status((size_t)npes, 0);
    std::vector<size_t> idx((size_t)npes);
    shmem_barrier_all();

    // round 1: _some until every slot is seen, masking the ones already handled
    for (int pe = 0; pe < npes; pe++)
        shmem_long_p(&flags[me], 1, (me + pe) % npes);
    size_t seen = 0;
    while (seen < (size_t)npes) {
        size_t n = shmem_long_wait_until_some(flags, (size_t)npes, idx.data(), status.data(),
                                              SHMEM_CMP_EQ, 1);
        ASSERT_GE(n, 1u);
        for (size_t i = 0; i < n; i++) {
            ASSERT_EQ(status[idx[i]], 0);
            status[idx[i]] = 1;
        }
        seen += n;
    }
    EXPECT_EQ(shmem_long_wait_until_some(flags, (size_t)npes, idx.data(), status.data(),
                                         SHMEM_CMP_EQ, 1),
              0u);
    shmem_barrier_all();

    // round 2: _any, one index at a time
    std::fill(status.begin(), status.end(), 0);
    for (int pe = 0; pe < npes; pe++)
        shmem_long_p(&flags[me], 2, (me + pe) % npes);
    for (int k = 0; k < npes; k++) {
        size_t i = shmem_long_wait_until_any(flags, (size_t)npes, status.data(), SHMEM_CMP_EQ, 2);
        ASSERT_LT(i, (size_t)npes);
        ASSERT_EQ(status[i], 0);
        status[i] = 1;
    }
    EXPECT_EQ(shmem_long_wait_until_any(flags, (size_t)npes, status.data(), SHMEM_CMP_EQ, 2),
              SIZE_MAX);
    shmem_barrier_all();

    // round 3: _all_vector with per-slot targets
    std::vector<long> want((size_t)npes);
    for (int i = 0; i < npes; i++)
        want[(size_t)i] = 100 + i;
    for (int pe = 0; pe < npes; pe++)
        shmem_long_p(&flags[me], 100 + me, (me + pe) % npes);
    shmem_long_wait_until_all_vector(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, want.data());
    for (int i = 0; i < npes; i++)
        EXPECT_EQ(flags[i], 100 + i);
    shmem_barrier_all();

    // round 4: _all then test loops
    for (int pe = 0; pe < npes; pe++)
        shmem_long_p(&flags[me], 7, (me + pe) % npes);
    shmem_long_wait_until_all(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, 7);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        shmem_long_p(&flags[me], 8, (me + pe) % npes);
    while (!shmem_long_test_all(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, 8))
        ;
    shmem_barrier_all();
    shmem_free(flags);
}

TEST(Wait, StaticArrayAndTestLoop)
{
    int npes = shmem_n_pes(), me = shmem_my_pe();
    if (npes > 8)
        GTEST_SKIP() << "static array holds 8 PEs";
    memset(static_flags, 0, sizeof static_flags);
    shmem_barrier_all();
    shmem_int_p(&static_flags[me], me + 1, right_neighbor());
    size_t i;
    while ((i = shmem_int_test_any(static_flags, (size_t)npes, NULL, SHMEM_CMP_NE, 0)) == SIZE_MAX)
        ;
    EXPECT_EQ(i, (size_t)left_neighbor());
    EXPECT_EQ(static_flags[i], left_neighbor() + 1);
    shmem_barrier_all();
}

TEST(Wait, OtherTypes)
{
    struct all_types {
        short s; int i; long l; long long ll; unsigned short us; unsigned int ui;
        unsigned long ul; unsigned long long ull; int32_t i32; int64_t i64; uint32_t u32;
        uint64_t u64; size_t sz; ptrdiff_t pd;
    };
    all_types *t = (all_types *)shmem_calloc(1, sizeof(all_types));
    ASSERT_NE(t, nullptr);
    shmem_barrier_all();
    int r = right_neighbor();
    shmem_short_p(&t->s, 1, r); shmem_int_p(&t->i, 2, r); shmem_long_p(&t->l, 3, r);
    shmem_longlong_p(&t->ll, 4, r); shmem_ushort_p(&t->us, 5, r); shmem_uint_p(&t->ui, 6, r);
    shmem_ulong_p(&t->ul, 7, r); shmem_ulonglong_p(&t->ull, 8, r);
    shmem_int32_p(&t->i32, 9, r); shmem_int64_p(&t->i64, 10, r);
    shmem_uint32_p(&t->u32, 11, r); shmem_uint64_p(&t->u64, 12, r);
    shmem_size_p(&t->sz, 13, r); shmem_ptrdiff_p(&t->pd, 14, r);
    shmem_short_wait_until(&t->s, SHMEM_CMP_EQ, 1);
    shmem_int_wait_until(&t->i, SHMEM_CMP_EQ, 2);
    shmem_long_wait_until(&t->l, SHMEM_CMP_EQ, 3);
    shmem_longlong_wait_until(&t->ll, SHMEM_CMP_EQ, 4);
    shmem_ushort_wait_until(&t->us, SHMEM_CMP_EQ, 5);
    shmem_uint_wait_until(&t->ui, SHMEM_CMP_EQ, 6);
    shmem_ulong_wait_until(&t->ul, SHMEM_CMP_EQ, 7);
    shmem_ulonglong_wait_until(&t->ull, SHMEM_CMP_EQ, 8);
    shmem_int32_wait_until(&t->i32, SHMEM_CMP_EQ, 9);
    shmem_int64_wait_until(&t->i64, SHMEM_CMP_EQ, 10);
    shmem_uint32_wait_until(&t->u32, SHMEM_CMP_EQ, 11);
    shmem_uint64_wait_until(&t->u64, SHMEM_CMP_EQ, 12);
    shmem_size_wait_until(&t->sz, SHMEM_CMP_EQ, 13);
    shmem_ptrdiff_wait_until(&t->pd, SHMEM_CMP_EQ, 14);
    EXPECT_TRUE(shmem_short_test(&t->s, SHMEM_CMP_EQ, 1));
    EXPECT_TRUE(shmem_ptrdiff_test(&t->pd, SHMEM_CMP_EQ, 14));
    // unsigned comparisons are unsigned
    EXPECT_TRUE(shmem_uint64_test(&t->u64, SHMEM_CMP_LT, UINT64_MAX));
    shmem_barrier_all();
    shmem_free(t);
}

TEST(Wait, C11Generics)
{
    int npes = shmem_n_pes();
    long *flags = (long *)shmem_calloc((size_t)npes, sizeof(long));
    ASSERT_NE(flags, nullptr);
    shmem_barrier_all();
    EXPECT_EQ(c11_generic_p2p(flags, npes), 0);
    shmem_barrier_all();
    shmem_free(flags);
}

TEST(Wait, C11GenericPutSignal)
{
    long *dst = (long *)shmem_calloc(4, sizeof(long));
    uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    ASSERT_NE(dst, nullptr);
    shmem_barrier_all();
    EXPECT_EQ(c11_generic_put_signal(dst, sig, right_neighbor()), 0);
    EXPECT_EQ(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 4), 4u);
    EXPECT_EQ(dst[3], 4);
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(dst);
}

TEST(Wait, ProfilingNames)
{
    long *flag = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_NE(flag, nullptr);
    shmem_barrier_all();
    EXPECT_EQ(pshmem_names_work(flag, right_neighbor()), 0);
    shmem_barrier_all();
    shmem_free(flag);
}

TEST(Wait, InvalidArguments)
{
    long x = 1;
    // invalid comparison and NULL arrays are reported, never waited on
    EXPECT_EQ(shmem_long_test_any(&x, 1, NULL, 99, 1), SIZE_MAX);
    EXPECT_EQ(shmem_long_test_some(NULL, 4, NULL, NULL, SHMEM_CMP_EQ, 1), 0u);
    EXPECT_EQ(shmem_long_wait_until_any(NULL, 3, NULL, SHMEM_CMP_EQ, 1), SIZE_MAX);
    EXPECT_EQ(shmem_long_test_some_vector(&x, 1, NULL, NULL, SHMEM_CMP_EQ, &x), 0u);
    EXPECT_EQ(shmem_long_test_all_vector(&x, 1, NULL, SHMEM_CMP_EQ, NULL), 0);
    shmem_long_wait_until(NULL, SHMEM_CMP_EQ, 1);
    // a misaligned ivar is reported and never waited on (the condition would hold if read)
    long pair[2] = {0, 0};
    long *odd = reinterpret_cast<long *>(reinterpret_cast<char *>(pair) + 2);
    EXPECT_EQ(shmem_long_test(odd, SHMEM_CMP_EQ, 0), 0);
    EXPECT_EQ(shmem_long_test_any(odd, 1, NULL, SHMEM_CMP_EQ, 0), SIZE_MAX);
    shmem_long_wait_until(odd, SHMEM_CMP_NE, 0);
    EXPECT_EQ(shmem_long_wait_until_any(odd, 1, NULL, SHMEM_CMP_NE, 0), SIZE_MAX);
}
