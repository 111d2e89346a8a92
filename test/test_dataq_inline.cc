// test_dataq_inline.cc: the data queue's inline push and pop (include/shmemq/
// queue_inline.h) against the library's functions, scenario by scenario, and SHARED
// queues pushed from several threads, also while other threads flush. The queue's
// semantics through the library: test_dataq.cc.
#include <gtest/gtest.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <sched.h>
#include <vector>
#include "test_util.h"

namespace {

// shmem_queue_data_push/_pop are macros over the inline paths; the parenthesized names
// call the exported library functions. Every scenario runs through both.
struct PushPop {
    const char *name;
    int (*push)(shmem_queue_t, const void *, size_t, int);
    int (*pop)(shmem_queue_t, void *, size_t, int);
};
int push_inline(shmem_queue_t q, const void *s, size_t n, int pe) { return shmem_queue_data_push(q, s, n, pe); }
int pop_inline(shmem_queue_t q, void *d, size_t n, int pe) { return shmem_queue_data_pop(q, d, n, pe); }
int push_lib(shmem_queue_t q, const void *s, size_t n, int pe) { return (shmem_queue_data_push)(q, s, n, pe); }
int pop_lib(shmem_queue_t q, void *d, size_t n, int pe) { return (shmem_queue_data_pop)(q, d, n, pe); }
const PushPop kPaths[] = {{"inline", push_inline, pop_inline}, {"library", push_lib, pop_lib}};

// Element `seq` from src to dst, `elem` bytes, every byte depends on all four.
std::vector<unsigned char> elem_bytes(int src, int dst, int seq, size_t elem)
{
    std::vector<unsigned char> b(elem);
    for (size_t i = 0; i < elem; i++)
        b[i] = (unsigned char)(src * 31 + dst * 17 + seq * 7 + (int)i);
    return b;
}

} // namespace

// Room of 3 elements per peer; sizes 4, 8, 16 (the inline copy's fixed-size cases) and
// 12 (its generic case). FULL, EMPTY, wrong sizes, bad PEs and bad handles give the
// same answers through both paths and change nothing.
TEST(DataQueue, InlinePathsMatchLibrary)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    const int dst = (me + 1) % n, src = (me + n - 1) % n;
    for (const PushPop &pp : kPaths) {
        for (size_t elem : {4, 8, 12, 16}) {
            SCOPED_TRACE(std::string(pp.name) + " elem " + std::to_string(elem));
            shmem_queue_config_t c = data_queue_cfg(3 * elem, elem);
            shmem_queue_t q = nullptr;
            ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
            std::vector<unsigned char> v;
            for (int s = 0; s < 4; s++) {
                auto e = elem_bytes(me, dst, s, elem);
                v.insert(v.end(), e.begin(), e.end());
            }
            // wrong sizes: more than the room can ever hold, overflowing byte counts
            EXPECT_EQ(pp.push(q, v.data(), 4, dst), SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(pp.push(q, v.data(), SIZE_MAX, dst), SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(pp.push(q, v.data(), 0, dst), 0);
            // bad PEs, NULL source, bad handles
            EXPECT_EQ(pp.push(q, v.data(), 1, n), SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(pp.push(q, v.data(), 1, -1), SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(pp.push(q, v.data(), 1, INT32_MIN), SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(pp.push(q, nullptr, 1, dst), SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(pp.push(nullptr, v.data(), 1, dst), SHMEM_QUEUE_ERR_ARG);
            uint32_t other[16] = {0x434f4d51u}; // not a data queue
            shmem_queue_t alien = reinterpret_cast<shmem_queue_t>(other);
            EXPECT_EQ(pp.push(alien, v.data(), 1, dst), SHMEM_QUEUE_ERR_STATE);
            EXPECT_EQ(pp.pop(alien, v.data(), 1, src), SHMEM_QUEUE_ERR_STATE);
            EXPECT_EQ(pp.pop(nullptr, v.data(), 1, src), SHMEM_QUEUE_ERR_ARG);
            size_t in = 9, out = 9;
            ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
            EXPECT_EQ(in + out, 0u) << "an error pushed something";
            // FULL: 2 fit, 2 more do not, 1 does, then nothing
            ASSERT_EQ(pp.push(q, v.data(), 2, dst), 0);
            EXPECT_EQ(pp.push(q, v.data() + 2 * elem, 2, dst), SHMEM_QUEUE_ERR_FULL);
            ASSERT_EQ(pp.push(q, v.data() + 2 * elem, 1, dst), 0);
            EXPECT_EQ(pp.push(q, v.data() + 3 * elem, 1, dst), SHMEM_QUEUE_ERR_FULL);
            ASSERT_EQ(shmem_query_data_size(q, &in, &out, dst), 0);
            EXPECT_EQ(out, 3 * elem);
            shmemx_queue_stats_t st;
            ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
            EXPECT_EQ(st.ops_pushed, 3u);
            EXPECT_EQ(st.full_returns, 2u);
            shmem_queue_attr_t a;
            ASSERT_EQ(shmem_query_attr(q, &a), 0);
            EXPECT_EQ(a.outstanding_elems, 3u);
            // EMPTY before the flush, through every kind of pop
            std::vector<unsigned char> got(4 * elem, 0);
            EXPECT_EQ(pp.pop(q, got.data(), 1, src), SHMEM_QUEUE_ERR_EMPTY);
            EXPECT_EQ(pp.pop(q, got.data(), 1, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_EMPTY);
            expect_all_rc(shmem_queue_global_flush(q), 0);
            ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
            EXPECT_EQ(st.ops_pushed, 3u); // sent bytes count as pushed
            // wrong sizes and bad PEs for pop
            EXPECT_EQ(pp.pop(q, got.data(), SIZE_MAX, src), SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(pp.pop(q, nullptr, 1, src), SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(pp.pop(q, got.data(), 1, n), SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(pp.pop(q, got.data(), 1, -2), SHMEM_QUEUE_ERR_ARG);
            EXPECT_EQ(pp.pop(q, got.data(), 0, src), 0);
            EXPECT_EQ(pp.pop(q, got.data(), 4, src), SHMEM_QUEUE_ERR_EMPTY); // > room
            // one by source, then two by ANY_PE (only src sent to me), then EMPTY
            ASSERT_EQ(pp.pop(q, got.data(), 1, src), 0);
            ASSERT_EQ(pp.pop(q, got.data() + elem, 2, SHMEM_QUEUE_ANY_PE), 0);
            for (int s = 0; s < 3; s++) {
                auto e = elem_bytes(src, me, s, elem);
                EXPECT_EQ(std::memcmp(got.data() + s * elem, e.data(), elem), 0) << "seq " << s;
            }
            EXPECT_EQ(pp.pop(q, got.data(), 1, src), SHMEM_QUEUE_ERR_EMPTY);
            EXPECT_EQ(pp.pop(q, got.data(), 1, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_EMPTY);
            // drained FIFOs start at the front again: a full room fits next round
            ASSERT_EQ(pp.push(q, v.data(), 3, dst), 0);
            expect_all_rc(shmem_queue_global_flush(q), 0);
            ASSERT_EQ(pp.pop(q, got.data(), 3, src), 0);
            EXPECT_EQ(std::memcmp(got.data(), elem_bytes(src, me, 0, elem).data(), elem), 0);
            EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
        }
    }
}

// ANY_PE pops take the lowest source first, also after pops by source emptied some
// sources and after a new flush refilled lower ones (the inline path remembers where
// the first nonempty source is; a flush must reset that).
TEST(DataQueue, InlineAnyPeLowestSourceFirst)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    for (const PushPop &pp : kPaths) {
        SCOPED_TRACE(pp.name);
        shmem_queue_config_t c = data_queue_cfg(4 * 8, 8);
        shmem_queue_t q = nullptr;
        ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
        for (int round = 0; round < 2; round++) {
            for (int p = 0; p < n; p++)
                for (int s = 0; s < 2; s++) {
                    int64_t x = dataq_val(me, p, round * 2 + s);
                    ASSERT_EQ(pp.push(q, &x, 1, p), 0);
                }
            expect_all_rc(shmem_queue_global_flush(q), 0);
            int64_t x = 0;
            if (round == 0 && n > 1) {
                // empty source 0 by source: ANY_PE then starts at source 1
                ASSERT_EQ(pp.pop(q, &x, 1, 0), 0);
                ASSERT_EQ(pp.pop(q, &x, 1, 0), 0);
                ASSERT_EQ(pp.pop(q, &x, 1, SHMEM_QUEUE_ANY_PE), 0);
                EXPECT_EQ(x, dataq_val(1, me, 0));
                // two more: the rest of source 1 and the first of source 2 (or EMPTY)
                int64_t two[2];
                if (n > 2) {
                    ASSERT_EQ(pp.pop(q, two, 2, SHMEM_QUEUE_ANY_PE), 0);
                    EXPECT_EQ(two[0], dataq_val(1, me, 1));
                    EXPECT_EQ(two[1], dataq_val(2, me, 0));
                } else {
                    EXPECT_EQ(pp.pop(q, two, 2, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_EMPTY);
                    ASSERT_EQ(pp.pop(q, two, 1, SHMEM_QUEUE_ANY_PE), 0);
                    EXPECT_EQ(two[0], dataq_val(1, me, 1));
                }
                while (pp.pop(q, &x, 1, SHMEM_QUEUE_ANY_PE) == 0)
                    ;
            } else {
                // after the refill: strictly by source, then sequence
                for (int p = 0; p < n; p++)
                    for (int s = 0; s < 2; s++) {
                        ASSERT_EQ(pp.pop(q, &x, 1, SHMEM_QUEUE_ANY_PE), 0);
                        EXPECT_EQ(x, dataq_val(p, me, round * 2 + s));
                    }
                EXPECT_EQ(pp.pop(q, &x, 1, SHMEM_QUEUE_ANY_PE), SHMEM_QUEUE_ERR_EMPTY);
            }
            size_t in, out;
            ASSERT_EQ(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE), 0);
            EXPECT_EQ(in + out, 0u);
        }
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    }
}

TEST(DataQueue, SharedQueueConcurrentPushes)
{
    int provided = 0;
    shmem_query_thread(&provided);
    if (provided < SHMEM_THREAD_MULTIPLE)
        GTEST_SKIP() << "needs SHMEM_THREAD_MULTIPLE";
    const int n = shmem_n_pes(), me = shmem_my_pe();
    const int T = 2, K = 200;
    shmem_queue_config_t c = data_queue_cfg((uint64_t)T * K * 8, 8);
    c.thread_model = SHMEM_QUEUE_SHARED;
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    std::vector<std::thread> th;
    for (int t = 0; t < T; t++)
        th.emplace_back([&, t] {
            for (int s = 0; s < K; s++)
                for (int p = 0; p < n; p++) {
                    int64_t v = dataq_val(me, p, t * K + s);
                    shmem_queue_data_push(q, &v, 1, p);
                }
        });
    for (auto &x : th)
        x.join();
    expect_all_rc(shmem_queue_global_flush(q), 0);
    for (int p = 0; p < n; p++) {
        std::vector<int64_t> got(T * K);
        ASSERT_EQ(shmem_queue_data_pop(q, got.data(), T * K, p), 0);
        // each thread's elements in its order
        std::vector<int> next(T, 0);
        for (int64_t g : got) {
            int seq = (int)(g & 0xffffff), t = seq / K;
            ASSERT_EQ(g, dataq_val(p, me, seq));
            ASSERT_EQ(seq % K, next[t]++);
        }
    }
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

TEST(DataQueue, SharedQueuePushesDuringFlushes)
{
    int provided = 0;
    shmem_query_thread(&provided);
    if (provided < SHMEM_THREAD_MULTIPLE)
        GTEST_SKIP() << "needs SHMEM_THREAD_MULTIPLE";
    // A second thread pushes while this one runs global flushes and progress: every
    // element arrives once, in push order.
    const int n = shmem_n_pes(), me = shmem_my_pe();
    const int K = 300;
    shmem_queue_config_t c = data_queue_cfg((uint64_t)K * 8, 8);
    c.thread_model = SHMEM_QUEUE_SHARED;
    shmem_queue_t q;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    volatile int done = 0;
    std::thread pusher([&] {
        for (int s = 0; s < K; s++) {
            for (int p = 0; p < n; p++) {
                int64_t v = dataq_val(me, p, s);
                while (shmem_queue_data_push(q, &v, 1, p) != 0)
                    sched_yield();
            }
            if (s % 16 == 0)
                sched_yield();
        }
        __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    });
    std::vector<std::vector<int64_t>> got(n);
    for (int it = 0;; it++) {
        int rc = it % 2 ? shmem_queue_data_progress(q, SHMEM_TEAM_WORLD)
                        : shmem_queue_global_flush(q);
        ASSERT_EQ(rc, 0);
        for (int p = 0; p < n; p++) {
            int64_t v;
            while (shmem_queue_data_pop(q, &v, 1, p) == 0)
                got[p].push_back(v);
        }
        if (yielding_allreduce(__atomic_load_n(&done, __ATOMIC_ACQUIRE) ? 0 : 1, MPI_SUM) == 0)
            break;
    }
    pusher.join();
    expect_all_rc(shmem_queue_global_flush(q), 0);
    for (int p = 0; p < n; p++) {
        int64_t v;
        while (shmem_queue_data_pop(q, &v, 1, p) == 0)
            got[p].push_back(v);
        ASSERT_EQ(got[p].size(), (size_t)K);
        for (int s = 0; s < K; s++)
            ASSERT_EQ(got[p][s], dataq_val(p, me, s));
    }
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

// ---- index-gather through data queues only (the example's variant 2, small rooms so
// that FULL and OVERFLOW happen and are handled) ----
