// test_commq_rhold.cc: comm-queue ADD bursts to other PEs summed at the origin per target
// (src/queue/cq_rhold.c; docs/queues_design.md, "Held sums for other PEs"): sent as one
// record per word to PEs of other nodes, applied with one CPU atomic per word to node
// peers. Held records stay outstanding until then, the flush, a full queue's progress
// and destroy send or apply them, and the totals are exact whatever the windows, ranges,
// word sizes, regions and other atomics on the same words. Every PE pushes to every PE
// and checks its own table against what all origins pushed to it.
//
// run-mpi.sh runs it on one node (node peers' sums are held and applied here), with every
// PE its own node (sent) and as two nodes of two (both); at 1 PE nothing is held (a PE's
// own sums are cq_node.c's, test_commq_hold).
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "test_util.h"

extern "C" uint64_t shmemi_queue_comm_rheld(shmem_queue_t q);
extern "C" void shmemi_queue_comm_rhold_windows(int n);

namespace {

int32_t g_words32[512]; // a table in the data segment (another window than the heap)

uint64_t outstanding(shmem_queue_t q)
{
    size_t n = 0;
    EXPECT_EQ(shmem_query_size(q, &n), 0);
    return n;
}

// Where origin o's i-th push goes and what it adds: the same on every PE, so each PE
// can compute what every origin sent it.
struct Pick {
    int pe;
    size_t k;
    int64_t v;
};
Pick pick(int o, uint64_t i, int npes, size_t w)
{
    uint64_t h = mix((uint64_t)o << 40 ^ i);
    return {(int)(h % (uint64_t)npes), (size_t)((h >> 20) % w), (int64_t)((h >> 50) % 7) - 2};
}

// Every origin's adds for this PE's table of w words.
std::vector<int64_t> expected(uint64_t pushes, size_t w)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    std::vector<int64_t> want(w, 0);
    for (int o = 0; o < n; o++)
        for (uint64_t i = 0; i < pushes; i++) {
            Pick p = pick(o, i, n, w);
            if (p.pe == me)
                want[p.k] += p.v;
        }
    return want;
}

shmem_queue_t make_queue(uint64_t max = 0, double timeout = SHMEM_QUEUE_MAX_TIMEOUT)
{
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD, max, timeout);
    shmem_queue_t q = nullptr;
    EXPECT_EQ(shmem_queue_comm_create(&q, &c), 0);
    return q;
}

// Pushes `pushes` adds of pick() into t (w words) on every PE through q, retrying on FULL
// with progress; returns the most records seen held, checking each time that held
// records are counted outstanding.
uint64_t push_all(shmem_queue_t q, int64_t *t, size_t w, uint64_t pushes, uint64_t *fulls)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    uint64_t most = 0;
    for (uint64_t i = 0; i < pushes; i++) {
        Pick p = pick(me, i, n, w);
        int rc;
        while ((rc = shmem_int64_queue_comm_push(q, &t[p.k], &p.v, 1, p.pe,
                                                 SHMEM_OP_ATOMIC_ADD)) == SHMEM_QUEUE_ERR_FULL) {
            ++*fulls;
            EXPECT_GE(shmem_queue_progress(q), 0);
        }
        EXPECT_EQ(rc, 0);
        if (i % 499 == 0) {
            uint64_t h = shmemi_queue_comm_rheld(q);
            EXPECT_GE(outstanding(q), h) << "held records must stay outstanding";
            most = h > most ? h : most;
        }
    }
    return most;
}

int64_t sum_of(const int64_t *t, size_t w)
{
    int64_t s = 0;
    for (size_t k = 0; k < w; k++)
        s += t[k];
    return s;
}

void check_table(const int64_t *t, const std::vector<int64_t> &want)
{
    int wrong = 0;
    for (size_t k = 0; k < want.size(); k++)
        wrong += t[k] != want[k];
    EXPECT_EQ(wrong, 0) << "PE " << shmem_my_pe() << ": words with the wrong total";
}

} // namespace

// Every case's table (w zeroed words on every PE) and, most cases, its queue. The
// barriers: Start's, so no PE pushes before every table and queue exists; Finish's, so
// every origin's adds are in this PE's table when the case checks it; TearDown's, so no
// PE frees its table while another may still add to it.
class CommQRHold : public ::testing::Test {
  protected:
    const int me = shmem_my_pe(), n = shmem_n_pes();
    size_t w = 0;
    int64_t *t = nullptr;
    shmem_queue_t q = nullptr;

    void Table(size_t words)
    {
        w = words;
        t = static_cast<int64_t *>(shmem_calloc(w, sizeof(int64_t)));
        ASSERT_NE(t, nullptr);
    }

    void Start(size_t words, const shmem_queue_config_t &c)
    {
        ASSERT_NO_FATAL_FAILURE(Table(words));
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        ASSERT_NE(q, nullptr);
        shmem_barrier_all();
    }
    // A queue of ADDs only, max_elems max (0: default), untimed: the queue that holds.
    void Start(size_t words, uint64_t max = 0)
    {
        Start(words, comm_queue_cfg(SHMEM_OP_ATOMIC_ADD, max));
    }

    // After a flush nothing stays held or outstanding; destroy alone must send what is
    // held (destroy completes outstanding work), so the table is exact either way.
    void Finish(bool flush = true)
    {
        if (flush) {
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
            EXPECT_EQ(shmemi_queue_comm_rheld(q), 0u);
            EXPECT_EQ(outstanding(q), 0u);
        }
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        q = nullptr;
        shmem_barrier_all();
    }

    // most: the most records seen held. Bursts to other PEs hold where the case expects
    // it (these queues take the RMA path, and node peers' atomics the node transport or
    // MPI RMA: both hold); a PE alone holds nothing here.
    void CheckHeld(uint64_t most, bool expect_held)
    {
        if (n == 1) {
            EXPECT_EQ(most, 0u) << "held with no other PE";
        } else if (expect_held) {
            EXPECT_GT(most, 0u) << "no burst to another PE was held";
        }
    }

    // One run: every PE pushes pick()'s adds, flushes (or destroys), and checks its own
    // table; with max, the queue must have met FULL.
    void Run(uint64_t pushes, size_t words, uint64_t max, bool expect_held,
             bool destroy_only = false)
    {
        ASSERT_NO_FATAL_FAILURE(Start(words, max));
        uint64_t fulls = 0;
        uint64_t most = push_all(q, t, w, pushes, &fulls);
        ASSERT_NO_FATAL_FAILURE(Finish(!destroy_only));
        check_table(t, expected(pushes, w));
        CheckHeld(most, expect_held);
        if (max) {
            EXPECT_GT(fulls, 0u) << "the queue never filled: the case did not test FULL";
        }
    }

    void TearDown() override
    {
        if (q) // a case that stopped early: its queue goes, and this PE still meets the others
            (void)shmem_queue_comm_destroy(q);
        shmem_barrier_all();
        shmem_free(t);
    }
};

// A histogram-like table (1,000 words): bursts to other nodes are held, counted
// outstanding, and the flush brings every word to its exact total.
TEST_F(CommQRHold, HeldOutstandingAndExact) { Run(60000, 1000, 0, true); }

// One window for all targets: bursts for the other PEs leave as they are while it holds
// one PE's sums (a window is never taken from a PE), and it passes on when it drains.
TEST_F(CommQRHold, OneWindowForManyTargetsExact)
{
    shmemi_queue_comm_rhold_windows(1);
    Run(60000, 1000, 0, true);
    shmemi_queue_comm_rhold_windows(4);
}

// A table of 10,000 words, wider than a chunk's 4,096 records: held in its target's own
// window, whose drain at the flush sends the sums of ~10,000 words as several bursts.
TEST_F(CommQRHold, WideTableDrainsInSeveralBurstsExact) { Run(120000, 10000, 0, true); }

// A flush right after two bursts that each spread over the whole of a 16,000-word table:
// the window holds 8,192 words not 0 and kept the two bursts' chunks, which carry them
// all (a chunk is kept per chunk's worth of words touched); the 100 records left open
// are too spread out to hold and leave as they are.
TEST_F(CommQRHold, FlushAfterTwoWideBurstsExact)
{
    ASSERT_NO_FATAL_FAILURE(Start(16000));
    const int64_t one = 1;
    const size_t K = 2 * 4096 + 100;
    uint64_t most = 0;
    for (int d = 1; d <= n; d++) {
        const int pe = (me + d) % n;
        for (size_t i = 0; i < K; i++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[i * 37 % w], &one, 1, pe,
                                                  SHMEM_OP_ATOMIC_ADD), 0);
        uint64_t h = shmemi_queue_comm_rheld(q);
        EXPECT_GE(outstanding(q), h);
        most = h > most ? h : most;
    }
    ASSERT_NO_FATAL_FAILURE(Finish());
    std::vector<char> hit(w, 0);
    for (size_t i = 0; i < K; i++)
        hit[i * 37 % w] = 1; // 37 and 16,000 are coprime: K distinct words
    int wrong = 0;
    for (size_t k = 0; k < w; k++)
        wrong += t[k] != (hit[k] ? n : 0);
    EXPECT_EQ(wrong, 0) << "PE " << me;
    CheckHeld(most, true);
}

// A 100-word table takes 50,000 adds from its left neighbour: the window leaves each time
// it holds 64 records a word (6,400), so it never holds that many, and the totals are exact.
TEST_F(CommQRHold, FullWindowLeavesBeforeTheFlush)
{
    ASSERT_NO_FATAL_FAILURE(Start(100));
    const int64_t one = 1;
    const int K = 50000;
    uint64_t most = 0;
    for (int i = 0; i < K; i++) {
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[i % 100], &one, 1, (me + 1) % n,
                                              SHMEM_OP_ATOMIC_ADD), 0);
        if (i % 1000 == 999) {
            uint64_t h = shmemi_queue_comm_rheld(q);
            EXPECT_LT(h, 6400u) << "a full window did not leave";
            most = h > most ? h : most;
        }
    }
    ASSERT_NO_FATAL_FAILURE(Finish());
    int wrong = 0;
    for (size_t k = 0; k < w; k++)
        wrong += t[k] != K / 100;
    EXPECT_EQ(wrong, 0) << "PE " << me;
    CheckHeld(most, true);
}

// Destroy without a flush sends what is held (destroy completes outstanding work).
TEST_F(CommQRHold, DestroySendsHeldSums) { Run(30000, 700, 0, true, true); }

// A small queue: pushes meet FULL and progress on the full queue sends held sums.
TEST_F(CommQRHold, FullQueueProgressSendsHeld) { Run(40000, 300, 3000, false); }

// Windows switch: adds to the low and the high end of a wide table (a range one window
// cannot hold), 32-bit adds in the data segment between them; exact everywhere.
TEST_F(CommQRHold, RangeRegionAndSizeSwitchesExact)
{
    std::memset(g_words32, 0, sizeof g_words32);
    ASSERT_NO_FATAL_FAILURE(Start(40000, comm_queue_cfg(SHMEM_OP_ANY)));
    const int64_t one = 1;
    const int32_t three = 3;
    const int R = 6, K = 5000;
    for (int r = 0; r < R; r++)
        for (int i = 0; i < K; i++)
            for (int d = 0; d < n; d++) {
                int pe = (me + d) % n;
                size_t k = (size_t)(i * 7) % 1000 + (r % 2 ? w - 1000 : 0);
                ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[k], &one, 1, pe,
                                                      SHMEM_OP_ATOMIC_ADD), 0);
                if (r == 2) {
                    ASSERT_EQ(shmem_int32_queue_comm_push(q, &g_words32[i % 512], &three, 1, pe,
                                                          SHMEM_OP_ATOMIC_ADD), 0);
                }
            }
    ASSERT_NO_FATAL_FAILURE(Finish());
    int64_t lo = 0, hi = 0;
    for (size_t k = 0; k < 1000; k++) {
        lo += t[k];
        hi += t[w - 1000 + k];
    }
    EXPECT_EQ(lo, (int64_t)(R / 2) * K * n);
    EXPECT_EQ(hi, (int64_t)(R / 2) * K * n);
    int wrong = 0;
    for (int i = 0; i < 512; i++)
        wrong += g_words32[i] != 3 * n * (K / 512 + (i < K % 512 ? 1 : 0));
    EXPECT_EQ(wrong, 0) << "32-bit words in the data segment";
}

// Queued adds, shmem_atomic_add and shmem_atomic_fetch_add of every PE on the same
// words: one atomic domain per node, so the totals are exact.
TEST_F(CommQRHold, MixedWithAtomicsOnSameWordsExact)
{
    ASSERT_NO_FATAL_FAILURE(Start(256));
    const int64_t two = 2;
    const int K = 20000;
    for (int i = 0; i < K; i++) {
        int pe = (me + i) % n;
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[(size_t)i % w], &two, 1, pe,
                                              SHMEM_OP_ATOMIC_ADD), 0);
        if (i % 50 == 0)
            shmem_int64_atomic_add(&t[(size_t)i % w], 5, pe);
        if (i % 500 == 0)
            (void)shmem_int64_atomic_fetch_add(&t[(size_t)(i + 1) % w], 7, pe);
    }
    ASSERT_NO_FATAL_FAILURE(Finish());
    // the targets' shares differ (i % 50 == 0 favours some residues): the job's total
    EXPECT_EQ(yielding_allreduce(sum_of(t, w), MPI_SUM),
              (int64_t)n * (2 * K + 5 * ((K + 49) / 50) + 7 * ((K + 499) / 500)));
}

// Adds that cancel: the held sums are 0, nothing is sent, and still every record
// completes (outstanding back to 0) and memory is unchanged.
TEST_F(CommQRHold, SumsOfZeroComplete)
{
    ASSERT_NO_FATAL_FAILURE(Start(500));
    const int64_t plus = 4, minus = -4;
    uint64_t most = 0;
    for (int i = 0; i < 40000; i++) {
        int pe = (me + 1 + i / 4096) % n;
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[(size_t)(i / 2) % w], i % 2 ? &minus : &plus,
                                              1, pe, SHMEM_OP_ATOMIC_ADD), 0);
        if (i % 1000 == 999) {
            uint64_t h = shmemi_queue_comm_rheld(q);
            most = h > most ? h : most;
        }
    }
    ASSERT_NO_FATAL_FAILURE(Finish());
    int wrong = 0;
    for (size_t k = 0; k < w; k++)
        wrong += t[k] != 0;
    EXPECT_EQ(wrong, 0);
    CheckHeld(most, true);
}

// SHMEMQ_HOLD_SUMS=0 (read at create) and a queue with a flush timeout never hold.
TEST_F(CommQRHold, OffAndTimedQueuesNeverHold)
{
    ASSERT_NO_FATAL_FAILURE(Table(1000));
    for (int how = 0; how < 2; how++) {
        if (how == 0)
            setenv("SHMEMQ_HOLD_SUMS", "0", 1);
        q = make_queue(0, how == 0 ? SHMEM_QUEUE_MAX_TIMEOUT : 60.0);
        unsetenv("SHMEMQ_HOLD_SUMS");
        ASSERT_NE(q, nullptr);
        const int64_t one = 1;
        uint64_t most = 0;
        for (int i = 0; i < 30000; i++) {
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[(size_t)(i * 7) % w], &one, 1,
                                                  (me + i) % n, SHMEM_OP_ATOMIC_ADD), 0);
            if (i % 1000 == 0) {
                uint64_t h = shmemi_queue_comm_rheld(q);
                most = h > most ? h : most;
            }
        }
        EXPECT_EQ(most, 0u) << (how == 0 ? "SHMEMQ_HOLD_SUMS=0" : "timed queue");
        ASSERT_NO_FATAL_FAILURE(Finish());
    }
    // (me + i) % n over 30,000 pushes reaches every PE equally (n divides 30,000)
    EXPECT_EQ(sum_of(t, w), (int64_t)2 * 30000) << "every PE's adds, both queues";
}
