// test_dataq_nbx.cc: the sparse (NBX) exchange of direct data-queue flushes
// (src/queue/dq_nbx.c) against the alltoallv one, each case run under both
// SHMEMQ_DATAQ_EXCHANGE values: sparse traffic (one or two destinations per PE), a PE
// with nothing to send, overflow past the room with exact totals (whole and partial
// refusals), back-to-back flushes with no barrier between (and background flushes that
// PEs start different numbers of times), two queues flushed alternately, and the usage
// counts, which must be the same in both modes. test/dataq_nbx.sh runs all of
// test_dataq under nbx.
#include <gtest/gtest.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <sched.h>
#include "test_util.h"

namespace {

const char *const kModes[] = {"alltoallv", "nbx"};

// Sets SHMEMQ_DATAQ_EXCHANGE for the queues created in its scope, then restores it.
struct Exchange {
    std::string old;
    bool had;
    explicit Exchange(const char *mode)
    {
        const char *o = std::getenv("SHMEMQ_DATAQ_EXCHANGE");
        had = o != nullptr;
        if (had)
            old = o;
        setenv("SHMEMQ_DATAQ_EXCHANGE", mode, 1);
    }
    ~Exchange()
    {
        if (had)
            setenv("SHMEMQ_DATAQ_EXCHANGE", old.c_str(), 1);
        else
            unsetenv("SHMEMQ_DATAQ_EXCHANGE");
    }
};

// Element `seq` from src to dst in queue `qid`.
int64_t val(int qid, int src, int dst, int64_t seq)
{
    return ((int64_t)qid << 56) | ((int64_t)src << 40) | ((int64_t)dst << 24) | seq;
}

int64_t all_sum(int64_t v) { return yielding_allreduce(v, MPI_SUM); }

shmem_queue_t make(const char *mode, uint64_t room)
{
    Exchange ex(mode);
    shmem_queue_config_t c = data_queue_cfg(room, sizeof(int64_t));
    shmem_queue_t q = nullptr;
    EXPECT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    shmemx_queue_usage_t u;
    EXPECT_EQ(shmemx_queue_usage(q, &u), 0);
    // the exchange asked for is the one taken (rooms this small fit NBX's int count)
    EXPECT_EQ(u.mode, std::strcmp(mode, "nbx") == 0 ? (uint32_t)SHMEMX_QUEUE_MODE_DATA_NBX
                                                     : (uint32_t)SHMEMX_QUEUE_MODE_DATA_FLAT);
    return q;
}

// Pop exactly `k` elements from src and check they are seq first..first+k-1.
void expect_from(shmem_queue_t q, int qid, int src, int me, int64_t first, int k)
{
    size_t in = 0, out = 0;
    ASSERT_EQ(shmem_query_data_size(q, &in, &out, src), 0);
    ASSERT_EQ(in, (size_t)k * 8) << "from PE " << src;
    std::vector<int64_t> got(k + 1);
    if (k) {
        ASSERT_EQ(shmem_queue_data_pop(q, got.data(), k, src), 0);
    }
    for (int s = 0; s < k; s++)
        ASSERT_EQ(got[s], val(qid, src, me, first + s)) << "from PE " << src << " seq " << s;
    EXPECT_EQ(shmem_queue_data_pop(q, got.data(), 1, src), SHMEM_QUEUE_ERR_EMPTY);
}

} // namespace

// Each PE sends to its right neighbour and, at 4 PEs and more, to the PE two to its
// right: most pairs carry nothing. Counts per flush: one message per destination.
TEST(DataQueueNbx, SparseTraffic)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    for (const char *m : kModes) {
        shmem_queue_t q = make(m, 4096);
        ASSERT_NE(q, nullptr);
        std::vector<int> dst = {(me + 1) % n};
        if (n >= 4)
            dst.push_back((me + 2) % n);
        const int k = 37;
        for (int d : dst)
            for (int s = 0; s < k; s++) {
                int64_t v = val(1, me, d, s);
                ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
            }
        expect_all_rc(shmem_queue_global_flush(q), 0);
        for (int p = 0; p < n; p++) {
            bool sends = p == (me + n - 1) % n || (n >= 4 && p == (me + n - 2) % n);
            ASSERT_NO_FATAL_FAILURE(expect_from(q, 1, p, me, 0, sends ? k : 0)) << m;
        }
        shmemx_queue_usage_t u;
        ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
        EXPECT_EQ(u.msgs_last, dst.size()) << m;
        EXPECT_EQ(u.peers_last, dst.size()) << m;
        EXPECT_EQ(u.bytes_last, dst.size() * k * 8) << m;
        EXPECT_EQ(u.held_bytes, 0u) << m;
        EXPECT_EQ(u.flushes, 1u) << m;
        if (std::strcmp(m, "nbx") == 0) {
            // the exchange's lists hold what this flush needed, within the model's bound
            shmem_queue_config_t c = data_queue_cfg(4096, 8);
            shmemx_queue_model_t mo;
            ASSERT_EQ(shmemx_queue_model(&c, SHMEMX_QUEUE_MODE_DATA_NBX, n, 1, &mo), 0);
            EXPECT_EQ(u.meta_bytes, mo.meta_bytes + mo.track_bytes);
            EXPECT_EQ(u.scratch_bytes > 0, n > 1); // alone: no messages, no lists
            EXPECT_LE(u.scratch_bytes, mo.scratch_once_bytes);
            EXPECT_EQ(u.buffer_bytes, 2u * n * 4096);
        }
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    }
}

// PE 0 pushes nothing (not even to itself) and still takes part; everyone else sends
// to every PE, PE 0 included.
TEST(DataQueueNbx, PeWithNothingToSend)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    for (const char *m : kModes) {
        shmem_queue_t q = make(m, 1024);
        ASSERT_NE(q, nullptr);
        const int k = 5;
        if (me != 0)
            for (int p = 0; p < n; p++)
                for (int s = 0; s < k; s++) {
                    int64_t v = val(2, me, p, s);
                    ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
                }
        expect_all_rc(shmem_queue_global_flush(q), 0);
        for (int p = 0; p < n; p++)
            ASSERT_NO_FATAL_FAILURE(expect_from(q, 2, p, me, 0, p == 0 ? 0 : k)) << m;
        shmemx_queue_usage_t u;
        ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
        EXPECT_EQ(u.msgs_last, me == 0 ? 0u : (uint64_t)n) << m;
        // a second flush where nobody has anything: nothing moves, nothing is reported
        expect_all_rc(shmem_queue_global_flush(q), 0);
        ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
        EXPECT_EQ(u.msgs_last, 0u) << m;
        EXPECT_EQ(u.flushes, 2u) << m;
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    }
}

// Rooms of R elements; every PE sends 3R + 2 elements to its right neighbour over
// several flushes while the receiver pops only some in between, so flushes refuse
// whole messages (room full) and parts of messages (room partly free). Every flush
// that could not move everything says OVERFLOW on every PE; in the end every element
// arrived once, in order, and the totals are exact.
TEST(DataQueueNbx, OverflowPastTheRoomExactTotals)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    const int R = 8, total = 3 * R + 2;
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    for (const char *m : kModes) {
        shmem_queue_t q = make(m, R * 8);
        ASSERT_NE(q, nullptr);
        int pushed = 0, popped = 0;
        int whole = 0, part = 0; // flushes that refused a whole message / part of one
        uint64_t flushes = 0;
        for (int round = 0; popped < total; round++) {
            ASSERT_LT(round, 100) << m;
            while (pushed < total) { // fill the outgoing room until FULL
                int64_t v = val(3, me, right, pushed);
                int rc = shmem_queue_data_push(q, &v, 1, right);
                if (rc == SHMEM_QUEUE_ERR_FULL)
                    break;
                ASSERT_EQ(rc, 0);
                pushed++;
            }
            size_t in0 = 0, out0 = 0;
            ASSERT_EQ(shmem_query_data_size(q, &in0, &out0, SHMEM_QUEUE_ANY_PE), 0);
            // OVERFLOW exactly when some pair could not move everything: with every PE
            // in the same state (the same schedule), that is when this PE's own
            // outgoing bytes exceed its receiver's free room (= its own free room)
            bool ovf = out0 > (size_t)R * 8 - in0;
            int rc = shmem_queue_global_flush(q);
            flushes++;
            expect_all_rc(rc, ovf ? SHMEM_QUEUE_ERR_OVERFLOW : 0);
            size_t in1 = 0, out1 = 0;
            ASSERT_EQ(shmem_query_data_size(q, &in1, &out1, SHMEM_QUEUE_ANY_PE), 0);
            EXPECT_EQ(in1 + out1, in0 + out0) << m << ": nothing lost, nothing doubled";
            EXPECT_EQ(in1, in0 + out0 < (size_t)R * 8 ? in0 + out0 : (size_t)R * 8) << m;
            if (in0 == (size_t)R * 8 && out0 > 0)
                whole++;
            else if (in0 > 0 && ovf)
                part++;
            // pop all, 3 or none, in turn: after 3 the next flush refuses part of a
            // message, after none (a full room) all of it
            int want = round % 3 == 0 ? R : round % 3 == 1 ? 3 : 0;
            size_t have = in1 / 8;
            int k = (int)(have < (size_t)want ? have : (size_t)want);
            std::vector<int64_t> got(k + 1);
            if (k) {
                ASSERT_EQ(shmem_queue_data_pop(q, got.data(), k, left), 0);
            }
            for (int s = 0; s < k; s++)
                ASSERT_EQ(got[s], val(3, left, me, popped + s)) << m << " seq " << popped + s;
            popped += k;
        }
        EXPECT_EQ(pushed, total);
        EXPECT_EQ(popped, total);
        EXPECT_GT(whole, 0) << m;
        EXPECT_GT(part, 0) << m;
        shmemx_queue_stats_t st;
        ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
        EXPECT_EQ(st.bytes, (uint64_t)total * 8) << m;
        EXPECT_EQ(st.ops_pushed, (uint64_t)total) << m;
        EXPECT_EQ(st.flushes, flushes) << m;
        EXPECT_EQ(all_sum(st.bytes), (int64_t)n * total * 8) << m;
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    }
}

// 60 global flushes in a row with no barrier between; each iteration sends to a
// destination set that changes (none, one, several), so a fast PE's next flush
// reaches a PE still finishing the last one. Then background flushes that PEs start
// different numbers of times, reconciled by one global flush.
TEST(DataQueueNbx, BackToBackFlushesNoBarrier)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    for (const char *m : kModes) {
        shmem_queue_t q = make(m, 2048);
        ASSERT_NE(q, nullptr);
        std::vector<int64_t> next_in(n, 0), next_out(n, 0);
        auto sends_to = [](int it, int src, int dst) {
            return ((it + src * 7 + dst * 3) % 5) < (it % 4); // it % 4 == 0: nothing
        };
        for (int it = 0; it < 60; it++) {
            for (int d = 0; d < n; d++)
                if (sends_to(it, me, d))
                    for (int s = 0; s < 1 + (it + d) % 3; s++) {
                        int64_t v = val(4, me, d, next_out[d]++);
                        ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
                    }
            ASSERT_EQ(shmem_queue_global_flush(q), 0) << m << " iteration " << it;
            for (int p = 0; p < n; p++) {
                int k = sends_to(it, p, me) ? 1 + (it + me) % 3 : 0;
                ASSERT_NO_FATAL_FAILURE(expect_from(q, 4, p, me, next_in[p], k))
                    << m << " iteration " << it;
                next_in[p] += k;
            }
        }
        // background flushes: PE i starts and polls i+1 times
        for (int d = 0; d < n; d++) {
            int64_t v = val(4, me, d, next_out[d]++);
            ASSERT_EQ(shmem_queue_data_push(q, &v, 1, d), 0);
        }
        for (int i = 0; i <= me; i++)
            ASSERT_EQ(shmem_queue_data_progress(q, SHMEM_TEAM_WORLD) >= 0, true);
        expect_all_rc(shmem_queue_global_flush(q), 0);
        for (int p = 0; p < n; p++) {
            ASSERT_NO_FATAL_FAILURE(expect_from(q, 4, p, me, next_in[p], 1)) << m;
            next_in[p]++;
        }
        expect_all_rc(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    }
}

// Two queues, one NBX and one alltoallv or both NBX, flushed alternately with data
// in both: nothing crosses from one queue to the other.
TEST(DataQueueNbx, TwoQueuesFlushedAlternately)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    for (const char *m2 : kModes) {
        shmem_queue_t a = make("nbx", 1024);
        shmem_queue_t b = make(m2, 1024);
        ASSERT_NE(a, nullptr);
        ASSERT_NE(b, nullptr);
        std::vector<int64_t> seq_a(n, 0), seq_b(n, 0);
        for (int it = 0; it < 20; it++) {
            for (int d = 0; d < n; d++) {
                int64_t va = val(5, me, d, it), vb = val(6, me, d, it);
                if ((it + d) % 2 == 0) {
                    ASSERT_EQ(shmem_queue_data_push(a, &va, 1, d), 0);
                }
                if ((it + d + me) % 3 != 0) {
                    ASSERT_EQ(shmem_queue_data_push(b, &vb, 1, d), 0);
                }
            }
            // alternate which queue goes first; pushes to b wait through a's flush
            shmem_queue_t first = it % 2 ? a : b, second = it % 2 ? b : a;
            ASSERT_EQ(shmem_queue_global_flush(first), 0);
            ASSERT_EQ(shmem_queue_global_flush(second), 0);
            for (int p = 0; p < n; p++) {
                int64_t x;
                if ((it + me) % 2 == 0) {
                    ASSERT_EQ(shmem_queue_data_pop(a, &x, 1, p), 0);
                    ASSERT_EQ(x, val(5, p, me, it)) << m2 << " it " << it;
                }
                EXPECT_EQ(shmem_queue_data_pop(a, &x, 1, p), SHMEM_QUEUE_ERR_EMPTY);
                if ((it + me + p) % 3 != 0) {
                    ASSERT_EQ(shmem_queue_data_pop(b, &x, 1, p), 0);
                    ASSERT_EQ(x, val(6, p, me, it)) << m2 << " it " << it;
                }
                EXPECT_EQ(shmem_queue_data_pop(b, &x, 1, p), SHMEM_QUEUE_ERR_EMPTY);
            }
        }
        EXPECT_EQ(shmem_queue_data_destroy(&a, SHMEM_TEAM_WORLD), 0);
        EXPECT_EQ(shmem_queue_data_destroy(&b, SHMEM_TEAM_WORLD), 0);
    }
}

// A PE that started a background NBX flush and then waits in shmem_barrier_all still
// receives and acknowledges the others' messages (the progress hook), so they finish
// the flush by progress calls alone before they reach the barrier. (With the alltoallv
// exchange this program hangs: its flush's later collectives start only in the
// starting PE's own data-queue calls.)
TEST(DataQueueNbx, HookServesWhileInBarrier)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    shmem_queue_t q = make("nbx", 1024);
    ASSERT_NE(q, nullptr);
    for (int p = 0; p < n; p++) {
        int64_t v = val(8, me, p, 0);
        ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
    }
    shmemx_queue_usage_t u;
    if (me == 0) {
        ASSERT_EQ(shmem_queue_data_progress(q, SHMEM_TEAM_WORLD), 0); // starts the flush
        shmem_barrier_all();
        // done by the hook (or by this call); the next call reports it, once
        long calls = 0;
        do {
            ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
            if (u.flushes == 0) {
                ASSERT_GE(shmem_queue_data_progress(q, SHMEM_TEAM_WORLD), 0);
            }
            ASSERT_LT(++calls, 10000000L);
        } while (u.flushes == 0);
    } else {
        long calls = 0;
        do { // this PE's flush needs PE 0's acknowledgement, and PE 0 is in the barrier
            ASSERT_GE(shmem_queue_data_progress(q, SHMEM_TEAM_WORLD), 0);
            ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
            ASSERT_LT(++calls, 10000000L);
            sched_yield();
        } while (u.flushes == 0);
        shmem_barrier_all();
    }
    EXPECT_EQ(u.flushes, 1u);
    // a global flush catches up whoever started a second background flush meanwhile
    expect_all_rc(shmem_queue_global_flush(q), 0);
    for (int p = 0; p < n; p++)
        ASSERT_NO_FATAL_FAILURE(expect_from(q, 8, p, me, 0, 1));
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

// auto: alltoallv below 4096 PEs, NBX from 4096 (docs/data_queues.md); the runs here
// check the first half (nothing here runs 4096 PEs).
TEST(DataQueueNbx, AutoFollowsTheTeamSize)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    Exchange ex("auto");
    shmem_queue_config_t c = data_queue_cfg(1024, 8);
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    shmemx_queue_usage_t u;
    ASSERT_EQ(shmemx_queue_usage(q, &u), 0);
    EXPECT_EQ(u.mode, n >= 4096 ? (uint32_t)SHMEMX_QUEUE_MODE_DATA_NBX
                             : (uint32_t)SHMEMX_QUEUE_MODE_DATA_FLAT);
    // and it works: one element to every PE
    for (int p = 0; p < n; p++) {
        int64_t v = val(7, me, p, 0);
        ASSERT_EQ(shmem_queue_data_push(q, &v, 1, p), 0);
    }
    expect_all_rc(shmem_queue_global_flush(q), 0);
    for (int p = 0; p < n; p++)
        ASSERT_NO_FATAL_FAILURE(expect_from(q, 7, p, me, 0, 1));
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}

// The PEs must agree on the exchange: one PE asking for nbx while the others ask for
// alltoallv fails the create on every PE. Alone, a PE cannot disagree: an unknown value
// is auto, and the queue works.
TEST(DataQueueNbx, DisagreementIsAnError)
{
    const int n = shmem_n_pes(), me = shmem_my_pe();
    shmem_queue_config_t c = data_queue_cfg(1024, 8);
    shmem_queue_t q = nullptr;
    if (n >= 2) {
        Exchange ex(me == 0 ? "nbx" : "alltoallv");
        expect_all_rc(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), SHMEM_QUEUE_ERR_ARG);
        EXPECT_EQ(q, nullptr);
        return;
    }
    Exchange ex("sparse-please");
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    int64_t v = 42, w = 0;
    ASSERT_EQ(shmem_queue_data_push(q, &v, 1, 0), 0);
    ASSERT_EQ(shmem_queue_global_flush(q), 0);
    ASSERT_EQ(shmem_queue_data_pop(q, &w, 1, 0), 0);
    EXPECT_EQ(w, 42);
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
}
