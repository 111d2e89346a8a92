// test_commq_hold.cc: comm-queue ADD bursts to a PE's own memory summed and held until a
// drain (src/queue/cq_node.c, "Held sums"; docs/queues_design.md). Held records stay
// outstanding and reach memory by the flush; exact totals whatever the window, the word
// size, and with other PEs' atomics on the same words; a queue with a flush timeout never
// holds. Every PE checks.
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <cstdint>
#include <cstring>
#include <vector>
#include "test_util.h"

extern "C" uint64_t shmemi_queue_comm_held(shmem_queue_t q);

namespace {

shmem_queue_t make_queue(double timeout = SHMEM_QUEUE_MAX_TIMEOUT)
{
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD, 0, timeout);
    shmem_queue_t q = nullptr;
    EXPECT_EQ(shmem_queue_comm_create(&q, &c), 0);
    return q;
}

uint64_t outstanding(shmem_queue_t q)
{
    size_t n = 0;
    EXPECT_EQ(shmem_query_size(q, &n), 0);
    return n;
}

template <typename T>
T table_sum(const T *t, size_t w)
{
    T s = 0;
    for (size_t i = 0; i < w; i++)
        s += __atomic_load_n(&t[i], __ATOMIC_RELAXED);
    return s;
}

} // namespace

// Adds to this PE's own table only: at every point, what reached memory plus what is
// outstanding is what was pushed (held records are neither lost nor counted done), some
// are held on the way, and the flush applies them all, word by word.
TEST(CommQHold, HeldRecordsStayOutstandingUntilApplied)
{
    const int me = shmem_my_pe();
    const size_t w = 3000; // a burst of 4096 records spans it: held (drained at 64 a word)
    int64_t *t = static_cast<int64_t *>(shmem_calloc(w, sizeof(int64_t)));
    ASSERT_NE(t, nullptr);
    shmem_queue_t q = make_queue();
    ASSERT_NE(q, nullptr);
    std::vector<int64_t> want(w, 0);
    uint64_t pushed = 0, most_held = 0;
    int checks_failed = 0;
    for (uint64_t i = 0; i < 60000; i++) {
        const int64_t v = (int64_t)(i % 5) + 1;
        const size_t k = (size_t)((i * 2654435761u) % w);
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[k], &v, 1, me, SHMEM_OP_ATOMIC_ADD), 0);
        want[k] += v;
        pushed += (uint64_t)v;
        if (i % 997 == 0) {
            uint64_t held = shmemi_queue_comm_held(q);
            most_held = held > most_held ? held : most_held;
            // values differ, so compare records: memory holds sum(values) of applied ones;
            // count what is not yet in memory through the outstanding count instead
            checks_failed += outstanding(q) < held;
        }
    }
    EXPECT_EQ(checks_failed, 0);
    EXPECT_GT(most_held, 0u) << "no burst to this PE's own table was held";
    EXPECT_LT(table_sum(t, w), (int64_t)pushed); // something still held or open
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(shmemi_queue_comm_held(q), 0u);
    EXPECT_EQ(outstanding(q), 0u);
    int wrong = 0;
    for (size_t k = 0; k < w; k++)
        wrong += t[k] != want[k];
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(table_sum(t, w), (int64_t)pushed);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    shmem_free(t);
}

// Value 1 each: memory + outstanding == pushed at every check, exactly. The table is
// narrow enough that the sums leave before the flush (64 records a word: 32,000).
TEST(CommQHold, MemoryPlusOutstandingIsPushed)
{
    const int me = shmem_my_pe();
    const size_t w = 500;
    int64_t *t = static_cast<int64_t *>(shmem_calloc(w, sizeof(int64_t)));
    ASSERT_NE(t, nullptr);
    shmem_queue_t q = make_queue();
    ASSERT_NE(q, nullptr);
    const int64_t one = 1;
    int bad = 0, drained_early = 0;
    for (uint64_t i = 1; i <= 50000; i++) {
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[(i * 7919) % w], &one, 1, me,
                                              SHMEM_OP_ATOMIC_ADD), 0);
        if (i % 1000 == 0) {
            int64_t in_mem = table_sum(t, w);
            bad += (uint64_t)in_mem + outstanding(q) != i;
            drained_early += in_mem > 0;
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(drained_early, 0) << "held sums never reached memory before the flush";
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(table_sum(t, w), 50000);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    shmem_free(t);
}

// Bursts that alternate between two tables further apart than the held window: each
// switch applies what is held; 4-byte words too; totals exact.
TEST(CommQHold, WindowSwitchesAndWordSizesExact)
{
    const int me = shmem_my_pe();
    const size_t w = 1500, gap = 40000; // 40,000 words apart: past the window
    int64_t *a = static_cast<int64_t *>(shmem_calloc(w + gap + w, sizeof(int64_t)));
    int32_t *c = static_cast<int32_t *>(shmem_calloc(w, sizeof(int32_t)));
    ASSERT_NE(a, nullptr);
    ASSERT_NE(c, nullptr);
    int64_t *b = a + w + gap;
    shmem_queue_t q = make_queue();
    ASSERT_NE(q, nullptr);
    const int64_t one = 1;
    const int32_t three = 3;
    uint64_t most_held = 0;
    for (int round = 0; round < 6; round++) {
        int64_t *tab = round % 2 ? b : a;
        for (size_t i = 0; i < 5000; i++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &tab[(i * 31) % w], &one, 1, me,
                                                  SHMEM_OP_ATOMIC_ADD), 0);
        for (size_t i = 0; i < 5000; i++)
            ASSERT_EQ(shmem_int32_queue_comm_push(q, &c[(i * 17) % w], &three, 1, me,
                                                  SHMEM_OP_ATOMIC_ADD), 0);
        uint64_t h = shmemi_queue_comm_held(q);
        most_held = h > most_held ? h : most_held;
    }
    EXPECT_GT(most_held, 0u);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(table_sum(a, w), 15000);
    EXPECT_EQ(table_sum(b, w), 15000);
    EXPECT_EQ(table_sum(a + w, gap), 0); // nothing landed between them
    EXPECT_EQ(table_sum(c, w), 6 * 5000 * 3);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    shmem_free(c);
    shmem_free(a);
}

// Every PE holds sums for its own table while every other PE adds to the same words
// with shmem_atomic_add and through its queue: the totals are exact (the drain's
// atomics and the others' are atomic with each other).
TEST(CommQHold, MixedWithOtherPesAtomicsExact)
{
    const int me = shmem_my_pe(), np = shmem_n_pes();
    const size_t w = 1024;
    const int per = 20000;
    int64_t *t = static_cast<int64_t *>(shmem_calloc(w, sizeof(int64_t)));
    ASSERT_NE(t, nullptr);
    shmem_barrier_all();
    shmem_queue_t q = make_queue();
    ASSERT_NE(q, nullptr);
    const int64_t one = 1;
    for (int i = 0; i < per; i++) {
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[(size_t)i % w], &one, 1, me,
                                              SHMEM_OP_ATOMIC_ADD), 0);
        if (i % 16 == 0) // direct atomics to everyone, this PE included
            shmem_int64_atomic_add(&t[(size_t)i % w], 1, (me + i / 16) % np);
        if (i % 4 == 0 && np > 1) {
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[(size_t)i % w], &one, 1, (me + 1) % np,
                                                  SHMEM_OP_ATOMIC_ADD), 0);
        }
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    // own pushes + the left neighbour's queued adds + every PE's direct ones to this PE
    int64_t direct_here = 0;
    for (int p = 0; p < np; p++) {
        for (int i = 0; i < per; i += 16)
            direct_here += (p + i / 16) % np == me;
    }
    const int64_t want = per + (np > 1 ? per / 4 : 0) + direct_here;
    EXPECT_EQ(table_sum(t, w), want);
    shmem_barrier_all();
    shmem_free(t);
}

// A queue with a flush timeout never holds: its records reach memory when issued.
TEST(CommQHold, TimedQueueNeverHolds)
{
    const int me = shmem_my_pe();
    const size_t w = 2000;
    int64_t *t = static_cast<int64_t *>(shmem_calloc(w, sizeof(int64_t)));
    ASSERT_NE(t, nullptr);
    shmem_queue_t q = make_queue(60.0);
    ASSERT_NE(q, nullptr);
    const int64_t one = 1;
    uint64_t most_held = 0;
    for (uint64_t i = 0; i < 30000; i++) {
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[(i * 7919) % w], &one, 1, me,
                                              SHMEM_OP_ATOMIC_ADD), 0);
        if (i % 1000 == 0) {
            uint64_t h = shmemi_queue_comm_held(q);
            most_held = h > most_held ? h : most_held;
        }
    }
    EXPECT_EQ(most_held, 0u);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(table_sum(t, w), 30000);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    shmem_free(t);
}

// Destroy without a flush applies what is held (destroy completes outstanding work).
TEST(CommQHold, DestroyAppliesHeldSums)
{
    const int me = shmem_my_pe();
    const size_t w = 3000;
    int64_t *t = static_cast<int64_t *>(shmem_calloc(w, sizeof(int64_t)));
    ASSERT_NE(t, nullptr);
    shmem_queue_t q = make_queue();
    ASSERT_NE(q, nullptr);
    const int64_t two = 2;
    uint64_t most_held = 0;
    for (uint64_t i = 0; i < 9000; i++) {
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &t[(i * 7919) % w], &two, 1, me,
                                              SHMEM_OP_ATOMIC_ADD), 0);
        uint64_t h = (i % 500 == 0) ? shmemi_queue_comm_held(q) : 0;
        most_held = h > most_held ? h : most_held;
    }
    EXPECT_GT(most_held, 0u);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    EXPECT_EQ(table_sum(t, w), 18000);
    shmem_barrier_all();
    shmem_free(t);
}

// A small queue: pushes meet FULL, and progress on the full queue frees room, held
// sums included (the spec's push/progress loop never stalls); totals exact.
TEST(CommQHold, FullQueueProgressFreesHeldRoom)
{
    const int me = shmem_my_pe();
    const size_t w = 300;
    int64_t *t = static_cast<int64_t *>(shmem_calloc(w, sizeof(int64_t)));
    ASSERT_NE(t, nullptr);
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD, 2000);
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    const int64_t one = 1;
    uint64_t fulls = 0;
    for (uint64_t i = 0; i < 50000; i++) {
        int rc;
        while ((rc = shmem_int64_queue_comm_push(q, &t[(i * 31) % w], &one, 1, me,
                                                 SHMEM_OP_ATOMIC_ADD)) == SHMEM_QUEUE_ERR_FULL) {
            fulls++;
            ASSERT_GE(shmem_queue_progress(q), 0);
        }
        ASSERT_EQ(rc, 0);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(table_sum(t, w), 50000);
    EXPECT_EQ(outstanding(q), 0u);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    shmem_free(t);
    EXPECT_GT(fulls, 0u) << "the queue never filled: the case did not test FULL";
}
