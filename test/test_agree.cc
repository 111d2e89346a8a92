// test_agree.cc: collective agreement on bad input (src/mpi_rma/agree.c). In every
// test one PE (PE 0, then the last PE) passes bad input to a collective whose team it
// can still identify; every PE must get the error, nothing may be written, and a good
// collective right after must work. The SHMEM_DEBUG watchdog (no team known on the bad
// PE) is checked by test/agree_watchdog.sh.
#include <gtest/gtest.h>
#include "test_util.h"
#include <cstdint>
#include <string>
#include <vector>

namespace {

// The PEs that take the bad part: PE 0 and the last PE (one PE when alone).
std::vector<int> bad_pes()
{
    int n = shmem_n_pes();
    return n > 1 ? std::vector<int>{0, n - 1} : std::vector<int>{0};
}

// A buffer that is not symmetric (ordinary heap memory).
struct NotSymmetric {
    std::vector<long> v = std::vector<long>(64, -7);
    long *p() { return v.data(); }
};

struct Sym {
    long *a, *b;
    size_t n;
    explicit Sym(size_t n_) : n(n_)
    {
        a = static_cast<long *>(shmem_malloc(n * sizeof(long)));
        b = static_cast<long *>(shmem_malloc(n * sizeof(long)));
        fill();
    }
    ~Sym()
    {
        shmem_free(b);
        shmem_free(a);
    }
    void fill()
    {
        for (size_t i = 0; i < n; i++) {
            a[i] = 1000 * shmem_my_pe() + (long)i;
            b[i] = -1;
        }
        shmem_barrier_all();
    }
    bool b_untouched() const
    {
        for (size_t i = 0; i < n; i++)
            if (b[i] != -1)
                return false;
        return true;
    }
};

} // namespace

TEST(Agree, BroadcastBadDestOrRootOnOnePe)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    Sym s(8 * (size_t)n);
    NotSymmetric ns;
    for (int bad : bad_pes()) {
        int root = n - 1 - bad; // the bad PE is a non-root where possible
        s.fill();
        long *dest = (me == bad && n > 1) ? ns.p() : s.b;
        if (n == 1)
            dest = ns.p(); // alone, the root's dest is checked too (team form writes it)
        EXPECT_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, s.a, 8, root) != 0, true) << bad;
        EXPECT_TRUE(s.b_untouched()) << bad;
        // A root out of range on one PE only: the others must not start the broadcast.
        EXPECT_NE(shmem_broadcastmem(SHMEM_TEAM_WORLD, s.b, s.a, 8, me == bad ? n : root), 0);
        // Roots that differ: caught by the agreement too.
        if (n > 1) {
            EXPECT_NE(shmem_long_broadcast(SHMEM_TEAM_WORLD, s.b, s.a, 8, me == bad ? bad : root),
                      0);
        }
        EXPECT_TRUE(s.b_untouched());
        // Sizes that differ.
        if (n > 1) {
            EXPECT_NE(shmem_long_broadcast(SHMEM_TEAM_WORLD, s.b, s.a, me == bad ? 4 : 8, root), 0);
        }
        // One PE in a reduction while the others broadcast: caught by the kind.
        if (n > 1) {
            int rc = me == bad ? shmem_long_sum_reduce(SHMEM_TEAM_WORLD, s.b, s.a, 8)
                               : shmem_long_broadcast(SHMEM_TEAM_WORLD, s.b, s.a, 8, root);
            EXPECT_NE(rc, 0);
        }
        EXPECT_TRUE(s.b_untouched());
        // A good broadcast afterwards.
        ASSERT_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, s.b, s.a, 8, root), 0);
        for (int i = 0; i < 8; i++)
            EXPECT_EQ(s.b[i], 1000 * root + i);
    }
}

TEST(Agree, CollectFcollectAlltoallBadBuffersOnOnePe)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    Sym s(4 * (size_t)n);
    NotSymmetric ns;
    for (int bad : bad_pes()) {
        bool b = me == bad;
        s.fill();
        // collect: bad dest, bad source, dest overlapping source, routine mismatch
        EXPECT_NE(shmem_long_collect(SHMEM_TEAM_WORLD, b ? ns.p() : s.b, s.a, 2), 0);
        EXPECT_NE(shmem_long_collect(SHMEM_TEAM_WORLD, s.b, b ? ns.p() : s.a, 2), 0);
        EXPECT_NE(shmem_long_collect(SHMEM_TEAM_WORLD, b ? s.a + 1 : s.b, s.a, 2), 0);
        if (n > 1) {
            int rc = b ? shmem_int_collect(SHMEM_TEAM_WORLD, (int *)s.b, (int *)s.a, 2)
                       : shmem_long_collect(SHMEM_TEAM_WORLD, s.b, s.a, 2);
            EXPECT_NE(rc, 0);
        }
        EXPECT_TRUE(s.b_untouched());
        // fcollect
        EXPECT_NE(shmem_long_fcollect(SHMEM_TEAM_WORLD, b ? ns.p() : s.b, s.a, 2), 0);
        EXPECT_NE(shmem_fcollectmem(SHMEM_TEAM_WORLD, s.b, b ? nullptr : s.a, 16), 0);
        if (n > 1) {
            EXPECT_NE(shmem_long_fcollect(SHMEM_TEAM_WORLD, s.b, s.a, b ? 1 : 2), 0);
        }
        EXPECT_TRUE(s.b_untouched());
        // alltoall(s)
        EXPECT_NE(shmem_long_alltoall(SHMEM_TEAM_WORLD, b ? ns.p() : s.b, s.a, 1), 0);
        EXPECT_NE(shmem_alltoallmem(SHMEM_TEAM_WORLD, s.b, b ? ns.p() : s.a, 8), 0);
        EXPECT_NE(shmem_long_alltoalls(SHMEM_TEAM_WORLD, s.b, s.a, b ? 0 : 1, 1, 1), 0);
        EXPECT_NE(shmem_alltoallsmem(SHMEM_TEAM_WORLD, s.b, s.a, 1, 1, b ? SIZE_MAX : 8), 0);
        EXPECT_TRUE(s.b_untouched());
        // Good ones afterwards.
        ASSERT_EQ(shmem_long_collect(SHMEM_TEAM_WORLD, s.b, s.a, 2), 0);
        for (int p = 0; p < n; p++)
            for (int i = 0; i < 2; i++)
                EXPECT_EQ(s.b[2 * p + i], 1000 * p + i);
        ASSERT_EQ(shmem_long_alltoall(SHMEM_TEAM_WORLD, s.b, s.a, 1), 0);
        for (int p = 0; p < n; p++)
            EXPECT_EQ(s.b[p], 1000 * p + me);
        ASSERT_EQ(shmem_long_fcollect(SHMEM_TEAM_WORLD, s.b, s.a, 1), 0);
        for (int p = 0; p < n; p++)
            EXPECT_EQ(s.b[p], 1000 * p);
    }
}

TEST(Agree, ReductionsAndScansBadInputOnOnePe)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    Sym s(8);
    NotSymmetric ns;
    for (int bad : bad_pes()) {
        bool b = me == bad;
        s.fill();
        EXPECT_NE(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, b ? ns.p() : s.b, s.a, 4), 0);
        EXPECT_NE(shmem_long_max_reduce(SHMEM_TEAM_WORLD, s.b, b ? s.b + 1 : s.a, 4), 0);
        if (n > 1) {
            EXPECT_NE(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, s.b, s.a, b ? 3 : 4), 0);
            int rc = b ? shmem_long_min_reduce(SHMEM_TEAM_WORLD, s.b, s.a, 4)
                       : shmem_long_max_reduce(SHMEM_TEAM_WORLD, s.b, s.a, 4);
            EXPECT_NE(rc, 0);
        }
        EXPECT_NE(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, b ? nullptr : s.b, s.a, 4), 0);
        EXPECT_NE(shmem_long_sum_exscan(SHMEM_TEAM_WORLD, s.b, b ? ns.p() : s.a, 4), 0);
        EXPECT_TRUE(s.b_untouched());
        ASSERT_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, s.b, s.a, 4), 0);
        for (int i = 0; i < 4; i++)
            EXPECT_EQ(s.b[i], 1000L * n * (n - 1) / 2 + (long)n * i);
        ASSERT_EQ(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, s.b, s.a, 1), 0);
        EXPECT_EQ(s.b[0], 1000L * me * (me + 1) / 2);
    }
}

TEST(Agree, TeamSplitsDestroyAndMpiCommBadOnOnePe)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int bad : bad_pes()) {
        bool b = me == bad;
        shmem_team_t t = SHMEM_TEAM_INVALID, x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
        // A bad triplet, or a NULL output, on one PE: every PE fails, no team anywhere.
        EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, b ? n + 1 : n, nullptr, 0, &t),
                  0);
        EXPECT_EQ(t, SHMEM_TEAM_INVALID);
        EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0,
                                           b ? nullptr : &t),
                  0);
        EXPECT_EQ(t, SHMEM_TEAM_INVALID);
        shmem_team_config_t cfg{};
        cfg.num_contexts = -1;
        EXPECT_NE(shmem_team_split_2d(SHMEM_TEAM_WORLD, b ? 0 : 1, nullptr, 0, &x,
                                      b ? &cfg : nullptr, b ? SHMEM_TEAM_NUM_CONTEXTS : 0, &y),
                  0);
        EXPECT_EQ(x, SHMEM_TEAM_INVALID);
        EXPECT_EQ(y, SHMEM_TEAM_INVALID);
        // A good split afterwards.
        ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &t), 0);
        ASSERT_NE(t, SHMEM_TEAM_INVALID);
        EXPECT_EQ(shmem_team_n_pes(t), n);

        // shmemx_team_get_mpi_comm with a NULL output on one PE: nobody dups.
        MPI_Comm c = MPI_COMM_WORLD;
        EXPECT_NE(shmemx_team_get_mpi_comm(t, b ? nullptr : &c), 0);
        if (!b) {
            EXPECT_EQ(c, MPI_COMM_NULL);
        }

        // Destroy refused on one PE (it still has a context): the team must survive on
        // every PE, so a collective on it still works.
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        if (b) {
            ASSERT_EQ(shmem_team_create_ctx(t, 0, &ctx), 0);
        }
        shmem_team_destroy(t);
        long *v = static_cast<long *>(shmem_malloc(2 * sizeof(long)));
        v[0] = me + 1;
        v[1] = 0;
        EXPECT_EQ(shmem_team_sync(t), 0);
        EXPECT_EQ(shmem_long_sum_reduce(t, &v[1], &v[0], 1), 0);
        EXPECT_EQ(v[1], (long)n * (n + 1) / 2);
        if (b)
            shmem_ctx_destroy(ctx);
        shmem_team_destroy(t);
        shmem_free(v);
    }
}

TEST(Agree, LegacyActiveSetBadBuffersOnOnePe)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    static long psync[SHMEM_REDUCE_SYNC_SIZE];
    static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    Sym s(8);
    NotSymmetric ns;
    for (int bad : bad_pes()) {
        bool b = me == bad;
        s.fill();
        // void routines: the bad PE prints; every PE returns without writing.
        shmem_long_sum_to_all(s.b, s.a, b ? -1 : 4, 0, 0, n, pwrk, psync);
        shmem_long_max_to_all(b ? ns.p() : s.b, s.a, 4, 0, 0, n, pwrk, psync);
        shmem_broadcast64(b ? ns.p() : s.b, s.a, 4, n - 1 - bad, 0, 0, n, psync);
        shmem_fcollect64(s.b, b ? ns.p() : s.a, 2, 0, 0, n, psync);
        shmem_collect64(b ? ns.p() : s.b, s.a, 1, 0, 0, n, psync);
        shmem_alltoall64(s.b, b ? ns.p() : s.a, 1, 0, 0, n, psync);
        EXPECT_TRUE(s.b_untouched());
        shmem_long_sum_to_all(s.b, s.a, 4, 0, 0, n, pwrk, psync);
        for (int i = 0; i < 4; i++)
            EXPECT_EQ(s.b[i], 1000L * n * (n - 1) / 2 + (long)n * i);
    }
}

namespace {
shmem_queue_config_t data_cfg(size_t room = 256)
{
    shmem_queue_config_t c;
    std::memset(&c, 0, sizeof c);
    c.qtype = SHMEM_QUEUE_DATA;
    c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    c.data_elem_size = sizeof(long);
    c.max_bytes = room;
    return c;
}

// Every PE pushes (me, p) to each p, flushes, and checks what arrived.
void round_trip(shmem_queue_t q)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int p = 0; p < n; p++) {
        long v = 100 * me + p;
        ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
    }
    ASSERT_EQ(shmem_queue_global_flush(q), 0);
    for (int p = 0; p < n; p++) {
        long v = -1;
        ASSERT_EQ(shmem_queue_data_pop(q, &v, 1, p), 0);
        EXPECT_EQ(v, 100 * p + me);
    }
}
} // namespace

TEST(Agree, DataQueueDestroyWrongTeamOrWrongRoutineOnOnePe)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int bad : bad_pes()) {
        bool b = me == bad;
        shmem_queue_config_t c = data_cfg();
        shmem_queue_t q = nullptr;
        ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
        long v = me;
        ASSERT_EQ(shmem_queue_data_push(q, &v, 1, (me + 1) % n), 0);
        // Destroy with another team on one PE: ARG everywhere, the queue lives on.
        shmem_queue_t q2 = q;
        EXPECT_EQ(shmem_queue_data_destroy(&q2, b ? SHMEM_TEAM_SHARED : SHMEM_TEAM_WORLD),
                  SHMEM_QUEUE_ERR_ARG);
        EXPECT_EQ(q2, q);
        // One PE in destroy while the others flush: ARG everywhere, nothing destroyed.
        if (n > 1) {
            q2 = q;
            int rc = b ? shmem_queue_data_destroy(&q2, SHMEM_TEAM_WORLD)
                       : shmem_queue_global_flush(q);
            EXPECT_EQ(rc, SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(q2, q);
        }
        // The queue still works on every PE: the pushed element arrives, then a round.
        ASSERT_EQ(shmem_queue_global_flush(q), 0);
        long got = -1;
        ASSERT_EQ(shmem_queue_data_pop(q, &got, 1, (me + n - 1) % n), 0);
        EXPECT_EQ(got, (me + n - 1) % n);
        round_trip(q);
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
        EXPECT_EQ(q, nullptr);
    }
}

TEST(Agree, NullQueueHandleIsReportedWithoutDebug)
{
    // Every PE passes NULL here (so nobody waits): each must say so on stderr, with its
    // PE and the routine, SHMEM_DEBUG or not.
    int me = shmem_my_pe();
    testing::internal::CaptureStderr();
    int rc1 = shmem_queue_global_flush(nullptr);
    int rc2 = shmem_queue_data_destroy(nullptr, SHMEM_TEAM_WORLD);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc1, SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(rc2, SHMEM_QUEUE_ERR_ARG);
    std::string pe = "[shmemq PE " + std::to_string(me) + "] ";
    EXPECT_NE(err.find(pe + "shmem_queue_global_flush: the queue handle is NULL"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find(pe + "shmem_queue_data_destroy: the pointer to the queue handle is NULL"),
              std::string::npos)
        << err;
}

TEST(Agree, TargetThatWaitsInMpiStillGetsAgreement)
{
    // The last PE sits in a plain MPI barrier on its own communicator (not calling the
    // library) while the others reject a broadcast among themselves and then run a good
    // one: a team without the waiting PE, so its absence must not matter.
    int me = shmem_my_pe(), n = shmem_n_pes();
    REQUIRE_PES(2);
    shmem_team_t t = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n - 1, nullptr, 0, &t), 0);
    long *a = static_cast<long *>(shmem_malloc(4 * sizeof(long)));
    long *d = static_cast<long *>(shmem_malloc(4 * sizeof(long)));
    for (int i = 0; i < 4; i++)
        a[i] = 10 * me + i, d[i] = -1;
    shmem_barrier_all();
    MPI_Comm world;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    if (me == n - 1) {
        MPI_Barrier(world); // waits in MPI until the others are done
    } else {
        NotSymmetric ns;
        EXPECT_NE(shmem_long_broadcast(t, me == 0 ? ns.p() : d, a, 4, n - 2), 0);
        for (int i = 0; i < 4; i++)
            EXPECT_EQ(d[i], -1);
        EXPECT_EQ(shmem_long_broadcast(t, d, a, 4, n - 2), 0);
        for (int i = 0; i < 4; i++)
            EXPECT_EQ(d[i], 10 * (n - 2) + i);
        MPI_Barrier(world);
    }
    MPI_Comm_free(&world);
    shmem_team_destroy(t);
    shmem_free(d);
    shmem_free(a);
}
