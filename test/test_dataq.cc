// test_dataq.cc: data queues: create/config agreement, push/pop order, FULL, EMPTY,
// OVERFLOW without loss, ANY_PE pops, query sizes, background flush via progress,
// teams other than WORLD, every transfer mode, destroy with data, bad input, an
// index-gather round trip through two data queues, and how a flush waits for a late PE.
#include <gtest/gtest.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <sched.h>
#include <vector>
#include <unistd.h>
#include "test_util.h"

// progress.c: naps taken by this process's waits; coll_node.c: whether a data-queue
// flush's waits nap (SHMEMQ_COLL_WAIT, and the machine's PEs against its cores)
extern "C" uint64_t shmemi_wait_naps;
extern "C" int shmemi_coll_waits_nap(void);

namespace {

// Team geometry through MPI, built the way the library builds SHMEM_TEAM_SHARED
// (team routines live in another area): PE numbers are ranks of the split.
struct TeamGeom {
    int me, n;
};
TeamGeom geom(shmem_team_t team)
{
    // the team's own numbering (SHMEM_TEAM_SHARED follows SHMEMQ_NODE_PES, not MPI's node)
    return {shmem_team_my_pe(team), shmem_team_n_pes(team)};
}


int64_t reduce(int64_t v, MPI_Op op) { return yielding_allreduce(v, op); }

// test/dataq_nbx.sh runs this binary with SHMEMQ_DATAQ_EXCHANGE=nbx.
bool exchange_is_nbx()
{
    const char *e = std::getenv("SHMEMQ_DATAQ_EXCHANGE");
    return e && std::strcmp(e, "nbx") == 0;
}

// Push k elements to every peer, flush, pop per source and check order.
void order_roundtrip(shmem_team_t team, int k, uint64_t room_bytes, uint64_t *bursts = nullptr)
{
    TeamGeom g = geom(team);
    shmem_queue_config_t c = data_queue_cfg(room_bytes, sizeof(int64_t));
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, team), 0);
    ASSERT_NE(q, nullptr);
    for (int s = 0; s < k; s++)
        for (int p = 0; p < g.n; p++) {
            int64_t v = dataq_val(g.me, p, s);
            ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
        }
    size_t in = 1, out = 0;
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(in, 0u);
    EXPECT_EQ(out, (size_t)k * g.n * sizeof(int64_t));
    expect_all_rc(shmem_queue_global_flush(q), 0);
    shmemx_queue_stats_t st;
    EXPECT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_EQ(st.ops_pushed, (uint64_t)k * g.n);
    EXPECT_EQ(st.bytes, (uint64_t)k * g.n * sizeof(int64_t));
    EXPECT_EQ(st.flushes, 1u);
    if (bursts)
        *bursts = st.bursts;
    EXPECT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(out, 0u);
    EXPECT_EQ(in, (size_t)k * g.n * sizeof(int64_t));
    std::vector<int64_t> buf(k);
    for (int p = g.n - 1; p >= 0; p--) { // any source order works
        ASSERT_EQ(shmem_query_data_size(q, &in, &out, p), 0);
        EXPECT_EQ(in, (size_t)k * sizeof(int64_t));
        // in two pieces, to check the FIFO keeps its place
        int first = k / 3;
        ASSERT_EQ(shmem_queue_data_pop(q, buf.data(), first, p), 0);
        ASSERT_EQ(shmem_queue_data_pop(q, buf.data() + first, k - first, p), 0);
        for (int s = 0; s < k; s++)
            ASSERT_EQ(buf[s], dataq_val(p, g.me, s)) << "from " << p << " seq " << s;
    }
    int64_t x;
    EXPECT_EQ(shmem_queue_data_pop(q, &x, 1, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_EMPTY);
    EXPECT_EQ(shmem_queue_data_destroy(&q, team), 0);
    EXPECT_EQ(q, nullptr);
}

} // namespace

TEST(DataQueue, DefaultConfigAndAttr)
{
    {
        // the exchange is the one asked for (test/dataq_nbx.sh asks for nbx; the
        // default, auto, is alltoallv at these PE counts)
        shmem_queue_config_t c = data_queue_cfg(4096, 8);
        shmem_queue_t q = nullptr;
        ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
        shmemx_queue_usage_t u;
        ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
        EXPECT_EQ(u.mode, exchange_is_nbx() ? (uint32_t)SHMEMX_QUEUE_MODE_DATA_NBX
                                            : (uint32_t)SHMEMX_QUEUE_MODE_DATA_FLAT);
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    }
    shmem_queue_config_t c;
    std::memset(&c, 0, sizeof c);
    c.qtype = SHMEM_QUEUE_DATA; // everything else zero: byte elements, default room
    shmem_queue_t q = nullptr, q2 = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    ASSERT_EQ(shmem_queue_data_create(&q2, &c, SHMEM_TEAM_WORLD), 0);
    shmem_queue_attr_t a, a2;
    ASSERT_EQ(shmem_query_attr(q, &a), 0);
    ASSERT_EQ(shmem_query_attr(q2, &a2), 0);
    EXPECT_NE(a.queue_id, a2.queue_id);
    EXPECT_EQ(a.outstanding_elems, 0u);
    // default: at least 4 KiB per peer
    EXPECT_GE(a.available_elems, 4096u * shmem_n_pes());
    char bytes[5] = {1, 2, 3, 4, 5};
    ASSERT_EQ(shmem_queue_data_push(q, bytes, 5, 0), 0);
    ASSERT_EQ(shmem_query_attr(q, &a2), 0);
    EXPECT_EQ(a2.outstanding_elems, 5u);
    EXPECT_EQ(a2.available_elems, a.available_elems - 5);
    size_t sz = 0;
    ASSERT_EQ(shmem_query_size(q, &sz), 0);
    EXPECT_EQ(sz, 5u);
    expect_all_rc(shmem_queue_global_flush(q), 0);
    ASSERT_EQ(shmem_query_size(q, &sz), 0);
    EXPECT_EQ(sz, 0u);
    if (shmem_my_pe() == 0) {
        char got[5 * 8];
        ASSERT_EQ(shmem_queue_data_pop(q, got, 5 * shmem_n_pes(), SHMEM_QUEUE_ANY_PE), 0);
        for (int i = 0; i < 5 * shmem_n_pes(); i++)
            EXPECT_EQ(got[i], bytes[i % 5]);
    }
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    EXPECT_EQ(shmem_queue_data_destroy(&q2, SHMEM_TEAM_WORLD), 0);
    EXPECT_STREQ(shmemx_queue_strerror(SHMEM_QUEUE_ERR_OVERFLOW) != nullptr ? "ok" : "", "ok");
}

TEST(DataQueue, OrderPerSource) { order_roundtrip(SHMEM_TEAM_WORLD, 100, 4096); }

TEST(DataQueue, MaxBytesRoundsDownToElements)
{
    shmem_queue_config_t c = data_queue_cfg(100, 24); // 4 whole elements of 24 bytes
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    char e[24 * 5] = {0};
    EXPECT_EQ(shmem_queue_data_push(q, e, 5, 0), SHMEM_QUEUE_ERR_ARG); // never fits
    EXPECT_EQ(shmem_queue_data_push(q, e, 4, 0), 0);
    EXPECT_EQ(shmem_queue_data_push(q, e, 1, 0), SHMEM_QUEUE_ERR_FULL);
    shmem_queue_attr_t a;
    ASSERT_EQ(shmem_query_attr(q, &a), 0);
    EXPECT_EQ(a.outstanding_elems, 4u);
    EXPECT_EQ(a.available_elems, 4u * (shmem_n_pes() - 1));
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_DATALOSS);
    EXPECT_EQ(q, nullptr);
    // smaller than one element: refused on every PE
    c = data_queue_cfg(10, 24);
    q = nullptr;
    expect_all_rc(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(q, nullptr);
}

TEST(DataQueue, FullAndEmptyChangeNothing)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    shmem_queue_config_t c = data_queue_cfg(8 * 8, 8); // 8 int64 per peer
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    int dst = (me + 1) % n;
    int64_t v[8];
    for (int i = 0; i < 8; i++)
        v[i] = dataq_val(me, dst, i);
    ASSERT_EQ(shmem_queue_data_push(q, v, 5, dst), 0);
    EXPECT_EQ(shmem_queue_data_push(q, v + 5, 4, dst), SHMEM_QUEUE_ERR_FULL);
    size_t in, out;
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, dst), 0);
    EXPECT_EQ(out, 5 * 8u);
    ASSERT_EQ(shmem_queue_data_push(q, v + 5, 3, dst), 0);
    EXPECT_EQ(shmem_queue_data_push(q, v, 1, dst), SHMEM_QUEUE_ERR_FULL);
    // other peers' rooms are separate
    if (n > 1) {
        EXPECT_EQ(shmem_queue_data_push(q, v, 1, (dst + 1) % n), 0);
    }
    expect_all_rc(shmem_queue_global_flush(q), 0);
    int src = (me + n - 1) % n;
    int64_t got[9];
    EXPECT_EQ(shmem_queue_data_pop(q, got, 9, src), SHMEM_QUEUE_ERR_EMPTY);
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, src), 0);
    EXPECT_EQ(in, 8 * 8u); // the extra element comes from PE me-2, never from src
    ASSERT_EQ(shmem_queue_data_pop(q, got, 8, src), 0);
    for (int i = 0; i < 8; i++)
        EXPECT_EQ(got[i], dataq_val(src, me, i));
    // drain whatever else came (the extra element from PE me-2)
    while (shmem_queue_data_pop(q, got, 1, SHMEM_QUEUE_ANY_PE) == 0)
        ;
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST(DataQueue, OverflowKeepsEverythingThenDelivers)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    const int R = 16; // elements of room per peer
    shmem_queue_config_t c = data_queue_cfg(R * 8, 8);
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    auto push_range = [&](int from, int to) {
        for (int p = 0; p < n; p++)
            for (int s = from; s < to; s++) {
                int64_t v = dataq_val(me, p, s);
                ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
            }
    };
    push_range(0, R);
    expect_all_rc(shmem_queue_global_flush(q), 0); // exactly fills incoming
    push_range(R, 2 * R);
    // incoming is full everywhere: nothing moves, every PE says OVERFLOW
    expect_all_rc(shmem_queue_global_flush(q), SHMEM_QUEUE_ERR_OVERFLOW);
    size_t in, out;
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(out, (size_t)R * n * 8);
    EXPECT_EQ(in, (size_t)R * n * 8);
    // pop 5 from each source: 5 more fit, the rest stays: still OVERFLOW
    std::vector<int64_t> got(R);
    std::vector<int> next(n, 0);
    for (int p = 0; p < n; p++) {
        ASSERT_EQ(shmem_queue_data_pop(q, got.data(), 5, p), 0);
        for (int s = 0; s < 5; s++)
            ASSERT_EQ(got[s], dataq_val(p, me, next[p]++));
    }
    expect_all_rc(shmem_queue_global_flush(q), SHMEM_QUEUE_ERR_OVERFLOW);
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(out, (size_t)(R - 5) * n * 8);
    EXPECT_EQ(in, (size_t)R * n * 8);
    // pop everything, flush again: the rest arrives, in order
    for (int p = 0; p < n; p++) {
        ASSERT_EQ(shmem_queue_data_pop(q, got.data(), R, p), 0);
        for (int s = 0; s < R; s++)
            ASSERT_EQ(got[s], dataq_val(p, me, next[p]++));
    }
    expect_all_rc(shmem_queue_global_flush(q), 0);
    for (int p = 0; p < n; p++) {
        ASSERT_EQ(shmem_queue_data_pop(q, got.data(), R - 5, p), 0);
        for (int s = 0; s < R - 5; s++)
            ASSERT_EQ(got[s], dataq_val(p, me, next[p]++));
        EXPECT_EQ(next[p], 2 * R);
    }
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(in + out, 0u);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST(DataQueue, OwnDataSameAsPeersWhateverIsWaiting)
{
    // A PE's data for itself never goes through MPI: with its incoming room empty the
    // flush hands the outgoing room over whole, otherwise it copies what fits. Every
    // step pushes the same to every PE, so each source's FIFO must behave the same,
    // self included: partly popped rooms, OVERFLOW with a remainder, and pushes made
    // while a background flush is in flight.
    const int n = shmem_n_pes(), me = shmem_my_pe();
    const int R = 8; // elements of room per peer
    shmem_queue_config_t c = data_queue_cfg(R * 8, 8);
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    int64_t pushed = 0;
    std::vector<int64_t> popped(n, 0);
    auto push = [&](int k) {
        for (int s = 0; s < k; s++, pushed++)
            for (int p = 0; p < n; p++) {
                int64_t v = dataq_val(me, p, pushed);
                ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
            }
    };
    auto pop = [&](int k) {
        for (int p = 0; p < n; p++) {
            std::vector<int64_t> got(k);
            ASSERT_EQ(shmem_queue_data_pop(q, got.data(), k, p), 0) << "from " << p;
            for (int s = 0; s < k; s++)
                ASSERT_EQ(got[s], dataq_val(p, me, popped[p]++)) << "from " << p;
        }
    };
    auto sizes = [&](size_t want_in, size_t want_out) {
        for (int p = 0; p < n; p++) {
            size_t in = 0, out = 0;
            ASSERT_EQ(shmem_query_data_size(q, &in, &out, p), 0);
            EXPECT_EQ(in, want_in * 8) << "from/to " << p;
            EXPECT_EQ(out, want_out * 8) << "from/to " << p;
        }
    };
    push(3);
    expect_all_rc(shmem_queue_global_flush(q), 0); // empty incoming rooms
    sizes(3, 0);
    pop(1);
    push(4);
    expect_all_rc(shmem_queue_global_flush(q), 0); // 2 waiting, 4 arrive behind them
    sizes(6, 0);
    push(5);
    expect_all_rc(shmem_queue_global_flush(q), SHMEM_QUEUE_ERR_OVERFLOW); // 2 fit, 3 stay
    sizes(8, 3);
    pop(8);
    expect_all_rc(shmem_queue_global_flush(q), 0);
    sizes(3, 0);
    pop(3);
    // background flush from empty rooms; pushes made meanwhile arrive by the global
    // flush at the latest, behind the others
    push(2);
    EXPECT_EQ(shmem_queue_data_progress(q, SHMEM_TEAM_WORLD), 0);
    push(2);
    expect_all_rc(shmem_queue_global_flush(q), 0);
    sizes(4, 0);
    pop(4);
    for (int p = 0; p < n; p++)
        EXPECT_EQ(popped[p], pushed);
    sizes(0, 0);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST(DataQueue, AnyPePopsSpanSourcesLowestFirst)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    shmem_queue_config_t c = data_queue_cfg(1024, 8);
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    for (int p = 0; p < n; p++)
        for (int s = 0; s <= me; s++) { // PE me sends me+1 elements
            int64_t v = dataq_val(me, p, s);
            ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
        }
    expect_all_rc(shmem_queue_global_flush(q), 0);
    int total = n * (n + 1) / 2;
    std::vector<int64_t> got(total + 1);
    EXPECT_EQ(shmem_queue_data_pop(q, got.data(), total + 1, SHMEM_QUEUE_ANY_PE),
              SHMEM_QUEUE_ERR_EMPTY);
    // first take 2 from source 0's... ANY_PE with a count that ends inside a source
    int first = total > 2 ? 2 : 1;
    ASSERT_EQ(shmem_queue_data_pop(q, got.data(), first, SHMEM_QUEUE_ANY_PE), 0);
    ASSERT_EQ(shmem_queue_data_pop(q, got.data() + first, total - first, SHMEM_QUEUE_ANY_PE), 0);
    int i = 0;
    for (int p = 0; p < n; p++)
        for (int s = 0; s <= p; s++)
            EXPECT_EQ(got[i++], dataq_val(p, me, s));
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST(DataQueue, SharedTeamRelativeNumbering)
{
    // SHMEM_TEAM_SHARED: on one node it holds every PE, but the test only assumes
    // team numbering, so it runs on any team.
    order_roundtrip(SHMEM_TEAM_SHARED, 37, 37 * 8);
    TeamGeom g = geom(SHMEM_TEAM_SHARED);
    shmem_queue_config_t c = data_queue_cfg(64, 8);
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_SHARED), 0);
    int64_t v = 1;
    EXPECT_EQ(shmem_queue_data_push(q, &v, 1, g.n), SHMEM_QUEUE_ERR_ARG);
    // progress and destroy check the team
    EXPECT_EQ(shmem_queue_data_progress(q, SHMEM_TEAM_WORLD == SHMEM_TEAM_SHARED ? nullptr
                                                                                 : SHMEM_TEAM_WORLD),
              SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_ARG);
    EXPECT_NE(q, nullptr);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_SHARED), 0);
}

TEST(DataQueue, TransferModes)
{
    // Every way of issuing the payload exchange moves the same bytes: alltoallv, the
    // MPI-4 large-count call (rounds with MPI 3), and alltoallw rounds with a tiny
    // chunk so that one flush needs many rounds.
    const char *modes[] = {"v", "c", "rounds"};
    for (const char *m : modes) {
        setenv("SHMEMQ_DATAQ_XFER", m, 1);
        setenv("SHMEMQ_DATAQ_CHUNK", "24", 1);
        uint64_t bursts = 0;
        order_roundtrip(SHMEM_TEAM_WORLD, 50, 50 * 8, &bursts);
        // 400 bytes per pair in chunks of 24: 17 rounds; otherwise one call (MPI 3 has
        // no MPI_Ialltoallv_c: "c" falls back to rounds). A PE's data for itself never
        // goes through MPI, so alone it needs no round at all.
        bool rounds = std::strcmp(m, "rounds") == 0 || (MPI_VERSION < 4 && std::strcmp(m, "c") == 0);
        // the sparse exchange (SHMEMQ_DATAQ_EXCHANGE=nbx, test/dataq_nbx.sh) has no
        // rounds: one message per destination, one exchange per flush
        if (exchange_is_nbx())
            EXPECT_EQ(bursts, 1u) << m;
        else
            EXPECT_EQ(bursts, rounds ? (shmem_n_pes() > 1 ? 17u : 0u) : 1u) << m;
        // overflow handling in this mode too
        const int n = shmem_n_pes(), me = shmem_my_pe();
        shmem_queue_config_t c = data_queue_cfg(40, 8); // 5 elements per peer
        shmem_queue_t q;
        ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
        for (int round = 0; round < 2; round++) {
            for (int p = 0; p < n; p++)
                for (int s = 0; s < 5; s++) {
                    int64_t v = dataq_val(me, p, round * 5 + s);
                    ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
                }
            expect_all_rc(shmem_queue_global_flush(q), round == 0 ? 0 : SHMEM_QUEUE_ERR_OVERFLOW);
        }
        std::vector<int64_t> got(10);
        for (int p = 0; p < n; p++) {
            ASSERT_EQ(shmem_queue_data_pop(q, got.data(), 5, p), 0);
            EXPECT_EQ(shmem_queue_data_pop(q, got.data(), 1, p), SHMEM_QUEUE_ERR_EMPTY);
        }
        expect_all_rc(shmem_queue_global_flush(q), 0);
        for (int p = 0; p < n; p++) {
            ASSERT_EQ(shmem_queue_data_pop(q, got.data() + 5, 5, p), 0);
            for (int s = 5; s < 10; s++)
                ASSERT_EQ(got[s], dataq_val(p, me, s));
        }
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    }
    unsetenv("SHMEMQ_DATAQ_XFER");
    unsetenv("SHMEMQ_DATAQ_CHUNK");
}

TEST(DataQueue, ProgressOverlapsPushes)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    shmem_queue_config_t c = data_queue_cfg(4096, 8);
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    int64_t seq = 0;
    auto push_some = [&](int k) {
        for (int s = 0; s < k; s++, seq++)
            for (int p = 0; p < n; p++) {
                int64_t v = dataq_val(me, p, seq);
                ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
            }
    };
    push_some(10);
    int rc = shmem_queue_data_progress(q, SHMEM_TEAM_WORLD); // starts a background flush
    EXPECT_TRUE(rc == 0);
    push_some(10); // after the snapshot: waits for the next flush, behind the first 10
    // PEs call progress different numbers of times: the global flush reconciles
    for (int i = 0; i < me * 3; i++) {
        rc = shmem_queue_data_progress(q, SHMEM_TEAM_WORLD);
        EXPECT_EQ(rc, 0);
        push_some(1);
    }
    expect_all_rc(shmem_queue_global_flush(q), 0);
    size_t in, out;
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(out, 0u);
    for (int p = 0; p < n; p++) {
        size_t pin, pout;
        ASSERT_EQ(shmem_query_data_size(q, &pin, &pout, p), 0);
        int k = 20 + p * 3;
        ASSERT_EQ(pin, (size_t)k * 8);
        std::vector<int64_t> got(k);
        ASSERT_EQ(shmem_queue_data_pop(q, got.data(), k, p), 0);
        for (int s = 0; s < k; s++)
            ASSERT_EQ(got[s], dataq_val(p, me, s));
    }
    // pops while a background flush is in flight, then completion by progress alone
    push_some(3);
    EXPECT_EQ(shmem_queue_data_progress(q, SHMEM_TEAM_WORLD), 0);
    std::vector<int64_t> early(1);
    shmem_queue_data_pop(q, early.data(), 0, SHMEM_QUEUE_ANY_PE); // pops are allowed meanwhile
    expect_all_rc(shmem_queue_global_flush(q), 0);
    std::vector<int64_t> rest(3 * n);
    ASSERT_EQ(shmem_queue_data_pop(q, rest.data(), 3 * n, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST(DataQueue, ProgressAloneDelivers)
{
    // Background flushes complete inside progress calls: loop until everything sent to
    // me has arrived (PEs leave after different numbers of calls; the global flush
    // then reconciles the flushes started).
    const int n = shmem_n_pes(), me = shmem_my_pe();
    shmem_queue_config_t c = data_queue_cfg(1024, 8);
    c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    for (int p = 0; p < n; p++)
        for (int s = 0; s < 4; s++) {
            int64_t v = dataq_val(me, p, s);
            ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
        }
    size_t in = 0, out = 0;
    long calls = 0;
    while (in < (size_t)n * 4 * 8) {
        ASSERT_EQ(shmem_queue_data_progress(q, SHMEM_TEAM_WORLD), 0);
        ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
        ASSERT_LT(++calls, 10000000L);
        sched_yield();
    }
    std::vector<int64_t> got(4 * n);
    ASSERT_EQ(shmem_queue_data_pop(q, got.data(), 4 * n, SHMEM_QUEUE_ANY_PE), 0);
    for (int p = 0, i = 0; p < n; p++)
        for (int s = 0; s < 4; s++)
            EXPECT_EQ(got[i++], dataq_val(p, me, s));
    expect_all_rc(shmem_queue_global_flush(q), 0);
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(in + out, 0u);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

// A PE waiting in a global flush for a late one naps (sleeps of 20 us) exactly where the
// policy says so (auto: a machine with 4 or more PEs per core; SHMEMQ_COLL_WAIT=sleep and
// spin run in test/coll_wait.sh), else yields and never naps; the data arrives either way.
TEST(DataQueue, FlushWaitForALatePeNapsAsThePolicySays)
{
    const int n = shmem_n_pes(), me = shmem_my_pe(), late = n - 1;
    shmem_queue_config_t c = data_queue_cfg(64, 8);
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    for (int p = 0; p < n; p++) {
        int64_t v = dataq_val(me, p, 5);
        ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
    }
    expect_all_rc(shmem_queue_global_flush(q), 0); // everything warm: the next waits are the late PE's
    for (int p = 0; p < n; p++) {
        int64_t v = -1;
        ASSERT_EQ(shmem_queue_data_pop(q, &v, 1, p), 0);
        EXPECT_EQ(v, dataq_val(p, me, 5));
        v = dataq_val(me, p, 6);
        ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
    }
    const uint64_t before = __atomic_load_n(&shmemi_wait_naps, __ATOMIC_RELAXED);
    if (me == late)
        usleep(200 * 1000);
    expect_all_rc(shmem_queue_global_flush(q), 0);
    const uint64_t naps = __atomic_load_n(&shmemi_wait_naps, __ATOMIC_RELAXED) - before;
    if (me != late) { // waited 200 ms: thousands of passes
        EXPECT_EQ(naps > 0, shmemi_coll_waits_nap() != 0) << naps << " naps";
    }
    for (int p = 0; p < n; p++) {
        int64_t v = -1;
        ASSERT_EQ(shmem_queue_data_pop(q, &v, 1, p), 0);
        EXPECT_EQ(v, dataq_val(p, me, 6));
    }
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST(DataQueue, DestroyWithDataReportsLoss)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    shmem_queue_config_t c = data_queue_cfg(256, 8);
    shmem_queue_t q;
    // unpopped incoming data on PE 0 only; outgoing on the last PE only
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    int64_t v = 7;
    if (me == n - 1) {
        ASSERT_EQ(shmem_queue_data_push(q, &v, 1, 0), 0);
    }
    expect_all_rc(shmem_queue_global_flush(q), 0);
    if (me == n - 1 && n > 1) {
        ASSERT_EQ(shmem_queue_data_push(q, &v, 1, 0), 0);
    }
    int rc = shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD);
    EXPECT_EQ(q, nullptr);
    if (me == 0 || me == n - 1) {
        EXPECT_EQ(rc, SHMEM_QUEUE_ERR_DATALOSS);
    }
    else
        EXPECT_EQ(rc, 0);
    // a destroyed handle (our copy) and a NULL one
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_destroy(nullptr, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_ARG);
}

// A destroyed queue's exchange buffers are kept for the next queue of the same size
// (dq_bufcache.c): the next queues must start empty and carry only their own data,
// whether they get kept buffers or fresh ones.
TEST(DataQueue, ReusedBuffersStartEmpty)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    const int k = 16;
    shmem_queue_config_t c = data_queue_cfg(k * sizeof(int64_t), sizeof(int64_t));
    for (int round = 0; round < 3; round++) {
        shmem_queue_t a, b;
        ASSERT_EQ(shmem_queue_data_create(&a, &c, SHMEM_TEAM_WORLD), 0);
        ASSERT_EQ(shmem_queue_data_create(&b, &c, SHMEM_TEAM_WORLD), 0);
        for (shmem_queue_t q : {a, b}) {
            size_t in = 1, out = 1;
            ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
            EXPECT_EQ(in, 0u);
            EXPECT_EQ(out, 0u);
            int64_t x;
            EXPECT_EQ(shmem_queue_data_pop(q, &x, 1, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_EMPTY);
        }
        // a: full rooms, delivered, popped only in part, destroyed with data left
        for (int p = 0; p < n; p++)
            for (int s = 0; s < k; s++) {
                int64_t v = dataq_val(me, p, 1000 * round + s);
                ASSERT_EQ(shmem_queue_data_push(a, &v, 1, p), 0);
            }
        expect_all_rc(shmem_queue_global_flush(a), 0);
        int64_t first;
        ASSERT_EQ(shmem_queue_data_pop(a, &first, 1, 0), 0);
        EXPECT_EQ(first, dataq_val(0, me, 1000 * round));
        EXPECT_EQ(shmem_queue_data_destroy(&a, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_DATALOSS);
        // b (created before a's buffers came back): one element per peer, its own values
        for (int p = 0; p < n; p++) {
            int64_t v = dataq_val(me, p, 7 + round);
            ASSERT_EQ(shmem_queue_data_push(b, &v, 1, p), 0);
        }
        expect_all_rc(shmem_queue_global_flush(b), 0);
        for (int p = 0; p < n; p++) {
            int64_t got = 0;
            ASSERT_EQ(shmem_queue_data_pop(b, &got, 1, p), 0);
            EXPECT_EQ(got, dataq_val(p, me, 7 + round)) << "from " << p;
        }
        int64_t x;
        EXPECT_EQ(shmem_queue_data_pop(b, &x, 1, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_EMPTY);
        EXPECT_EQ(shmem_queue_data_destroy(&b, SHMEM_TEAM_WORLD), 0);
    }
}

TEST(DataQueue, BadInputChangesNothing)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    shmem_queue_config_t c = data_queue_cfg(64, 8);
    shmem_queue_t q = nullptr;
    // wrong qtype: every PE refuses, no queue
    shmem_queue_config_t bad = c;
    bad.qtype = SHMEM_QUEUE_COMM;
    expect_all_rc(shmem_queue_data_create(&q, &bad, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(q, nullptr);
    // one PE with a bad config: all PEs fail
    expect_all_rc(shmem_queue_data_create(me == n - 1 ? nullptr : &q, &c, SHMEM_TEAM_WORLD),
               SHMEM_QUEUE_ERR_ARG);
    expect_all_rc(shmem_queue_data_create(&q, me == 0 ? nullptr : &c, SHMEM_TEAM_WORLD),
               SHMEM_QUEUE_ERR_ARG);
    // PEs disagree on the element size: all fail (with one PE there is nothing to disagree)
    shmem_queue_config_t odd = data_queue_cfg(64, me == n - 1 ? 4 : 8);
    int want = n > 1 ? SHMEM_QUEUE_ERR_ARG : 0;
    int rc = shmem_queue_data_create(&q, &odd, SHMEM_TEAM_WORLD);
    expect_all_rc(rc, want);
    if (rc == 0) {
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    }
    EXPECT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_INVALID), SHMEM_QUEUE_ERR_ARG);

    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    int64_t v[4] = {1, 2, 3, 4};
    EXPECT_EQ(shmem_queue_data_push(nullptr, v, 1, 0), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_push(q, v, 1, -1), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_push(q, v, 1, n), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_push(q, v, 1, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_push(q, nullptr, 1, 0), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_push(q, v, SIZE_MAX / 4, 0), SHMEM_QUEUE_ERR_ARG); // overflows
    EXPECT_EQ(shmem_queue_data_push(q, v, 0, 0), 0);
    EXPECT_EQ(shmem_queue_data_pop(q, v, SIZE_MAX / 4, 0), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_pop(q, nullptr, 1, 0), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_pop(q, v, 1, n), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_pop(q, v, 1, -2), SHMEM_QUEUE_ERR_ARG);
    size_t in, out;
    // One NULL means "don't care" (issue 20, 6); both NULL asks nothing: ARG.
    in = out = 77;
    EXPECT_EQ(shmem_query_data_size(q, nullptr, &out, 0), 0);
    EXPECT_EQ(out, 0u);
    EXPECT_EQ(shmem_query_data_size(q, &in, nullptr, 0), 0);
    EXPECT_EQ(in, 0u);
    EXPECT_EQ(shmem_query_data_size(q, nullptr, nullptr, 0), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_query_data_size(q, &in, &out, n), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_query_data_size(nullptr, &in, &out, 0), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_query_attr(q, nullptr), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_query_size(q, nullptr), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_global_flush(nullptr), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_data_progress(nullptr, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_ARG);
    // a handle of another kind (any struct not starting with the data-queue magic)
    struct {
        uint32_t magic;
        char rest[60];
    } other = {0x434f4d51u, {0}};
    shmem_queue_t alien = reinterpret_cast<shmem_queue_t>(&other);
    EXPECT_EQ(shmem_queue_data_push(alien, v, 1, 0), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_queue_data_pop(alien, v, 1, 0), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_queue_global_flush(alien), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_query_data_size(alien, &in, &out, 0), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_queue_data_destroy(&alien, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_STATE);
    // nothing changed
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
    EXPECT_EQ(in + out, 0u);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

// ---- the inline fast paths of shmemq/dataq.h against the library functions ----

namespace {
struct Req {
    int64_t index; // global index
    int64_t slot;  // requester's result slot
};
struct Ans {
    int64_t slot;
    int64_t value;
};
int64_t table_value(int64_t g) { return g * 7 + 3; }
} // namespace

TEST(DataQueue, IndexGatherRoundTrip)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    const int64_t T = 1000, R = 600;
    // rooms smaller than the traffic, so that FULL and OVERFLOW happen (few flushes:
    // each is several collectives, slow with 4 PEs on 2 cores)
    shmem_queue_config_t cr = data_queue_cfg(100 * sizeof(Req), sizeof(Req));
    shmem_queue_config_t ca = data_queue_cfg(70 * sizeof(Ans), sizeof(Ans));
    shmem_queue_t qreq, qans;
    ASSERT_EQ(shmem_queue_data_create(&qreq, &cr, SHMEM_TEAM_WORLD), 0);
    ASSERT_EQ(shmem_queue_data_create(&qans, &ca, SHMEM_TEAM_WORLD), 0);
    std::vector<int64_t> table(T);
    for (int64_t i = 0; i < T; i++)
        table[i] = table_value((int64_t)me * T + i);
    std::vector<int64_t> idx(R), result(R, -1);
    uint64_t x = 88172645463325252ull + me;
    for (int64_t i = 0; i < R; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        idx[i] = (int64_t)(x % (uint64_t)(T * n));
    }
    int64_t next = 0, answered = 0;
    std::vector<Ans> pending; // answers that did not fit yet
    int fulls = 0, overflows = 0;
    for (;;) {
        while (next < R) {
            Req r = {idx[next], ((int64_t)me << 32) | next};
            int rc = shmem_queue_data_push(qreq, &r, 1, (int)(idx[next] / T));
            if (rc == SHMEM_QUEUE_ERR_FULL) {
                fulls++;
                break;
            }
            ASSERT_EQ(rc, 0);
            next++;
        }
        int rc = shmem_queue_global_flush(qreq);
        ASSERT_TRUE(rc == 0 || rc == SHMEM_QUEUE_ERR_OVERFLOW);
        overflows += rc != 0;
        // serve: answer what fits; keep the rest of a source's requests for later
        for (;;) {
            size_t k = 0;
            while (k < pending.size() && shmem_queue_data_push(qans, &pending[k], 1,
                                                               (int)(pending[k].slot >> 32)) == 0)
                k++;
            pending.erase(pending.begin(), pending.begin() + k);
            if (!pending.empty())
                break;
            Req r;
            if (shmem_queue_data_pop(qreq, &r, 1, SHMEM_QUEUE_ANY_PE) != 0)
                break;
            // the requester is packed into the slot's high bits below
            ASSERT_EQ(r.index / T, me);
            pending.push_back({r.slot, table[r.index % T]});
        }
        rc = shmem_queue_global_flush(qans);
        ASSERT_TRUE(rc == 0 || rc == SHMEM_QUEUE_ERR_OVERFLOW);
        Ans a;
        while (shmem_queue_data_pop(qans, &a, 1, SHMEM_QUEUE_ANY_PE) == 0) {
            int64_t slot = a.slot & 0xffffffff;
            ASSERT_EQ(a.slot >> 32, me);
            result[slot] = a.value;
            answered++;
        }
        // done when everybody has all answers and nothing is in flight anywhere
        size_t in1, out1, in2, out2;
        shmem_query_data_size(qreq, &in1, &out1, SHMEM_QUEUE_ANY_PE);
        shmem_query_data_size(qans, &in2, &out2, SHMEM_QUEUE_ANY_PE);
        int64_t busy = (answered < R) + (int64_t)(in1 + out1 + in2 + out2 + pending.size()), all;
        all = reduce(busy, MPI_SUM);
        if (all == 0)
            break;
    }
    for (int64_t i = 0; i < R; i++)
        ASSERT_EQ(result[i], table_value(idx[i])) << i;
    if (n > 1) {
        int64_t fall = reduce(fulls + overflows, MPI_SUM);
        EXPECT_GT(fall, 0); // the small rooms really were exercised
    }
    EXPECT_EQ(shmem_queue_data_destroy(&qreq, SHMEM_TEAM_WORLD), 0);
    EXPECT_EQ(shmem_queue_data_destroy(&qans, SHMEM_TEAM_WORLD), 0);
}
