// test_offnode_rma.cc: PEs of other nodes by default (issue 21; test_offnode_common.h):
// puts, gets and strided transfers, AMOs (blocking, fetching, nbi and queued on the same
// words) and a lock, to targets that spin on plain loads, compute or wait in the library.
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "test_offnode_common.h"

namespace {

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

} // namespace
