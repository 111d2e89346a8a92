// test_offnode.cc: PEs of other nodes by default (issue 21): the AM transport and one
// atomic domain per node (src/mpi_rma/xport_am.h).
//
// Every case runs with the library's default settings in test_offnode_default (run-mpi.sh
// runs it at 1/2/4 PEs, every PE its own node, and two nodes of two). Atomics that node
// peers apply with CPU atomics and PEs of other nodes send as messages meet on the same
// words with exact totals; a target that computes, sits in MPI_Barrier or spins on plain
// loads still sees every operation complete.
//
// The spinning cases need someone on the target's node to serve while the target spins:
// the node's progress agent. shmemq takes the AM transport only when every node has one
// (shmemi_am_on()), and a target with the progress thread of its own completes MPI RMA
// too; where neither holds (before the agent is on by default) the target waits with
// shmem_wait_until instead of plain loads, which still checks put + fence + flag order.
// test_offnode_async builds the same cases with SHMEMQ_ASYNC_PROGRESS=1 (mpi_main.cc
// sets it), where the spinning target never calls the library.
//
// A waiting PE gives up after kDeadline seconds and fails instead of hanging.
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <vector>

#include "test_util.h"

extern "C" int shmemi_am_on(void);
extern "C" int shmemi_agent_running(void);
extern "C" int shmemi_agent_stats(uint64_t out[2]); // agent.c, for tests
extern "C" void shmemi_am_burst_stats(uint64_t out[2]); // xport_am.c, for tests
extern "C" uint64_t shmemi_queue_comm_rheld(shmem_queue_t q); // cq_rhold.c, for tests

namespace {

const double kDeadline = 60.0;

template <typename T> bool spin_until(const T *p, T want)
{
    return spin_until_for(p, want, kDeadline);
}

// Can a PE spin on plain loads while PEs of other nodes put and set flags into it? Yes
// when the job is one node, when the AM transport is on (every node has its agent), or
// when every PE runs the progress thread (MPI RMA then completes without the target).
bool spin_servable()
{
    int one_node = shmem_team_n_pes(SHMEM_TEAM_SHARED) == shmem_n_pes();
    int mine = shmemi_agent_running(), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return one_node || shmemi_am_on() || all;
}

// Globals: symmetric through the data segment (served from the node's mapping too).
long g_flag[3];
char g_data[3][20000];
long g_total;

// Ring: every PE puts to its right neighbour, fences, raises the flag (three ways), then
// spins on its own flag with plain loads and checks the data its left neighbour put.
TEST(OffNode, PutFenceFlagToSpinningTarget)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    const bool spin = spin_servable();
    std::memset(g_flag, 0, sizeof g_flag);
    std::memset(g_data, 0, sizeof g_data);
    shmem_barrier_all();
    for (int how = 0; how < 3; how++) {
        std::vector<char> src(sizeof g_data[how]);
        for (size_t i = 0; i < src.size(); i++)
            src[i] = (char)(me * 31 + how * 7 + i);
        shmem_putmem(g_data[how], src.data(), src.size(), right);
        shmem_fence();
        switch (how) {
        case 0: shmem_long_p(&g_flag[0], 1, right); break;
        case 1: shmem_long_atomic_set(&g_flag[1], 1, right); break;
        default: shmem_long_atomic_add(&g_flag[2], 1, right); break;
        }
        if (spin)
            ASSERT_TRUE(spin_until(&g_flag[how], 1L)) << "flag " << how << " never came";
        else
            shmem_long_wait_until(&g_flag[how], SHMEM_CMP_EQ, 1);
        for (size_t i = 0; i < src.size(); i++)
            ASSERT_EQ(g_data[how][i], (char)(left * 31 + how * 7 + i)) << "how " << how << " byte " << i;
    }
    shmem_barrier_all();
}

// The last PE computes for about a second without calling the library while every
// other PE fetches and adds on its counter; the totals and each origin's order are exact.
TEST(OffNode, FetchingAmosToComputingTarget)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), target = n - 1;
    const int K = 200;
    long *ctr = (long *)shmem_calloc(2, sizeof(long));
    ASSERT_NE(ctr, nullptr);
    shmem_barrier_all();
    if (me == target) {
        compute_for(1.0);
    } else {
        long last = -1;
        for (int k = 0; k < K; k++) {
            long old = shmem_long_atomic_fetch_add(&ctr[0], 1, target);
            EXPECT_GT(old, last);
            last = old;
            // a CAS-based increment: retried until no other origin came between
            long seen = shmem_long_atomic_fetch(&ctr[1], target), was;
            while ((was = shmem_long_atomic_compare_swap(&ctr[1], seen, seen + 1, target)) != seen)
                seen = was;
        }
    }
    shmem_barrier_all();
    EXPECT_EQ(shmem_long_g(&ctr[0], target), (long)K * (n - 1));
    EXPECT_EQ(shmem_long_g(&ctr[1], target), (long)K * (n - 1));
    shmem_barrier_all();
    shmem_free(ctr);
}

// The last PE does not call the library while the others push queued atomic adds to it,
// flush, and fetch-add on it; all complete. Three queues: adds of one constant (bursts that
// travel packed off the node, xport_am.c), adds of differing values (bursts as they
// are), and a histogram's adds of 1 whose full bursts leave before the flush and are
// held as sums (cq_rhold.c) until the flush sends or applies them. how 0:
// the target sits in MPI_Barrier (the program's own); 1: it spins on plain loads of its
// own flag, set after the origins' flushes (where a spinning PE can be served:
// spin_servable; otherwise it waits in shmem_wait_until); 2: it computes for about a
// second (compute_for), so the origins' bursts and flushes meet a target not in the
// library at all.
void queued_adds_to_idle_target(int how)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), target = n - 1;
    const int N = 256;
    // P adds of 1 over H words: two full bursts (4,096 adds of 8 bytes each on the RMA
    // path) leave before the flush, and a window of H words is sent only at 64 records a
    // word, so both are still held when the flush comes.
    const int H = 1000, P = 10000;
    int64_t *cells = (int64_t *)shmem_calloc(2 * N + 1, sizeof(int64_t));
    int64_t *hist = (int64_t *)shmem_calloc(H, sizeof(int64_t));
    long *flag = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_TRUE(cells && hist && flag);
    const bool spin = spin_servable();
    uint64_t before[2], after[2];
    shmemi_am_burst_stats(before);
    // on another node than the target: its node's leader is not ours
    int mylead = shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD);
    int tlead = mylead;
    MPI_Bcast(&tlead, 1, MPI_INT, target, MPI_COMM_WORLD);
    const bool offnode = tlead != mylead;
    shmem_barrier_all();
    if (me != target) {
        shmem_queue_t q, q2, qh;
        shmem_queue_config_t c = comm_queue_cfg(), ch = comm_queue_cfg(SHMEM_OP_ATOMIC_ADD);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        ASSERT_EQ(shmem_queue_comm_create(&q2, &c), 0);
        ASSERT_EQ(shmem_queue_comm_create(&qh, &ch), 0);
        const int64_t three = 3, one = 1;
        for (int r = 0; r < 4; r++)
            for (int i = 0; i < N; i++) {
                const int64_t v = i % 5 + 1;
                ASSERT_EQ(shmem_int64_queue_comm_push(q, &cells[i], &three, 1, target,
                                                      SHMEM_OP_ATOMIC_ADD), 0);
                ASSERT_EQ(shmem_int64_queue_comm_push(q2, &cells[N + i], &v, 1, target,
                                                      SHMEM_OP_ATOMIC_ADD), 0);
            }
        for (int i = 0; i < P; i++)
            ASSERT_EQ(shmem_int64_queue_comm_push(qh, &hist[i % H], &one, 1, target,
                                                  SHMEM_OP_ATOMIC_ADD), 0);
        // held on the RMA path (the default), and for a node peer wherever the node
        // transport applies its atomics (one node, or each node its own atomic domain)
        shmemx_queue_usage_t u;
        ASSERT_EQ(shmemx_queue_usage(qh, &u), 0);
        const uint64_t held = shmemi_queue_comm_rheld(qh);
        const bool node_transport = shmem_team_n_pes(SHMEM_TEAM_SHARED) == n || shmemi_am_on();
        if (u.mode == SHMEMX_QUEUE_MODE_COMM_RMA || (!offnode && node_transport)) {
            EXPECT_GT(held, 0u) << "PE " << me << ": no burst to the target was held";
        } else {
            EXPECT_EQ(held, 0u) << "PE " << me << ": held off the node on the AM path";
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_queue_local_flush(q2), 0);
        ASSERT_EQ(shmem_queue_local_flush(qh), 0);
        EXPECT_EQ(shmemi_queue_comm_rheld(qh), 0u) << "PE " << me << ": held after the flush";
        for (int k = 0; k < 50; k++)
            (void)shmem_int64_atomic_fetch_add(&cells[2 * N], 1, target);
        ASSERT_EQ(shmem_queue_comm_destroy(qh), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q2), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        if (how == 1)
            shmem_long_atomic_add(flag, 1, target);
    } else if (how == 1) {
        if (spin)
            ASSERT_TRUE(spin_until(flag, (long)(n - 1))) << "the origins' flags never came";
        else
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, (long)(n - 1));
        // spinning, the target saw every flushed add before any flag, held sums too
        for (int i = 0; i < N; i++) {
            EXPECT_EQ(*(volatile int64_t *)&cells[i], (int64_t)12 * (n - 1)) << i;
            EXPECT_EQ(*(volatile int64_t *)&cells[N + i], (int64_t)4 * (i % 5 + 1) * (n - 1)) << i;
        }
        int short_words = 0;
        for (int k = 0; k < H; k++)
            short_words += *(volatile int64_t *)&hist[k] != (int64_t)(P / H) * (n - 1);
        EXPECT_EQ(short_words, 0) << "table words without their total when the flags came";
    } else if (how == 2) {
        compute_for(1.0);
    }
    if (how == 0)
        MPI_Barrier(MPI_COMM_WORLD);
    shmemi_am_burst_stats(after);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        ASSERT_EQ(shmem_int64_g(&cells[i], target), (int64_t)12 * (n - 1)) << i;
        ASSERT_EQ(shmem_int64_g(&cells[N + i], target), (int64_t)4 * (i % 5 + 1) * (n - 1)) << i;
    }
    EXPECT_EQ(shmem_int64_g(&cells[2 * N], target), (int64_t)50 * (n - 1));
    std::vector<int64_t> got((size_t)H);
    shmem_getmem(got.data(), hist, H * sizeof(int64_t), target);
    int wrong = 0;
    for (int k = 0; k < H; k++)
        wrong += got[(size_t)k] != (int64_t)(P / H) * (n - 1);
    EXPECT_EQ(wrong, 0) << "PE " << me << ": words of the target's table with the wrong total";
    // an origin on another node than the target sent both forms through the AM transport
    if (me != target && offnode && shmemi_am_on()) {
        EXPECT_GT(after[1], before[1]) << "PE " << me << ": no packed burst";
        EXPECT_GT(after[0], before[0]) << "PE " << me << ": no plain burst";
    }
    shmem_barrier_all();
    shmem_free(flag);
    shmem_free(hist);
    shmem_free(cells);
}

TEST(OffNode, QueueFlushAndAmosToTargetInMpiBarrier) { queued_adds_to_idle_target(0); }
TEST(OffNode, QueueFlushAndAmosToSpinningTarget) { queued_adds_to_idle_target(1); }
TEST(OffNode, QueueFlushAndAmosToComputingTarget) { queued_adds_to_idle_target(2); }

// Every PE updates every PE's words: node peers with CPU atomics, PEs of other nodes
// through the target node's server, both on the same words, fetching and not, blocking
// and nbi, and through the comm queue. Totals exact; the fetch-incs of one word hand out
// every number once.
TEST(OffNode, MixedAtomicsOnSameWordsExact)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int K = 100;
    long *w = (long *)shmem_calloc(4, sizeof(long)); // inc-word, mixed sum, bits, swap
    ASSERT_NE(w, nullptr);
    shmem_barrier_all();
    std::vector<long> got; // my fetch_inc results on PE 0's word 0
    std::vector<long> nbi(K);
    shmem_queue_t q;
    shmem_queue_config_t c = comm_queue_cfg();
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    for (int k = 0; k < K; k++) {
        for (int d = 0; d < n; d++) {
            int pe = (me + d) % n;
            long old = shmem_long_atomic_fetch_inc(&w[0], pe);
            if (pe == 0)
                got.push_back(old);
            shmem_long_atomic_add(&w[1], 2, pe);
            shmem_long_atomic_inc(&w[1], pe);
            (void)shmem_long_atomic_fetch_add(&w[1], 4, pe);
            shmem_long_atomic_fetch_add_nbi(&nbi[k], &w[1], 8, pe);
            const int64_t sixteen = 16;
            ASSERT_EQ(shmem_int64_queue_comm_push(q, (int64_t *)&w[1], &sixteen, 1, pe,
                                                  SHMEM_OP_ATOMIC_ADD), 0);
            shmem_ulong_atomic_or((unsigned long *)&w[2], 1UL << (me % 60), pe);
        }
        shmem_quiet();
        if (k % 16 == 0) {
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
        }
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    // a swap chain on PE 0's word 3: every value seen once
    long prev = shmem_long_atomic_swap(&w[3], me + 1, 0);
    shmem_barrier_all();
    long want_bits = 0;
    for (int p = 0; p < n; p++)
        want_bits |= 1L << (p % 60);
    for (int pe = 0; pe < n; pe++) {
        EXPECT_EQ(shmem_long_g(&w[0], pe), (long)K * n) << "PE " << pe;
        EXPECT_EQ(shmem_long_g(&w[1], pe), (long)K * n * (2 + 1 + 4 + 8 + 16)) << "PE " << pe;
        EXPECT_EQ(shmem_long_g(&w[2], pe), want_bits) << "PE " << pe;
    }
    // every fetch_inc of PE 0's word 0 returned a distinct number in [0, K*n)
    std::vector<long> all((size_t)K * n);
    MPI_Allgather(got.data(), K, MPI_LONG, all.data(), K, MPI_LONG, MPI_COMM_WORLD);
    std::sort(all.begin(), all.end());
    for (long i = 0; i < (long)all.size(); i++)
        ASSERT_EQ(all[(size_t)i], i);
    // the swap chain: the olds plus the final value are 0..n exactly once
    std::vector<long> olds((size_t)n);
    MPI_Allgather(&prev, 1, MPI_LONG, olds.data(), 1, MPI_LONG, MPI_COMM_WORLD);
    olds.push_back(shmem_long_g(&w[3], 0));
    std::sort(olds.begin(), olds.end());
    for (int i = 0; i <= n; i++)
        EXPECT_EQ(olds[(size_t)i], (long)i);
    shmem_barrier_all();
    shmem_free(w);
}

// Queued atomics off the node leave as one AM request per burst: packed when every record
// has the same operand (a histogram's adds of 1: 4-byte displacements and one operand,
// xport_am.c's AM_BURSTP), as they are otherwise. Both forms, every op the server's loop
// chooses between, 8- and 4-byte words, on the heap and on globals (the data segment's
// region), from every PE to every PE: exact results, and where the AM transport is on,
// both forms counted.
int64_t g_acc64[6][40];
uint32_t g_acc32[6][40];

template <typename T>
void push_all(shmem_queue_t q, T *dest, const std::vector<T> &v, int pe, shmem_op_type_t op);
template <>
void push_all<int64_t>(shmem_queue_t q, int64_t *dest, const std::vector<int64_t> &v, int pe,
                       shmem_op_type_t op)
{
    ASSERT_EQ(shmem_int64_queue_comm_push(q, dest, v.data(), v.size(), pe, op), 0);
}
template <>
void push_all<uint32_t>(shmem_queue_t q, uint32_t *dest, const std::vector<uint32_t> &v,
                        int pe, shmem_op_type_t op)
{
    ASSERT_EQ(shmem_uint32_queue_comm_push(q, dest, v.data(), v.size(), pe, op), 0);
}

// rows of w (each W words): 0 adds of 1, 1 adds of (i + origin + 1), 2 XORs of the origin's
// bit (R odd times), 3 ORs of it, 4 ANDs of its complement (from all ones), 5 SETs of
// origin + 1
template <typename T> void queued_bursts_exact(T (*w)[40])
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), W = 40, R = 33;
    const T bit = (T)1 << (me % 30);
    for (int i = 0; i < W; i++) {
        for (int r = 0; r < 6; r++)
            w[r][i] = 0;
        w[4][i] = (T)~(T)0;
    }
    shmem_barrier_all();
    const shmem_op_type_t ops[6] = {SHMEM_OP_ATOMIC_ADD, SHMEM_OP_ATOMIC_ADD,
                                    SHMEM_OP_ATOMIC_XOR, SHMEM_OP_ATOMIC_OR,
                                    SHMEM_OP_ATOMIC_AND, SHMEM_OP_ATOMIC_SET};
    for (int row = 0; row < 6; row++) {
        std::vector<T> v((size_t)W);
        for (int i = 0; i < W; i++)
            v[(size_t)i] = row == 0   ? (T)1
                           : row == 1 ? (T)(i + me + 1)
                           : row == 4 ? (T)~bit
                           : row == 5 ? (T)(me + 1)
                                      : bit;
        // one queue per row: a burst holds one row's records, uniform or not
        shmem_queue_t q;
        shmem_queue_config_t c = comm_queue_cfg(ops[row]);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        for (int r = 0; r < (row == 5 ? 1 : R); r++)
            for (int d = 0; d < n; d++)
                push_all<T>(q, w[row], v, (me + d) % n, ops[row]);
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    }
    shmem_barrier_all();
    T all_bits = 0;
    for (int p = 0; p < n; p++)
        all_bits |= (T)1 << (p % 30);
    T xor_bits = 0; // R is odd: each origin's bit once
    for (int p = 0; p < n; p++)
        xor_bits ^= (T)1 << (p % 30);
    for (int i = 0; i < W; i++) {
        T sum1 = 0;
        for (int p = 0; p < n; p++)
            sum1 = (T)(sum1 + (T)(i + p + 1));
        EXPECT_EQ(w[0][i], (T)(R * n)) << "PE " << me << " word " << i;
        EXPECT_EQ(w[1][i], (T)(sum1 * R)) << "PE " << me << " word " << i;
        EXPECT_EQ(w[2][i], xor_bits) << "PE " << me << " word " << i;
        EXPECT_EQ(w[3][i], all_bits) << "PE " << me << " word " << i;
        EXPECT_EQ(w[4][i], (T)~all_bits) << "PE " << me << " word " << i;
        EXPECT_TRUE(w[5][i] >= (T)1 && w[5][i] <= (T)n) << "PE " << me << " word " << i;
    }
    shmem_barrier_all();
}

TEST(OffNode, QueuedAtomicBurstsExactPackedOrNot)
{
    uint64_t before[2], after[2];
    shmemi_am_burst_stats(before);
    int64_t(*h64)[40] = (int64_t(*)[40])shmem_malloc(sizeof g_acc64);
    uint32_t(*h32)[40] = (uint32_t(*)[40])shmem_malloc(sizeof g_acc32);
    ASSERT_TRUE(h64 && h32);
    queued_bursts_exact<int64_t>(h64);
    queued_bursts_exact<uint32_t>(h32);
    queued_bursts_exact<int64_t>(g_acc64);
    queued_bursts_exact<uint32_t>(g_acc32);
    shmemi_am_burst_stats(after);
    int one_node = shmem_team_n_pes(SHMEM_TEAM_SHARED) == shmem_n_pes();
    if (shmemi_am_on() && !one_node) { // this PE has PEs of other nodes: both forms went
        EXPECT_GT(after[1], before[1]) << "PE " << shmem_my_pe() << ": no packed burst";
        EXPECT_GT(after[0], before[0]) << "PE " << shmem_my_pe() << ": no plain burst";
    } else {
        EXPECT_EQ(after[1], before[1]) << "PE " << shmem_my_pe();
    }
    shmem_free(h32);
    shmem_free(h64);
}

// A lock handed from PE to PE across nodes (its CAS and swaps): a plain get-increment-put
// of a word of PE 0 inside the critical section loses no update.
TEST(OffNode, LockHandoffExact)
{
    const int n = shmem_n_pes();
    const int K = 50;
    static long lock = 0;
    g_total = 0;
    shmem_barrier_all();
    for (int k = 0; k < K; k++) {
        shmem_set_lock(&lock);
        long v = shmem_long_g(&g_total, 0);
        shmem_long_p(&g_total, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    EXPECT_EQ(shmem_long_g(&g_total, 0), (long)K * n);
    shmem_barrier_all();
}

// Gets and strided transfers of many sizes through the transport that reaches the
// partner, with the partner in a library wait.
TEST(OffNode, GetsAndStridedExact)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = (me + 1) % n;
    const size_t big = (size_t)300 << 10; // several AM pieces
    unsigned char *buf = (unsigned char *)shmem_malloc(big);
    ASSERT_NE(buf, nullptr);
    for (size_t i = 0; i < big; i++)
        buf[i] = (unsigned char)(me + i * 13);
    shmem_barrier_all();
    std::vector<unsigned char> got(big);
    for (size_t len : {(size_t)1, (size_t)8, (size_t)4096, (size_t)65536, (size_t)65537, big}) {
        std::fill(got.begin(), got.end(), 0);
        shmem_getmem(got.data(), buf, len, right);
        for (size_t i = 0; i < len; i++)
            ASSERT_EQ(got[i], (unsigned char)(right + i * 13)) << "len " << len << " at " << i;
    }
    std::fill(got.begin(), got.end(), 0);
    shmem_getmem_nbi(got.data(), buf + 5, 70000, right);
    shmem_quiet();
    for (size_t i = 0; i < 70000; i++)
        ASSERT_EQ(got[i], (unsigned char)(right + (i + 5) * 13)) << i;
    // strided: every third long of the partner's buffer
    long *lb = (long *)shmem_malloc(3000 * sizeof(long));
    ASSERT_NE(lb, nullptr);
    for (int i = 0; i < 3000; i++)
        lb[i] = -1;
    shmem_barrier_all();
    std::vector<long> src(1000), back(1000);
    for (int i = 0; i < 1000; i++)
        src[(size_t)i] = me * 100000L + i;
    shmem_long_iput(lb, src.data(), 3, 1, 1000, right);
    shmem_barrier_all();
    for (int i = 0; i < 3000; i++)
        ASSERT_EQ(lb[i], i % 3 == 0 ? ((me + n - 1) % n) * 100000L + i / 3 : -1L) << i;
    shmem_long_iget(back.data(), lb, 1, 3, 1000, right);
    for (int i = 0; i < 1000; i++)
        ASSERT_EQ(back[(size_t)i], me * 100000L + i) << i;
    shmem_barrier_all();
    shmem_free(lb);
    shmem_free(buf);
}

// The PE that PE p's comm queue targets: a PE of another node that is not its node's
// leader when there is one (the server applies for it while it spins), else any PE of
// another node, else (one node) the right neighbour. leader[q]: world PE of q's node's
// leader.
int queue_target(int p, const std::vector<int> &leader)
{
    const int n = (int)leader.size();
    int other = -1;
    for (int k = 1; k < n; k++) {
        const int q = (p + k) % n;
        if (leader[(size_t)q] == leader[(size_t)p])
            continue;
        if (q != leader[(size_t)q])
            return q;
        if (other < 0)
            other = q;
    }
    return other >= 0 ? other : (p + 1) % n;
}

// Every PE queues typed long puts, pushmem puts of odd lengths (3 and 13 bytes, and one
// over a chunk) and gets of both kinds to a PE of another node (not its leader if possible), flushes, raises a
// flag with an atomic set; the target spins on plain loads for the flag of each of its
// origins and checks every value, the origin every value it got (issue 21: through MPI
// RMA the puts waited for the spinning target to enter MPI).
TEST(OffNode, QueuePutsAndGetsToSpinningNonLeader)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int N = 1000, K = 300, B = K * 16;
    const size_t BIG = 70001; // over a 64 KiB chunk: issued directly, not as a burst
    const bool spin = spin_servable();
    int mylead = shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD);
    ASSERT_GE(mylead, 0);
    std::vector<int> leader((size_t)n);
    MPI_Allgather(&mylead, 1, MPI_INT, leader.data(), 1, MPI_INT, MPI_COMM_WORLD);
    const int t = queue_target(me, leader);
    long *tl = (long *)shmem_calloc((size_t)n * N, sizeof(long));
    unsigned char *tb = (unsigned char *)shmem_calloc((size_t)n * B, 1);
    long *flags = (long *)shmem_calloc((size_t)n, sizeof(long));
    long *sl = (long *)shmem_malloc((size_t)N * sizeof(long));
    unsigned char *sb = (unsigned char *)shmem_malloc((size_t)B);
    unsigned char *tbig = (unsigned char *)shmem_calloc((size_t)n * BIG, 1);
    unsigned char *sbig = (unsigned char *)shmem_malloc(BIG);
    ASSERT_TRUE(tl && tb && flags && sl && sb && tbig && sbig);
    for (size_t i = 0; i < BIG; i++)
        sbig[i] = (unsigned char)(me * 3 + i * 7 + 2);
    for (int i = 0; i < N; i++)
        sl[i] = me * 1000003L + 7L * i;
    for (int i = 0; i < B; i++)
        sb[i] = (unsigned char)(me * 29 + i * 11 + 1);
    auto len_of = [](int k) { return k % 2 ? (size_t)3 : (size_t)13; };
    shmem_barrier_all();

    shmem_queue_t q;
    shmem_queue_config_t c = comm_queue_cfg();
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    // One node's PEs push at a time, so their targets (on other nodes) spin without
    // entering the library meanwhile: nothing else would complete MPI RMA for them.
    std::vector<int> leads(leader);
    std::sort(leads.begin(), leads.end());
    leads.erase(std::unique(leads.begin(), leads.end()), leads.end());
    for (int lead : leads) {
        if (mylead == lead) { // origins: push, flush, flag; check what came back
            std::vector<long> gl((size_t)N, -1);
            std::vector<unsigned char> gb((size_t)B, 0), gbig(BIG, 0), pbig(BIG);
            for (size_t i = 0; i < BIG; i++)
                pbig[i] = (unsigned char)(me * 5 + i * 3 + 1);
            ASSERT_EQ(shmem_queue_comm_pushmem(q, &tbig[(size_t)me * BIG], pbig.data(), BIG, t,
                                               SHMEM_OP_PUT), 0);
            ASSERT_EQ(shmem_queue_comm_pushmem(q, gbig.data(), sbig, BIG, t, SHMEM_OP_GET), 0);
            for (int i = 0; i < N; i++) {
                const long v = me * 1000003L + 5L * i + 1;
                ASSERT_EQ(shmem_long_queue_comm_push(q, &tl[(size_t)me * N + i], &v, 1, t, SHMEM_OP_PUT), 0);
            }
            for (int k = 0; k < K; k++) {
                unsigned char v[13];
                for (size_t j = 0; j < len_of(k); j++)
                    v[j] = (unsigned char)(me * 13 + k * 3 + j + 1);
                ASSERT_EQ(shmem_queue_comm_pushmem(q, &tb[(size_t)me * B + (size_t)k * 16 + 1], v,
                                                   len_of(k), t, SHMEM_OP_PUT), 0);
            }
            for (int i = 0; i < N; i++)
                ASSERT_EQ(shmem_long_queue_comm_push(q, &gl[(size_t)i], &sl[i], 1, t, SHMEM_OP_GET), 0);
            for (int k = 0; k < K; k++)
                ASSERT_EQ(shmem_queue_comm_pushmem(q, &gb[(size_t)k * 16 + 2], &sb[k * 16 + 2], len_of(k),
                                                   t, SHMEM_OP_GET), 0);
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
            shmem_long_atomic_set(&flags[me], 1, t);
            shmem_quiet();

            for (int i = 0; i < N; i++)
                ASSERT_EQ(gl[(size_t)i], t * 1000003L + 7L * i) << "get " << i << " from " << t;
            for (int k = 0; k < K; k++)
                for (size_t j = 0; j < 16; j++) {
                    const size_t at = (size_t)k * 16 + j;
                    const bool in = j >= 2 && j < 2 + len_of(k);
                    ASSERT_EQ(gb[at], in ? (unsigned char)(t * 29 + at * 11 + 1) : 0) << "byte " << at;
                }
            for (size_t i = 0; i < BIG; i++)
                ASSERT_EQ(gbig[i], (unsigned char)(t * 3 + i * 7 + 2)) << "big get byte " << i;
        }
        for (int o = 0; o < n; o++) {
            if (leader[(size_t)o] != lead || queue_target(o, leader) != me)
                continue;
            if (spin)
                ASSERT_TRUE(spin_until(&flags[o], 1L)) << "flag of PE " << o << " never came";
            else
                shmem_long_wait_until(&flags[o], SHMEM_CMP_EQ, 1);
            for (int i = 0; i < N; i++)
                ASSERT_EQ(tl[(size_t)o * N + i], o * 1000003L + 5L * i + 1) << "PE " << o << " put " << i;
            for (int k = 0; k < K; k++)
                for (size_t j = 0; j < 16; j++) {
                    const bool in = j >= 1 && j < 1 + len_of(k);
                    ASSERT_EQ(tb[(size_t)o * B + (size_t)k * 16 + j],
                              in ? (unsigned char)(o * 13 + k * 3 + (j - 1) + 1) : 0)
                        << "PE " << o << " record " << k << " byte " << j;
                }
            for (size_t i = 0; i < BIG; i++)
                ASSERT_EQ(tbig[(size_t)o * BIG + i], (unsigned char)(o * 5 + i * 3 + 1))
                    << "PE " << o << " big put byte " << i;
        }
        shmem_barrier_all();
    }
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_free(sbig);
    shmem_free(tbig);
    shmem_free(sb);
    shmem_free(sl);
    shmem_free(flags);
    shmem_free(tb);
    shmem_free(tl);
}

// The PEs of other nodes than p's (leader[q]: world PE of q's node's leader); on one node
// every other PE (the node path), and on one PE the PE itself, so every run checks values.
std::vector<int> off_node_pes(int p, const std::vector<int> &leader)
{
    const int n = (int)leader.size();
    std::vector<int> out, others;
    for (int q = 0; q < n; q++) {
        if (q == p)
            continue;
        others.push_back(q);
        if (leader[(size_t)q] != leader[(size_t)p])
            out.push_back(q);
    }
    if (out.empty())
        out = others;
    if (out.empty())
        out.push_back(p);
    return out;
}

// The value of element i of PE pe's source array in the get tests below.
long get_src_value(int pe, int i) { return pe * 1000003L + 7L * i + 3; }

// One epoch of queued GETs to every PE of other nodes, pushed round robin so bursts to
// several targets are in flight at once: 160k typed long gets (about 4,000 per 64 KiB
// burst, so more bursts than the AM transport keeps in flight, AM_GET_BURSTS 32, and it
// must reap or wait for replies mid-epoch), then pushmem gets of odd lengths. One flush;
// every value exact. Returns the bursts the queue issued (stats).
uint64_t gets_epoch(const std::vector<int> &targets, const long *src, const unsigned char *bsrc,
                    int NS, int NB)
{
    const int me = shmem_my_pe();
    const int G = 160000, K = 3000;
    const size_t nt = targets.size();
    std::vector<long> got((size_t)G, -1);
    std::vector<unsigned char> gb((size_t)K * 16, 0);
    shmem_queue_t q;
    shmem_queue_config_t c = comm_queue_cfg();
    EXPECT_EQ(shmem_queue_comm_create(&q, &c), 0);
    auto push = [&](auto f) {
        int rc;
        while ((rc = f()) == SHMEM_QUEUE_ERR_FULL)
            shmem_queue_progress(q);
        return rc;
    };
    for (int i = 0; i < G; i++) {
        const int t = targets[(size_t)i % nt];
        const int j = (i * 13) % NS;
        EXPECT_EQ(push([&] { return shmem_long_queue_comm_push(q, &got[(size_t)i], &src[j], 1, t,
                                                               SHMEM_OP_GET); }), 0);
    }
    auto len_of = [](int k) { return k % 3 == 0 ? (size_t)5 : k % 3 == 1 ? (size_t)11 : (size_t)1; };
    for (int k = 0; k < K; k++) {
        const int t = targets[(size_t)k % nt];
        const int j = (k * 17) % (NB - 16);
        EXPECT_EQ(push([&] { return shmem_queue_comm_pushmem(q, &gb[(size_t)k * 16 + 3], &bsrc[j],
                                                             len_of(k), t, SHMEM_OP_GET); }), 0);
    }
    EXPECT_EQ(shmem_queue_local_flush(q), 0);
    shmemx_queue_stats_t st;
    std::memset(&st, 0, sizeof st);
    EXPECT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_EQ(shmem_queue_comm_destroy(q), 0);
    for (int i = 0; i < G; i++) {
        const int t = targets[(size_t)i % nt];
        if (got[(size_t)i] != get_src_value(t, (i * 13) % NS)) {
            ADD_FAILURE() << "PE " << me << " get " << i << " from PE " << t << ": " << got[(size_t)i];
            break;
        }
    }
    for (int k = 0; k < K; k++) {
        const int t = targets[(size_t)k % nt];
        const int j = (k * 17) % (NB - 16);
        for (size_t b = 0; b < 16; b++) {
            const bool in = b >= 3 && b < 3 + len_of(k);
            const unsigned char want = in ? (unsigned char)(t * 31 + (j + (int)b - 3) * 5 + 1) : 0;
            if (gb[(size_t)k * 16 + b] != want) {
                ADD_FAILURE() << "PE " << me << " pushmem get " << k << " byte " << b << " from PE " << t;
                return st.bursts;
            }
        }
    }
    return st.bursts;
}

// Queued GETs to several off-node PEs in one epoch, more bursts than the AM transport
// keeps in flight (issue 21: get bursts no longer wait one round trip each), while the
// targets spin on plain loads (the node's server answers) and then while they sit in
// MPI_Barrier. One node's PEs get at a time; the others are the targets.
TEST(OffNode, QueueGetsToManyOffNodePesInOneEpoch)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int NS = 50000, NB = 4096;
    const bool spin = spin_servable();
    int mylead = shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD);
    ASSERT_GE(mylead, 0);
    std::vector<int> leader((size_t)n);
    MPI_Allgather(&mylead, 1, MPI_INT, leader.data(), 1, MPI_INT, MPI_COMM_WORLD);
    long *src = (long *)shmem_malloc((size_t)NS * sizeof(long));
    unsigned char *bsrc = (unsigned char *)shmem_malloc((size_t)NB);
    long *released = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_TRUE(src && bsrc && released);
    for (int i = 0; i < NS; i++)
        src[i] = get_src_value(me, i);
    for (int i = 0; i < NB; i++)
        bsrc[i] = (unsigned char)(me * 31 + i * 5 + 1);
    const std::vector<int> targets = off_node_pes(me, leader);
    const bool offnode = leader[(size_t)targets[0]] != mylead;
    std::vector<int> leads(leader);
    std::sort(leads.begin(), leads.end());
    leads.erase(std::unique(leads.begin(), leads.end()), leads.end());
    shmem_barrier_all();

    // 1. targets spin on their own word, released by an atomic add from each origin
    long expect = 0;
    for (int lead : leads) {
        const int origins = (int)std::count(leader.begin(), leader.end(), lead);
        if (mylead == lead) {
            const uint64_t bursts = gets_epoch(targets, src, bsrc, NS, NB);
            if (offnode && shmemi_am_on()) { // more than AM_GET_BURSTS in one epoch
                EXPECT_GT(bursts, (uint64_t)32) << "PE " << me;
            }
            for (int t : targets)
                if (leader[(size_t)t] != mylead)
                    shmem_long_atomic_add(released, 1, t);
            shmem_quiet();
        } else if (leader.size() > 1) {
            expect += origins;
            if (spin)
                ASSERT_TRUE(spin_until(released, expect)) << "PE " << me << " never released";
            else
                shmem_long_wait_until(released, SHMEM_CMP_GE, expect);
        }
        shmem_barrier_all();
    }

    // 2. targets wait in MPI_Barrier of their own while the origins get, flush, check
    for (int lead : leads) {
        if (mylead == lead)
            gets_epoch(targets, src, bsrc, NS, NB);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    shmem_barrier_all();
    shmem_free(released);
    shmem_free(bsrc);
    shmem_free(src);
}

// ---- The agent's stand-down (agent.c): it sleeps while a thread of its own process waits
// in a loop that does its work (shmemi_wait_request), and only then.

// A target X computes (plain loads on its flag, no library call) while a PE S of another
// node sends it adds, a put and a flag, and meanwhile X's node peer sits in a collective
// (a team sync across nodes, completed through MPI: shmemi_wait_request) that ends only
// once S is done. Round 0: X is its node's leader, so the agent runs in X's process, no
// thread there waits, and the agent must keep serving. Round 1 (nodes of two or more): X
// is not the leader and the waiting peer is, so the agent stands down and the leader's
// wait serves X's memory instead. Either way every operation completes while X computes.
// Every PE its own node: X has no peer, its agent serves it; one node: the node transport.
TEST(OffNode, StandDownKeepsServingAComputingNodePeer)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int k = shmem_team_n_pes(SHMEM_TEAM_SHARED), nodes = n / k;
    const bool spin = spin_servable();
    const int M = 300, B = 4096;
    long *ctr = (long *)shmem_calloc(2, sizeof(long)); // [0] adds, [1] flag
    char *blk = (char *)shmem_calloc(B, 1);
    long *go = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_TRUE(ctr && blk && go);
    ASSERT_EQ(n % k, 0);
    for (int x = 0; x < 2 && x < n; x++) {
        const bool pair = nodes >= 2 && k >= 2; // a node peer that can wait meanwhile
        const int X = x, S = pair ? x + k : (x + 1) % n;
        const int W = 1 - x;                     // X's peer on node 0 (pair only)
        shmem_team_t t = SHMEM_TEAM_INVALID;     // {W, W + k, ...}: one PE per node
        if (pair) {
            ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, W, k, nodes, NULL, 0, &t), 0);
        }
        shmem_barrier_all();
        if (n > 1 && me == S) {
            std::vector<char> src((size_t)B);
            for (int i = 0; i < B; i++)
                src[(size_t)i] = (char)(x * 13 + i * 7 + 1);
            for (int i = 0; i < M; i++)
                shmem_long_atomic_add(&ctr[0], 1, X);
            shmem_putmem(blk, src.data(), (size_t)B, X);
            shmem_quiet();
            shmem_long_atomic_set(&ctr[1], 1, X);
            if (pair)
                shmem_long_atomic_set(go, 1, W + k); // S's node peer in the team: now
        }
        if (n > 1 && me == X) {
            bool got = spin ? spin_until_for(&ctr[1], 1L, 20.0)
                            : (shmem_long_wait_until(&ctr[1], SHMEM_CMP_EQ, 1), true);
            // EXPECT, not ASSERT: the others must not be left in the collectives below
            EXPECT_TRUE(got) << "round " << x << ": PE " << me << " computing: the flag never came";
            if (!got) // let S finish (inside the library now) so that the job ends
                shmem_long_wait_until(&ctr[1], SHMEM_CMP_EQ, 1);
            EXPECT_EQ(*(volatile long *)&ctr[0], (long)M) << "round " << x;
            int bad = 0;
            for (int i = 0; i < B; i++)
                bad += blk[i] != (char)(x * 13 + i * 7 + 1);
            EXPECT_EQ(bad, 0) << "round " << x << ": bytes of the put wrong";
        }
        if (t != SHMEM_TEAM_INVALID) { // W and its like wait here until S is done
            if (me == W + k)
                shmem_long_wait_until(go, SHMEM_CMP_EQ, 1);
            shmem_team_sync(t);
        }
        shmem_barrier_all();
        ctr[0] = ctr[1] = 0, *go = 0;
        std::memset(blk, 0, (size_t)B);
        if (t != SHMEM_TEAM_INVALID)
            shmem_team_destroy(t);
        shmem_barrier_all();
    }
    shmem_free(go);
    shmem_free(blk);
    shmem_free(ctr);
}

// The agent stands down while its process waits, and not while it computes: the node
// leaders meet in a team sync (through MPI) that the last of them joins only after
// computing ~0.5 s. A waiting leader's agent stands down and polls (almost) not at all
// meanwhile (without the stand-down it polls once per 500 us at least: ~1000 passes);
// the computing leader's agent does not stand down (once per 500 us if it did) and keeps
// polling.
TEST(OffNode, StandDownWhileItsProcessWaitsOnly)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int k = shmem_team_n_pes(SHMEM_TEAM_SHARED), nodes = n / k;
    shmem_team_t leaders;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, k, nodes, NULL, 0, &leaders), 0);
    uint64_t b[2] = {0, 0}, a[2] = {0, 0};
    const int lead = me % k == 0, last = me == (nodes - 1) * k;
    int agent = shmemi_agent_stats(b) == 0;
    if (agent) {
        EXPECT_TRUE(lead) << "PE " << me << ": an agent outside a node's leader";
    }
    // The team's first collective sets up its collective state with blocking MPI calls
    // (a communicator split: up to ~100 ms with MPICH at 4 PEs on 2 cores), inside which
    // the agent rightly keeps polling: done here, outside the window measured below.
    if (lead)
        shmem_team_sync(leaders);
    shmem_barrier_all();
    if (lead) {
        (void)shmemi_agent_stats(b);
        if (last)
            compute_for(0.5);
        (void)shmemi_agent_stats(a); // the computing leader: before it syncs
        if (!last || nodes == 1)
            shmem_team_sync(leaders);
        if (!last)
            (void)shmemi_agent_stats(a);
        if (last && nodes > 1)
            shmem_team_sync(leaders);
    }
    if (agent && nodes > 1 && !last) {
        EXPECT_GE(a[1] - b[1], (uint64_t)1) << "PE " << me << ": the agent never stood down";
        EXPECT_LT(a[0] - b[0], (uint64_t)100) << "PE " << me << ": the agent polled beside the wait";
    }
    if (agent && last) {
        // at most the one stand-down begun in the barrier before and counted as it ends
        EXPECT_LE(a[1] - b[1], (uint64_t)1) << "PE " << me << ": the agent stood down while its PE computed";
        EXPECT_GT(a[0] - b[0], (uint64_t)0) << "PE " << me << ": the agent did not poll while its PE computed";
    }
    shmem_barrier_all();
    shmem_team_destroy(leaders);
}

// A wait for an AM reply outside the transport's lock runs every hook, so it counts as
// its process progressing itself: node 0's leader makes blocking fetch-adds to the last
// node's leader, and its agent stands down at least once meanwhile (it used to poll
// beside such waits); every fetch returns the count before it, so none was lost.
TEST(OffNode, StandDownWhileWaitingForAnAmoReply)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int k = shmem_team_n_pes(SHMEM_TEAM_SHARED), nodes = n / k;
    const int T = (nodes - 1) * k, M = 2000;
    long *ctr = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_NE(ctr, nullptr);
    uint64_t b[2] = {0, 0}, a[2] = {0, 0};
    const int agent = shmemi_agent_stats(b) == 0;
    shmem_barrier_all();
    if (me == 0 && nodes > 1) {
        (void)shmemi_agent_stats(b);
        int wrong = 0;
        for (long i = 0; i < M; i++)
            wrong += shmem_long_atomic_fetch_add(ctr, 1, T) != i;
        (void)shmemi_agent_stats(a);
        EXPECT_EQ(wrong, 0) << "fetches that did not return the count before them";
        if (agent) {
            EXPECT_GE(a[1] - b[1], (uint64_t)1) << "the agent never stood down in " << M << " AMO waits";
        }
    }
    shmem_barrier_all();
    if (me == T && nodes > 1) {
        EXPECT_EQ(*ctr, (long)M);
    }
    shmem_barrier_all();
    shmem_free(ctr);
}

} // namespace
