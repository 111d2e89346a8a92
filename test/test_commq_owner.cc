// test_commq_owner.cc: comm-queue atomic bursts to PEs of this node applied by the owner
// or, when the owner is not in the library, by the origin after a bounded wait
// (docs/queues_design.md, "Owner-applied node bursts"). Exact totals whoever applies:
// an active owner, one that computes, one that spins on a plain load, and queued
// atomics mixed with shmem_atomic_* on the same words. Every PE checks.
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "test_util.h"

extern "C" void shmemi_queue_comm_owner_stats(uint64_t out[4]);
extern "C" int shmemi_queue_comm_owner_reaches(int pe);

namespace {

enum { POSTED = 0, SERVED = 1, CLAIMED = 2, NO_MAILBOX = 3 };

struct Stats {
    uint64_t v[4];
    Stats() { shmemi_queue_comm_owner_stats(v); }
    uint64_t operator[](int i) const { return v[i]; }
};

// Counter k (of T) at PE `to` gets update j of PE `from` when this says so: every PE
// can recompute every other PE's sequence.
inline uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

shmem_queue_t make_queue(const char *mode, shmem_op_type_t op = SHMEM_OP_ATOMIC_ADD)
{
    setenv("SHMEMQ_OWNER_APPLY", mode, 1);
    shmem_queue_config_t c = comm_queue_cfg(op);
    shmem_queue_t q = nullptr;
    EXPECT_EQ(shmem_queue_comm_create(&q, &c), 0);
    unsetenv("SHMEMQ_OWNER_APPLY");
    return q;
}

int reachable_peers()
{
    int n = 0;
    for (int p = 0; p < shmem_n_pes(); p++)
        n += shmemi_queue_comm_owner_reaches(p);
    return n;
}

// Busy for `sec` seconds without a library call.
void compute(double sec)
{
    auto t0 = std::chrono::steady_clock::now();
    volatile uint64_t x = 1;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < sec)
        for (int i = 0; i < 1000; i++)
            x = mix(x);
}

class OwnerModes : public ::testing::TestWithParam<const char *> {};

} // namespace

// Every PE pushes adds to every PE (node peers, itself, others) and flushes: each owner's
// counters hold exactly every PE's updates, in 64- and 32-bit words, on a wide table (no
// summing before posting) and a narrow one (summed to one record per word).
TEST_P(OwnerModes, ActiveOwnersExactTotals)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const long T = 20000, N = 120000;
    int64_t *c64 = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    uint32_t *c32 = static_cast<uint32_t *>(shmem_calloc(T, sizeof(uint32_t)));
    ASSERT_NE(c64, nullptr);
    ASSERT_NE(c32, nullptr);
    shmem_barrier_all();
    Stats before;
    shmem_queue_t q = make_queue(GetParam());
    shmem_queue_t q32 = make_queue(GetParam());
    for (int round = 0; round < 2; round++) {
        const long width = round == 0 ? T : 512; // wide, then narrow: summed first
        for (long j = 0; j < N; j++) {
            uint64_t h = mix(((uint64_t)me << 40) ^ ((uint64_t)round << 32) ^ (uint64_t)j);
            int pe = (int)(h % (uint64_t)n);
            long k = (long)((h >> 20) % (uint64_t)width);
            int64_t v = (int64_t)(h >> 58) + 1;
            uint32_t v32 = (uint32_t)(h >> 40) | 1u;
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &c64[k], &v, 1, pe, SHMEM_OP_ATOMIC_ADD), 0);
            ASSERT_EQ(shmem_uint32_queue_comm_push(q32, &c32[k], &v32, 1, pe, SHMEM_OP_ATOMIC_ADD), 0);
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_queue_local_flush(q32), 0);
        size_t sz = 1;
        EXPECT_EQ(shmem_query_size(q, &sz), 0);
        EXPECT_EQ(sz, 0u); // the posted bursts left the outstanding count at the flush
    }
    Stats after;
    if (std::strcmp(GetParam(), "0") != 0 && reachable_peers() > 0) {
        EXPECT_GT(after[POSTED], before[POSTED]) << "no burst took the mailboxes";
    }
    if (std::strcmp(GetParam(), "0") == 0) {
        EXPECT_EQ(after[POSTED], before[POSTED]);
    }
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(q32), 0);
    shmem_barrier_all();
    std::vector<int64_t> want(T, 0);
    std::vector<uint32_t> want32(T, 0);
    for (int from = 0; from < n; from++)
        for (int round = 0; round < 2; round++) {
            const long width = round == 0 ? T : 512;
            for (long j = 0; j < N; j++) {
                uint64_t h = mix(((uint64_t)from << 40) ^ ((uint64_t)round << 32) ^ (uint64_t)j);
                if ((int)(h % (uint64_t)n) != me)
                    continue;
                long k = (long)((h >> 20) % (uint64_t)width);
                want[k] += (int64_t)(h >> 58) + 1;
                want32[k] += (uint32_t)(h >> 40) | 1u;
            }
        }
    long bad = 0;
    for (long k = 0; k < T; k++)
        bad += c64[k] != want[k] || c32[k] != want32[k];
    EXPECT_EQ(bad, 0) << "PE " << me << ": counters off";
    shmem_barrier_all();
    shmem_free(c64);
    shmem_free(c32);
}

// Queued adds, XORs and ORs mixed with shmem_atomic_add/xor/or from every PE on the same
// words of every PE: exact whichever side applies each burst.
TEST_P(OwnerModes, MixedWithAtomicsExact)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const long T = 256, N = 30000;
    int64_t *add = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    uint64_t *bits = static_cast<uint64_t *>(shmem_calloc(T, sizeof(uint64_t)));
    uint64_t *ors = static_cast<uint64_t *>(shmem_calloc(T, sizeof(uint64_t)));
    ASSERT_NE(add, nullptr);
    ASSERT_NE(bits, nullptr);
    ASSERT_NE(ors, nullptr);
    shmem_barrier_all();
    shmem_queue_t qa = make_queue(GetParam(), SHMEM_OP_ATOMIC_ADD);
    shmem_queue_t qx = make_queue(GetParam(), SHMEM_OP_ATOMIC_XOR);
    shmem_queue_t qo = make_queue(GetParam(), SHMEM_OP_ATOMIC_OR);
    for (long j = 0; j < N; j++) {
        uint64_t h = mix(((uint64_t)me << 40) ^ (uint64_t)j ^ 0x5a5aULL);
        int pe = (int)(h % (uint64_t)n);
        long k = (long)((h >> 16) % (uint64_t)T);
        int64_t v = (int64_t)((h >> 50) & 7) + 1;
        uint64_t x = mix(h);
        uint64_t o = 1ULL << ((h >> 8) & 63);
        if (j % 3 == 0) { // the same words through the AMO routines
            shmem_int64_atomic_add(&add[k], v, pe);
            shmem_uint64_atomic_xor(&bits[k], x, pe);
            shmem_uint64_atomic_or(&ors[k], o, pe);
        } else {
            ASSERT_EQ(shmem_int64_queue_comm_push(qa, &add[k], &v, 1, pe, SHMEM_OP_ATOMIC_ADD), 0);
            ASSERT_EQ(shmem_uint64_queue_comm_push(qx, &bits[k], &x, 1, pe, SHMEM_OP_ATOMIC_XOR), 0);
            ASSERT_EQ(shmem_uint64_queue_comm_push(qo, &ors[k], &o, 1, pe, SHMEM_OP_ATOMIC_OR), 0);
        }
    }
    ASSERT_EQ(shmem_queue_local_flush(qa), 0);
    ASSERT_EQ(shmem_queue_local_flush(qx), 0);
    ASSERT_EQ(shmem_queue_local_flush(qo), 0);
    shmem_quiet();
    ASSERT_EQ(shmem_queue_comm_destroy(qa), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(qx), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(qo), 0);
    shmem_barrier_all();
    std::vector<int64_t> wa(T, 0);
    std::vector<uint64_t> wx(T, 0), wo(T, 0);
    for (int from = 0; from < n; from++)
        for (long j = 0; j < N; j++) {
            uint64_t h = mix(((uint64_t)from << 40) ^ (uint64_t)j ^ 0x5a5aULL);
            if ((int)(h % (uint64_t)n) != me)
                continue;
            long k = (long)((h >> 16) % (uint64_t)T);
            wa[k] += (int64_t)((h >> 50) & 7) + 1;
            wx[k] ^= mix(h);
            wo[k] |= 1ULL << ((h >> 8) & 63);
        }
    long bad = 0;
    for (long k = 0; k < T; k++)
        bad += add[k] != wa[k] || bits[k] != wx[k] || ors[k] != wo[k];
    EXPECT_EQ(bad, 0) << "PE " << me;
    shmem_barrier_all();
    shmem_free(add);
    shmem_free(bits);
    shmem_free(ors);
}

INSTANTIATE_TEST_SUITE_P(Modes, OwnerModes, ::testing::Values("0", "1", "auto"));

// PE 0 computes for 1.5 s without calling the library while every other PE pushes adds
// to it and flushes: each origin's flush completes by itself (it claims its bursts after
// the bounded wait), and what it reads back at PE 0 right after is exact.
TEST(CommQueueOwner, ComputingOwnerDelaysNoFlush)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const long T = 4096, N = 50000;
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc((size_t)T * n, sizeof(int64_t)));
    int *go = static_cast<int *>(shmem_calloc(1, sizeof(int)));
    int *computing = static_cast<int *>(shmem_calloc(1, sizeof(int)));
    ASSERT_NE(ctr, nullptr);
    shmem_barrier_all();
    shmem_queue_t q = make_queue("1");
    if (me == 0) {
        *computing = 1;
        for (int p = 1; p < n; p++)
            shmem_int_atomic_set(go, 1, p);
        compute(1.5); // no library call from here ...
        __atomic_store_n(computing, 0, __ATOMIC_RELEASE);
    } else {
        shmem_int_wait_until(go, SHMEM_CMP_EQ, 1);
        Stats before;
        int64_t *mine = ctr + (size_t)me * T; // this origin's counters at PE 0
        for (long j = 0; j < N; j++) {
            int64_t v = 1 + (j & 3);
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &mine[(j * 7) % T], &v, 1, 0,
                                                  SHMEM_OP_ATOMIC_ADD), 0);
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        // read back at PE 0 while it (probably) still computes: where PE 0's memory is
        // mapped here (a node peer; off the node PE 0 checks the totals below)
        int *remote_computing = static_cast<int *>(shmem_ptr(computing, 0));
        int64_t *remote = static_cast<int64_t *>(shmem_ptr(mine, 0));
        int still = remote_computing ? __atomic_load_n(remote_computing, __ATOMIC_ACQUIRE) : 0;
        if (remote) {
            std::vector<int64_t> want(T, 0);
            for (long j = 0; j < N; j++)
                want[(j * 7) % T] += 1 + (j & 3);
            long bad = 0;
            for (long k = 0; k < T; k++)
                bad += __atomic_load_n(&remote[k], __ATOMIC_RELAXED) != want[k];
            EXPECT_EQ(bad, 0) << "PE " << me << ": flushed adds not at PE 0";
        }
        Stats after;
        if (still && shmemi_queue_comm_owner_reaches(0)) {
            EXPECT_GT(after[CLAIMED], before[CLAIMED])
                << "PE 0 computed through the flush, yet this origin claimed nothing";
        }
    }
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    if (me == 0) { // ... and the totals, now that everyone is done
        std::vector<int64_t> want(T, 0);
        for (long j = 0; j < N; j++)
            want[(j * 7) % T] += 1 + (j & 3);
        long bad = 0;
        for (int p = 1; p < n; p++)
            for (long k = 0; k < T; k++)
                bad += ctr[(size_t)p * T + k] != want[k];
        EXPECT_EQ(bad, 0);
    }
    shmem_barrier_all();
    shmem_free(ctr);
    shmem_free(go);
    shmem_free(computing);
}

// PE 0 spins on a plain load of a counter the others increment after their flushes; it
// calls nothing meanwhile. When all have, its counters are exact (read with plain loads,
// still without a library call). A deadline keeps a failure from hanging.
TEST(CommQueueOwner, SpinningOwnerSeesFlushedAdds)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const long T = 2048, N = 40000;
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    int *done = static_cast<int *>(shmem_calloc(1, sizeof(int)));
    ASSERT_NE(ctr, nullptr);
    shmem_barrier_all();
    shmem_queue_t q = make_queue("auto");
    if (me == 0) {
        auto t0 = std::chrono::steady_clock::now();
        volatile int *d = done;
        bool timeout = false;
        while (*d < n - 1) {
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > 60) {
                timeout = true;
                break;
            }
        }
        EXPECT_FALSE(timeout) << "origins' flushes never completed to a spinning PE 0";
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        std::vector<int64_t> want(T, 0);
        for (int p = 1; p < n; p++)
            for (long j = 0; j < N; j++)
                want[(size_t)((j * 13 + p) % T)] += 1;
        long bad = 0;
        volatile int64_t *c = ctr;
        for (long k = 0; k < T; k++)
            bad += c[k] != want[k];
        EXPECT_EQ(bad, 0) << "PE 0 saw the flags before the adds";
    } else {
        int64_t one = 1;
        for (long j = 0; j < N; j++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &ctr[(j * 13 + me) % T], &one, 1, 0,
                                                  SHMEM_OP_ATOMIC_ADD), 0);
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        shmem_int_atomic_add(done, 1, 0);
        shmem_quiet();
    }
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    shmem_free(ctr);
    shmem_free(done);
}
