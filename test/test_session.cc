// test_session.cc: OpenSHMEM 1.6 context sessions (shmem_ctx_session_start/stop with
// SHMEM_CTX_SESSION_BATCH): small puts and non-fetching AMOs issued in a session are
// complete after session_stop, after ctx_quiet inside the session, after barrier_all
// (default context) and after ctx_destroy; gets and fetching AMOs see this PE's own
// earlier updates; team contexts use team-relative PEs; heap and data-segment targets.
#include <gtest/gtest.h>
#include <shmem.h>
#include <cstdint>
#include <vector>
#include "test_util.h"

static const int N = 300; // puts per PE per round
static long data_dst[N];   // data-segment target
static uint64_t data_ctr;  // data-segment AMO target

static void start_batch(shmem_ctx_t ctx)
{
    shmem_ctx_session_config_t cfg;
    cfg.total_ops = 4 * N;
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &cfg, SHMEM_CTX_SESSION_TOTAL_OPS);
}

// Every PE puts N longs (one call each, mixed forms) to its right neighbour, into the heap
// and the data segment, and adds/incs/xors counters on every PE.
static void issue(shmem_ctx_t ctx, long *heap_dst, uint64_t *heap_ctr, uint32_t *heap_bits,
                  long base)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = right_neighbor();
    static long nbi_src[N]; // an _nbi source stays untouched until the quiet
    for (int i = 0; i < N; i++) {
        long v = base + me * 100000L + i;
        nbi_src[i] = v;
        if (i % 3 == 0)
            shmem_ctx_long_p(ctx, &heap_dst[i], v, right);
        else if (i % 3 == 1)
            shmem_ctx_long_put(ctx, &heap_dst[i], &v, 1, right);
        else
            shmem_ctx_long_put_nbi(ctx, &heap_dst[i], &nbi_src[i], 1, right);
    }
    // data segment in a loop of its own (alternating windows: AlternatingWindows)
    for (int i = 0; i < N; i++) {
        long v = base + me * 100000L + i;
        shmem_ctx_putmem(ctx, &data_dst[i], &v, sizeof v, right);
    }
    for (int pe = 0; pe < npes; pe++) {
        for (int k = 0; k < 10; k++) {
            shmem_ctx_uint64_atomic_add(ctx, heap_ctr, (uint64_t)(me + 1), pe);
            shmem_ctx_uint64_atomic_inc(ctx, &data_ctr, pe);
        }
        shmem_ctx_uint32_atomic_xor(ctx, heap_bits, 1u << (me % 32), pe);
    }
}

static void check(const long *heap_dst, const uint64_t *heap_ctr, const uint32_t *heap_bits,
                  long base)
{
    int npes = shmem_n_pes(), left = left_neighbor();
    int bad = 0;
    for (int i = 0; i < N; i++) {
        if (heap_dst[i] != base + left * 100000L + i && bad++ < 8)
            ADD_FAILURE() << "heap i=" << i << " got " << heap_dst[i];
        if (data_dst[i] != base + left * 100000L + i && bad++ < 8)
            ADD_FAILURE() << "data i=" << i << " got " << data_dst[i];
    }
    ASSERT_EQ(bad, 0);
    uint64_t sum = 0;
    uint32_t bits = 0;
    for (int pe = 0; pe < npes; pe++) {
        sum += 10 * (uint64_t)(pe + 1);
        bits ^= 1u << (pe % 32);
    }
    EXPECT_EQ(*heap_ctr, sum);
    EXPECT_EQ(data_ctr, 10u * (uint64_t)npes);
    EXPECT_EQ(*heap_bits, bits);
}

struct Bufs {
    long *dst;
    uint64_t *ctr;
    uint32_t *bits;
    Bufs()
    {
        dst = (long *)shmem_calloc(N, sizeof(long));
        ctr = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
        bits = (uint32_t *)shmem_calloc(1, sizeof(uint32_t));
    }
    void reset()
    {
        for (int i = 0; i < N; i++)
            dst[i] = data_dst[i] = -1;
        *ctr = 0;
        *bits = 0;
        data_ctr = 0;
        shmem_barrier_all();
    }
    ~Bufs()
    {
        shmem_free(bits);
        shmem_free(ctr);
        shmem_free(dst);
    }
};

TEST(Session, DefaultCtxCompleteAfterStop)
{
    Bufs b;
    ASSERT_NE(b.dst, nullptr);
    b.reset();
    start_batch(SHMEM_CTX_DEFAULT);
    issue(SHMEM_CTX_DEFAULT, b.dst, b.ctr, b.bits, 7);
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_sync_all(); // no quiet here: stop completed the queued operations
    check(b.dst, b.ctr, b.bits, 7);
    shmem_barrier_all();
}

TEST(Session, DefaultCtxBarrierAllCompletes)
{
    Bufs b;
    b.reset();
    start_batch(SHMEM_CTX_DEFAULT);
    issue(SHMEM_CTX_DEFAULT, b.dst, b.ctr, b.bits, 11);
    shmem_barrier_all(); // quiet on the default context, inside the session
    check(b.dst, b.ctr, b.bits, 11);
    shmem_barrier_all();
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
}

TEST(Session, CreatedCtxQuietInsideSession)
{
    Bufs b;
    shmem_ctx_t ctx;
    ASSERT_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    b.reset();
    start_batch(ctx);
    for (int round = 0; round < 3; round++) {
        issue(ctx, b.dst, b.ctr, b.bits, 1000 * round);
        shmem_ctx_quiet(ctx);
        shmem_sync_all();
        check(b.dst, b.ctr, b.bits, 1000 * round);
        b.reset();
    }
    shmem_ctx_session_stop(ctx);
    shmem_ctx_destroy(ctx);
}

TEST(Session, DestroyCompletes)
{
    Bufs b;
    shmem_ctx_t ctx;
    ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
    b.reset();
    start_batch(ctx);
    issue(ctx, b.dst, b.ctr, b.bits, 5);
    shmem_ctx_destroy(ctx); // with the session still active
    shmem_sync_all();
    check(b.dst, b.ctr, b.bits, 5);
    shmem_barrier_all();
}

TEST(Session, FenceOrdersFlag)
{
    // data then fence then flag: whoever sees the flag sees the data
    Bufs b;
    uint64_t *flag = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    b.reset();
    int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    start_batch(SHMEM_CTX_DEFAULT);
    for (int i = 0; i < N; i++)
        shmem_long_p(&b.dst[i], me * 10L + i, right);
    shmem_fence();
    shmem_uint64_atomic_set(flag, 1, right); // non-fetching: queued too
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_uint64_wait_until(flag, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < N; i++)
        ASSERT_EQ(b.dst[i], left * 10L + i);
    shmem_barrier_all();
    shmem_free(flag);
}

TEST(Session, WaitDrivesQueueWithoutQuiet)
{
    // A flag put in a session reaches its target while the putter only waits.
    REQUIRE_PES(2);
    uint64_t *flag = (uint64_t *)shmem_calloc(2, sizeof(uint64_t));
    shmem_barrier_all();
    int me = shmem_my_pe(), right = right_neighbor();
    start_batch(SHMEM_CTX_DEFAULT);
    shmem_uint64_atomic_set(&flag[0], 1, right);
    shmem_uint64_wait_until(&flag[0], SHMEM_CMP_EQ, 1);
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    EXPECT_EQ(flag[0], 1u);
    (void)me;
    shmem_barrier_all();
    shmem_free(flag);
}

TEST(Session, GetAndFetchSeeOwnUpdates)
{
    long *x = (long *)shmem_calloc(4, sizeof(long));
    shmem_barrier_all();
    int right = right_neighbor();
    shmem_ctx_t ctx;
    ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
    start_batch(ctx);
    // each PE is the only writer of its right neighbour's x[0] and x[1]
    shmem_ctx_long_p(ctx, &x[0], 42, right);
    EXPECT_EQ(shmem_ctx_long_g(ctx, &x[0], right), 42);
    for (int k = 0; k < 5; k++)
        shmem_ctx_long_atomic_add(ctx, &x[1], 3, right);
    EXPECT_EQ(shmem_ctx_long_atomic_fetch(ctx, &x[1], right), 15);
    shmem_ctx_long_atomic_inc(ctx, &x[1], right);
    EXPECT_EQ(shmem_ctx_long_atomic_fetch_add(ctx, &x[1], 1, right), 16);
    shmem_ctx_session_stop(ctx);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    EXPECT_EQ(x[0], 42);
    EXPECT_EQ(x[1], 17);
    shmem_barrier_all();
    shmem_free(x);
}

TEST(Session, TeamCtxRelativePes)
{
    int npes = shmem_n_pes(), me = shmem_my_pe();
    // team of world PEs 1..npes-1 (all PEs at 1 PE): team PE 0 is not world PE 0
    int start = npes > 1 ? 1 : 0, size = npes > 1 ? npes - 1 : 1;
    shmem_team_t team = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, start, 1, size, nullptr, 0, &team);
    long *slot = (long *)shmem_calloc(2, sizeof(long));
    shmem_barrier_all();
    if (team != SHMEM_TEAM_INVALID) {
        shmem_ctx_t ctx;
        ASSERT_EQ(shmem_team_create_ctx(team, 0, &ctx), 0);
        int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
        int tright = (tme + 1) % tn;
        start_batch(ctx);
        shmem_ctx_long_p(ctx, &slot[0], 1000 + me, tright);
        shmem_ctx_long_atomic_add(ctx, &slot[1], me + 1, tright);
        shmem_ctx_session_stop(ctx);
        shmem_ctx_destroy(ctx);
    }
    shmem_barrier_all();
    if (team != SHMEM_TEAM_INVALID) {
        int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
        int wleft = shmem_team_translate_pe(team, (tme + tn - 1) % tn, SHMEM_TEAM_WORLD);
        EXPECT_EQ(slot[0], 1000 + wleft);
        EXPECT_EQ(slot[1], wleft + 1);
        shmem_team_destroy(team);
    } else {
        EXPECT_EQ(slot[0], 0);
        EXPECT_EQ(slot[1], 0);
    }
    shmem_barrier_all();
    shmem_free(slot);
}

TEST(Session, LargePutsAndNoBatchOption)
{
    const int M = 4096;
    long *big = (long *)shmem_calloc(M, sizeof(long));
    shmem_barrier_all();
    int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    std::vector<long> src(M);
    for (int i = 0; i < M; i++)
        src[(size_t)i] = me * 7L + i;
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, nullptr, 0);
    shmem_long_put(big, src.data(), M, right); // large: issued directly
    shmem_fence();                             // orders it before the queued small put
    shmem_long_p(&big[0], -5, right);
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    EXPECT_EQ(big[0], -5);
    for (int i = 1; i < M; i++)
        ASSERT_EQ(big[i], left * 7L + i);
    shmem_barrier_all();
    // options 0: a session that batches nothing; operations behave as usual
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, 0, nullptr, 0);
    shmem_long_p(&big[1], 9, right);
    shmem_quiet();
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    EXPECT_EQ(big[1], 9);
    shmem_barrier_all();
    shmem_free(big);
}

TEST(Session, InvalidAndRepeatedCalls)
{
    shmem_ctx_session_config_t cfg;
    cfg.total_ops = 10;
    // SHMEM_CTX_INVALID: no action
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, &cfg,
                            SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);
    // stop without start, twice: no effect
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    // NULL config with a mask and unknown mask bits are reported; the session still starts
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, nullptr,
                            SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH | 0x100, &cfg, 0x40);
    static long v;
    v = 0;
    shmem_barrier_all();
    shmem_long_p(&v, 3, shmem_my_pe());
    shmem_long_atomic_add(&v, 4, shmem_my_pe());
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    EXPECT_EQ(v, 7);
    // start/stop many times: queues are parked and reused
    for (int i = 0; i < 20; i++) {
        shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, &cfg,
                                SHMEM_CTX_SESSION_TOTAL_OPS);
        shmem_long_atomic_inc(&v, shmem_my_pe());
        shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    }
    EXPECT_EQ(v, 27);
    shmem_barrier_all();
}

// Puts that alternate between heap and data-segment targets in one session land exactly
// (each switch of window issues the slot's chunk). Once a known bug (puts misplaced at
// 4 PEs); queued on every path since, kept exact by this test and by test_commq_putget's
// SmallPutsAlternatingWindowsLandExactly. Off the node only (run-mpi.sh's offnode runs,
// SHMEMQ_NODE_PES=2 at 4): puts to node peers are copies, never queued.
TEST(Session, AlternatingWindows)
{
    Bufs b;
    b.reset();
    int me = shmem_my_pe(), right = right_neighbor();
    start_batch(SHMEM_CTX_DEFAULT);
    for (int i = 0; i < N; i++) {
        long v = me * 100000L + i;
        shmem_long_p(&b.dst[i], v, right);
        shmem_long_p(&data_dst[i], v, right);
    }
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    int left = left_neighbor(), bad = 0;
    for (int i = 0; i < N; i++)
        bad += (b.dst[i] != left * 100000L + i) + (data_dst[i] != left * 100000L + i);
    EXPECT_EQ(bad, 0);
    shmem_barrier_all();
}
