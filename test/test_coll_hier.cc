// test_coll_hier.cc: the hierarchical collectives across nodes (coll_hier.c), linked into
// test_coll_hier together with test_coll.cc, whose cases all run there with
// SHMEMQ_COLL_HIER=1 (set before main). These cases make their own teams under each value
// of the setting (it is read at a team's first collective): forced on, forced off and
// auto, on WORLD copies, stride 2 across nodes, and uneven splits (a node with one team
// PE beside a node with two): barrier/sync, broadcast, collect, fcollect and every
// reduction, the forms coll_hier.c has. Exact values; back to back with no barriers; a
// late PE; one PE's bad argument refused on every PE. Under run-mpi.sh the hierarchical path runs
// with every PE its own node (SHMEMQ_NODE_PES=1, groups of one) and as two nodes of two.
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

extern "C" int coll_all_types_run(shmem_team_t team, void *scratch, int in_place);

namespace {

struct HierTeam {
    shmem_team_t t;
    std::string name;
};

// A team split from WORLD (start, stride, size) under SHMEMQ_COLL_HIER=mode; the split
// and the first collective run under that value on every PE, members or not.
shmem_team_t make_team(const char *mode, int start, int stride, int size)
{
    shmem_team_t t = SHMEM_TEAM_INVALID;
    const char *was = getenv("SHMEMQ_COLL_HIER");
    std::string keep = was ? was : "";
    setenv("SHMEMQ_COLL_HIER", mode, 1);
    EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &t), 0);
    if (t != SHMEM_TEAM_INVALID) {
        EXPECT_EQ(shmem_team_sync(t), 0); // first collective: the setting is read here
    }
    if (was)
        setenv("SHMEMQ_COLL_HIER", keep.c_str(), 1);
    else
        unsetenv("SHMEMQ_COLL_HIER");
    return t;
}

struct Teams {
    std::vector<HierTeam> all; // INVALID entries on non-members
    Teams()
    {
        int n = shmem_n_pes();
        static const char *const modes[] = {"1", "0", "auto"};
        for (const char *m : modes) {
            std::string tag = std::string(" HIER=") + m;
            all.push_back({make_team(m, 0, 1, n), "world copy" + tag});
            if (n > 2) // PEs 1..n-1: with nodes of two, a node of one beside full ones
                all.push_back({make_team(m, 1, 1, n - 1), "odd split" + tag});
            if (n > 1) // even PEs: one per node of two, stride 2 across nodes
                all.push_back({make_team(m, 0, 2, (n + 1) / 2), "stride 2" + tag});
            if (n > 2) // reversed, starting one in: team order against node order
                all.push_back({make_team(m, n - 1, -1, n - 1), "reversed n-1" + tag});
        }
    }
    ~Teams()
    {
        for (auto &h : all)
            if (h.t != SHMEM_TEAM_INVALID)
                shmem_team_destroy(h.t);
    }
};

Teams *g_teams;
::testing::Environment *const hier_env =
    ::testing::AddGlobalTestEnvironment(new coll_test::MadeOnce<Teams>(&g_teams));

using coll_test::Sym;

// Every reduction of every type and op, apart and in place, exact values.
TEST(CollHier, EveryTypeAndOp)
{
    Sym scratch(2 * 2 * 16);
    for (auto &h : g_teams->all) {
        if (h.t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(h.name);
        EXPECT_EQ(coll_all_types_run(h.t, scratch.p, 0), 0);
        EXPECT_EQ(coll_all_types_run(h.t, scratch.p, 1), 0);
    }
}

// Broadcast from every root, fcollect, collect and a sum at sizes that ride on the
// leaders' agreement (8 B), fit a slot (4 KiB) and pass it (~160 KiB, copied between
// mapped heaps), with nothing written past the end.
TEST(CollHier, SizesAndRoots)
{
    int n = shmem_n_pes();
    const size_t sizes[] = {1, 512, 20000 + 1}; // int64 elements
    const size_t MAXN = 20001;
    Sym s(MAXN * sizeof(int64_t)), d((MAXN * n + 1) * sizeof(int64_t));
    int64_t *src = s.as<int64_t>(), *dst = d.as<int64_t>();
    auto v = [](int pe, size_t k) { return (int64_t)pe * 1000003 + (int64_t)k * 7 + 1; };
    for (auto &h : g_teams->all) {
        if (h.t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(h.name);
        int me = shmem_team_my_pe(h.t), tn = shmem_team_n_pes(h.t);
        for (size_t N : sizes) {
            SCOPED_TRACE(N);
            size_t wrong = 0;
            for (size_t k = 0; k < N; k++)
                src[k] = v(me, k);
            for (int root = 0; root < tn; root++) {
                dst[N] = -7;
                ASSERT_EQ(shmem_int64_broadcast(h.t, dst, src, N, root), 0);
                for (size_t k = 0; k < N; k++)
                    wrong += dst[k] != v(root, k);
                wrong += dst[N] != -7;
            }
            EXPECT_EQ(wrong, 0u) << "broadcast";
            dst[N * tn] = -7;
            ASSERT_EQ(shmem_int64_fcollect(h.t, dst, src, N), 0);
            for (int i = 0; i < tn; i++)
                for (size_t k = 0; k < N; k++)
                    wrong += dst[i * N + k] != v(i, k);
            wrong += dst[N * tn] != -7;
            EXPECT_EQ(wrong, 0u) << "fcollect";
            ASSERT_EQ(shmem_int64_collect(h.t, dst, src, N - (size_t)me % 2), 0);
            size_t at = 0;
            for (int i = 0; i < tn; i++)
                for (size_t k = 0; k < N - (size_t)i % 2; k++)
                    wrong += dst[at++] != v(i, k);
            EXPECT_EQ(wrong, 0u) << "collect";
            ASSERT_EQ(shmem_int64_sum_reduce(h.t, dst, src, N), 0);
            int64_t pes = (int64_t)tn * (tn - 1) / 2;
            for (size_t k = 0; k < N; k++)
                wrong += dst[k] != pes * 1000003 + (int64_t)tn * ((int64_t)k * 7 + 1);
            EXPECT_EQ(wrong, 0u) << "sum_reduce";
            ASSERT_EQ(shmem_int64_max_reduce(h.t, src, src, N), 0); // in place
            for (size_t k = 0; k < N; k++)
                wrong += src[k] != v(tn - 1, k);
            EXPECT_EQ(wrong, 0u) << "max_reduce in place";
        }
        EXPECT_EQ(shmem_team_sync(h.t), 0);
    }
}

// Round r of kind (0 sum reduce, 1 broadcast from r % tn, 2 fcollect, 3 sync) of cnt longs
// on team t: sets this PE's src for the round, runs it, and returns how many values of
// dst are wrong (-1 when the call itself failed).
long round_of(shmem_team_t t, int kind, int r, size_t cnt, long *src, long *dst)
{
    int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
    long wrong = 0;
    for (size_t k = 0; k < cnt; k++)
        src[k] = (long)(me * 100000 + r * 10 + (long)k);
    switch (kind) {
    case 0:
        if (shmem_long_sum_reduce(t, dst, src, cnt) != 0)
            return -1;
        for (size_t k = 0; k < cnt; k++)
            wrong += dst[k] != (long)tn * (tn - 1) / 2 * 100000 + (long)tn * (r * 10 + (long)k);
        break;
    case 1:
        if (shmem_long_broadcast(t, dst, src, cnt, r % tn) != 0)
            return -1;
        for (size_t k = 0; k < cnt; k++)
            wrong += dst[k] != (long)((r % tn) * 100000 + r * 10 + (long)k);
        break;
    case 2:
        if (shmem_long_fcollect(t, dst, src, cnt) != 0)
            return -1;
        for (int i = 0; i < tn; i++)
            for (size_t k = 0; k < cnt; k++)
                wrong += dst[i * cnt + k] != (long)(i * 100000 + r * 10 + (long)k);
        break;
    default:
        return shmem_team_sync(t) != 0 ? -1 : 0;
    }
    return wrong;
}

// No barrier between collectives, on every team in turn with WORLD ones between: slots,
// flags and the leaders' buffers are reused at once, and results change every round.
TEST(CollHier, BackToBack)
{
    int n = shmem_n_pes();
    const size_t BIG = 3000; // 24 KB of long: past one slot
    Sym s(BIG * n * sizeof(long)), d(BIG * n * sizeof(long));
    long *src = s.as<long>(), *dst = d.as<long>();
    for (auto &h : g_teams->all) {
        if (h.t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(h.name);
        for (int r = 0; r < 120; r++) {
            size_t cnt = r % 7 == 6 ? BIG : 1 + r % 3;
            EXPECT_EQ(round_of(h.t, r % 4, r, cnt, src, dst), 0) << "round " << r; // all go on
        }
    }
    shmem_barrier_all();
}

// Under auto, after warm-up calls, calls of each kind and size class alternate
// hierarchical and flat data paths and the PEs then agree on one (coll_hier.c, the
// measured choice): many calls of two sizes per kind (and syncs), interleaved, exact on
// every call before, at and after the decision, on every auto team (world copy, odd
// split, stride 2, reversed).
TEST(CollHier, MeasuredChoiceKeepsValuesExact)
{
    int n = shmem_n_pes();
    const size_t SIZES[2] = {8, 4096}; // longs: 64 B and 32 KiB (past one slot)
    Sym s(SIZES[1] * n * sizeof(long)), d(SIZES[1] * n * sizeof(long));
    long *src = s.as<long>(), *dst = d.as<long>();
    for (auto &h : g_teams->all) {
        if (h.t == SHMEM_TEAM_INVALID || h.name.find("auto") == std::string::npos)
            continue;
        SCOPED_TRACE(h.name);
        // 30 calls per kind and size: 8 warm-up and 16 trials, then the chosen path
        for (int r = 0; r < 4 * 2 * 30; r++)
            EXPECT_EQ(round_of(h.t, r % 4, r, SIZES[(r / 4) % 2], src, dst), 0) << "call " << r;
    }
    shmem_barrier_all();
}

// One PE half a second late, a leader or not (first the last team PE, then team PE 0):
// the others wait, progressing, and get the right values.
TEST(CollHier, LatePE)
{
    Sym s(4 * sizeof(long)), d(4 * sizeof(long));
    long *src = s.as<long>(), *dst = d.as<long>();
    for (auto &h : g_teams->all) {
        if (h.t == SHMEM_TEAM_INVALID || h.name.find("world copy") == std::string::npos)
            continue;
        SCOPED_TRACE(h.name);
        int me = shmem_team_my_pe(h.t), tn = shmem_team_n_pes(h.t);
        src[0] = me + 1;
        if (me == tn - 1)
            usleep(500 * 1000);
        ASSERT_EQ(shmem_long_sum_reduce(h.t, dst, src, 1), 0);
        EXPECT_EQ(dst[0], (long)tn * (tn + 1) / 2);
        if (me == 0)
            usleep(500 * 1000);
        ASSERT_EQ(shmem_long_broadcast(h.t, dst, src, 1, tn - 1), 0);
        EXPECT_EQ(dst[0], tn);
        if (me == tn - 1)
            usleep(500 * 1000);
        ASSERT_EQ(shmem_long_fcollect(h.t, dst, src, 1), 0);
        for (int i = 0; i < tn && i < 4; i++)
            EXPECT_EQ(dst[i], i + 1);
        if (me == 0)
            usleep(500 * 1000);
        ASSERT_EQ(shmem_team_sync(h.t), 0);
    }
}

// One PE (the last, then the first) rejects its arguments or passes another size: every
// PE of the team returns an error and nothing is written anywhere.
TEST(CollHier, OnePeRefused)
{
    Sym s(8 * sizeof(int)), d(8 * 4 * 16 * sizeof(int));
    int *src = s.as<int>(), *dst = d.as<int>();
    int local_dst[8];
    for (auto &h : g_teams->all) {
        if (h.t == SHMEM_TEAM_INVALID)
            continue;
        SCOPED_TRACE(h.name);
        int me = shmem_team_my_pe(h.t), tn = shmem_team_n_pes(h.t);
        if (tn < 2)
            continue;
        for (int odd : {tn - 1, 0}) {
            int mine = me == odd;
            for (int k = 0; k < 8; k++)
                src[k] = k;
            for (int k = 0; k < 8 * 4 * 16; k++)
                dst[k] = -1;
            EXPECT_NE(shmem_int_broadcast(h.t, dst, src, 4, mine ? tn : 0), 0); // bad root
            EXPECT_NE(shmem_int_broadcast(h.t, dst, src, mine ? 3 : 4, 0), 0); // sizes differ
            EXPECT_NE(shmem_int_sum_reduce(h.t, mine ? local_dst : dst, src, 4), 0);
            EXPECT_NE(shmem_int_fcollect(h.t, dst, src, mine ? 2 : 1), 0);
            EXPECT_NE(shmem_int_max_reduce(h.t, dst, src, mine ? 5 : 4), 0);
            for (int k = 0; k < 8 * 4 * 16; k++)
                ASSERT_EQ(dst[k], -1) << k;
            // and the team still works after
            ASSERT_EQ(shmem_int_sum_reduce(h.t, dst, src, 4), 0);
            for (int k = 0; k < 4; k++)
                EXPECT_EQ(dst[k], k * tn);
        }
    }
}

} // namespace
