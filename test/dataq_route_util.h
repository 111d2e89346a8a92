// dataq_route_util.h: what test_dataq_route.cc (built as test_dataq_route and, with
// SHMEMQ_TEST_ROUTE_HOPS=3, as test_dataq_route3) and test_dataq_route_auto.cc share: the
// library's test hooks, the routed mode forced (ROUTE_ENV, ROUTED_MODE), agreement of a
// collective outcome across the PEs, and the all-to-all exchange every layout checks.
#ifndef SHMEMQ_TEST_DATAQ_ROUTE_UTIL_H
#define SHMEMQ_TEST_DATAQ_ROUTE_UTIL_H
#include <gtest/gtest.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <sched.h>
#include "test_util.h"

// dq_route.h: tests only, groups the team as if team PE p were on node (m - 1 - p % m)
extern "C" int shmemi_queue_data_route_test_nodes;
// dq_route.h: SHMEMQ_DATAQ_ROUTE=auto's rule (P, PEs per node; 0: not known yet), and its
// hops once routed
extern "C" int shmemi_queue_data_route_auto(int npes, int n);
extern "C" int shmemi_queue_data_route_auto_hops(int npes, int n);
// dq_route.h: tests only, stands for auto's 64 PEs
extern "C" int shmemi_queue_data_route_test_auto_pes;
// data_queue.c: flushes of a routed queue that skipped the overflow reduction
extern "C" int shmemi_queue_data_route_skipped(shmem_queue_t queue, uint64_t *out);
// dq_route.h: tests only, bit h: hop h (0 node, 1 column) collective where it would go
// point to point
extern "C" int shmemi_queue_data_route_test_coll;
// data_queue.c: hops moved point to point (out[0]) and collectively (out[1])
extern "C" int shmemi_queue_data_route_hops(shmem_queue_t queue, uint64_t out[2]);
// dq_bufcache.c: grown routed buffers of destroyed queues taken by later ones
extern "C" uint64_t shmemi_queue_data_rbuf_adopted;

#ifndef SHMEMQ_TEST_ROUTE_HOPS
#define SHMEMQ_TEST_ROUTE_HOPS 2
#endif
#if SHMEMQ_TEST_ROUTE_HOPS == 3
#define ROUTE_ENV "3hop"
#define ROUTED_MODE SHMEMX_QUEUE_MODE_DATA_ROUTED3
#else
#define ROUTE_ENV "2hop"
#define ROUTED_MODE SHMEMX_QUEUE_MODE_DATA_ROUTED
#endif

namespace {

// The PEs of the team being tested (MPI_COMM_WORLD, or a split matching the team).
MPI_Comm agree_comm = MPI_COMM_WORLD;

// All PEs of agree_comm agree that every one got rc.
inline void expect_all(int rc, int want)
{
    int64_t v = rc == want ? 1 : 0, all = 0;
    MPI_Request req;
    MPI_Iallreduce(&v, &all, 1, MPI_INT64_T, MPI_MIN, agree_comm, &req);
    for (int done = 0; !done;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done)
            sched_yield(); // more PEs than cores
    }
    EXPECT_EQ(rc, want);
    EXPECT_EQ(all, 1);
}

// Run f with expect_all over the PEs of world that pass color (MPI_UNDEFINED: not).
template <typename F> void with_agree_comm(int color, F f)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, color, shmem_my_pe(), &c);
    if (c == MPI_COMM_NULL)
        return;
    agree_comm = c;
    f();
    agree_comm = MPI_COMM_WORLD;
    MPI_Comm_free(&c);
}

struct Routed : ::testing::Test {
    void SetUp() override { setenv("SHMEMQ_DATAQ_ROUTE", ROUTE_ENV, 1); }
    void TearDown() override { unsetenv("SHMEMQ_DATAQ_ROUTE"); }
};

inline uint32_t mode_of(shmem_queue_t q)
{
    shmemx_queue_usage_t u;
    EXPECT_EQ(shmemx_queue_usage(q, &u), 0);
    return u.mode;
}

// One element dataq_val(me, d, seq) to every team PE d; one popped from every source s, which
// must be dataq_val(s, me, seq).
inline void push_one_each(shmem_queue_t q, int me, int n, int64_t seq)
{
    for (int d = 0; d < n; d++) {
        int64_t v = dataq_val(me, d, seq);
        ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
    }
}
inline void pop_one_each(shmem_queue_t q, int me, int n, int64_t seq)
{
    for (int s = 0; s < n; s++) {
        int64_t x = -1;
        ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
        EXPECT_EQ(x, dataq_val(s, me, seq)) << "from " << s;
    }
}

// Elements src sends dst in round r: uneven, some pairs none.
inline int count_for(int src, int dst, int r) { return (src * 5 + dst * 3 + r) % 7; }

// Every PE pushes count_for() elements to every team PE (in pushes of 1..3 elements),
// flushes, and checks per source what arrived, exactly and in order; then again with
// ANY_PE pops (lowest source first). rounds: flushes in a row.
inline void all_to_all(shmem_team_t team, int rounds)
{
    const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
    shmem_queue_config_t c = data_queue_cfg(4096, sizeof(int64_t));
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, team), 0);
    for (int r = 0; r < rounds; r++) {
        size_t pushed = 0;
        for (int d = 0; d < n; d++) {
            int k = count_for(me, d, r);
            std::vector<int64_t> v(k);
            for (int j = 0; j < k; j++)
                v[j] = dataq_val(me, d, r * 100 + j);
            for (int j = 0; j < k;) { // pushes of 1, 2, 3, 1, ... elements
                int m = 1 + j % 3;
                if (m > k - j)
                    m = k - j;
                ASSERT_EQ(shmem_queue_data_push(q, v.data() + j, m, d), 0);
                j += m;
            }
            pushed += k;
            size_t in = 1, out = 0;
            ASSERT_EQ(shmem_query_data_size(q, &in, &out, d), 0);
            EXPECT_EQ(out, (size_t)k * sizeof(int64_t));
        }
        size_t sz = 0;
        ASSERT_EQ(shmem_query_size(q, &sz), 0);
        EXPECT_EQ(sz, pushed);
        expect_all(shmem_queue_global_flush(q), 0);
        ASSERT_EQ(shmem_query_size(q, &sz), 0);
        EXPECT_EQ(sz, 0u);
        if (r % 2 == 0) { // by source
            for (int s = 0; s < n; s++) {
                int k = count_for(s, me, r);
                size_t in = 0;
                ASSERT_EQ(shmem_query_data_size(q, &in, nullptr, s), 0);
                EXPECT_EQ(in, (size_t)k * sizeof(int64_t)) << "from " << s;
                for (int j = 0; j < k; j++) {
                    int64_t x = -1;
                    ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
                    EXPECT_EQ(x, dataq_val(s, me, r * 100 + j)) << "from " << s << " #" << j;
                }
                int64_t x;
                EXPECT_EQ(shmem_queue_data_pop(q, &x, 1, s), SHMEM_QUEUE_ERR_EMPTY);
            }
        } else { // ANY_PE, two at a time where possible: lowest source first
            std::vector<int64_t> want;
            for (int s = 0; s < n; s++)
                for (int j = 0; j < count_for(s, me, r); j++)
                    want.push_back(dataq_val(s, me, r * 100 + j));
            size_t i = 0;
            for (; i + 2 <= want.size(); i += 2) {
                int64_t x[2];
                ASSERT_EQ(shmem_queue_data_pop(q, x, 2, SHMEM_QUEUE_ANY_PE), 0);
                EXPECT_EQ(x[0], want[i]);
                EXPECT_EQ(x[1], want[i + 1]);
            }
            int64_t x[2];
            if (i < want.size()) {
                EXPECT_EQ(shmem_queue_data_pop(q, x, 2, SHMEM_QUEUE_ANY_PE),
                          SHMEM_QUEUE_ERR_EMPTY); // one left: nothing taken
                ASSERT_EQ(shmem_queue_data_pop(q, x, 1, SHMEM_QUEUE_ANY_PE), 0);
                EXPECT_EQ(x[0], want[i]);
            }
            EXPECT_EQ(shmem_queue_data_pop(q, x, 1, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_EMPTY);
        }
    }
    shmemx_queue_stats_t st;
    ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_EQ(st.flushes, (uint64_t)rounds);
    EXPECT_EQ(shmem_queue_data_destroy(&q, team), 0);
}

} // namespace

#endif
