// test_dataq_route.cc: data queues in routed mode (SHMEMQ_DATAQ_ROUTE=2hop, set by this
// binary before every create; built again as test_dataq_route3 with
// SHMEMQ_TEST_ROUTE_HOPS=3, the same cases with SHMEMQ_DATAQ_ROUTE=3hop): exact data and
// per-source order from every PE to every PE with uneven counts, ANY_PE order, empty
// flushes, FULL at the logical room, the inline and the library's push on one state,
// OVERFLOW without loss (partial and none fitting),
// porter buffers that grow, the destination table growing with FULL still per
// destination, sources merged across flushes, a team that is not node-major (test
// hook), teams split from the world (strided; one with nodes of different
// sizes stays direct), destroy with data; with three hops, the peers a flush meets.
// Every PE checks, and every check of a collective outcome is agreed across the PEs.
#include <cstring>
#include <set>
#include "dataq_route_util.h"

namespace {

TEST_F(Routed, WorldIsRoutedAndItsNodesAreEven)
{
    shmem_queue_config_t c = data_queue_cfg(0, 8);
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    // SHMEMQ_NODE_PES groups consecutive PEs and divides the job in every run
    EXPECT_EQ(mode_of(q), (uint32_t)ROUTED_MODE);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    EXPECT_EQ(q, nullptr);
}

TEST_F(Routed, EveryPeToEveryPeExactAndInOrder) { all_to_all(SHMEM_TEAM_WORLD, 4); }

#if SHMEMQ_TEST_ROUTE_HOPS == 3
// Three hops (dq_plan.h): with every PE sending one element to every PE, PE (node a,
// local rank l) of N nodes of n sends to the porters of its node that serve a node
// (local ranks below N), to node b's PE of local rank a mod n for every node b with
// b mod n == l (when l < N), and then, having received for its node, to all its node's
// PEs: exactly those distinct peers (usage's peers_last), and not the column's N.
TEST_F(Routed, ThreeHopsMeetTheCrossPeersOnly)
{
    const int me = shmem_my_pe(), np = shmem_n_pes(), n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    const int nn = np / n, a = me / n, l = me % n;
    shmem_queue_config_t c = data_queue_cfg(64, sizeof(int64_t));
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    ASSERT_EQ(mode_of(q), (uint32_t)ROUTED_MODE);
    push_one_each(q, me, np, 7);
    expect_all(shmem_queue_global_flush(q), 0);
    pop_one_each(q, me, np, 7);
    std::set<int> want;
    for (int p = 0; p < n && p < nn; p++)
        want.insert(a * n + p); // hop 1: the porters
    if (l < nn) {
        for (int b = l; b < nn; b += n)
            want.insert(b * n + a % n); // hop 2: the cross peers
        for (int p = 0; p < n; p++)
            want.insert(a * n + p); // hop 3: the node
    }
    shmemx_queue_usage_t u;
    ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
    EXPECT_EQ(u.peers_last, (uint64_t)want.size());
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}
#endif

// The inline push (shmemq/dataq.h: an EXCLUSIVE routed queue's common case) and the
// library's push share one state: pushes alternating between them, across destinations
// (a new run each) and then in runs to one destination (the last run extended), meet
// FULL at the same logical room whichever path asks (counted once), and every element
// arrives once, in push order per source; twice, as a flush empties the table.
TEST_F(Routed, InlineAndLibraryPushesShareOneState)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int room = 12, half = room / 2;
    shmem_queue_config_t c = data_queue_cfg(room * sizeof(int64_t), sizeof(int64_t));
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    ASSERT_EQ(mode_of(q), (uint32_t)ROUTED_MODE);
    auto push = [&](int d, int64_t seq, bool library) {
        int64_t v = dataq_val(me, d, seq);
        return library ? (shmem_queue_data_push)(q, &v, 1, d) : shmem_queue_data_push(q, &v, 1, d);
    };
    for (int round = 0; round < 2; round++) {
        const int64_t base = 100 * round;
        for (int j = 0; j < half; j++) // across destinations
            for (int d = 0; d < n; d++)
                ASSERT_EQ(push(d, base + j, (j + d) % 2 == 1), 0) << "to " << d << " #" << j;
        for (int d = 0; d < n; d++) // in runs
            for (int j = half; j < room; j++)
                ASSERT_EQ(push(d, base + j, j % 2 == 1), 0) << "to " << d << " #" << j;
        for (int d = 0; d < n; d++) {
            EXPECT_EQ(push(d, base + room, d % 2 == 1), SHMEM_QUEUE_ERR_FULL) << "to " << d;
            EXPECT_EQ(push(d, base + room, d % 2 == 0), SHMEM_QUEUE_ERR_FULL) << "to " << d;
        }
        size_t in = 0, out = 0;
        ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
        EXPECT_EQ(out, (size_t)n * room * sizeof(int64_t));
        expect_all(shmem_queue_global_flush(q), 0);
        for (int s = 0; s < n; s++)
            for (int j = 0; j < room; j++) {
                int64_t x = -1;
                ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0) << "from " << s << " #" << j;
                EXPECT_EQ(x, dataq_val(s, me, base + j)) << "from " << s << " #" << j;
            }
        int64_t x = 0;
        EXPECT_EQ(shmem_queue_data_pop(q, &x, 1, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_EMPTY);
    }
    shmemx_queue_stats_t st;
    ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_EQ(st.full_returns, (uint64_t)(4 * n));
    EXPECT_EQ(st.ops_pushed, (uint64_t)(2 * n * room));
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST_F(Routed, EmptyFlushesAndOnePeSending)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_queue_config_t c = data_queue_cfg(256, 4);
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    for (int i = 0; i < 3; i++)
        expect_all(shmem_queue_global_flush(q), 0);
    EXPECT_EQ(shmem_queue_data_progress(q, SHMEM_TEAM_WORLD), 0); // no background flush
    const int sender = n - 1;
    if (me == sender)
        for (int d = 0; d < n; d++) {
            int32_t v = 1000 * d + 7;
            ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
        }
    expect_all(shmem_queue_global_flush(q), 0);
    size_t in = 0, out = 1;
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(in, 4u);
    EXPECT_EQ(out, 0u);
    int32_t v = 0;
    ASSERT_EQ(shmem_queue_data_pop(q, &v, 1, sender), 0);
    EXPECT_EQ(v, 1000 * me + 7);
    expect_all(shmem_queue_global_flush(q), 0);
    shmemx_queue_stats_t st;
    ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_EQ(st.flushes, 5u);
    EXPECT_EQ(st.ops_pushed, me == sender ? (uint64_t)n : 0u);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

// Room of 4 elements per destination and per source: FULL at the fifth push; a flush
// whose receivers hold 4 unpopped from each source moves nothing and says OVERFLOW on
// every PE; after pops of 1 (PE 0 pops none) part moves; nothing is lost or reordered.
void full_and_overflow()
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int room = 4;
    shmem_queue_config_t c = data_queue_cfg(room * sizeof(int64_t), sizeof(int64_t));
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    int64_t seq_out = 0; // same sequence to every destination
    auto push_all = [&](int k) {
        for (int j = 0; j < k; j++, seq_out++)
            for (int d = 0; d < n; d++) {
                int64_t v = dataq_val(me, d, seq_out);
                ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
            }
    };
    push_all(room);
    int64_t v = 0;
    for (int d = 0; d < n; d++)
        EXPECT_EQ(shmem_queue_data_push(q, &v, 1, d), SHMEM_QUEUE_ERR_FULL);
    shmem_queue_attr_t a;
    ASSERT_EQ(shmem_query_attr(q, &a), 0);
    EXPECT_EQ(a.available_elems, 0u);
    expect_all(shmem_queue_global_flush(q), 0); // all moved: rooms were empty
    push_all(room);
    // every incoming room is full: nothing fits anywhere
    expect_all(shmem_queue_global_flush(q), SHMEM_QUEUE_ERR_OVERFLOW);
    size_t in = 0, out = 0;
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(in, (size_t)n * room * 8);
    EXPECT_EQ(out, (size_t)n * room * 8);
    EXPECT_EQ(shmem_queue_data_push(q, &v, 1, 0), SHMEM_QUEUE_ERR_FULL); // still full
    std::vector<int64_t> next(n, 0);                                      // per source
    auto pop_from = [&](int s, int k) {
        for (int j = 0; j < k; j++) {
            int64_t x = -1;
            ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
            EXPECT_EQ(x, dataq_val(s, me, next[s])) << "from " << s;
            next[s]++;
        }
    };
    // PE 0 pops nothing; the others one from each source: only those move, one each
    if (me != 0)
        for (int s = 0; s < n; s++)
            pop_from(s, 1);
    expect_all(shmem_queue_global_flush(q), SHMEM_QUEUE_ERR_OVERFLOW); // nothing fits at PE 0
    for (int d = 0; d < n; d++) {
        ASSERT_EQ(shmem_query_data_size(q, &in, &out, d), 0);
        EXPECT_EQ(out, (size_t)(d == 0 ? room : room - 1) * 8) << "to " << d;
        EXPECT_EQ(in, (size_t)room * 8) << "from " << d; // PE 0 kept 4, the others 3 + 1
    }
    // everyone drains: the rest moves in order
    for (int s = 0; s < n; s++)
        pop_from(s, room);
    expect_all(shmem_queue_global_flush(q), 0);
    for (int s = 0; s < n; s++)
        pop_from(s, me == 0 ? room : room - 1);
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(in, 0u);
    EXPECT_EQ(out, 0u);
    for (int s = 0; s < n; s++)
        EXPECT_EQ(next[s], 2 * room);
    shmemx_queue_stats_t st;
    ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_EQ(st.bytes, (uint64_t)n * 2 * room * 8);
    EXPECT_EQ(st.full_returns, (uint64_t)n + 1);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST_F(Routed, FullAndOverflowWithoutLoss) { full_and_overflow(); }

// A flush skips its overflow reduction exactly when no PE of the team held unpopped data
// at its start (only such a PE can overflow), which every PE learns from the flag its
// count exchanges carry: so all skip it or none, and what one PE left unpopped still
// makes every PE reduce, and overflows there are still caught.
void overflow_reduction_skipped()
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_queue_config_t c = data_queue_cfg(2 * sizeof(int64_t), sizeof(int64_t));
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    if (mode_of(q) != ROUTED_MODE) { // a team the grid cannot route
        EXPECT_EQ(shmemi_queue_data_route_skipped(q, &s0), -1);
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
        return;
    }
    ASSERT_EQ(shmemi_queue_data_route_skipped(q, &s0), 0);
    // 1. everyone sends one element to everyone and pops everything: both flushes skip
    push_one_each(q, me, n, 1);
    expect_all(shmem_queue_global_flush(q), 0);
    ASSERT_EQ(shmemi_queue_data_route_skipped(q, &s1), 0);
    EXPECT_EQ(s1, s0 + 1);
    pop_one_each(q, me, n, 1);
    // 2. the last PE keeps what arrives; two elements from everyone then fill its room
    // per source: the flush after must reduce on every PE and report the overflow
    push_one_each(q, me, n, 2);
    expect_all(shmem_queue_global_flush(q), 0);
    ASSERT_EQ(shmemi_queue_data_route_skipped(q, &s2), 0);
    EXPECT_EQ(s2, s1 + 1);
    if (me != n - 1)
        pop_one_each(q, me, n, 2);
    for (int d = 0; d < n; d++) {
        int64_t v[2] = {dataq_val(me, d, 3), dataq_val(me, d, 4)};
        ASSERT_EQ(shmem_queue_data_push(q, v, 2, d), 0);
    }
    // every source sent the last PE two, where one fits: OVERFLOW on every PE
    expect_all(shmem_queue_global_flush(q), SHMEM_QUEUE_ERR_OVERFLOW);
    ASSERT_EQ(shmemi_queue_data_route_skipped(q, &s3), 0);
    EXPECT_EQ(s3, s2) << "PE " << me << " skipped the reduction with data unpopped on PE "
                      << n - 1;
    // nothing lost: the last PE has its round-2 element then the first of round 3; the
    // rest stays outgoing at the senders and arrives after a pop
    for (int s = 0; s < n; s++) {
        int64_t x = -1;
        if (me == n - 1) {
            ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
            EXPECT_EQ(x, dataq_val(s, me, 2));
        }
        ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
        EXPECT_EQ(x, dataq_val(s, me, 3));
        if (me != n - 1) {
            ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
            EXPECT_EQ(x, dataq_val(s, me, 4));
        }
    }
    expect_all(shmem_queue_global_flush(q), 0);
    if (me == n - 1)
        for (int s = 0; s < n; s++) {
            int64_t x = -1;
            ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
            EXPECT_EQ(x, dataq_val(s, me, 4));
        }
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}
TEST_F(Routed, OverflowReductionSkippedOnlyWhenNothingIsUnpopped) { overflow_reduction_skipped(); }

// Every hop of these teams (at most 16 PEs: at most 16 peers a hop) goes point to point
// by default; the test hook makes the node's hops (bit 0 of `collective`) or the
// column's or cross hop (bit 1) collective. Two hops a flush (three: node, cross,
// node), three flushes, the data exact (push_one_each and pop_one_each check it).
void hops_as_chosen(int collective)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_queue_config_t c = data_queue_cfg(4096, sizeof(int64_t));
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    uint64_t h[2] = {0, 0};
    if (mode_of(q) != ROUTED_MODE) { // a team the grid cannot route
        EXPECT_EQ(shmemi_queue_data_route_hops(q, h), -1);
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
        return;
    }
    for (int f = 0; f < 3; f++) {
        push_one_each(q, me, n, f);
        expect_all(shmem_queue_global_flush(q), 0);
        pop_one_each(q, me, n, f);
    }
    ASSERT_EQ(shmemi_queue_data_route_hops(q, h), 0);
    const uint64_t node_hops = SHMEMQ_TEST_ROUTE_HOPS - 1;
    uint64_t coll = 3u * ((collective & 1) * node_hops + (collective >> 1 & 1));
    EXPECT_EQ(h[1], coll);
    EXPECT_EQ(h[0], 3u * SHMEMQ_TEST_ROUTE_HOPS - coll);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}
TEST_F(Routed, HopsGoPointToPointByDefault) { hops_as_chosen(0); }

// The collective hop exchange (an MPI_Ialltoall of the counts, then MPI_Ialltoallv),
// which larger hops take (more than DQ_PLAN_HOP_P2P_MAX peers), forced by the test hook
// for both hops, or (RoutedColumnHopCollective) for the column's only, as at 1,024 PEs
// in nodes of 16: the same exact data, order, overflow and skipped-reduction rules.
template <int Bits> struct RoutedHopsForced : Routed {
    void SetUp() override
    {
        Routed::SetUp();
        shmemi_queue_data_route_test_coll = Bits;
    }
    void TearDown() override
    {
        shmemi_queue_data_route_test_coll = 0;
        Routed::TearDown();
    }
};
using RoutedCollectiveHops = RoutedHopsForced<3>;
using RoutedColumnHopCollective = RoutedHopsForced<2>;
TEST_F(RoutedCollectiveHops, HopsAreCollective) { hops_as_chosen(3); }
TEST_F(RoutedCollectiveHops, EveryPeToEveryPeExactAndInOrder)
{
    all_to_all(SHMEM_TEAM_WORLD, 4);
}
TEST_F(RoutedCollectiveHops, FullAndOverflowWithoutLoss) { full_and_overflow(); }
TEST_F(RoutedCollectiveHops, OverflowReductionSkippedOnlyWhenNothingIsUnpopped)
{
    overflow_reduction_skipped();
}
TEST_F(RoutedColumnHopCollective, OnlyTheColumnHopIsCollective) { hops_as_chosen(2); }
TEST_F(RoutedColumnHopCollective, EveryPeToEveryPeExactAndInOrder)
{
    all_to_all(SHMEM_TEAM_WORLD, 4);
}
TEST_F(RoutedColumnHopCollective, FullAndOverflowWithoutLoss) { full_and_overflow(); }
TEST_F(RoutedColumnHopCollective, OverflowReductionSkippedOnlyWhenNothingIsUnpopped)
{
    overflow_reduction_skipped();
}

// A destroyed routed queue's grown porter and staging buffers are kept, and a later
// routed queue whose buffers must grow takes them (a porter buffer copying what it held
// already): its data still exact and in order.
TEST_F(Routed, GrownBuffersServeTheNextRoutedQueue)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    // the porter buffers' size at create (usage of a first queue), so that each porter
    // buffer gets 4 times that: pushes to alternating destinations, a 16-byte run each
    shmem_queue_config_t c = data_queue_cfg(8, sizeof(int64_t));
    shmem_queue_t q0 = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q0, &c, SHMEM_TEAM_WORLD), 0);
    shmemx_queue_usage_t u;
    ASSERT_EQ(shmemx_queue_usage(q0, &u), 0);
    EXPECT_EQ(shmem_queue_data_destroy(&q0, SHMEM_TEAM_WORLD), 0);
    uint64_t porters = u.buffers ? u.buffers : 1, proom = u.buffers ? u.buffer_bytes / porters : 0;
    const int k = (int)(4 * proom / 16 / ((uint64_t)n / porters)) + 1024;
    c = data_queue_cfg((uint64_t)k * sizeof(int64_t), sizeof(int64_t));
    uint64_t before = shmemi_queue_data_rbuf_adopted;
    int routed = 1;
    for (int round = 0; round < 2; round++) {
        shmem_queue_t q = nullptr;
        ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
        routed = mode_of(q) == ROUTED_MODE;
        for (int j = 0; j < k; j++)
            for (int d = 0; d < n; d++) {
                int64_t v = dataq_val(me, d, round * 100000 + j); // not what the kept buffers hold
                ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
            }
        expect_all(shmem_queue_global_flush(q), 0);
        for (int s = 0; s < n; s++)
            for (int j = 0; j < k; j++) {
                int64_t x = -1;
                ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
                ASSERT_EQ(x, dataq_val(s, me, round * 100000 + j))
                    << "round " << round << " from " << s << " #" << j;
            }
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    }
    if (routed) { // the second queue grew into the first one's buffers
        EXPECT_GT(shmemi_queue_data_rbuf_adopted, before);
    }
}

// A team that is not node-major (as a launcher placing ranks round robin makes it; the
// library's test hook groups team PE p on node (2 - 1 - p % 2)): the grid is a table of
// one int per PE, records arrive in grid order, not source order, and still every
// source's data comes in order, ANY_PE lowest source first, overflow without loss.
struct RoutedNotNodeMajor : Routed {
    void SetUp() override
    {
        Routed::SetUp();
        shmemi_queue_data_route_test_nodes = 2;
    }
    void TearDown() override
    {
        shmemi_queue_data_route_test_nodes = 0;
        Routed::TearDown();
    }
};

TEST_F(RoutedNotNodeMajor, EveryPeToEveryPeExactAndInOrder) { all_to_all(SHMEM_TEAM_WORLD, 4); }
TEST_F(RoutedNotNodeMajor, FullAndOverflowWithoutLoss) { full_and_overflow(); }

// Sources that come and go: flush 1 from the odd PEs, of which each receiver pops one;
// flush 2 from the even PEs and the last, merged with what the odd ones left unpopped.
// Per source in order, ANY_PE lowest source first, sizes per source exact; the model's
// meta plus the tracking (plus the grid table when not node-major) is the usage's.
void sparse_sources(int not_node_major)
{
    const int me = shmem_my_pe(), np = shmem_n_pes();
    shmem_queue_config_t c = data_queue_cfg(0, sizeof(int64_t));
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    auto sends2 = [&](int s) { return s % 2 == 0 || s == np - 1; };
    if (me % 2 == 1)
        for (int d = 0; d < np; d++)
            for (int j = 0; j < 3; j++) {
                int64_t v = dataq_val(me, d, j);
                ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
            }
    expect_all(shmem_queue_global_flush(q), 0);
    for (int s = 1; s < np; s += 2) {
        int64_t x = -1;
        ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
        EXPECT_EQ(x, dataq_val(s, me, 0));
    }
    if (sends2(me))
        for (int d = np - 1; d >= 0; d--) // first pushed to the highest
            for (int j = 10; j < 12; j++) {
                int64_t v = dataq_val(me, d, j);
                ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
            }
    expect_all(shmem_queue_global_flush(q), 0);
    std::vector<int64_t> want;
    for (int s = 0; s < np; s++) {
        size_t in = 0, out = 1;
        ASSERT_EQ(shmem_query_data_size(q, &in, &out, s), 0);
        EXPECT_EQ(in, 8u * ((s % 2 ? 2 : 0) + (sends2(s) ? 2 : 0))) << "from " << s;
        EXPECT_EQ(out, 0u);
        if (s % 2)
            want.push_back(dataq_val(s, me, 1)), want.push_back(dataq_val(s, me, 2));
        if (sends2(s))
            want.push_back(dataq_val(s, me, 10)), want.push_back(dataq_val(s, me, 11));
    }
    for (size_t i = 0; i < want.size(); i++) {
        int64_t x = -1;
        ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, SHMEM_QUEUE_ANY_PE), 0);
        EXPECT_EQ(x, want[i]) << "#" << i;
    }
    int64_t x;
    EXPECT_EQ(shmem_queue_data_pop(q, &x, 1, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_EMPTY);
    // nodes as grouped: n consecutive PEs (SHMEMQ_NODE_PES), or np / 2 in the test hook
    const int n = not_node_major ? (np > 1 ? np / 2 : 1) : shmem_team_n_pes(SHMEM_TEAM_SHARED);
    const uint64_t grid = not_node_major && np > 1 ? (uint64_t)np * sizeof(int) : 0;
    shmemx_queue_model_t m;
    ASSERT_EQ(shmemx_queue_model(&c, ROUTED_MODE, np, n, &m), 0);
    shmemx_queue_usage_t u;
    ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
    EXPECT_EQ(u.mode, (uint32_t)ROUTED_MODE);
    EXPECT_EQ(u.meta_bytes, m.meta_bytes + m.track_bytes + grid);
    EXPECT_EQ(u.held_bytes, 0u);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

// The destination table starts at 2 entries: every PE pushing to all np destinations
// (in an order of its own) makes it grow past that from 3 PEs; FULL still comes per
// destination at the 5th element, the sizes per destination are exact, and all arrives.
TEST_F(Routed, DestinationTableGrowsAndKeepsFullPerDestination)
{
    const int me = shmem_my_pe(), np = shmem_n_pes(), room = 4;
    shmem_queue_config_t c = data_queue_cfg(room * sizeof(int64_t), sizeof(int64_t));
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    shmemx_queue_usage_t u1, u2;
    int64_t v = dataq_val(me, me, 0);
    ASSERT_EQ(shmem_queue_data_push(q, &v, 1, me), 0);
    ASSERT_EQ(shmemx_queue_usage(q, &u1), 0);
    for (int j = 0; j < room; j++)
        for (int i = 0; i < np; i++) {
            // every PE its own order (odd PEs go down), each destination once per round
            int d = me % 2 ? (me + 2 * np - 1 - i) % np : (me + 1 + i) % np;
            if (j == 0 && d == me)
                continue; // pushed above
            v = dataq_val(me, d, j);
            ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
        }
    ASSERT_EQ(shmemx_queue_usage(q, &u2), 0);
    EXPECT_EQ(u2.held_bytes, (uint64_t)np * room * 8);
    if (np > 2) {
        EXPECT_GT(u2.scratch_bytes, u1.scratch_bytes); // the table grew
    }
    for (int d = 0; d < np; d++) {
        EXPECT_EQ(shmem_queue_data_push(q, &v, 1, d), SHMEM_QUEUE_ERR_FULL) << "to " << d;
        size_t in = 1, out = 0;
        ASSERT_EQ(shmem_query_data_size(q, &in, &out, d), 0);
        EXPECT_EQ(out, (size_t)room * 8) << "to " << d;
        EXPECT_EQ(in, 0u);
    }
    expect_all(shmem_queue_global_flush(q), 0);
    for (int s = 0; s < np; s++)
        for (int j = 0; j < room; j++) {
            int64_t x = -1;
            ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
            EXPECT_EQ(x, dataq_val(s, me, j)) << "from " << s << " #" << j;
        }
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST_F(Routed, SparseSourcesMergeInOrder) { sparse_sources(0); }
TEST_F(RoutedNotNodeMajor, SparseSourcesMergeInOrder) { sparse_sources(1); }

// More than a porter buffer's worth for every destination at once: porter buffers grow,
// every element arrives, in order; usage shows the buffers grew and the data held.
TEST_F(Routed, PorterBuffersGrowAndLoseNothing)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int k = 6000; // 48,000 bytes per destination
    shmem_queue_config_t c = data_queue_cfg(k * sizeof(int64_t), sizeof(int64_t));
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    shmemx_queue_usage_t u0;
    ASSERT_EQ(shmemx_queue_usage(q, &u0), 0);
    for (int j = 0; j < k; j++)
        for (int d = 0; d < n; d++) {
            int64_t v = dataq_val(me, d, j);
            ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
        }
    shmemx_queue_usage_t u1;
    ASSERT_EQ(shmemx_queue_usage(q, &u1), 0);
    EXPECT_EQ(u1.held_bytes, (uint64_t)n * k * 8);
    EXPECT_GE(u1.buffer_bytes, (uint64_t)n * k * 8); // runs and their headers
    EXPECT_GE(u1.buffer_bytes, u0.buffer_bytes);
    expect_all(shmem_queue_global_flush(q), 0);
    // what arrived stays where it landed (the staging) while nothing else is flushed;
    // an empty flush gives the unpopped data memory of its own, popping frees it
    shmemx_queue_usage_t ua, ub, uc;
    ASSERT_EQ(shmemx_queue_usage(q, &ua), 0);
    EXPECT_GE(ua.scratch_bytes, (uint64_t)n * k * 8);
    expect_all(shmem_queue_global_flush(q), 0);
    ASSERT_EQ(shmemx_queue_usage(q, &ub), 0);
    EXPECT_EQ(ub.scratch_bytes, ua.scratch_bytes + (uint64_t)n * k * 8);
    EXPECT_EQ(ub.held_bytes, (uint64_t)n * k * 8);
    for (int s = n - 1; s >= 0; s--)
        for (int j = 0; j < k; j++) {
            int64_t x = -1;
            ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
            ASSERT_EQ(x, dataq_val(s, me, j)) << "from " << s << " #" << j;
        }
    expect_all(shmem_queue_global_flush(q), 0);
    ASSERT_EQ(shmemx_queue_usage(q, &uc), 0);
    EXPECT_EQ(uc.held_bytes, 0u);
    EXPECT_EQ(uc.scratch_bytes, ua.scratch_bytes); // popped-empty FIFOs freed
    // half popped, then more arrives behind it: both halves in order
    for (int j = 0; j < 4; j++)
        for (int d = 0; d < n; d++) {
            int64_t v = dataq_val(me, d, 100 + j);
            ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
        }
    expect_all(shmem_queue_global_flush(q), 0);
    pop_one_each(q, me, n, 100);
    push_one_each(q, me, n, 104);
    expect_all(shmem_queue_global_flush(q), 0);
    for (int s = 0; s < n; s++)
        for (int j = 1; j < 5; j++) {
            int64_t x = -1;
            ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
            EXPECT_EQ(x, dataq_val(s, me, 100 + j));
        }
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

// Teams split from the world: even PEs and odd PEs (strided); the whole exchange runs
// in each. A team whose nodes differ in size (the first three PEs of two nodes of two)
// stays direct, and works.
TEST_F(Routed, StridedTeams)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens),
              0);
    if (n > 1) {
        ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odds), 0);
    }
    shmem_team_t mine = me % 2 == 0 ? evens : odds;
    with_agree_comm(me % 2, [&] { all_to_all(mine, 3); });
    if (evens != SHMEM_TEAM_INVALID)
        shmem_team_destroy(evens);
    if (odds != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odds);

    if (n >= 3) {
        shmem_team_t first3 = SHMEM_TEAM_INVALID;
        ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 3, nullptr, 0, &first3), 0);
        with_agree_comm(me < 3 ? 0 : MPI_UNDEFINED, [&] {
            shmem_queue_config_t c = data_queue_cfg(64, 8);
            shmem_queue_t q = nullptr;
            ASSERT_EQ(shmem_queue_data_create(&q, &c, first3), 0);
            int npn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
            int uneven = 3 % npn != 0 && npn < 3; // nodes of 2 (or 4 cut to 3: one node)
            EXPECT_EQ(mode_of(q), uneven ? (uint32_t)SHMEMX_QUEUE_MODE_DATA_FLAT
                                         : (uint32_t)ROUTED_MODE);
            EXPECT_EQ(shmem_queue_data_destroy(&q, first3), 0);
            all_to_all(first3, 2);
            shmem_team_destroy(first3);
        });
    }
}

// max_bytes of 3 GiB: P x (room + header) exceeds int, so every hop takes the
// large-count exchange (MPI_Ialltoallv_c); routed queues allocate no rooms, so this is
// cheap. Data still exact and in order.
TEST_F(Routed, HugeRoomTakesTheLargeCountExchange)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_queue_config_t c = data_queue_cfg(3ull << 30, sizeof(int64_t));
    shmem_queue_t q = nullptr;
#if MPI_VERSION >= 4
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    ASSERT_EQ(mode_of(q), (uint32_t)ROUTED_MODE);
#else
    // No MPI_Ialltoallv_c: the queue is direct, whose exchange rounds move such rooms, and
    // which allocates its 2 P rooms at create: made where the host lets 2 P x 3 GiB be
    // reserved, else NOMEM on every PE (seen at 16 PEs), never a job ended at a flush.
    int rc = shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD);
    int any_nomem = 0, mine_nomem = rc == SHMEM_QUEUE_ERR_NOMEM;
    MPI_Allreduce(&mine_nomem, &any_nomem, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ASSERT_EQ(rc, any_nomem ? SHMEM_QUEUE_ERR_NOMEM : 0);
    if (any_nomem)
        return;
    ASSERT_EQ(mode_of(q), (uint32_t)SHMEMX_QUEUE_MODE_DATA_FLAT);
#endif
    for (int j = 0; j < 5; j++)
        for (int d = 0; d < n; d++) {
            int64_t v = dataq_val(me, d, j);
            ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
        }
    expect_all(shmem_queue_global_flush(q), 0);
    for (int s = 0; s < n; s++)
        for (int j = 0; j < 5; j++) {
            int64_t x = -1;
            ASSERT_EQ(shmem_queue_data_pop(q, &x, 1, s), 0);
            EXPECT_EQ(x, dataq_val(s, me, j));
        }
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST_F(Routed, DestroyWithDataSaysDataloss)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_queue_config_t c = data_queue_cfg(64, 8);
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    int64_t v = 5;
    ASSERT_EQ(shmem_queue_data_push(q, &v, 1, (me + 1) % n), 0);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_DATALOSS);
    EXPECT_EQ(q, nullptr);
}


} // namespace
