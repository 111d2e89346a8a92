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
extern "C" size_t shmemi_queue_comm_owner_box(int n, size_t chunk_bytes, uint32_t *m,
                                              size_t *data);

namespace {

enum { POSTED = 0, SERVED = 1, CLAIMED = 2, NO_MAILBOX = 3 };

struct Stats {
    uint64_t v[4];
    Stats() { shmemi_queue_comm_owner_stats(v); }
    uint64_t operator[](int i) const { return v[i]; }
};

// wait_us: SHMEMQ_OWNER_WAIT_US for this create (read at every create; nullptr: the default)
shmem_queue_t make_queue(const char *mode, shmem_op_type_t op = SHMEM_OP_ATOMIC_ADD,
                         const char *wait_us = nullptr)
{
    setenv("SHMEMQ_OWNER_APPLY", mode, 1);
    if (wait_us)
        setenv("SHMEMQ_OWNER_WAIT_US", wait_us, 1);
    shmem_queue_config_t c = comm_queue_cfg(op);
    shmem_queue_t q = nullptr;
    EXPECT_EQ(shmem_queue_comm_create(&q, &c), 0);
    unsetenv("SHMEMQ_OWNER_APPLY");
    unsetenv("SHMEMQ_OWNER_WAIT_US");
    return q;
}

// The stats of every PE summed (collective).
struct JobStats {
    uint64_t v[4];
    explicit JobStats(const Stats &before)
    {
        uint64_t *src = static_cast<uint64_t *>(shmem_malloc(4 * sizeof(uint64_t)));
        uint64_t *dst = static_cast<uint64_t *>(shmem_malloc(4 * sizeof(uint64_t)));
        Stats now;
        for (int i = 0; i < 4; i++)
            src[i] = now[i] - before[i];
        EXPECT_EQ(shmem_uint64_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4), 0);
        for (int i = 0; i < 4; i++)
            v[i] = dst[i];
        shmem_free(src);
        shmem_free(dst);
    }
    uint64_t operator[](int i) const { return v[i]; }
};

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

// The box formula (cq_owner.c, docs/queues_design.md): at least one mailbox per origin
// that holds a whole default chunk at 64 and 128 PEs per node, at most 32 MiB (+ the
// doorbell line) per PE at any node size, 16 per origin on small nodes, none without
// peers; past 255 PEs per node the mailboxes shrink but stay.
TEST(CommQueueOwner, BoxFormulaFitsLargeNodes)
{
    const size_t chunk = 128 << 10, budget = (size_t)32 << 20;
    uint32_t m = 99;
    size_t d = 99;
    EXPECT_EQ(shmemi_queue_comm_owner_box(1, chunk, &m, &d), 0u);
    EXPECT_EQ(m, 0u);
    EXPECT_GT(shmemi_queue_comm_owner_box(2, chunk, &m, &d), 0u);
    EXPECT_EQ(m, 16u);
    EXPECT_EQ(d, chunk);
    for (int n : {64, 128}) {
        size_t box = shmemi_queue_comm_owner_box(n, chunk, &m, &d);
        EXPECT_GE(m, 1u) << n << " PEs per node";
        EXPECT_EQ(d, chunk) << n << " PEs per node: a whole chunk fits a mailbox";
        EXPECT_LE(box, budget + 64) << n;
        EXPECT_EQ(box, 64 + (size_t)n * m * (64 + d)) << n;
    }
    shmemi_queue_comm_owner_box(64, chunk, &m, &d);
    EXPECT_EQ(m, 3u);
    shmemi_queue_comm_owner_box(128, chunk, &m, &d);
    EXPECT_EQ(m, 1u);
    for (int n = 2; n <= 4096; n = n * 3 / 2 + 1)
        for (size_t cb : {(size_t)1024, chunk, (size_t)64 << 20}) {
            size_t box = shmemi_queue_comm_owner_box(n, cb, &m, &d);
            EXPECT_GE(m, 1u) << n << " PEs, chunk " << cb;
            EXPECT_LE(m, 16u);
            EXPECT_LE(box, budget + 64) << n << " PEs, chunk " << cb;
            EXPECT_LE(d, (cb + 63) & ~(size_t)63);
            EXPECT_EQ(d % 64, 0u);
        }
    shmemi_queue_comm_owner_box(512, chunk, &m, &d);
    EXPECT_LT(d, chunk); // 32 MiB / 512 = 64 KiB per origin
    EXPECT_GE(m, 1u);
}

// Every PE pushes adds to every PE and flushes, the origins leaving posted bursts to the
// owner for up to 1 s: every PE is in the library throughout (pushing, flushing, then the
// barrier), so each owner applies every burst posted to it: across the job, bursts
// applied by owners == bursts posted, none claimed back by an origin, and the totals are
// exact. At 4 PEs as one node (no SHMEMQ_NODE_PES) every PE reaches 3 peers' boxes.
TEST(CommQueueOwner, ActiveOwnersApplyEveryPostedBurst)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const long T = 1 << 16, N = 200000; // 512 KiB of counters: every burst spans > 32 KiB
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    ASSERT_NE(ctr, nullptr);
    // the snapshot before the barrier: a PE still waiting in the barrier serves what a
    // peer that already left it posts, which must count after the snapshot
    Stats before;
    shmem_barrier_all();
    shmem_queue_t q = make_queue("auto", SHMEM_OP_ATOMIC_ADD, "1000000");
    const int peers = reachable_peers();
    for (long j = 0; j < N; j++) {
        uint64_t h = mix(((uint64_t)me << 40) ^ (uint64_t)j ^ 0xb0bULL);
        int pe = (int)(h % (uint64_t)n);
        long k = (long)((h >> 20) % (uint64_t)T);
        int64_t v = (int64_t)(h >> 60) + 1;
        ASSERT_EQ(shmem_int64_queue_comm_push(q, &ctr[k], &v, 1, pe, SHMEM_OP_ATOMIC_ADD), 0);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    JobStats job(before);
    if (peers > 0) {
        EXPECT_GT(job[POSTED], 0u) << "no burst went to a mailbox";
    }
    if (n == 4 && shmem_team_n_pes(SHMEM_TEAM_SHARED) == 4) { // one node of 4
        EXPECT_EQ(peers, 3);
        // each PE fills ~6 default chunks per peer (200k records over 4 PEs, 8192 a chunk)
        EXPECT_GE(job[POSTED], 4u * 3u);
    }
    EXPECT_EQ(job[SERVED], job[POSTED]) << "posted bursts not applied by their owners";
    EXPECT_EQ(job[CLAIMED], 0u) << "an origin waited 1 s for an owner inside the library";
    std::vector<int64_t> want(T, 0);
    for (int from = 0; from < n; from++)
        for (long j = 0; j < N; j++) {
            uint64_t h = mix(((uint64_t)from << 40) ^ (uint64_t)j ^ 0xb0bULL);
            if ((int)(h % (uint64_t)n) == me)
                want[(size_t)((h >> 20) % (uint64_t)T)] += (int64_t)(h >> 60) + 1;
        }
    long bad = 0;
    for (long k = 0; k < T; k++)
        bad += ctr[k] != want[k];
    EXPECT_EQ(bad, 0) << "PE " << me;
    shmem_barrier_all();
    shmem_free(ctr);
}

// PE 0 waits inside the library while its node peers push adds to it and flush, the
// origins leaving posted bursts to it for up to 1 s: in a loop of shmem_quiet (which
// runs no progress hooks; it serves its box through the quiet poll) until every peer has
// flushed, or in shmem_barrier_all. Both complete, PE 0 applied every burst posted to it
// (none claimed back by an origin) and its counters are exact. Off-node PEs take part
// in the barrier case only (in the quiet loop PE 0 may not progress MPI for them).
TEST(CommQueueOwner, OwnerInQuietOrBarrierServes)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const long T = 1 << 15, N = 60000;
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    int *done = static_cast<int *>(shmem_calloc(1, sizeof(int)));
    ASSERT_NE(ctr, nullptr);
    ASSERT_NE(done, nullptr);
    for (int in_barrier = 0; in_barrier < 2; in_barrier++) {
        Stats before; // before the barrier, as in ActiveOwnersApplyEveryPostedBurst
        shmem_barrier_all();
        shmem_queue_t q = make_queue("1", SHMEM_OP_ATOMIC_ADD, "1000000");
        const bool peer0 = me != 0 && shmem_ptr(ctr, 0) != nullptr; // a node peer of PE 0
        int *all = static_cast<int *>(shmem_malloc(2 * sizeof(int)));
        int *cnt = static_cast<int *>(shmem_malloc(2 * sizeof(int)));
        cnt[0] = peer0;
        cnt[1] = peer0 && shmemi_queue_comm_owner_reaches(0); // PE 0's box reachable
        EXPECT_EQ(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, all, cnt, 2), 0);
        const int origins = all[0], posting = all[1];
        shmem_free(all);
        shmem_free(cnt);
        const bool pushes = me != 0 && (in_barrier || peer0);
        if (me == 0 && !in_barrier) {
            auto t0 = std::chrono::steady_clock::now();
            bool timeout = false;
            while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < origins) {
                shmem_quiet();
                if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > 60) {
                    timeout = true;
                    break;
                }
            }
            EXPECT_FALSE(timeout) << "node peers' flushes never completed to PE 0 in quiet";
        } else if (pushes) {
            for (long j = 0; j < N; j++) {
                int64_t v = 1 + (j % 5);
                ASSERT_EQ(shmem_int64_queue_comm_push(q, &ctr[(j * 37 + me) % T], &v, 1, 0,
                                                      SHMEM_OP_ATOMIC_ADD), 0);
            }
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
            if (!in_barrier) // a node peer: a CPU atomic on PE 0's flag, mapped here
                __atomic_fetch_add(static_cast<int *>(shmem_ptr(done, 0)), 1, __ATOMIC_RELEASE);
        }
        shmem_barrier_all(); // PE 0 waits here in the barrier case
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        JobStats job(before);
        EXPECT_EQ(job[SERVED], job[POSTED]) << (in_barrier ? "barrier" : "quiet");
        EXPECT_EQ(job[CLAIMED], 0u) << (in_barrier ? "barrier" : "quiet")
                                    << ": PE 0 did not serve while it waited";
        if (posting > 0) {
            EXPECT_GT(job[POSTED], 0u) << (in_barrier ? "barrier" : "quiet");
        }
        if (me == 0) {
            std::vector<int64_t> want(T, 0);
            for (int p = 1; p < n; p++) {
                if (!in_barrier && !shmem_ptr(ctr, p))
                    continue; // not a node peer: did not push in the quiet case
                for (long j = 0; j < N; j++)
                    want[(size_t)((j * 37 + p) % T)] += 1 + (j % 5);
            }
            long bad = 0;
            for (long k = 0; k < T; k++)
                bad += ctr[k] != want[k];
            EXPECT_EQ(bad, 0) << (in_barrier ? "barrier" : "quiet");
        }
        shmem_barrier_all();
        for (long k = 0; k < T; k++)
            ctr[k] = 0;
        *done = 0;
    }
    shmem_barrier_all();
    shmem_free(ctr);
    shmem_free(done);
}
