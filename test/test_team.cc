// test_team.cc: teams (split_strided, split_2d, translate_pe, get_config, sync,
// destroy) and shmemx_team_get_mpi_comm.
// Open MPI's C++ bindings do not compile cleanly with -Werror; the tests use the C API.
#define OMPI_SKIP_MPICXX 1
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <vector>
#include "test_util.h"

// World PEs of the triplet, or empty if it is not valid over n PEs.
static std::vector<int> members(int start, int stride, int size)
{
    std::vector<int> m;
    for (int i = 0; i < size; i++)
        m.push_back(start + stride * i);
    return m;
}

// Split WORLD by the triplet and check everything the team reports.
static void check_split(int start, int stride, int size)
{
    SCOPED_TRACE(testing::Message() << "start " << start << " stride " << stride << " size "
                                    << size);
    int me = shmem_my_pe();
    std::vector<int> m = members(start, stride, size);
    int idx = -1;
    for (int i = 0; i < size; i++)
        if (m[i] == me)
            idx = i;
    shmem_team_t t = (shmem_team_t)0x1; // must be overwritten
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &t), 0);
    if (idx < 0) {
        EXPECT_EQ(t, SHMEM_TEAM_INVALID);
        EXPECT_EQ(shmem_team_my_pe(t), -1);
        EXPECT_EQ(shmem_team_n_pes(t), -1);
        EXPECT_NE(shmem_team_sync(t), 0);
        shmem_team_destroy(t); // harmless
        return;
    }
    ASSERT_NE(t, SHMEM_TEAM_INVALID);
    EXPECT_EQ(shmem_team_my_pe(t), idx);
    EXPECT_EQ(shmem_team_n_pes(t), size);
    for (int i = 0; i < size; i++) {
        EXPECT_EQ(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD), m[i]);
        EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, m[i], t), i);
    }
    EXPECT_EQ(shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD), -1);
    EXPECT_EQ(shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD), -1);
    for (int w = 0; w < shmem_n_pes(); w++) {
        bool in = false;
        for (int x : m)
            in |= x == w;
        if (!in) {
            EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, t), -1);
        }
    }
    EXPECT_EQ(shmem_team_sync(t), 0);
    shmem_team_config_t cfg = {-5};
    EXPECT_EQ(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    EXPECT_EQ(cfg.num_contexts, 0);
    shmem_team_destroy(t);
}

TEST(Team, WorldAndShared)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    EXPECT_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    EXPECT_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n);
    EXPECT_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    EXPECT_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
    int sm = shmem_team_my_pe(SHMEM_TEAM_SHARED), sn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    EXPECT_GE(sn, 1);
    EXPECT_LE(sn, n);
    ASSERT_GE(sm, 0);
    EXPECT_LT(sm, sn);
    EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, sm, SHMEM_TEAM_WORLD), me);
    EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, SHMEM_TEAM_SHARED), sm);
    for (int i = 0; i < n; i++)
        EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, i, SHMEM_TEAM_WORLD), i);
    EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, n, SHMEM_TEAM_WORLD), -1);
    EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
    EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID), -1);
    EXPECT_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);
    EXPECT_EQ(shmem_team_sync(SHMEM_TEAM_SHARED), 0);
    shmem_team_config_t cfg = {-1};
    EXPECT_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    EXPECT_GE(cfg.num_contexts, 0);
    EXPECT_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, nullptr), 0);
    EXPECT_NE(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, nullptr), 0);
    EXPECT_NE(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
}

TEST(Team, SplitStrided)
{
    int n = shmem_n_pes();
    check_split(0, 1, n);                  // a copy of WORLD
    check_split(0, 2, (n + 1) / 2);        // even PEs: {0, 2} over 4
    if (n >= 2)
        check_split(1, 2, n / 2);          // odd PEs
    check_split(n - 1, -1, n);             // WORLD reversed (negative stride)
    check_split(n - 1, 1, 1);              // the last PE alone
    check_split(0, 0, 1);                  // stride 0 is fine for one PE
    if (n >= 4)
        check_split(3, -2, 2);             // {3, 1}
    if (n >= 3)
        check_split(1, 1, n - 1);          // all but PE 0
}

// Each PE passes its own triplet (me, 1, 1): every PE gets a team of itself alone, and a
// collective on it moves only its own data.
TEST(Team, SplitEachPeItsOwnTriplet)
{
    int me = shmem_my_pe();
    shmem_team_t t = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, me, 1, 1, nullptr, 0, &t), 0);
    ASSERT_NE(t, SHMEM_TEAM_INVALID);
    EXPECT_EQ(shmem_team_n_pes(t), 1);
    EXPECT_EQ(shmem_team_my_pe(t), 0);
    EXPECT_EQ(shmem_team_translate_pe(t, 0, SHMEM_TEAM_WORLD), me);
    int *buf = static_cast<int *>(shmem_malloc(2 * sizeof(int)));
    buf[0] = -1;
    buf[1] = me;
    EXPECT_EQ(shmem_int_alltoall(t, buf, buf + 1, 1), 0);
    EXPECT_EQ(buf[0], me);
    shmem_team_destroy(t);
    shmem_barrier_all();
    shmem_free(buf);
}

// PEs that name one team with different triplets all get an error and no team, and a
// good split right after works (issue 20, 1). Each case: the triplet PE `me` passes.
TEST(Team, SplitDifferentTripletsFailEverywhere)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2)
        GTEST_SKIP() << "needs 2 PEs";
    struct Case {
        const char *what;
        int start, stride, size;
    };
    std::vector<Case> cases;
    // The case: PE 0 asks for {1..n-1}, the others for {0..n-2}.
    cases.push_back({"PE 0 (1,1,n-1), others (0,1,n-1)", me == 0 ? 1 : 0, 1, n - 1});
    // PE 0 asks for a team of itself, the others for all PEs (which include PE 0).
    cases.push_back({"PE 0 (0,1,1), others (0,1,n)", 0, 1, me == 0 ? 1 : n});
    // Same start, different sizes.
    cases.push_back({"last PE (0,1,n-1), others (0,1,n)", 0, 1, me == n - 1 ? n - 1 : n});
    // A PE outside the team names it differently from its members.
    if (n >= 3)
        cases.push_back({"PE 1 (0,2,1), others (0,2,(n+1)/2)", 0, 2, me == 1 ? 1 : (n + 1) / 2});
    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        shmem_team_t t = SHMEM_TEAM_WORLD; // must be overwritten on every path
        EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_WORLD, c.start, c.stride, c.size, nullptr,
                                           0, &t),
                  0);
        EXPECT_EQ(t, SHMEM_TEAM_INVALID);
    }
    // Consistent different triplets still work: PE 0 alone, the others together.
    shmem_team_t t = SHMEM_TEAM_INVALID;
    ASSERT_EQ(me == 0 ? shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, &t)
                      : shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, n - 1, nullptr, 0, &t),
              0);
    ASSERT_NE(t, SHMEM_TEAM_INVALID);
    EXPECT_EQ(shmem_team_n_pes(t), me == 0 ? 1 : n - 1);
    EXPECT_EQ(shmem_team_my_pe(t), me == 0 ? 0 : me - 1);
    shmem_team_destroy(t);
    shmem_barrier_all();
}

// shmem_sync(team), the 1.5 form, next to the deprecated four-argument shmem_sync.
TEST(Team, SyncByTeamName)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    EXPECT_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0);
    shmem_team_t t = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &t), 0);
    int *flag = static_cast<int *>(shmem_malloc(sizeof(int)));
    *flag = 0;
    EXPECT_EQ(shmem_sync(t), 0);
    shmem_int_atomic_set(flag, me + 1, (me + 1) % n);
    shmem_quiet();
    EXPECT_EQ(shmem_sync(t), 0);
    EXPECT_EQ(*flag, (me + n - 1) % n + 1);
    EXPECT_NE(shmem_sync(SHMEM_TEAM_INVALID), 0);
    static long psync[SHMEM_SYNC_SIZE];
    for (long &v : psync)
        v = SHMEM_SYNC_VALUE;
    shmem_sync(0, 0, n, psync); // the deprecated form still compiles and runs
    shmem_team_destroy(t);
    shmem_free(flag);
}

TEST(Team, SplitOfSplitAndTranslateBetweenTeams)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_team_t rev, sub;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &rev), 0);
    ASSERT_NE(rev, SHMEM_TEAM_INVALID);
    EXPECT_EQ(shmem_team_my_pe(rev), n - 1 - me);
    // Even positions of the reversed team: world PEs n-1, n-3, ...
    ASSERT_EQ(shmem_team_split_strided(rev, 0, 2, (n + 1) / 2, nullptr, 0, &sub), 0);
    bool in = (n - 1 - me) % 2 == 0;
    EXPECT_EQ(sub != SHMEM_TEAM_INVALID, in);
    if (in) {
        EXPECT_EQ(shmem_team_my_pe(sub), (n - 1 - me) / 2);
        for (int i = 0; i < shmem_team_n_pes(sub); i++) {
            EXPECT_EQ(shmem_team_translate_pe(sub, i, SHMEM_TEAM_WORLD), n - 1 - 2 * i);
            EXPECT_EQ(shmem_team_translate_pe(sub, i, rev), 2 * i);
            EXPECT_EQ(shmem_team_translate_pe(rev, 2 * i, sub), i);
        }
        if (n >= 2) {
            EXPECT_EQ(shmem_team_translate_pe(rev, 1, sub), -1);
        }
        EXPECT_EQ(shmem_team_sync(sub), 0);
    }
    shmem_team_destroy(sub);
    shmem_team_destroy(rev);
}

TEST(Team, SplitInvalidArguments)
{
    int n = shmem_n_pes();
    shmem_team_t t;
    auto bad = [&](int start, int stride, int size) {
        t = (shmem_team_t)0x1;
        EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &t),
                  0)
            << start << " " << stride << " " << size;
        EXPECT_EQ(t, SHMEM_TEAM_INVALID);
    };
    bad(0, 1, 0);       // empty
    bad(0, 1, n + 1);   // too big
    bad(-1, 1, 1);      // start out of range
    bad(n, 1, 1);
    if (n > 1)
        bad(0, 2, n);   // runs past the end
    bad(0, -1, 2);      // runs below 0
    bad(0, 0, 2);       // one PE twice
    EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, nullptr), 0);
    t = (shmem_team_t)0x1;
    EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, nullptr, 0, &t), 0);
    EXPECT_EQ(t, SHMEM_TEAM_INVALID);
    // num_contexts asked for without a config
    t = (shmem_team_t)0x1;
    EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, nullptr,
                                       SHMEM_TEAM_NUM_CONTEXTS, &t),
              0);
    EXPECT_EQ(t, SHMEM_TEAM_INVALID);
    shmem_team_t x, y;
    EXPECT_NE(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, nullptr, 0, &x, nullptr, 0, &y), 0);
    EXPECT_EQ(x, SHMEM_TEAM_INVALID);
    EXPECT_EQ(y, SHMEM_TEAM_INVALID);
    EXPECT_NE(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, nullptr, 0, &x, nullptr, 0, &y), 0);
    // WORLD survives an attempt to destroy it (reported, not done).
    shmem_team_destroy(SHMEM_TEAM_WORLD);
    EXPECT_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n);
    EXPECT_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);
}

TEST(Team, SplitWithConfig)
{
    int n = shmem_n_pes();
    shmem_team_config_t cfg = {3}, got = {0};
    shmem_team_t t;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, &cfg, SHMEM_TEAM_NUM_CONTEXTS,
                                       &t),
              0);
    ASSERT_NE(t, SHMEM_TEAM_INVALID);
    EXPECT_EQ(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    EXPECT_EQ(got.num_contexts, 3);
    shmem_team_destroy(t);
    // Without the mask bit the config is ignored.
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, &cfg, 0, &t), 0);
    got.num_contexts = -1;
    EXPECT_EQ(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    EXPECT_EQ(got.num_contexts, 0);
    shmem_team_destroy(t);
}

static void check_2d(int xrange)
{
    SCOPED_TRACE(testing::Message() << "xrange " << xrange);
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_team_config_t xc = {2};
    shmem_team_t x, y;
    ASSERT_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, &xc, SHMEM_TEAM_NUM_CONTEXTS, &x,
                                  nullptr, 0, &y),
              0);
    ASSERT_NE(x, SHMEM_TEAM_INVALID);
    ASSERT_NE(y, SHMEM_TEAM_INVALID);
    int xr = xrange > n ? n : xrange;
    int row = me / xr, col = me % xr;
    EXPECT_EQ(shmem_team_my_pe(x), col);
    EXPECT_EQ(shmem_team_n_pes(x), std::min(xr, n - row * xr));
    EXPECT_EQ(shmem_team_my_pe(y), row);
    EXPECT_EQ(shmem_team_n_pes(y), (n - col + xr - 1) / xr);
    for (int i = 0; i < shmem_team_n_pes(x); i++)
        EXPECT_EQ(shmem_team_translate_pe(x, i, SHMEM_TEAM_WORLD), row * xr + i);
    for (int j = 0; j < shmem_team_n_pes(y); j++)
        EXPECT_EQ(shmem_team_translate_pe(y, j, SHMEM_TEAM_WORLD), j * xr + col);
    EXPECT_EQ(shmem_team_translate_pe(x, col, y), row);
    shmem_team_config_t got = {0};
    EXPECT_EQ(shmem_team_get_config(x, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    EXPECT_EQ(got.num_contexts, 2);
    EXPECT_EQ(shmem_team_sync(x), 0);
    EXPECT_EQ(shmem_team_sync(y), 0);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
}

TEST(Team, Split2d)
{
    check_2d(1);
    check_2d(2);
    check_2d(3);
    check_2d(shmem_n_pes() + 5); // larger than the parent: one x team
}

TEST(Team, SyncOrdersPuts)
{
    REQUIRE_PES(2);
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *box = (int *)shmem_malloc(sizeof(int));
    *box = -1;
    shmem_barrier_all();
    shmem_team_t t;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &t), 0);
    shmem_int_p(box, me, (me + 1) % n);
    shmem_quiet();
    EXPECT_EQ(shmem_team_sync(t), 0);
    EXPECT_EQ(*box, (me + n - 1) % n);
    shmem_team_destroy(t);
    shmem_barrier_all();
    shmem_free(box);
}

TEST(Team, MpiComm)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    MPI_Comm c = MPI_COMM_WORLD;
    ASSERT_EQ(shmemx_team_get_mpi_comm(SHMEM_TEAM_WORLD, &c), 0);
    int rank = -1, size = -1;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    EXPECT_EQ(rank, me);
    EXPECT_EQ(size, n);
    int sum = 0;
    EXPECT_EQ(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
    EXPECT_EQ(sum, n * (n - 1) / 2);
    MPI_Comm_free(&c);

    // A split team's communicator ranks PEs in team order.
    shmem_team_t rev;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &rev), 0);
    ASSERT_EQ(shmemx_team_get_mpi_comm(rev, &c), 0);
    MPI_Comm_rank(c, &rank);
    EXPECT_EQ(rank, n - 1 - me);
    int root_world = -1;
    int mine = me;
    MPI_Bcast(&mine, 1, MPI_INT, 0, c); // team PE 0 is world PE n-1
    root_world = mine;
    EXPECT_EQ(root_world, n - 1);
    MPI_Comm_free(&c);
    shmem_team_destroy(rev);

    c = MPI_COMM_WORLD;
    EXPECT_NE(shmemx_team_get_mpi_comm(SHMEM_TEAM_INVALID, &c), 0);
    EXPECT_EQ(c, MPI_COMM_NULL);
    EXPECT_NE(shmemx_team_get_mpi_comm(SHMEM_TEAM_WORLD, nullptr), 0);
}

TEST(Team, ManySplitsAndDestroys)
{
    int n = shmem_n_pes();
    for (int i = 0; i < 20; i++) {
        shmem_team_t t;
        ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, i % n, 1, 1, nullptr, 0, &t), 0);
        EXPECT_EQ(t != SHMEM_TEAM_INVALID, shmem_my_pe() == i % n);
        shmem_team_destroy(t);
    }
}
