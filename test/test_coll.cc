// test_coll.cc: team collectives (broadcast, collect, fcollect, alltoall(s), the
// reductions, the 1.6 scans) on WORLD and on split teams, several types, argument
// checks. Built three times: as test_coll, as test_coll_split with every MPI call limited
// to SHMEMQ_TEST_SPLIT elements/bytes so the large-count paths run on small data, and as
// test_coll_hier with the hierarchical collectives forced on (with test_coll_hier.cc).
// Open MPI's C++ bindings do not compile cleanly with -Werror; the tests use the C API.
#define OMPI_SKIP_MPICXX 1
#include <gtest/gtest.h>
#include <shmem.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>
#include "test_util.h"
#include "test_coll_common.h"

extern "C" int shmemi_coll_wait_stats(uint64_t out[3]); // coll_node.c, for tests

#ifdef SHMEMQ_TEST_SPLIT
#define STR_(x) #x
#define STR(x) STR_(x)
// Before main, so before the library first reads it.
static int split_env = setenv("SHMEMQ_COLL_MAX_COUNT", STR(SHMEMQ_TEST_SPLIT), 1);
#endif
#ifdef SHMEMQ_TEST_HIER
// test_coll_hier: every team across nodes goes hierarchical, whatever the size.
static int hier_env = setenv("SHMEMQ_COLL_HIER", "1", 0);
#endif

extern "C" int coll_generic_selections(void);
extern "C" int coll_all_types_run(shmem_team_t team, void *scratch, int in_place);

namespace {

#ifdef SHMEMQ_TEST_SPLIT
// MPI calls of 3 bytes: hundreds of thousands of them for data past a shared-memory slot
// at 4 PEs off the node (minutes on 2 loaded cores). test_coll covers the large node
// path; here large and back-to-back stay small.
const size_t LARGE_N = 40, B2B_ROUNDS = 60;
#else
const size_t LARGE_N = 40000 + 3, B2B_ROUNDS = 300;
#endif

// The teams every collective runs on: WORLD, WORLD reversed, the even PEs, and the
// odd PEs in reverse (stride -2).
struct Teams {
    std::vector<shmem_team_t> all;
    std::vector<std::string> names;
    std::vector<shmem_team_t> owned;
    Teams()
    {
        int n = shmem_n_pes();
        all.push_back(SHMEM_TEAM_WORLD);
        names.push_back("world");
        shmem_team_t t;
        EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &t), 0);
        owned.push_back(t);
        all.push_back(t);
        names.push_back("reversed");
        EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &t),
                  0);
        owned.push_back(t);
        all.push_back(t); // INVALID on odd PEs: they skip it
        names.push_back("even");
        if (n > 1) {
            int last_odd = (n - 1) % 2 ? n - 1 : n - 2;
            EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, last_odd, -2, n / 2, nullptr, 0,
                                               &t),
                      0);
            owned.push_back(t);
            all.push_back(t); // INVALID on even PEs
            names.push_back("odd reversed");
        }
    }
    ~Teams()
    {
        for (auto t : owned)
            shmem_team_destroy(t);
    }
};

// Made once for the binary: a split costs a communicator (slow with 4 PEs on 2 cores).
// The environment runs inside RUN_ALL_TESTS, between shmem_init and shmem_finalize.
Teams *g_teams;
::testing::Environment *const teams_env =
    ::testing::AddGlobalTestEnvironment(new coll_test::MadeOnce<Teams>(&g_teams));

using coll_test::Sym;

template <typename T> struct Move;
#define MOVE(T, N)                                                                          \
    template <> struct Move<T> {                                                            \
        static int bcast(shmem_team_t t, T *d, const T *s, size_t n, int r)                 \
        {                                                                                   \
            return shmem_##N##_broadcast(t, d, s, n, r);                                    \
        }                                                                                   \
        static int collect(shmem_team_t t, T *d, const T *s, size_t n)                      \
        {                                                                                   \
            return shmem_##N##_collect(t, d, s, n);                                         \
        }                                                                                   \
        static int fcollect(shmem_team_t t, T *d, const T *s, size_t n)                     \
        {                                                                                   \
            return shmem_##N##_fcollect(t, d, s, n);                                        \
        }                                                                                   \
        static int alltoall(shmem_team_t t, T *d, const T *s, size_t n)                     \
        {                                                                                   \
            return shmem_##N##_alltoall(t, d, s, n);                                        \
        }                                                                                   \
        static int alltoalls(shmem_team_t t, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, \
                             size_t n)                                                      \
        {                                                                                   \
            return shmem_##N##_alltoalls(t, d, s, dst, sst, n);                             \
        }                                                                                   \
    };
MOVE(int, int)
MOVE(double, double)
MOVE(short, short)
MOVE(long double, longdouble)
MOVE(uint64_t, uint64)
MOVE(char, char)

template <typename T> class CollMove : public ::testing::Test {};
typedef ::testing::Types<int, double, short, long double, uint64_t, char> MoveTypes;
TYPED_TEST_SUITE(CollMove, MoveTypes);

// A value that says who wrote it: small enough for char.
template <typename T> T val(int pe, int k) { return (T)((pe * 13 + k * 3 + 1) % 100); }

TYPED_TEST(CollMove, Broadcast)
{
    typedef TypeParam T;
    const size_t N = 7;
    Sym s(N * sizeof(T)), d(N * sizeof(T));
    Teams &teams = *g_teams;
    for (size_t ti = 0; ti < teams.all.size(); ti++) {
        shmem_team_t t = teams.all[ti];
        if (t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(teams.names[ti]);
        int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
        int root = tn - 1; // not 0 whenever the team has 2 PEs or more
        for (size_t k = 0; k < N; k++) {
            s.as<T>()[k] = val<T>(me, (int)k);
            d.as<T>()[k] = (T)-1;
        }
        ASSERT_EQ(Move<T>::bcast(t, d.as<T>(), s.as<T>(), N, root), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(d.as<T>()[k], val<T>(root, (int)k)) << k; // the root's dest too
        // Root 0, and in place on the root (dest == source).
        for (size_t k = 0; k < N; k++)
            s.as<T>()[k] = val<T>(me + 1, (int)k);
        ASSERT_EQ(Move<T>::bcast(t, s.as<T>(), s.as<T>(), N, 0), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(s.as<T>()[k], val<T>(1, (int)k));
        // Zero elements: nothing happens, success.
        EXPECT_EQ(Move<T>::bcast(t, d.as<T>(), s.as<T>(), 0, 0), 0);
        EXPECT_EQ(shmem_team_sync(t), 0);
    }
}

TYPED_TEST(CollMove, CollectAndFcollect)
{
    typedef TypeParam T;
    int n = shmem_n_pes();
    const size_t F = 5;
    size_t maxtotal = (size_t)n * (n + 1) / 2 + F * n;
    Sym s((F + n) * sizeof(T)), d(maxtotal * sizeof(T));
    Teams &teams = *g_teams;
    for (size_t ti = 0; ti < teams.all.size(); ti++) {
        shmem_team_t t = teams.all[ti];
        if (t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(teams.names[ti]);
        int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
        // collect: team PE i contributes i elements (PE 0 none).
        for (int k = 0; k < me; k++)
            s.as<T>()[k] = val<T>(me, k);
        for (size_t k = 0; k < maxtotal; k++)
            d.as<T>()[k] = (T)-1;
        ASSERT_EQ(Move<T>::collect(t, d.as<T>(), s.as<T>(), (size_t)me), 0);
        size_t at = 0;
        for (int i = 0; i < tn; i++)
            for (int k = 0; k < i; k++, at++)
                EXPECT_EQ(d.as<T>()[at], val<T>(i, k)) << "from " << i << " elem " << k;
        EXPECT_EQ(d.as<T>()[at], (T)-1); // nothing past the end
        EXPECT_EQ(shmem_team_sync(t), 0);

        for (size_t k = 0; k < F; k++)
            s.as<T>()[k] = val<T>(me + 2, (int)k);
        ASSERT_EQ(Move<T>::fcollect(t, d.as<T>(), s.as<T>(), F), 0);
        for (int i = 0; i < tn; i++)
            for (size_t k = 0; k < F; k++)
                EXPECT_EQ(d.as<T>()[i * F + k], val<T>(i + 2, (int)k));
        EXPECT_EQ(d.as<T>()[tn * F], (T)-1);
        EXPECT_EQ(shmem_team_sync(t), 0);
    }
}

TYPED_TEST(CollMove, AlltoallAndAlltoalls)
{
    typedef TypeParam T;
    int n = shmem_n_pes();
    const size_t E = 3;
    const ptrdiff_t DST = 2, SST = 3;
    size_t words = (size_t)n * E * 3 + 4;
    Sym s(words * sizeof(T)), d(words * sizeof(T));
    Teams &teams = *g_teams;
    for (size_t ti = 0; ti < teams.all.size(); ti++) {
        shmem_team_t t = teams.all[ti];
        if (t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(teams.names[ti]);
        int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
        // Block j (to PE j) holds val(me * 7 + j, k).
        for (int j = 0; j < tn; j++)
            for (size_t k = 0; k < E; k++)
                s.as<T>()[j * E + k] = val<T>(me * 7 + j, (int)k);
        for (size_t k = 0; k < words; k++)
            d.as<T>()[k] = (T)-1;
        ASSERT_EQ(Move<T>::alltoall(t, d.as<T>(), s.as<T>(), E), 0);
        for (int i = 0; i < tn; i++)
            for (size_t k = 0; k < E; k++)
                EXPECT_EQ(d.as<T>()[i * E + k], val<T>(i * 7 + me, (int)k));
        EXPECT_EQ(d.as<T>()[tn * E], (T)-1);
        EXPECT_EQ(shmem_team_sync(t), 0);

        // Strided: element k of block j at source[(j*E + k)*SST], lands at
        // dest[(i*E + k)*DST] on PE j; the gaps stay untouched.
        for (size_t k = 0; k < words; k++) {
            s.as<T>()[k] = (T)-2;
            d.as<T>()[k] = (T)-1;
        }
        for (int j = 0; j < tn; j++)
            for (size_t k = 0; k < E; k++)
                s.as<T>()[(j * E + k) * SST] = val<T>(me * 5 + j, (int)k);
        ASSERT_EQ(Move<T>::alltoalls(t, d.as<T>(), s.as<T>(), DST, SST, E), 0);
        for (size_t w = 0; w < words; w++) {
            if (w % DST == 0 && w / DST < tn * E) {
                size_t blk = w / DST / E, k = w / DST % E;
                EXPECT_EQ(d.as<T>()[w], val<T>((int)blk * 5 + me, (int)k)) << w;
            } else {
                EXPECT_EQ(d.as<T>()[w], (T)-1) << w;
            }
        }
        EXPECT_EQ(shmem_team_sync(t), 0);
    }
}

TEST(Coll, Bytewise)
{
    int n = shmem_n_pes(), me = shmem_my_pe();
    const size_t B = 11;
    Sym s(B * n), d(B * n + 1);
    char *src = s.as<char>(), *dst = d.as<char>();
    for (size_t k = 0; k < B * n; k++)
        src[k] = (char)(me * 17 + k);
    memset(dst, 0x55, B * n + 1);
    ASSERT_EQ(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, B, n - 1), 0);
    for (size_t k = 0; k < B; k++)
        EXPECT_EQ(dst[k], (char)((n - 1) * 17 + k));
    ASSERT_EQ(shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, B), 0);
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < B; k++)
            EXPECT_EQ(dst[i * B + k], (char)(i * 17 + k));
    EXPECT_EQ(dst[B * n], 0x55);
    ASSERT_EQ(shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, B), 0);
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < B; k++)
            EXPECT_EQ(dst[i * B + k], (char)(i * 17 + k));
    shmem_barrier_all();
    ASSERT_EQ(shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, B), 0);
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < B; k++)
            EXPECT_EQ(dst[i * B + k], (char)(i * 17 + me * B + k));
    shmem_barrier_all();
    memset(dst, 0x55, B * n + 1);
    ASSERT_EQ(shmem_alltoallsmem(SHMEM_TEAM_WORLD, dst, src, 1, 2, B / 2), 0);
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < B / 2; k++)
            EXPECT_EQ(dst[i * (B / 2) + k], (char)(i * 17 + (me * (B / 2) + k) * 2));
    EXPECT_EQ(dst[n * (B / 2)], 0x55);
}

template <typename T> struct Red;
#define RED_ARITH(T, N)                                                                      \
    static int sum(shmem_team_t t, T *d, const T *s, size_t n) { return shmem_##N##_sum_reduce(t, d, s, n); } \
    static int prod(shmem_team_t t, T *d, const T *s, size_t n) { return shmem_##N##_prod_reduce(t, d, s, n); } \
    static int max(shmem_team_t t, T *d, const T *s, size_t n) { return shmem_##N##_max_reduce(t, d, s, n); } \
    static int min(shmem_team_t t, T *d, const T *s, size_t n) { return shmem_##N##_min_reduce(t, d, s, n); } \
    static int inscan(shmem_team_t t, T *d, const T *s, size_t n) { return shmem_##N##_sum_inscan(t, d, s, n); } \
    static int exscan(shmem_team_t t, T *d, const T *s, size_t n) { return shmem_##N##_sum_exscan(t, d, s, n); }
template <> struct Red<int> { RED_ARITH(int, int) };
template <> struct Red<long> { RED_ARITH(long, long) };
template <> struct Red<double> { RED_ARITH(double, double) };
template <> struct Red<float> { RED_ARITH(float, float) };
template <> struct Red<unsigned> { RED_ARITH(unsigned, uint) };
template <> struct Red<int16_t> { RED_ARITH(int16_t, int16) };
template <> struct Red<long double> { RED_ARITH(long double, longdouble) };

template <typename T> class CollReduce : public ::testing::Test {};
typedef ::testing::Types<int, long, double, float, unsigned, int16_t, long double> ReduceTypes;
TYPED_TEST_SUITE(CollReduce, ReduceTypes);

TYPED_TEST(CollReduce, ArithMinMaxScan)
{
    typedef TypeParam T;
    const size_t N = 6;
    Sym s(N * sizeof(T)), d(N * sizeof(T));
    Teams &teams = *g_teams;
    for (size_t ti = 0; ti < teams.all.size(); ti++) {
        shmem_team_t t = teams.all[ti];
        if (t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(teams.names[ti]);
        int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
        T *src = s.as<T>(), *dst = d.as<T>();
        // element k on team PE i: i + 1 + k
        for (size_t k = 0; k < N; k++)
            src[k] = (T)(me + 1 + k);
        ASSERT_EQ(Red<T>::sum(t, dst, src, N), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(dst[k], (T)(tn * (tn + 1) / 2 + tn * k));
        ASSERT_EQ(Red<T>::max(t, dst, src, N), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(dst[k], (T)(tn + k));
        ASSERT_EQ(Red<T>::min(t, dst, src, N), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(dst[k], (T)(1 + k));
        ASSERT_EQ(Red<T>::prod(t, dst, src, N), 0);
        for (size_t k = 0; k < N; k++) {
            long long p = 1;
            for (int i = 0; i < tn; i++)
                p *= i + 1 + (long long)k;
            EXPECT_EQ(dst[k], (T)p);
        }
        // Scans: prefix sums in team order.
        ASSERT_EQ(Red<T>::inscan(t, dst, src, N), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(dst[k], (T)((me + 1) * (me + 2) / 2 + (me + 1) * k));
        ASSERT_EQ(Red<T>::exscan(t, dst, src, N), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(dst[k], (T)(me * (me + 1) / 2 + me * k)); // zeros on team PE 0
        // In place.
        ASSERT_EQ(Red<T>::sum(t, src, src, N), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(src[k], (T)(tn * (tn + 1) / 2 + tn * k));
        for (size_t k = 0; k < N; k++)
            src[k] = (T)(me + 1 + k);
        ASSERT_EQ(Red<T>::inscan(t, src, src, N), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(src[k], (T)((me + 1) * (me + 2) / 2 + (me + 1) * k));
        EXPECT_EQ(shmem_team_sync(t), 0);
    }
}

TEST(Coll, Bitwise)
{
    const size_t N = 5;
    Sym s(N * sizeof(uint64_t)), d(N * sizeof(uint64_t));
    Teams &teams = *g_teams;
    for (size_t ti = 0; ti < teams.all.size(); ti++) {
        shmem_team_t t = teams.all[ti];
        if (t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(teams.names[ti]);
        int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
        uint64_t all = (1ull << tn) - 1;
        uint64_t *src = s.as<uint64_t>(), *dst = d.as<uint64_t>();
        for (size_t k = 0; k < N; k++)
            src[k] = (1ull << me) | (0xF0ull << k);
        ASSERT_EQ(shmem_uint64_or_reduce(t, dst, src, N), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(dst[k], all | (0xF0ull << k));
        ASSERT_EQ(shmem_uint64_and_reduce(t, dst, src, N), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(dst[k], (tn == 1 ? 1ull : 0ull) | (0xF0ull << k));
        ASSERT_EQ(shmem_uint64_xor_reduce(t, dst, src, N), 0);
        for (size_t k = 0; k < N; k++)
            EXPECT_EQ(dst[k], all | (tn % 2 ? (0xF0ull << k) : 0));
        // Narrow types, in place.
        unsigned char *b = s.as<unsigned char>();
        b[0] = (unsigned char)(1u << (me % 8));
        b[1] = 0xFF;
        ASSERT_EQ(shmem_uchar_or_reduce(t, b, b, 2), 0);
        EXPECT_EQ(b[0], (unsigned char)((1u << (tn < 8 ? tn : 8)) - 1));
        EXPECT_EQ(b[1], 0xFF);
        int32_t *w = s.as<int32_t>();
        w[0] = me + 1;
        ASSERT_EQ(shmem_int32_xor_reduce(t, w, w, 1), 0);
        int32_t x = 0;
        for (int i = 0; i < tn; i++)
            x ^= i + 1;
        EXPECT_EQ(w[0], x);
        EXPECT_EQ(shmem_team_sync(t), 0);
    }
}

TEST(Coll, Complex)
{
    Sym s(4 * sizeof(double _Complex)), d(4 * sizeof(double _Complex));
    Teams &teams = *g_teams;
    for (size_t ti = 0; ti < teams.all.size(); ti++) {
        shmem_team_t t = teams.all[ti];
        if (t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(teams.names[ti]);
        int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
        double _Complex *src = s.as<double _Complex>(), *dst = d.as<double _Complex>();
        // C++ has no I: GNU __real__/__imag__ set the parts.
        __real__ src[0] = me;
        __imag__ src[0] = 2.0 * me;
        __real__ src[1] = 1.0;
        __imag__ src[1] = 1.0;
        ASSERT_EQ(shmem_complexd_sum_reduce(t, dst, src, 2), 0);
        double tri = tn * (tn - 1) / 2.0;
        EXPECT_EQ(__real__ dst[0], tri);
        EXPECT_EQ(__imag__ dst[0], 2 * tri);
        EXPECT_EQ(__real__ dst[1], tn);
        EXPECT_EQ(__imag__ dst[1], tn);
        // (1+i)^tn
        ASSERT_EQ(shmem_complexd_prod_reduce(t, dst, src + 1, 1), 0);
        double pr = 1, pi = 0;
        for (int i = 0; i < tn; i++) {
            double r = pr - pi, im = pr + pi;
            pr = r;
            pi = im;
        }
        EXPECT_EQ(__real__ dst[0], pr);
        EXPECT_EQ(__imag__ dst[0], pi);
        float _Complex *fs = s.as<float _Complex>(), *fd = d.as<float _Complex>();
        __real__ fs[0] = 1.0f;
        __imag__ fs[0] = -3.0f;
        ASSERT_EQ(shmem_complexf_sum_reduce(t, fd, fs, 1), 0);
        EXPECT_EQ(__real__ fd[0], (float)tn);
        EXPECT_EQ(__imag__ fd[0], -3.0f * tn);
        ASSERT_EQ(shmem_complexf_sum_inscan(t, fd, fs, 1), 0);
        EXPECT_EQ(__real__ fd[0], (float)(me + 1));
        EXPECT_EQ(__imag__ fd[0], -3.0f * (me + 1));
        EXPECT_EQ(shmem_team_sync(t), 0);
    }
}

TEST(Coll, InvalidArguments)
{
    int n = shmem_n_pes();
    Sym s(16 * sizeof(int) * n), d(16 * sizeof(int) * n);
    int *src = s.as<int>(), *dst = d.as<int>();
    int local_src[4] = {1, 2, 3, 4}, local_dst[4] = {7, 7, 7, 7};
    for (int k = 0; k < 16 * n; k++) {
        src[k] = 5;
        dst[k] = -1;
    }
    EXPECT_NE(shmem_int_broadcast(SHMEM_TEAM_INVALID, dst, src, 4, 0), 0);
    EXPECT_NE(shmem_int_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, n), 0);  // root out of range
    EXPECT_NE(shmem_int_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, -1), 0);
    EXPECT_NE(shmem_int_broadcast(SHMEM_TEAM_WORLD, nullptr, nullptr, 4, 0), 0);
    EXPECT_NE(shmem_int_fcollect(SHMEM_TEAM_WORLD, local_dst, src, 1), 0); // not symmetric
    EXPECT_NE(shmem_int_collect(SHMEM_TEAM_WORLD, dst, local_src, 1), 0);
    EXPECT_NE(shmem_int_collect(SHMEM_TEAM_WORLD, local_dst, src, 1), 0);
    EXPECT_NE(shmem_int_alltoall(SHMEM_TEAM_WORLD, dst, local_src, 1), 0);
    EXPECT_NE(shmem_int_alltoalls(SHMEM_TEAM_WORLD, dst, src, 0, 1, 1), 0); // zero stride
    EXPECT_NE(shmem_int_alltoall(SHMEM_TEAM_WORLD, dst, dst, 2), 0);        // aliased
    EXPECT_NE(shmem_int_alltoalls(SHMEM_TEAM_WORLD, dst, src, 1, PTRDIFF_MAX / 2, 3), 0); // overflow
    if (n > 1) { // one element per block, but the block pitch overflows
        EXPECT_NE(shmem_int_alltoalls(SHMEM_TEAM_WORLD, dst, src, PTRDIFF_MAX, PTRDIFF_MAX, 1), 0);
    }
    EXPECT_NE(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, local_dst, src, 4), 0);
    EXPECT_NE(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, dst + 1, 4), 0); // partial overlap
    EXPECT_NE(shmem_int_sum_reduce(SHMEM_TEAM_INVALID, dst, src, 4), 0);
    EXPECT_NE(shmem_int_sum_inscan(SHMEM_TEAM_WORLD, dst, local_src, 4), 0);
    EXPECT_NE(shmem_broadcastmem(SHMEM_TEAM_WORLD, nullptr, src, 4, 0), 0);
    // Nothing was written.
    for (int k = 0; k < 16 * n; k++)
        ASSERT_EQ(dst[k], -1) << k;
    for (int k = 0; k < 4; k++)
        EXPECT_EQ(local_dst[k], 7);
    // One PE, one element: the strides play no part (they used to overflow in MPI types).
    if (n == 1) {
        EXPECT_EQ(shmem_int_alltoalls(SHMEM_TEAM_WORLD, dst, src, PTRDIFF_MAX, PTRDIFF_MAX, 1), 0);
        EXPECT_EQ(dst[0], 5);
        EXPECT_EQ(dst[1], -1);
    }
    // NULL is fine with a count of zero.
    EXPECT_EQ(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, nullptr, nullptr, 0), 0);
    EXPECT_EQ(shmem_int_fcollect(SHMEM_TEAM_WORLD, nullptr, nullptr, 0), 0);
    EXPECT_EQ(shmem_int_collect(SHMEM_TEAM_WORLD, nullptr, nullptr, 0), 0);
}

TEST(Coll, StaticDataTargets)
{
    static long sdata[8], sres[8];
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int k = 0; k < 8; k++)
        sdata[k] = me * k;
    ASSERT_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sres, sdata, 8), 0);
    for (int k = 0; k < 8; k++)
        EXPECT_EQ(sres[k], (long)k * n * (n - 1) / 2);
}

// Every reduction routine and scan of every type family, on every team, apart and in
// place (through the node's shared memory on one node, MPI across nodes).
TEST(Coll, EveryTypeAndOp)
{
    Sym scratch(2 * 2 * 16);
    Teams &teams = *g_teams;
    for (size_t ti = 0; ti < teams.all.size(); ti++) {
        shmem_team_t t = teams.all[ti];
        if (t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(teams.names[ti]);
        EXPECT_EQ(coll_all_types_run(t, scratch.p, 0), 0);
        EXPECT_EQ(coll_all_types_run(t, scratch.p, 1), 0);
    }
}

// Data past what one shared-memory slot holds (the node path copies it straight from
// the peers' symmetric buffers), on every team, with odd sizes.
TEST(Coll, Large)
{
    const size_t N = LARGE_N; // int64 elements per PE: ~320 KB (past one slot)
    int n = shmem_n_pes();
    Sym s(N * n * sizeof(int64_t)), d(N * n * sizeof(int64_t) + 8);
    Teams &teams = *g_teams;
    for (size_t ti = 0; ti < teams.all.size(); ti++) {
        shmem_team_t t = teams.all[ti];
        if (t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(teams.names[ti]);
        int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
        int64_t *src = s.as<int64_t>(), *dst = d.as<int64_t>();
        auto v = [](int pe, size_t k) { return (int64_t)pe * 1000003 + (int64_t)k; };
        for (size_t k = 0; k < N * tn; k++)
            src[k] = v(me, k);
        dst[N * tn] = -7;
        ASSERT_EQ(shmem_int64_broadcast(t, dst, src, N, tn - 1), 0);
        size_t wrong = 0;
        for (size_t k = 0; k < N; k++)
            wrong += dst[k] != v(tn - 1, k);
        EXPECT_EQ(wrong, 0u) << "broadcast";
        ASSERT_EQ(shmem_int64_fcollect(t, dst, src, N), 0);
        for (int i = 0; i < tn; i++)
            for (size_t k = 0; k < N; k++)
                wrong += dst[i * N + k] != v(i, k);
        EXPECT_EQ(wrong, 0u) << "fcollect";
        // collect: PE i gives N - i elements
        ASSERT_EQ(shmem_int64_collect(t, dst, src, N - me), 0);
        size_t at = 0;
        for (int i = 0; i < tn; i++)
            for (size_t k = 0; k < N - i; k++)
                wrong += dst[at++] != v(i, k);
        EXPECT_EQ(wrong, 0u) << "collect";
        EXPECT_EQ(dst[N * tn], -7);
        ASSERT_EQ(shmem_int64_alltoall(t, dst, src, N), 0);
        for (int i = 0; i < tn; i++)
            for (size_t k = 0; k < N; k++)
                wrong += dst[i * N + k] != v(i, me * N + k);
        EXPECT_EQ(wrong, 0u) << "alltoall";
        ASSERT_EQ(shmem_int64_sum_reduce(t, dst, src, N), 0);
        int64_t pes = (int64_t)tn * (tn - 1) / 2;
        for (size_t k = 0; k < N; k++)
            wrong += dst[k] != pes * 1000003 + (int64_t)tn * (int64_t)k;
        EXPECT_EQ(wrong, 0u) << "sum_reduce";
        ASSERT_EQ(shmem_int64_max_reduce(t, src, src, N), 0); // in place
        for (size_t k = 0; k < N; k++)
            wrong += src[k] != v(tn - 1, k);
        EXPECT_EQ(wrong, 0u) << "max_reduce in place";
        for (size_t k = 0; k < N; k++)
            src[k] = v(me, k);
        ASSERT_EQ(shmem_int64_sum_inscan(t, dst, src, N), 0);
        int64_t upto = (int64_t)me * (me + 1) / 2;
        for (size_t k = 0; k < N; k++)
            wrong += dst[k] != upto * 1000003 + (int64_t)(me + 1) * (int64_t)k;
        EXPECT_EQ(wrong, 0u) << "sum_inscan";
        EXPECT_EQ(shmem_team_sync(t), 0);
    }
}

// Collectives back to back with no barrier between: results change every round, so a
// PE that reused a buffer or flag too early would read a stale or future value.
TEST(Coll, BackToBack)
{
    int n = shmem_n_pes();
    const size_t BIG = LARGE_N; // past one shared-memory slot
    Sym s(BIG * n * sizeof(long)), d(BIG * n * sizeof(long));
    Teams &teams = *g_teams;
    for (size_t ti = 0; ti < teams.all.size(); ti++) {
        shmem_team_t t = teams.all[ti];
        if (t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(teams.names[ti]);
        int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
        long *src = s.as<long>(), *dst = d.as<long>();
        int wrong = 0;
        for (int r = 0; r < (int)B2B_ROUNDS && wrong == 0; r++) {
            size_t cnt = r % 5 == 4 ? BIG : 1 + r % 3;
            for (size_t k = 0; k < cnt * tn; k++)
                src[k] = (long)(me * 100000 + r * 10 + (long)k);
            switch (r % 4) {
            case 0:
                ASSERT_EQ(shmem_long_sum_reduce(t, dst, src, cnt), 0);
                for (size_t k = 0; k < cnt; k++)
                    wrong += dst[k] != (long)tn * (tn - 1) / 2 * 100000 +
                                           (long)tn * (r * 10 + (long)k);
                break;
            case 1:
                ASSERT_EQ(shmem_long_broadcast(t, dst, src, cnt, r % tn), 0);
                for (size_t k = 0; k < cnt; k++)
                    wrong += dst[k] != (long)((r % tn) * 100000 + r * 10 + (long)k);
                break;
            case 2:
                ASSERT_EQ(shmem_long_fcollect(t, dst, src, cnt), 0);
                for (int i = 0; i < tn; i++)
                    for (size_t k = 0; k < cnt; k++)
                        wrong += dst[i * cnt + k] != (long)(i * 100000 + r * 10 + (long)k);
                break;
            case 3:
                ASSERT_EQ(shmem_long_alltoall(t, dst, src, cnt), 0);
                for (int i = 0; i < tn; i++)
                    for (size_t k = 0; k < cnt; k++)
                        wrong += dst[i * cnt + k] !=
                                 (long)(i * 100000 + r * 10 + (long)(me * cnt + k));
                break;
            }
            EXPECT_EQ(wrong, 0) << "round " << r;
        }
        for (int r = 0; r < 200; r++) // barriers alone, back to back
            ASSERT_EQ(shmem_team_sync(t), 0);
    }
}

// One PE arrives a second late: the others wait (progressing) and get the right values.
TEST(Coll, LatePE)
{
    int n = shmem_n_pes(), me = shmem_my_pe();
    Sym s(4 * sizeof(long)), d(4 * sizeof(long));
    long *src = s.as<long>(), *dst = d.as<long>();
    src[0] = me + 1;
    if (me == n - 1)
        usleep(1000 * 1000);
    ASSERT_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1), 0);
    EXPECT_EQ(dst[0], (long)n * (n + 1) / 2);
    if (me == 0)
        usleep(500 * 1000);
    ASSERT_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, 0), 0);
    EXPECT_EQ(dst[0], 1);
    if (me == n - 1)
        usleep(500 * 1000);
    shmem_barrier_all();
}

// A PE arriving late in a team on one node: its peers nap on a futex after a long wait
// (SHMEMQ_COLL_WAIT, coll_node.c), and its post must wake them, not leave them to the
// nap's timeout. Every round checks the sum; where this process's waits may nap, every
// PE but the late one must have been woken by a post at least once in the rounds (a
// waiter between two naps when the post lands sees it without a wake: a few percent of
// rounds, never all of them).
TEST(Coll, LateArrivalWakesNappers)
{
    shmem_team_t t = SHMEM_TEAM_SHARED;
    int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
    Sym s(sizeof(long)), d(sizeof(long));
    long *src = s.as<long>(), *dst = d.as<long>();
    uint64_t before[3], after[3];
    ASSERT_EQ(shmemi_coll_wait_stats(before), 0);
    const int ROUNDS = 8;
    std::string took; // each round's call, in ms: what the waits were if none napped
    for (int r = 0; r < ROUNDS; r++) {
        src[0] = me + r;
        if (me == tn - 1)
            usleep(100 * 1000);
        double t0 = MPI_Wtime();
        ASSERT_EQ(shmem_long_sum_reduce(t, dst, src, 1), 0);
        took += " " + std::to_string((int)((MPI_Wtime() - t0) * 1e3));
        EXPECT_EQ(dst[0], (long)tn * (tn - 1) / 2 + (long)tn * r) << "round " << r;
    }
    ASSERT_EQ(shmemi_coll_wait_stats(after), 0);
    if (after[2] && tn > 1 && me != tn - 1) {
        EXPECT_GT(after[0], before[0]) << "no nap in " << ROUNDS << " waits (ms:" << took << ")";
        EXPECT_GT(after[1], before[1]) << "naps: " << after[0] - before[0]
                                       << ", none ended by the late PE's wake (ms:" << took << ")";
    }
    shmem_team_sync(t);
}

TEST(Coll, GenericSelections)
{
    EXPECT_EQ(coll_generic_selections(), 0);
}

} // namespace
