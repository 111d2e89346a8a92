// test_commq_budget.cc: one memory budget per comm queue (SHMEMQ_QUEUE_BUDGET,
// docs/queues_design.md, "One memory budget"). With budgets of one chunk and a few, a
// random histogram of queued adds to every PE (both paths), and a SHMEM_OP_ANY queue
// carrying adds, XORs, one-element and multi-byte puts and gets to every PE, give exact
// results on every PE while the usage query never shows more chunks or held bytes than
// the budget; FULL still comes at max_elems; the model is bounded by the budget; a value
// that is not a size leaves the default.
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "test_util.h"

// the queue's budget in chunks and the chunks it issued early for it (cq_budget.c)
extern "C" int shmemi_queue_comm_budget_stats(shmem_queue_t q, uint64_t out[2]);
// later creates and model calls take this budget (NULL: SHMEMQ_QUEUE_BUDGET's, queue_usage.c)
extern "C" void shmemi_queue_comm_budget_test(const char *value);

namespace {

struct BudgetStats {
    uint64_t chunks = 0, issued = 0;
    explicit BudgetStats(shmem_queue_t q)
    {
        uint64_t v[2] = {0, 0};
        EXPECT_EQ(shmemi_queue_comm_budget_stats(q, v), 0);
        chunks = v[0];
        issued = v[1];
    }
};


// Update j of PE `from`: every PE can recompute every other PE's sequence.
inline uint64_t draw(int from, uint64_t j, uint64_t salt)
{
    return mix(((uint64_t)from << 40) ^ (j * 0x9E3779B97F4A7C15ULL) ^ salt);
}

// SHMEMQ_QUEUE_BUDGET is read at shmem_init: the library's test hook stands in for it.
struct Budget {
    explicit Budget(const char *bytes) { shmemi_queue_comm_budget_test(bytes); }
    ~Budget() { shmemi_queue_comm_budget_test(nullptr); }
};

struct Path {
    explicit Path(const char *p) { setenv("SHMEMQ_COMM_PATH", p, 1); }
    ~Path() { unsetenv("SHMEMQ_COMM_PATH"); }
};

// The queue's budget in chunks and bytes, as the budget rule says (at least one chunk):
// computed here from the variable and the model's chunk size, not read from the queue.
struct Limit {
    uint64_t chunks, bytes;
};

Limit limit_of(shmem_queue_t q, uint64_t per_kind, int kinds)
{
    shmemx_queue_usage_t u;
    EXPECT_EQ(shmemx_queue_usage(q, &u), 0);
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
    shmemx_queue_model_t m;
    EXPECT_EQ(shmemx_queue_model(&c, u.mode, shmem_n_pes(), 1, &m), 0);
    uint64_t n = per_kind * (uint64_t)kinds / m.buffer_bytes;
    if (n == 0)
        n = 1;
    return {n, n * m.buffer_bytes};
}

void check_within(shmem_queue_t q, const Limit &l, uint64_t *max_buffers)
{
    shmemx_queue_usage_t u;
    ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
    EXPECT_LE(u.buffers, l.chunks);
    EXPECT_LE(u.buffer_bytes, l.bytes);
    EXPECT_LE(u.held_bytes, l.bytes);
    if (u.buffers > *max_buffers)
        *max_buffers = u.buffers;
}

class BudgetPaths : public ::testing::TestWithParam<const char *> {};

// Random adds to every PE's table of T words with a budget of `budget` bytes; exact
// totals on every PE.
void histogram(const char *path, const char *budget, uint64_t per_kind, uint64_t max_elems,
               uint64_t T = 3000)
{
    const int me = shmem_my_pe(), np = shmem_n_pes();
    const uint64_t N = 20000, salt = 0x51ed + per_kind + max_elems + T;
    int64_t *table = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    ASSERT_NE(table, nullptr);
    shmem_barrier_all();
    shmem_queue_t q = nullptr;
    {
        Path p(path);
        Budget b(budget);
        shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD, max_elems);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    }
    Limit l = limit_of(q, per_kind, 1);
    EXPECT_EQ(BudgetStats(q).chunks, l.chunks);
    uint64_t most = 0, fulls = 0;
    for (uint64_t j = 0; j < N; j++) {
        uint64_t r = draw(me, j, salt);
        int to = (int)(r % (uint64_t)np);
        int64_t v = 1 + (int64_t)((r >> 40) % 3);
        int rc;
        while ((rc = shmem_int64_queue_comm_push(q, &table[(r >> 20) % T], &v, 1, to,
                                           SHMEM_OP_ATOMIC_ADD)) == SHMEM_QUEUE_ERR_FULL) {
            fulls++;
            ASSERT_GE(shmem_queue_progress(q), 0);
        }
        ASSERT_EQ(rc, 0);
        if (j % 97 == 0)
            check_within(q, l, &most);
    }
    check_within(q, l, &most);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    size_t sz = 1;
    EXPECT_EQ(shmem_query_size(q, &sz), 0);
    EXPECT_EQ(sz, 0u);
    check_within(q, l, &most);
    (void)fulls; // early bursts to node peers complete at once: FULL may never come
    // more targets than the budget's chunks: chunks left early, the fullest first
    if ((uint64_t)np > l.chunks) {
        EXPECT_GT(BudgetStats(q).issued, 0u);
    }
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    std::vector<int64_t> want(T, 0);
    for (int from = 0; from < np; from++)
        for (uint64_t j = 0; j < N; j++) {
            uint64_t r = draw(from, j, salt);
            if ((int)(r % (uint64_t)np) == me)
                want[(r >> 20) % T] += 1 + (int64_t)((r >> 40) % 3);
        }
    uint64_t bad = 0;
    for (uint64_t k = 0; k < T; k++)
        bad += table[k] != want[k];
    EXPECT_EQ(bad, 0u) << "PE " << me << " path " << path << " budget " << budget;
    // the budget was reached wherever more chunks were wanted than it holds
    if (np > 1 || l.chunks == 1) {
        EXPECT_GE(most, l.chunks > 2 ? 2u : l.chunks);
    }
    shmem_barrier_all();
    shmem_free(table);
}

TEST_P(BudgetPaths, HistogramOneChunkExact) { histogram(GetParam(), "1", 1, 0); }

TEST_P(BudgetPaths, HistogramFewChunksExact) { histogram(GetParam(), "300K", 300 << 10, 0); }
// A 12,000-word table: sums held for other nodes keep up to 3 chunks a target, which the
// budget takes back when it runs out (cq_budget.c drains them)
TEST_P(BudgetPaths, HistogramWideTableOneChunkExact) { histogram(GetParam(), "1", 1, 0, 12000); }
TEST_P(BudgetPaths, HistogramWideTableFewChunksExact)
{
    histogram(GetParam(), "300K", 300 << 10, 0, 12000);
}

TEST_P(BudgetPaths, HistogramOneChunkSmallMaxElemsExact)
{
    histogram(GetParam(), "1", 1, 500);
}

// FULL comes at exactly max_elems with a budget of one chunk, and progress makes room.
TEST(BudgetFull, FullAtExactlyMaxElems)
{
    int64_t *cnt = static_cast<int64_t *>(shmem_calloc(1, sizeof(int64_t)));
    shmem_barrier_all();
    shmem_queue_t q = nullptr;
    {
        Budget b("1");
        shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD, 300);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    }
    const int64_t one = 1;
    for (int i = 0; i < 300; i++)
        ASSERT_EQ(shmem_int64_queue_comm_push(q, cnt, &one, 1, right_neighbor(), SHMEM_OP_ATOMIC_ADD), 0);
    EXPECT_EQ(shmem_int64_queue_comm_push(q, cnt, &one, 1, right_neighbor(), SHMEM_OP_ATOMIC_ADD),
              SHMEM_QUEUE_ERR_FULL);
    size_t sz = 0;
    EXPECT_EQ(shmem_query_size(q, &sz), 0);
    EXPECT_EQ(sz, 300u);
    shmemx_queue_usage_t u;
    ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
    EXPECT_EQ(u.buffers, 1u);
    EXPECT_GE(shmem_queue_progress(q), 0); // a full queue makes room
    ASSERT_EQ(shmem_int64_queue_comm_push(q, cnt, &one, 1, right_neighbor(), SHMEM_OP_ATOMIC_ADD), 0);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    EXPECT_EQ(*cnt, 301);
    shmem_barrier_all();
    shmem_free(cnt);
}

// The budget's wait against a target that makes no library call: PE 0 computes for a
// while (a plain loop) while the others push adds to every PE with a budget of one chunk
// and flush; on the default path a flush completes without the target (one-sided), so
// the budget's wait, which uses the same completion, must too. No timing is asserted:
// exact totals, and no hang (run-mpi.sh's timeout).
TEST(BudgetProgress, ComputingTargetStillCompletes)
{
    const int me = shmem_my_pe(), np = shmem_n_pes();
    const uint64_t T = 256, N = 4000, salt = 0xc0de;
    int64_t *table = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    ASSERT_NE(table, nullptr);
    shmem_barrier_all();
    if (me == 0 && np > 1) {
        volatile uint64_t x = 0;
        double t0 = test_now();
        while (test_now() - t0 < 0.3)
            for (int i = 0; i < 1000; i++)
                x = x + (uint64_t)i;
    } else {
        shmem_queue_t q = nullptr;
        {
            Budget b("1");
            shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
            ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        }
        for (uint64_t j = 0; j < N; j++) {
            uint64_t r = draw(me, j, salt);
            const int64_t one = 1;
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &table[(r >> 20) % T], &one, 1,
                                                  (int)(r % (uint64_t)np), SHMEM_OP_ATOMIC_ADD),
                      0);
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        shmemx_queue_usage_t u;
        ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
        EXPECT_EQ(u.buffers, 1u);
        EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    }
    shmem_barrier_all();
    std::vector<int64_t> want(T, 0);
    for (int from = (np > 1 ? 1 : 0); from < np; from++)
        for (uint64_t j = 0; j < N; j++) {
            uint64_t r = draw(from, j, salt);
            if ((int)(r % (uint64_t)np) == me)
                want[(r >> 20) % T]++;
        }
    uint64_t bad = 0;
    for (uint64_t k = 0; k < T; k++)
        bad += table[k] != want[k];
    EXPECT_EQ(bad, 0u) << "PE " << me;
    shmem_barrier_all();
    shmem_free(table);
}

// A SHMEM_OP_ANY queue with a budget of `per_kind` bytes per op kind: adds, XORs, ANDs,
// ORs, sets and one-element puts (each to its own word), multi-byte puts (record
// streams), one-element and multi-byte gets, to every PE; exact results on every PE.
void any_ops(const char *path, const char *budget, uint64_t per_kind)
{
    const int me = shmem_my_pe(), np = shmem_n_pes();
    const uint64_t T = 512, N = 8000, salt = 0xa11 + per_kind, K = 9;
    int64_t *adds = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    uint64_t *bits = static_cast<uint64_t *>(shmem_calloc(3 * T, sizeof(uint64_t))); // xor, and, or
    // puts and sets: word (from, j) on the target gets its value from exactly one push
    int64_t *slots = static_cast<int64_t *>(shmem_calloc((size_t)np * N, sizeof(int64_t)));
    int64_t *src = static_cast<int64_t *>(shmem_malloc(T * sizeof(int64_t)));
    ASSERT_TRUE(adds && bits && slots && src);
    for (uint64_t k = 0; k < T; k++) {
        src[k] = (int64_t)me * 1000003 + (int64_t)k;
        bits[T + k] = ~(uint64_t)0; // AND starts from all ones
    }
    std::vector<int64_t> got(N, -1);
    std::vector<int64_t> got3(3 * N, -1);
    shmem_barrier_all();
    shmem_queue_t q = nullptr;
    {
        Path p(path);
        Budget b(budget);
        shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ANY);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    }
    Limit l = limit_of(q, per_kind, 7);
    EXPECT_EQ(BudgetStats(q).chunks, l.chunks);
    uint64_t most = 0;
    for (uint64_t j = 0; j < N; j++) {
        uint64_t r = draw(me, j, salt);
        int to = (int)(r % (uint64_t)np);
        uint64_t k = (r >> 20) % T;
        int64_t v = 1 + (int64_t)((r >> 40) % 5);
        uint64_t x = r >> 3;
        int64_t val = (int64_t)(r >> 1);
        int64_t *word = &slots[(size_t)me * N + j];
        int rc = 0;
        switch ((r >> 50) % K) {
        case 0: rc = shmem_int64_queue_comm_push(q, &adds[k], &v, 1, to, SHMEM_OP_ATOMIC_ADD); break;
        case 1: rc = shmem_uint64_queue_comm_push(q, &bits[k], &x, 1, to, SHMEM_OP_ATOMIC_XOR); break;
        case 2: rc = shmem_int64_queue_comm_push(q, word, &val, 1, to, SHMEM_OP_PUT); break;
        case 3: rc = shmem_int64_queue_comm_push(q, &got[j], &src[k], 1, to, SHMEM_OP_GET); break;
        case 4: rc = shmem_queue_comm_pushmem(q, word, &val, 8, to, SHMEM_OP_PUT); break;
        case 5:
            if (k + 3 > T)
                k = T - 3;
            rc = shmem_queue_comm_pushmem(q, &got3[3 * j], &src[k], 24, to, SHMEM_OP_GET);
            break;
        case 6: rc = shmem_int64_queue_comm_push(q, word, &val, 1, to, SHMEM_OP_ATOMIC_SET); break;
        case 7:
            x = ~(1ull << (r % 64));
            rc = shmem_uint64_queue_comm_push(q, &bits[T + k], &x, 1, to, SHMEM_OP_ATOMIC_AND);
            break;
        default:
            x = 1ull << ((r >> 7) % 64);
            rc = shmem_uint64_queue_comm_push(q, &bits[2 * T + k], &x, 1, to, SHMEM_OP_ATOMIC_OR);
            break;
        }
        ASSERT_EQ(rc, 0) << "push " << j;
        if (j % 53 == 0)
            check_within(q, l, &most);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    check_within(q, l, &most);
    // five atomic kinds to every PE: more open chunks wanted than the budget holds
    if (5 * (uint64_t)np > l.chunks) {
        EXPECT_GT(BudgetStats(q).issued, 0u);
    }
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    // what this PE pushed and got back
    uint64_t bad_get = 0;
    for (uint64_t j = 0; j < N; j++) {
        uint64_t r = draw(me, j, salt);
        int to = (int)(r % (uint64_t)np);
        uint64_t k = (r >> 20) % T, kind = (r >> 50) % K;
        if (kind == 3)
            bad_get += got[j] != (int64_t)to * 1000003 + (int64_t)k;
        if (kind == 5) {
            if (k + 3 > T)
                k = T - 3;
            for (int i = 0; i < 3; i++)
                bad_get += got3[3 * j + i] != (int64_t)to * 1000003 + (int64_t)(k + i);
        }
    }
    EXPECT_EQ(bad_get, 0u) << "PE " << me << " budget " << budget;
    // what every PE pushed here
    std::vector<int64_t> want_add(T, 0);
    std::vector<uint64_t> want_xor(T, 0), want_and(T, ~(uint64_t)0), want_or(T, 0);
    uint64_t bad_put = 0;
    for (int from = 0; from < np; from++)
        for (uint64_t j = 0; j < N; j++) {
            uint64_t r = draw(from, j, salt);
            uint64_t k = (r >> 20) % T, kind = (r >> 50) % K;
            bool here = (int)(r % (uint64_t)np) == me;
            int64_t slot = slots[(size_t)from * N + j];
            if (here && kind == 0)
                want_add[k] += 1 + (int64_t)((r >> 40) % 5);
            if (here && kind == 1)
                want_xor[k] ^= r >> 3;
            if (here && kind == 7)
                want_and[k] &= ~(1ull << (r % 64));
            if (here && kind == 8)
                want_or[k] |= 1ull << ((r >> 7) % 64);
            bool put = here && (kind == 2 || kind == 4 || kind == 6);
            bad_put += slot != (put ? (int64_t)(r >> 1) : 0);
        }
    uint64_t bad = 0;
    for (uint64_t k = 0; k < T; k++)
        bad += (adds[k] != want_add[k]) + (bits[k] != want_xor[k]) +
               (bits[T + k] != want_and[k]) + (bits[2 * T + k] != want_or[k]);
    EXPECT_EQ(bad, 0u) << "PE " << me << " budget " << budget;
    EXPECT_EQ(bad_put, 0u) << "PE " << me << " budget " << budget;
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(slots);
    shmem_free(bits);
    shmem_free(adds);
}

// 7 kinds x 20,000 bytes: two 64 KiB chunks in all, or one 128 KiB (AM)
TEST_P(BudgetPaths, AnyOpsTwoChunksExact) { any_ops(GetParam(), "20000", 20000); }

// 7 x 190,000 bytes: 20 chunks of 64 KiB (10 on the AM path), so that at 4 PEs off the
// node (26 slots in use) the budget runs out with 16 or more open: several of the
// fullest leave at once
TEST_P(BudgetPaths, AnyOpsTwentyChunksExact) { any_ops(GetParam(), "190000", 190000); }

INSTANTIATE_TEST_SUITE_P(Paths, BudgetPaths, ::testing::Values("rma", "am"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                             return std::string(i.param);
                         });

// The model's chunks are bounded by the budget (both paths); 0 turns the budget off; a
// value that is not a size leaves the default (reported at shmem_init, settings.c).
TEST(BudgetModel, BoundedByTheBudget)
{
    shmem_queue_config_t add = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
    shmem_queue_config_t any = comm_queue_cfg(SHMEM_OP_ANY);
    shmemx_queue_model_t m, d, a;
    const int P = 1 << 20, modes[2] = {SHMEMX_QUEUE_MODE_COMM_RMA, SHMEMX_QUEUE_MODE_COMM_AM};
    for (int mode : modes) {
        ASSERT_EQ(shmemx_queue_model(&add, mode, P, 64, &d), 0);
        ASSERT_EQ(shmemx_queue_model(&any, mode, P, 64, &a), 0);
        // default: 64 MiB of chunks per op kind
        EXPECT_EQ(d.max_buffers, (64ull << 20) / d.buffer_bytes);
        EXPECT_EQ(a.max_buffers, 7 * (64ull << 20) / a.buffer_bytes);
        EXPECT_LE(d.max_buffers * d.buffer_bytes, 64ull << 20);
        {
            Budget b("lots");
            ASSERT_EQ(shmemx_queue_model(&add, mode, P, 64, &m), 0);
            EXPECT_EQ(m.max_buffers, d.max_buffers);
        }
        {
            Budget b("1");
            ASSERT_EQ(shmemx_queue_model(&add, mode, 4, 4, &m), 0);
            EXPECT_EQ(m.max_buffers, 1u);
            EXPECT_EQ(m.max_total_bytes,
                      m.meta_bytes + m.track_bytes + m.scratch_bytes + m.scratch_once_bytes +
                          m.buffer_bytes);
        }
        {
            Budget b("1M");
            ASSERT_EQ(shmemx_queue_model(&any, mode, P, 64, &m), 0);
            EXPECT_EQ(m.max_buffers, 7 * (1ull << 20) / m.buffer_bytes);
        }
        {
            Budget b("0"); // no budget: every target's chunk (RMA), max_elems more (AM)
            ASSERT_EQ(shmemx_queue_model(&add, mode, P, 64, &m), 0);
            EXPECT_EQ(m.max_buffers, mode == SHMEMX_QUEUE_MODE_COMM_RMA
                                         ? (uint64_t)P
                                         : (uint64_t)P + (1u << 20));
        }
    }
}

// A bad value at create: the queue takes the default budget and works.
TEST(BudgetModel, BadValueTakesTheDefault)
{
    const int me = shmem_my_pe(), np = shmem_n_pes();
    int64_t *cnt = static_cast<int64_t *>(shmem_calloc(1, sizeof(int64_t)));
    shmem_barrier_all();
    shmem_queue_t q = nullptr;
    {
        Budget b("-3x");
        shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_INC);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    }
    for (int i = 0; i < 100; i++)
        ASSERT_EQ(shmem_int64_queue_comm_push(q, cnt, (const int64_t *)nullptr, 1, (me + i) % np,
                                        SHMEM_OP_ATOMIC_INC),
                  0);
    shmemx_queue_usage_t u;
    ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
    // one open chunk per target (node-routed: per node peer and per other node), under
    // the default's many
    uint64_t targets = (uint64_t)np;
    if (u.mode == SHMEMX_QUEUE_MODE_COMM_NODE) {
        const int nl = shmem_team_n_pes(SHMEM_TEAM_SHARED), nodes = (np + nl - 1) / nl;
        targets = (uint64_t)(nl + nodes - 1);
    }
    EXPECT_EQ(u.buffers, targets < 100 ? targets : 100);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    EXPECT_EQ(*cnt, 100);
    shmem_barrier_all();
    shmem_free(cnt);
}

} // namespace
