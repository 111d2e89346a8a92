// test_commq_api.cc: the communication queue's life cycle and contract, apart from
// its data paths (test_commq_common.h): strerror, create/destroy and config checks, SHARED
// queues and threads, many queues and use after destroy, memory of destroyed queues,
// bad input queuing nothing, timeouts (0, timed, the progress thread's).
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include "test_util.h"

namespace {

shmem_queue_config_t cfg(shmem_op_type_t op = SHMEM_OP_ANY, uint64_t max = 0,
                         double timeout = SHMEM_QUEUE_MAX_TIMEOUT)
{
    return comm_queue_cfg(op, max, timeout);
}

} // namespace

TEST(CommQueue, StrerrorNamesEveryCode)
{
    for (int rc = 0; rc >= -11; rc--) {
        const char *s = shmemx_queue_strerror(rc);
        ASSERT_NE(s, nullptr);
        EXPECT_GT(std::strlen(s), 3u);
        if (rc < 0) {
            EXPECT_STRNE(s, "unknown queue error") << rc;
        }
    }
    EXPECT_STREQ(shmemx_queue_strerror(-1000), "unknown queue error");
}

TEST(CommQueue, CreateDestroyAndConfigChecks)
{
    shmem_queue_t q = nullptr;
    shmem_queue_config_t c;
    std::memset(&c, 0, sizeof c);
    // zeroed config (qtype COMM = 0) is valid
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    ASSERT_NE(q, nullptr);
    shmem_queue_attr_t a;
    ASSERT_EQ(shmem_query_attr(q, &a), 0);
    EXPECT_EQ(a.outstanding_elems, 0u);
    EXPECT_GT(a.available_elems, 0u);
    size_t sz = 99;
    EXPECT_EQ(shmem_query_size(q, &sz), 0);
    EXPECT_EQ(sz, 0u);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);

    EXPECT_EQ(shmem_queue_comm_create(nullptr, &c), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_comm_create(&q, nullptr), SHMEM_QUEUE_ERR_ARG);
    struct {
        void (*mod)(shmem_queue_config_t &);
        int rc;
    } bad[] = {
        {[](shmem_queue_config_t &x) { x.qtype = SHMEM_QUEUE_DATA; }, SHMEM_QUEUE_ERR_ARG},
        {[](shmem_queue_config_t &x) { x.qtype = (shmem_queue_type_t)7; }, SHMEM_QUEUE_ERR_ARG},
        {[](shmem_queue_config_t &x) { x.thread_model = (shmem_queue_thread_t)3; }, SHMEM_QUEUE_ERR_ARG},
        {[](shmem_queue_config_t &x) { x.op_type = (shmem_op_type_t)8; }, SHMEM_QUEUE_ERR_ARG},
        {[](shmem_queue_config_t &x) { x.pe_type = (shmem_pe_type_t)2; }, SHMEM_QUEUE_ERR_ARG},
        {[](shmem_queue_config_t &x) { x.timeout_flush = -2.0; }, SHMEM_QUEUE_ERR_ARG},
        {[](shmem_queue_config_t &x) { x.timeout_flush = NAN; }, SHMEM_QUEUE_ERR_ARG},
    };
    for (auto &b : bad) {
        shmem_queue_config_t x = cfg();
        b.mod(x);
        q = reinterpret_cast<shmem_queue_t>(0x1);
        EXPECT_EQ(shmem_queue_comm_create(&q, &x), b.rc);
        EXPECT_EQ(q, nullptr);
    }
    // NULL handles
    EXPECT_EQ(shmem_queue_comm_destroy(nullptr), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_query_attr(nullptr, &a), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_query_size(nullptr, &sz), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_progress(nullptr), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_local_flush(nullptr), SHMEM_QUEUE_ERR_ARG);
    shmemx_queue_stats_t st;
    EXPECT_EQ(shmemx_queue_stats(nullptr, &st), SHMEM_QUEUE_ERR_ARG);
    long x = 0;
    EXPECT_EQ(shmem_long_queue_comm_push(nullptr, &x, &x, 1, 0, SHMEM_OP_PUT), SHMEM_QUEUE_ERR_ARG);
}

TEST(CommQueue, SharedQueueNeedsThreadMultiple)
{
    int provided = 0;
    shmem_query_thread(&provided);
    shmem_queue_config_t c = cfg();
    c.thread_model = SHMEM_QUEUE_SHARED;
    shmem_queue_t q = nullptr;
    int rc = shmem_queue_comm_create(&q, &c);
    if (provided == SHMEM_THREAD_MULTIPLE) {
        ASSERT_EQ(rc, 0);
        EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    } else {
        EXPECT_EQ(rc, SHMEM_QUEUE_ERR_THREAD);
    }
}

TEST(CommQueue, ManyQueuesUniqueIdsAndUseAfterDestroy)
{
    std::vector<shmem_queue_t> qs(100);
    shmem_queue_config_t c = cfg();
    std::vector<uint64_t> ids;
    for (auto &q : qs) {
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        shmem_queue_attr_t a;
        ASSERT_EQ(shmem_query_attr(q, &a), 0);
        for (auto id : ids)
            ASSERT_NE(id, a.queue_id);
        ids.push_back(a.queue_id);
    }
    for (auto &q : qs)
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_queue_t dead = qs[17];
    long *t = static_cast<long *>(shmem_malloc(sizeof(long)));
    long v = 1;
    shmem_queue_attr_t a;
    size_t sz;
    shmemx_queue_stats_t st;
    EXPECT_EQ(shmem_long_queue_comm_push(dead, t, &v, 1, 0, SHMEM_OP_PUT), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_long_queue_comm_push(dead, t, &v, 1, 0, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_queue_comm_pushmem(dead, t, &v, 8, 0, SHMEM_OP_PUT), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_queue_progress(dead), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_queue_local_flush(dead), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_query_attr(dead, &a), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_query_size(dead, &sz), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmemx_queue_stats(dead, &st), SHMEM_QUEUE_ERR_STATE);
    EXPECT_EQ(shmem_queue_comm_destroy(dead), SHMEM_QUEUE_ERR_STATE);
    shmem_barrier_all();
    shmem_free(t);
}

// This process's resident memory, KiB (VmRSS), or -1.
static long rss_kib()
{
    FILE *f = std::fopen("/proc/self/status", "r");
    if (f == nullptr)
        return -1;
    char line[256];
    long kib = -1;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    std::fclose(f);
    return kib;
}

// Rounds of creating K queues, one burst each, destroying them: a queue at rest holds
// little, and the memory of destroyed queues goes back (issue 20, 9: RSS used to grow
// 18 -> 97 -> 151 -> 181 -> 188 MB over rounds of 1,000). Functional: every add lands.
TEST(CommQueue, MemoryOfDestroyedQueuesIsReturned)
{
    if (rss_kib() < 0)
        GTEST_SKIP() << "no /proc/self/status";
    const int K = 300, rounds = 5;
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *ctr = static_cast<long *>(shmem_calloc(1, sizeof(long)));
    shmem_barrier_all();
    shmem_queue_config_t c = cfg(SHMEM_OP_ATOMIC_ADD);
    std::vector<shmem_queue_t> qs(K);
    std::vector<long> after(rounds);
    long rest_max = 0;
    for (int r = 0; r < rounds; r++) {
        long before = rss_kib();
        for (auto &q : qs)
            ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        long rest = rss_kib() - before; // K queues at rest
        if (r > 0 && rest > rest_max)
            rest_max = rest;
        long one = 1;
        for (auto &q : qs) {
            ASSERT_EQ(shmem_long_queue_comm_push(q, ctr, &one, 1, (me + 1) % n, SHMEM_OP_ATOMIC_ADD),
                      0);
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
        }
        for (auto &q : qs)
            ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        after[r] = rss_kib();
    }
    shmem_barrier_all();
    EXPECT_EQ(*ctr, (long)rounds * K);
    // At rest: well under the ~78 KB a queue held before (docs/queues.md, "Memory").
    EXPECT_LT(rest_max / K, 24) << "KiB per idle queue";
    // After the first round (caches, MPI's own first-use memory), destroyed queues'
    // memory comes back: four more rounds add less than one round's worth did before.
    EXPECT_LT(after[rounds - 1] - after[1], 16 * 1024)
        << "RSS after each round (KiB): " << after[0] << " " << after[1] << " " << after[2]
        << " " << after[3] << " " << after[4];
    shmem_barrier_all();
    shmem_free(ctr);
}

static long g_align_ctr[2]; // a data-segment target for the misalignment checks

TEST(CommQueue, BadInputQueuesNothing)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *t = static_cast<long *>(shmem_calloc(4, sizeof(long)));
    long local[4] = {1, 2, 3, 4};
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY, 16);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    int pe = (me + 1) % n;
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, local, 1, n, SHMEM_OP_PUT), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, local, 1, -1, SHMEM_OP_PUT), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_long_queue_comm_push(q, nullptr, local, 1, pe, SHMEM_OP_PUT), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, nullptr, 1, pe, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_long_queue_comm_push(q, local, local, 1, pe, SHMEM_OP_PUT), SHMEM_QUEUE_ERR_ADDR);
    EXPECT_EQ(shmem_long_queue_comm_push(q, local, local, 1, pe, SHMEM_OP_GET), SHMEM_QUEUE_ERR_ADDR);
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, local, 1, pe, (shmem_op_type_t)42), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, local, 1, pe, SHMEM_OP_ANY), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, local, SIZE_MAX / 4, pe, SHMEM_OP_PUT), SHMEM_QUEUE_ERR_ARG);
    // type rules
    double d = 1.0;
    double *td = static_cast<double *>(shmem_malloc(sizeof(double)));
    EXPECT_EQ(shmem_double_queue_comm_push(q, td, &d, 1, pe, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_TYPE);
    EXPECT_EQ(shmem_double_queue_comm_push(q, td, &d, 1, pe, SHMEM_OP_ATOMIC_XOR), SHMEM_QUEUE_ERR_TYPE);
    short s = 1;
    short *ts = static_cast<short *>(shmem_malloc(sizeof(short)));
    EXPECT_EQ(shmem_short_queue_comm_push(q, ts, &s, 1, pe, SHMEM_OP_ATOMIC_SET), SHMEM_QUEUE_ERR_TYPE);
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, local, 1, pe, SHMEM_OP_ATOMIC_AND), SHMEM_QUEUE_ERR_TYPE);
    EXPECT_EQ(shmem_queue_comm_pushmem(q, t, local, 8, pe, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_TYPE);
    // too many for the queue at once
    long big[32] = {0};
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, big, 32, pe, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmemx_queue_comm_push_strided(q, t, local, 8, 8, 8, 2, pe, SHMEM_OP_ATOMIC_ADD),
              SHMEM_QUEUE_ERR_TYPE);
    EXPECT_EQ(shmemx_queue_comm_push_strided(q, local, local, 8, 8, 8, 2, pe, SHMEM_OP_PUT),
              SHMEM_QUEUE_ERR_ADDR);
    // misaligned typed elements, every op and both regions (inline and library paths)
    long *odd = reinterpret_cast<long *>(reinterpret_cast<char *>(&t[2]) + 1);
    long *odd_static = reinterpret_cast<long *>(reinterpret_cast<char *>(&g_align_ctr[0]) + 4);
    long one = 1;
    for (long *bad : {odd, odd_static}) {
        for (shmem_op_type_t op :
             {SHMEM_OP_ATOMIC_ADD, SHMEM_OP_ATOMIC_INC, SHMEM_OP_ATOMIC_SET, SHMEM_OP_PUT}) {
            EXPECT_EQ(shmem_long_queue_comm_push(q, bad, &one, 1, pe, op), SHMEM_QUEUE_ERR_ARG) << op;
            EXPECT_EQ(shmem_long_queue_comm_push(q, bad, &one, 1, me, op), SHMEM_QUEUE_ERR_ARG) << op;
        }
        EXPECT_EQ(shmem_long_queue_comm_push(q, &local[0], bad, 1, pe, SHMEM_OP_GET), SHMEM_QUEUE_ERR_ARG);
    }
    long *odd_local = reinterpret_cast<long *>(reinterpret_cast<char *>(&local[1]) + 2);
    EXPECT_EQ(shmem_long_queue_comm_push(q, odd_local, t, 1, pe, SHMEM_OP_GET), SHMEM_QUEUE_ERR_ARG);
    int *odd_int = reinterpret_cast<int *>(reinterpret_cast<char *>(&t[0]) + 2);
    int ione = 1;
    EXPECT_EQ(shmem_int_queue_comm_push(q, odd_int, &ione, 1, pe, SHMEM_OP_ATOMIC_ADD), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_queue_comm_pushmem(q, reinterpret_cast<char *>(&t[0]) + 3, local, 2, pe, SHMEM_OP_PUT), 0)
        << "bytes have no alignment";
    EXPECT_EQ(shmem_queue_local_flush(q), 0);
    size_t sz = 1;
    EXPECT_EQ(shmem_query_size(q, &sz), 0);
    EXPECT_EQ(sz, 0u);
    EXPECT_EQ(shmem_query_attr(q, nullptr), SHMEM_QUEUE_ERR_ARG);
    EXPECT_EQ(shmem_query_size(q, nullptr), SHMEM_QUEUE_ERR_ARG);
    shmemx_queue_stats_t st;
    EXPECT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_EQ(st.ops_pushed, 1u); // the byte put
    // nelems 0 is a no-op
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, local, 0, pe, SHMEM_OP_PUT), 0);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    // op mismatching the config
    c = cfg(SHMEM_OP_ATOMIC_ADD);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, local, 1, pe, SHMEM_OP_PUT), SHMEM_QUEUE_ERR_TYPE);
    EXPECT_EQ(shmem_long_queue_comm_push(q, t, local, 1, pe, SHMEM_OP_ATOMIC_INC), SHMEM_QUEUE_ERR_TYPE);
    EXPECT_EQ(shmem_query_size(q, &sz), 0);
    EXPECT_EQ(sz, 0u);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    // only the byte put landed: bytes 3-4 of t[0] hold local[0]'s first two bytes
    long want0 = 0;
    std::memcpy(reinterpret_cast<char *>(&want0) + 3, local, 2);
    EXPECT_EQ(t[0], want0);
    for (int i = 1; i < 4; i++)
        EXPECT_EQ(t[i], 0);
    EXPECT_EQ(g_align_ctr[0], 0);
    EXPECT_EQ(g_align_ctr[1], 0);
    shmem_free(t);
    shmem_free(td);
    shmem_free(ts);
}


// timeout 0: no aggregation, so ops leave at once; after the peer's progress (a
// barrier) and our flush, the data is there; stats show one burst per remote push.
TEST(CommQueue, TimeoutZeroAndTimed)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int pe = (me + 1) % n;
    long *t = static_cast<long *>(shmem_calloc(8, sizeof(long)));
    shmem_barrier_all();
    for (int mode = 0; mode < 2; mode++) {
        setenv("SHMEMQ_COMM_PATH", mode ? "am" : "rma", 1);
        shmem_queue_t q;
        shmem_queue_config_t c = cfg(SHMEM_OP_ATOMIC_ADD, 0, 0.0);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        long one = 1;
        for (int i = 0; i < 4; i++)
            ASSERT_EQ(shmem_long_queue_comm_push(q, &t[i], &one, 1, pe, SHMEM_OP_ATOMIC_ADD), 0);
        shmemx_queue_stats_t st;
        ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
        if (pe != me) {
            EXPECT_EQ(st.bursts, 4u);
        }
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        // timed: 1 ms; after sleeping, any queue call issues the buffered ops
        c = cfg(SHMEM_OP_ATOMIC_ADD, 0, 0.001);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        ASSERT_EQ(shmem_long_queue_comm_push(q, &t[4], &one, 1, pe, SHMEM_OP_ATOMIC_ADD), 0);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        ASSERT_GE(shmem_queue_progress(q), 0);
        // issued by now (by the push itself if it took over 1 ms, else by progress)
        ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
        EXPECT_EQ(st.bursts, 1u);
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    }
    unsetenv("SHMEMQ_COMM_PATH");
    shmem_barrier_all();
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(t[i], 2);
    shmem_barrier_all();
    shmem_free(t);
}

TEST(CommQueue, SharedQueueFourThreads)
{
    int provided = 0;
    shmem_query_thread(&provided);
    if (provided != SHMEM_THREAD_MULTIPLE)
        GTEST_SKIP() << "needs SHMEM_THREAD_MULTIPLE";
    int n = shmem_n_pes(), me = shmem_my_pe();
    const int T = 4, R = 2000, N = 32;
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(N, sizeof(int64_t)));
    shmem_barrier_all();
    for (int mode = 0; mode < 2; mode++) {
        setenv("SHMEMQ_COMM_PATH", mode ? "am" : "rma", 1);
        shmem_queue_t q;
        shmem_queue_config_t c = cfg(SHMEM_OP_ANY, 256);
        c.thread_model = SHMEM_QUEUE_SHARED;
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        std::vector<std::thread> th;
        std::vector<int> bad(T, 0);
        for (int k = 0; k < T; k++) {
            th.emplace_back([&, k] {
                for (int r = 0; r < R; r++) {
                    int64_t v = 1;
                    int pe = (me + r + k) % n;
                    int rc;
                    while ((rc = shmem_int64_queue_comm_push(q, &ctr[(r + k) % N], &v, 1, pe,
                                                             SHMEM_OP_ATOMIC_ADD)) == SHMEM_QUEUE_ERR_FULL)
                        shmem_queue_progress(q);
                    if (rc != 0)
                        bad[k]++;
                    if (r % 500 == 0 && shmem_queue_local_flush(q) != 0)
                        bad[k]++;
                }
            });
        }
        for (auto &t : th)
            t.join();
        for (int k = 0; k < T; k++)
            EXPECT_EQ(bad[k], 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    }
    unsetenv("SHMEMQ_COMM_PATH");
    shmem_barrier_all();
    int64_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += ctr[i];
    // every PE sent T*R adds per mode, spread over all PEs; the total over PEs is exact
    int64_t *tot = static_cast<int64_t *>(shmem_calloc(1, sizeof(int64_t)));
    int64_t all = 0;
    MPI_Allreduce(&sum, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(all, (int64_t)2 * T * R * n);
    shmem_barrier_all();
    shmem_free(tot);
    shmem_free(ctr);
}

// SHMEMQ_PROGRESS_THREAD=1: a timed-out op leaves with no queue calls at all.
TEST(CommQueue, ProgressThreadHonoursTimeout)
{
    int provided = 0;
    shmem_query_thread(&provided);
    if (provided != SHMEM_THREAD_MULTIPLE)
        GTEST_SKIP() << "needs SHMEM_THREAD_MULTIPLE";
    int me = shmem_my_pe(), n = shmem_n_pes();
    int pe = (me + 1) % n;
    long *t = static_cast<long *>(shmem_calloc(1, sizeof(long)));
    shmem_barrier_all();
    setenv("SHMEMQ_PROGRESS_THREAD", "1", 1);
    setenv("SHMEMQ_COMM_PATH", "am", 1);
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ATOMIC_ADD, 0, 0.002);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    unsetenv("SHMEMQ_PROGRESS_THREAD");
    unsetenv("SHMEMQ_COMM_PATH");
    long one = 1;
    ASSERT_EQ(shmem_long_queue_comm_push(q, t, &one, 1, pe, SHMEM_OP_ATOMIC_ADD), 0);
    shmemx_queue_stats_t st;
    for (int i = 0; i < 400; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
        if (st.bursts > 0 || pe == me)
            break;
    }
    if (pe != me) {
        EXPECT_EQ(st.bursts, 1u);
    }
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    EXPECT_EQ(*t, 1);
    shmem_barrier_all();
    shmem_free(t);
}
