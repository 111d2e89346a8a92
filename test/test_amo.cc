// test_amo.cc: atomic memory operations: every op for every AMO type (with and without a
// context), contention on one location, compare_swap election, mixed op kinds on one
// location, _nbi fetches, static targets, deprecated names, invalid arguments, and the
// C11 generic selections (test_generic.c).
#include <gtest/gtest.h>
#include <shmem.h>
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>
#include "test_util.h"

extern "C" {
int generic_rma_errors(void);
int generic_amo_errors(void);
}

// Open MPI 4.x: osc/rdma's 64-bit MPI_Compare_and_swap through btl/vader crashes the
// target process (open-mpi/ompi#11349, also seen with MPI alone); those calls are left
// out there and replaced by swaps that keep the expected values (docs/amo.md).
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
#define CAS64_BROKEN 1
#else
#define CAS64_BROKEN 0
#endif
#define CAS_OK(T) (sizeof(T) != 8 || !CAS64_BROKEN)

namespace {

long static_long_target;
double static_double_target;
unsigned int static_uint_target;

long allreduce_sum(long v)
{
    long s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

int right_pe() { return (shmem_my_pe() + 1) % shmem_n_pes(); }
int left_pe() { return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes(); }

} // namespace

// Standard ops on one type: each PE works on its right neighbour's location (so every
// location has exactly one writer), once through the plain and once through the ctx
// names. `d` is on the heap or in the data segment.
#define STD_OPS(T, N, d)                                                                   \
    do {                                                                                   \
        const int me = shmem_my_pe(), r = right_pe();                                      \
        /* the ctx pass (1) for a few types only: keeps the binary fast at 4 PEs */        \
        const int passes = (std::is_same<T, int>::value || std::is_same<T, long>::value ||   \
                            std::is_same<T, uint64_t>::value) ? 2 : 1;                     \
        for (int pass = 0; pass < passes; pass++) {                                        \
            shmem_ctx_t c = SHMEM_CTX_DEFAULT;                                             \
            *(d) = (T)0;                                                                   \
            shmem_barrier_all();                                                           \
            const T base = (T)(10 + me);                                                   \
            if (pass == 0) {                                                               \
                shmem_##N##_atomic_set(d, base, r);                                        \
                shmem_quiet();                                                             \
                EXPECT_EQ(shmem_##N##_atomic_fetch(d, r), base);                           \
                EXPECT_EQ(shmem_##N##_atomic_fetch_add(d, (T)5, r), base);                 \
                shmem_##N##_atomic_add(d, (T)3, r);                                        \
                shmem_quiet();                                                             \
                EXPECT_EQ(shmem_##N##_atomic_fetch_inc(d, r), (T)(base + 8));              \
                shmem_##N##_atomic_inc(d, r);                                              \
                shmem_quiet();                                                             \
                EXPECT_EQ(shmem_##N##_atomic_swap(d, (T)7, r), (T)(base + 10));            \
                if (CAS_OK(T)) {                                                           \
                    EXPECT_EQ(shmem_##N##_atomic_compare_swap(d, (T)7, (T)9, r), (T)7);    \
                    EXPECT_EQ(shmem_##N##_atomic_compare_swap(d, (T)8, (T)1, r), (T)9);    \
                } else {                                                                   \
                    EXPECT_EQ(shmem_##N##_atomic_swap(d, (T)9, r), (T)7);                  \
                }                                                                          \
                T f[5] = {0, 0, 0, 0, 0};                                                  \
                shmem_##N##_atomic_fetch_add_nbi(&f[0], d, (T)2, r);                       \
                shmem_quiet();                                                             \
                shmem_##N##_atomic_fetch_inc_nbi(&f[1], d, r);                             \
                shmem_quiet();                                                             \
                shmem_##N##_atomic_swap_nbi(&f[2], d, (T)40, r);                           \
                shmem_quiet();                                                             \
                if (CAS_OK(T))                                                             \
                    shmem_##N##_atomic_compare_swap_nbi(&f[3], d, (T)40, (T)41, r);        \
                else                                                                       \
                    shmem_##N##_atomic_swap_nbi(&f[3], d, (T)41, r);                       \
                shmem_quiet();                                                             \
                shmem_##N##_atomic_fetch_nbi(&f[4], d, r);                                 \
                shmem_quiet();                                                             \
                EXPECT_EQ(f[0], (T)9);                                                     \
                EXPECT_EQ(f[1], (T)11);                                                    \
                EXPECT_EQ(f[2], (T)12);                                                    \
                EXPECT_EQ(f[3], (T)40);                                                    \
                EXPECT_EQ(f[4], (T)41);                                                    \
            } else {                                                                       \
                shmem_ctx_##N##_atomic_set(c, d, base, r);                                 \
                shmem_ctx_quiet(c);                                                        \
                EXPECT_EQ(shmem_ctx_##N##_atomic_fetch(c, d, r), base);                    \
                EXPECT_EQ(shmem_ctx_##N##_atomic_fetch_add(c, d, (T)5, r), base);          \
                shmem_ctx_##N##_atomic_add(c, d, (T)3, r);                                 \
                shmem_ctx_quiet(c);                                                        \
                EXPECT_EQ(shmem_ctx_##N##_atomic_fetch_inc(c, d, r), (T)(base + 8));       \
                shmem_ctx_##N##_atomic_inc(c, d, r);                                       \
                shmem_ctx_quiet(c);                                                        \
                EXPECT_EQ(shmem_ctx_##N##_atomic_swap(c, d, (T)7, r), (T)(base + 10));     \
                if (CAS_OK(T)) {                                                           \
                    EXPECT_EQ(shmem_ctx_##N##_atomic_compare_swap(c, d, (T)7, (T)9, r),    \
                              (T)7);                                                       \
                    EXPECT_EQ(shmem_ctx_##N##_atomic_compare_swap(c, d, (T)8, (T)1, r),    \
                              (T)9);                                                       \
                } else {                                                                   \
                    EXPECT_EQ(shmem_ctx_##N##_atomic_swap(c, d, (T)9, r), (T)7);           \
                }                                                                          \
                T f[5] = {0, 0, 0, 0, 0};                                                  \
                shmem_ctx_##N##_atomic_fetch_add_nbi(c, &f[0], d, (T)2, r);                \
                shmem_ctx_quiet(c);                                                        \
                shmem_ctx_##N##_atomic_fetch_inc_nbi(c, &f[1], d, r);                      \
                shmem_ctx_quiet(c);                                                        \
                shmem_ctx_##N##_atomic_swap_nbi(c, &f[2], d, (T)40, r);                    \
                shmem_ctx_quiet(c);                                                        \
                if (CAS_OK(T))                                                             \
                    shmem_ctx_##N##_atomic_compare_swap_nbi(c, &f[3], d, (T)40, (T)41, r); \
                else                                                                       \
                    shmem_ctx_##N##_atomic_swap_nbi(c, &f[3], d, (T)41, r);                \
                shmem_ctx_quiet(c);                                                        \
                shmem_ctx_##N##_atomic_fetch_nbi(c, &f[4], d, r);                          \
                shmem_ctx_quiet(c);                                                        \
                EXPECT_EQ(f[0], (T)9);                                                     \
                EXPECT_EQ(f[1], (T)11);                                                    \
                EXPECT_EQ(f[2], (T)12);                                                    \
                EXPECT_EQ(f[3], (T)40);                                                    \
                EXPECT_EQ(f[4], (T)41);                                                    \
            }                                                                              \
            shmem_barrier_all();                                                           \
            EXPECT_EQ(*(d), (T)41) << #N << " pass " << pass;                              \
        }                                                                                  \
    } while (0)

#define STD_TEST(T, N)                                                                     \
    TEST(AmoStd, N)                                                                        \
    {                                                                                      \
        T *d = (T *)shmem_malloc(sizeof(T));                                               \
        ASSERT_NE(d, nullptr);                                                             \
        STD_OPS(T, N, d);                                                                  \
        shmem_barrier_all();                                                               \
        shmem_free(d);                                                                     \
    }
SHMEMQ_AMO_STD_TYPES(STD_TEST)

// Extended ops (fetch, set, swap) for every extended type, float and double included.
#define EXT_TEST(T, N)                                                                     \
    TEST(AmoExt, N)                                                                        \
    {                                                                                      \
        T *d = (T *)shmem_malloc(sizeof(T));                                               \
        ASSERT_NE(d, nullptr);                                                             \
        const int me = shmem_my_pe(), r = right_pe(), l = left_pe();                       \
        *d = (T)0;                                                                         \
        shmem_barrier_all();                                                               \
        shmem_##N##_atomic_set(d, (T)(me + 1.0), r);                                       \
        shmem_barrier_all();                                                               \
        EXPECT_EQ(*d, (T)(l + 1.0));                                                       \
        shmem_barrier_all(); /* the left PE changes *d next */                             \
        EXPECT_EQ(shmem_##N##_atomic_fetch(d, r), (T)(me + 1.0));                          \
        EXPECT_EQ(shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, d, r), (T)(me + 1.0));   \
        EXPECT_EQ(shmem_##N##_atomic_swap(d, (T)(me + 2.0), r), (T)(me + 1.0));            \
        EXPECT_EQ(shmem_ctx_##N##_atomic_swap(SHMEM_CTX_DEFAULT, d, (T)(me + 3.0), r),     \
                  (T)(me + 2.0));                                                          \
        T f[4] = {0, 0, 0, 0};                                                             \
        shmem_##N##_atomic_swap_nbi(&f[0], d, (T)(me + 4.0), r);                           \
        shmem_quiet();                                                                     \
        shmem_ctx_##N##_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &f[1], d, (T)(me + 5.0), r);    \
        shmem_quiet();                                                                     \
        shmem_##N##_atomic_fetch_nbi(&f[2], d, r);                                         \
        shmem_ctx_##N##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, &f[3], d, r);                  \
        shmem_quiet();                                                                     \
        EXPECT_EQ(f[0], (T)(me + 3.0));                                                    \
        EXPECT_EQ(f[1], (T)(me + 4.0));                                                    \
        EXPECT_EQ(f[2], (T)(me + 5.0));                                                    \
        EXPECT_EQ(f[3], (T)(me + 5.0));                                                    \
        shmem_ctx_##N##_atomic_set(SHMEM_CTX_DEFAULT, d, (T)(me + 6.0), r);                \
        shmem_barrier_all();                                                               \
        EXPECT_EQ(*d, (T)(l + 6.0));                                                       \
        shmem_free(d);                                                                     \
    }
SHMEMQ_AMO_EXT_TYPES(EXT_TEST)

// Bitwise ops: every PE sets its own bits in the right neighbour's word, then the
// fetching forms walk a known sequence.
#define BIT_TEST(T, N)                                                                     \
    TEST(AmoBit, N)                                                                        \
    {                                                                                      \
        T *d = (T *)shmem_malloc(sizeof(T));                                               \
        ASSERT_NE(d, nullptr);                                                             \
        const int r = right_pe();                                                          \
        *d = (T)0xF0F0;                                                                    \
        shmem_barrier_all();                                                               \
        EXPECT_EQ(shmem_##N##_atomic_fetch_and(d, (T)0xFF00, r), (T)0xF0F0);               \
        EXPECT_EQ(shmem_ctx_##N##_atomic_fetch_xor(SHMEM_CTX_DEFAULT, d, (T)0x0F00, r),    \
                  (T)0xF000);                                                              \
        EXPECT_EQ(shmem_##N##_atomic_fetch_or(d, (T)0x1, r), (T)0xFF00);                   \
        EXPECT_EQ(shmem_ctx_##N##_atomic_fetch_and(SHMEM_CTX_DEFAULT, d, (T)~(T)0, r),     \
                  (T)0xFF01);                                                              \
        EXPECT_EQ(shmem_ctx_##N##_atomic_fetch_or(SHMEM_CTX_DEFAULT, d, (T)0, r),          \
                  (T)0xFF01);                                                              \
        EXPECT_EQ(shmem_##N##_atomic_fetch_xor(d, (T)0, r), (T)0xFF01);                    \
        T f[6] = {0, 0, 0, 0, 0, 0};                                                       \
        shmem_##N##_atomic_fetch_and_nbi(&f[0], d, (T)0xFFF0, r);                          \
        shmem_quiet();                                                                     \
        shmem_ctx_##N##_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &f[1], d, (T)~(T)0, r);    \
        shmem_quiet();                                                                     \
        shmem_##N##_atomic_fetch_or_nbi(&f[2], d, (T)0x3, r);                              \
        shmem_quiet();                                                                     \
        shmem_ctx_##N##_atomic_fetch_or_nbi(SHMEM_CTX_DEFAULT, &f[3], d, (T)0, r);         \
        shmem_quiet();                                                                     \
        shmem_##N##_atomic_fetch_xor_nbi(&f[4], d, (T)0x1, r);                             \
        shmem_quiet();                                                                     \
        shmem_ctx_##N##_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &f[5], d, (T)0, r);        \
        shmem_quiet();                                                                     \
        EXPECT_EQ(f[0], (T)0xFF01);                                                        \
        EXPECT_EQ(f[1], (T)0xFF00);                                                        \
        EXPECT_EQ(f[2], (T)0xFF00);                                                        \
        EXPECT_EQ(f[3], (T)0xFF03);                                                        \
        EXPECT_EQ(f[4], (T)0xFF03);                                                        \
        EXPECT_EQ(f[5], (T)0xFF02);                                                        \
        shmem_##N##_atomic_and(d, (T)0xF0FF, r);                                           \
        shmem_quiet();                                                                     \
        shmem_ctx_##N##_atomic_xor(SHMEM_CTX_DEFAULT, d, (T)0x0002, r);                    \
        shmem_quiet();                                                                     \
        shmem_##N##_atomic_or(d, (T)0x0400, r);                                            \
        shmem_quiet();                                                                     \
        shmem_ctx_##N##_atomic_and(SHMEM_CTX_DEFAULT, d, (T)~(T)0x8000, r);                \
        shmem_quiet();                                                                     \
        shmem_ctx_##N##_atomic_or(SHMEM_CTX_DEFAULT, d, (T)0x10000, r);                    \
        shmem_quiet();                                                                     \
        shmem_##N##_atomic_xor(d, (T)0x1, r);                                              \
        shmem_barrier_all();                                                               \
        EXPECT_EQ(*d, (T)0x17401);                                                         \
        /* all PEs set their own bit in PE 0's word: OR is commutative */                  \
        *d = (T)0;                                                                         \
        shmem_barrier_all();                                                               \
        shmem_##N##_atomic_or(d, (T)((T)1 << shmem_my_pe()), 0);                           \
        shmem_barrier_all();                                                               \
        if (shmem_my_pe() == 0) {                                                          \
            EXPECT_EQ(*d, (T)(((T)1 << shmem_n_pes()) - 1));                               \
        }                                                                                  \
        shmem_barrier_all();                                                               \
        shmem_free(d);                                                                     \
    }
SHMEMQ_AMO_BIT_TYPES(BIT_TEST)

TEST(AmoStatic, DataSegmentTargets)
{
    const int me = shmem_my_pe(), l = left_pe(), r = right_pe();
    STD_OPS(long, long, &static_long_target);
    static_double_target = 0;
    static_uint_target = 0;
    shmem_barrier_all();
    shmem_double_atomic_set(&static_double_target, me + 0.5, r);
    shmem_uint_atomic_or(&static_uint_target, 1u << me, 0);
    shmem_barrier_all();
    EXPECT_EQ(static_double_target, l + 0.5);
    shmem_barrier_all(); // the left PE changes it next
    EXPECT_EQ(shmem_double_atomic_swap(&static_double_target, 2.0, r), me + 0.5);
    EXPECT_EQ(shmem_double_atomic_fetch(&static_double_target, r), 2.0);
    if (me == 0) {
        EXPECT_EQ(static_uint_target, (1u << shmem_n_pes()) - 1);
    }
    shmem_barrier_all();
}

// Every PE hammers one counter on PE 0 with fetch_inc, inc, fetch_add and add; the total
// is exact and the fetch_inc results are all distinct.
TEST(AmoContention, CounterOnPe0)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int iters = 30;
    long *ctr = (long *)shmem_calloc(2, sizeof(long));
    ASSERT_NE(ctr, nullptr);
    shmem_barrier_all();
    std::vector<long> got;
    for (int i = 0; i < iters; i++) {
        got.push_back(shmem_long_atomic_fetch_inc(&ctr[0], 0));
        shmem_long_atomic_add(&ctr[1], me + 1, 0);
        if (i % 2)
            shmem_long_atomic_inc(&ctr[1], 0);
        else
            (void)shmem_long_atomic_fetch_add(&ctr[1], 1, 0);
    }
    shmem_barrier_all();
    // fetched values are distinct per PE, increasing, and all of them together are
    // exactly 0..n*iters-1
    for (size_t i = 1; i < got.size(); i++)
        EXPECT_LT(got[i - 1], got[i]);
    long sum = 0;
    for (long v : got)
        sum += v;
    const long total = (long)n * iters;
    EXPECT_EQ(allreduce_sum(sum), total * (total - 1) / 2);
    if (me == 0) {
        EXPECT_EQ(ctr[0], total);
        EXPECT_EQ(ctr[1], (long)iters * (n * (n + 1) / 2) + total);
    }
    shmem_barrier_all();
    shmem_free(ctr);
}

// compare_swap elects exactly one winner, many times over.
TEST(AmoContention, CompareSwapElection)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    int *lock = (int *)shmem_malloc(16 * sizeof(int));
    ASSERT_NE(lock, nullptr);
    for (int i = 0; i < 16; i++)
        lock[i] = -1;
    shmem_barrier_all();
    long wins = 0;
    for (int round = 0; round < 16; round++) {
        int old = shmem_int_atomic_compare_swap(&lock[round], -1, me, round % n);
        if (old == -1)
            wins++;
        else {
            EXPECT_TRUE(old >= 0 && old < n);
        }
    }
    EXPECT_EQ(allreduce_sum(wins), 16);
    shmem_barrier_all();
    for (int round = 0; round < 16; round++) {
        int winner = shmem_int_atomic_fetch(&lock[round], round % n);
        EXPECT_TRUE(winner >= 0 && winner < n);
        int mine = (winner == me);
        int count = 0;
        MPI_Allreduce(&mine, &count, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        EXPECT_EQ(count, 1) << "round " << round;
    }
    shmem_barrier_all();
    shmem_free(lock);
}

// Different op kinds on one location at once: add, fetch_add, compare_swap increments,
// and swap(0) + add(taken) (a conserving move), with concurrent fetches. Every lost
// update shows in the final count; every value read lies in [0, every PE's increments]
// (T is signed: a torn or garbage read fails the range check).
#define MIXED_TEST(T, N)                                                                   \
    TEST(AmoContention, MixedOpsOneLocation_##N)                                           \
    {                                                                                      \
        const int me = shmem_my_pe();                                                      \
        const int iters = 24;                                                              \
        T *x = (T *)shmem_calloc(1, sizeof(T));                                            \
        ASSERT_NE(x, nullptr);                                                             \
        shmem_barrier_all();                                                               \
        long incs = 0;                                                                     \
        const long most = 3L * iters * shmem_n_pes(); /* no value read can exceed it */    \
        for (int i = 0; i < iters; i++) {                                                  \
            switch ((i + me) % 4) {                                                        \
            case 0:                                                                        \
                shmem_##N##_atomic_add(x, 2, 0);                                           \
                incs += 2;                                                                 \
                break;                                                                     \
            case 1: {                                                                      \
                T got = shmem_##N##_atomic_fetch_add(x, 1, 0);                             \
                EXPECT_TRUE(got >= 0 && got <= most) << got;                               \
                incs += 1;                                                                 \
                break;                                                                     \
            }                                                                              \
            case 2:                                                                        \
                if (CAS_OK(T)) {                                                           \
                    T old = shmem_##N##_atomic_fetch(x, 0), prev;                          \
                    while ((prev = shmem_##N##_atomic_compare_swap(x, old, old + 3, 0)) != \
                           old)                                                            \
                        old = prev;                                                        \
                } else {                                                                   \
                    shmem_##N##_atomic_fetch_add(x, 3, 0);                                 \
                }                                                                          \
                incs += 3;                                                                 \
                break;                                                                     \
            case 3: {                                                                      \
                T taken = shmem_##N##_atomic_swap(x, 0, 0);                                \
                EXPECT_TRUE(taken >= 0 && taken <= most) << taken;                         \
                shmem_##N##_atomic_add(x, taken, 0);                                       \
                break;                                                                     \
            }                                                                              \
            }                                                                              \
            T seen = shmem_##N##_atomic_fetch(x, 0);                                       \
            EXPECT_TRUE(seen >= 0 && seen <= most) << seen;                                \
        }                                                                                  \
        shmem_barrier_all();                                                               \
        long total = allreduce_sum(incs);                                                  \
        if (me == 0) {                                                                     \
            EXPECT_EQ((long)*x, total);                                                    \
        }                                                                                  \
        shmem_barrier_all();                                                               \
        shmem_free(x);                                                                     \
    }
MIXED_TEST(int, int)
MIXED_TEST(long, long)

// Many _nbi fetches in flight (more than the operand ring holds), valid after quiet.
TEST(AmoNbi, ManyInFlight)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int k = 70; // more than the 64-slot operand ring
    long *ctr = (long *)shmem_calloc(1, sizeof(long));
    int *word = (int *)shmem_calloc(1, sizeof(int));
    std::vector<long> f(k, -1);
    std::vector<int> g(k, -1);
    shmem_barrier_all();
    for (int i = 0; i < k; i++) {
        shmem_long_atomic_fetch_add_nbi(&f[i], ctr, 1, right_pe());
        shmem_int_atomic_fetch_inc_nbi(&g[i], word, 0);
    }
    shmem_quiet();
    std::vector<long> s(f);
    std::sort(s.begin(), s.end());
    for (int i = 0; i < k; i++)
        EXPECT_EQ(s[i], i);
    std::sort(g.begin(), g.end());
    for (int i = 1; i < k; i++)
        EXPECT_LT(g[i - 1], g[i]);
    long gs = 0;
    for (int v : g)
        gs += v;
    const long total = (long)n * k;
    EXPECT_EQ(allreduce_sum(gs), total * (total - 1) / 2);
    shmem_barrier_all();
    EXPECT_EQ(*ctr, k);
    if (me == 0) {
        EXPECT_EQ(*word, total);
    }
    shmem_barrier_all();
    shmem_free(word);
    shmem_free(ctr);
}

TEST(AmoDeprecated, Names13)
{
    const int me = shmem_my_pe(), r = right_pe(), l = left_pe();
    int *i = (int *)shmem_malloc(sizeof(int));
    long *lp = (long *)shmem_malloc(sizeof(long));
    long long *ll = (long long *)shmem_malloc(sizeof(long long));
    float *fl = (float *)shmem_malloc(sizeof(float));
    double *db = (double *)shmem_malloc(sizeof(double));
    *i = 0, *lp = 0, *ll = 0, *fl = 0, *db = 0;
    shmem_barrier_all();
    shmem_int_set(i, 10 + me, r);
    shmem_long_set(lp, 20 + me, r);
    shmem_longlong_set(ll, 30 + me, r);
    shmem_float_set(fl, 1.5f + me, r);
    shmem_double_set(db, 2.5 + me, r);
    shmem_barrier_all();
    EXPECT_EQ(*i, 10 + l);
    EXPECT_EQ(*fl, 1.5f + l);
    shmem_barrier_all(); // the left PE changes them next
    EXPECT_EQ(shmem_int_fetch(i, r), 10 + me);
    EXPECT_EQ(shmem_long_fetch(lp, r), 20 + me);
    EXPECT_EQ(shmem_longlong_fetch(ll, r), 30 + me);
    EXPECT_EQ(shmem_float_fetch(fl, r), 1.5f + me);
    EXPECT_EQ(shmem_double_fetch(db, r), 2.5 + me);
    EXPECT_EQ(shmem_int_swap(i, 5, r), 10 + me);
    EXPECT_EQ(shmem_long_swap(lp, 6, r), 20 + me);
    EXPECT_EQ(shmem_longlong_swap(ll, 7, r), 30 + me);
    EXPECT_EQ(shmem_float_swap(fl, 0.25f, r), 1.5f + me);
    EXPECT_EQ(shmem_double_swap(db, 0.75, r), 2.5 + me);
    EXPECT_EQ(shmem_swap(lp, 8, r), 6);
    EXPECT_EQ(shmem_int_cswap(i, 5, 50, r), 5);
    if (CAS_OK(long)) {
        EXPECT_EQ(shmem_long_cswap(lp, 0, 1, r), 8);
        EXPECT_EQ(shmem_longlong_cswap(ll, 7, 70, r), 7);
    } else {
        EXPECT_EQ(shmem_longlong_swap(ll, 70, r), 7);
    }
    EXPECT_EQ(shmem_int_fadd(i, 2, r), 50);
    EXPECT_EQ(shmem_long_fadd(lp, 2, r), 8);
    EXPECT_EQ(shmem_longlong_fadd(ll, 2, r), 70);
    EXPECT_EQ(shmem_int_finc(i, r), 52);
    EXPECT_EQ(shmem_long_finc(lp, r), 10);
    EXPECT_EQ(shmem_longlong_finc(ll, r), 72);
    shmem_int_add(i, 3, r);
    shmem_long_add(lp, 3, r);
    shmem_longlong_add(ll, 3, r);
    shmem_int_inc(i, r);
    shmem_long_inc(lp, r);
    shmem_longlong_inc(ll, r);
    shmem_barrier_all();
    EXPECT_EQ(*i, 57);
    EXPECT_EQ(*lp, 15);
    EXPECT_EQ(*ll, 77);
    EXPECT_EQ(*fl, 0.25f);
    EXPECT_EQ(*db, 0.75);
    shmem_barrier_all();
    shmem_free(db);
    shmem_free(fl);
    shmem_free(ll);
    shmem_free(lp);
    shmem_free(i);
}

// Invalid targets are reported and change nothing.
TEST(AmoErrors, BadArgumentsChangeNothing)
{
    const int n = shmem_n_pes();
    long *x = (long *)shmem_malloc(2 * sizeof(long));
    x[0] = 5, x[1] = 6;
    long local = 7;
    shmem_barrier_all();
    EXPECT_EQ(shmem_long_atomic_fetch_add(x, 1, n), 0);   // PE out of range
    EXPECT_EQ(shmem_long_atomic_fetch_add(x, 1, -1), 0);
    shmem_long_atomic_add(x, 1, n);
    shmem_long_atomic_inc(&local, 0);                       // not symmetric
    EXPECT_EQ(shmem_long_atomic_swap(&local, 1, 0), 0);
    EXPECT_EQ(shmem_long_atomic_compare_swap(&local, 7, 1, 0), 0);
    shmem_long_atomic_set((long *)((char *)x + 1), 9, 0); // misaligned
    EXPECT_EQ(shmem_long_atomic_fetch((long *)((char *)x + 4), 0), 0);
    long f = -3;
    shmem_long_atomic_fetch_add_nbi(&f, x, 1, n);
    shmem_long_atomic_fetch_nbi(nullptr, x, 0);             // NULL fetch buffer
    shmem_long_atomic_swap_nbi(nullptr, x, 3, 0);
    shmem_ctx_long_atomic_add(SHMEM_CTX_INVALID, x, 1, 0);  // invalid context
    EXPECT_EQ(shmem_ctx_long_atomic_fetch(SHMEM_CTX_INVALID, x, 0), 0);
    EXPECT_EQ(shmem_long_fadd(&local, 1, 0), 0);
    shmem_quiet();
    EXPECT_EQ(f, -3);
    EXPECT_EQ(local, 7);
    shmem_barrier_all();
    EXPECT_EQ(x[0], 5);
    EXPECT_EQ(x[1], 6);
    shmem_barrier_all();
    shmem_free(x);
}

TEST(Generic, Rma) { EXPECT_EQ(generic_rma_errors(), 0); }
TEST(Generic, Amo) { EXPECT_EQ(generic_amo_errors(), 0); }
