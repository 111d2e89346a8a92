// test_onesided.cc: operations complete whatever the target PE is doing (issue 12).
//
// In every test some PE does NOT call the library while its peers' puts, gets, atomics
// and queue flushes must complete: it spins on its own memory with plain loads, computes,
// or waits inside an MPI call of its own. Built twice: test_onesided (PEs of one node: the
// node transport) and test_onesided_offnode (SHMEMQ_NODE_PES=1 set by mpi_main.cc: every
// PE its own node, MPI RMA and AM batches, served by the node agent that the default
// settings start in every node leader's process, here every PE's).
//
// A waiting PE gives up after kDeadline seconds and fails instead of hanging; a PE stuck
// inside a library call is caught by run-mpi.sh's timeout.
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstring>
#include <ctime>
#include <vector>

#include "test_util.h"

namespace {

const double kDeadline = 30.0;

double now() { return test_now(); }

template <typename T> bool spin_until(const T *p, T want)
{
    return spin_until_for(p, want, kDeadline);
}

// Arithmetic that keeps the CPU busy without touching the library; looks at *flag only
// every few thousand iterations. Returns the loop's result so it is not optimised away.
template <typename T> double compute_until(const T *flag, T want)
{
    double x = 1.0, t0 = now();
    for (;;) {
        for (int i = 0; i < 20000; i++)
            x = x * 1.0000001 + 1e-9;
        if (*(const volatile T *)flag == want || now() - t0 > kDeadline)
            return x;
    }
}

// Open MPI 4.1's 64-bit MPI_Compare_and_swap crashes in btl/vader under contention
// (docs/amo.md has the plain-MPI reproducer): where 64-bit CAS goes through MPI there
// (PEs off this node), the CAS loops are left out.
bool mpi_cas64_broken()
{
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
    return shmem_team_n_pes(SHMEM_TEAM_SHARED) < shmem_n_pes();
#else
    return false;
#endif
}

// Pairs (0 -> 1, 2 -> 3, ...); an odd last PE only joins the barriers.
int partner() { return shmem_my_pe() ^ 1; }
bool is_origin() { return shmem_my_pe() % 2 == 0 && partner() < shmem_n_pes(); }
bool is_target() { return shmem_my_pe() % 2 == 1; }

// Globals: symmetric through the data segment.
long g_flag;
char g_data[8192];
int g_counter;
long g_words[64];
int g_counts[16];

} // namespace

// 1. put, fence, flag; the target spins on plain loads. Heap and globals, three flags.
TEST(OneSided, PutFenceFlagToSpinningTarget)
{
    REQUIRE_PES(2);
    const size_t N = 8192;
    char *data = static_cast<char *>(shmem_calloc(N, 1));
    long *flag = static_cast<long *>(shmem_calloc(1, sizeof(long)));
    std::vector<char> src(N);
    for (int region = 0; region < 2; region++) {
        char *d = region ? g_data : data;
        long *f = region ? &g_flag : flag;
        for (int how = 0; how < 3; how++) {
            char seed = (char)(1 + region * 3 + how);
            for (size_t i = 0; i < N; i++)
                src[i] = (char)(seed + i * 7);
            *f = 0;
            shmem_barrier_all();
            if (is_origin()) {
                shmem_putmem(d, src.data(), N, partner());
                shmem_fence();
                if (how == 0)
                    shmem_long_p(f, 1, partner());
                else if (how == 1)
                    shmem_long_atomic_set(f, 1, partner());
                else
                    shmem_long_atomic_add(f, 1, partner());
                shmem_quiet();
            } else if (is_target()) {
                ASSERT_TRUE(spin_until<long>(f, 1)) << "region " << region << " flag " << how;
                for (size_t i = 0; i < N; i++)
                    ASSERT_EQ(d[i], (char)(seed + i * 7)) << "byte " << i;
            }
            shmem_barrier_all();
        }
    }
    shmem_free(data);
    shmem_free(flag);
}

// 2. Passive progress with a global variable: PE 0 computes until its own global reaches
// N, PE 1 increments it, the others poll it with shmem_int_g.
TEST(OneSided, PassiveProgressGlobal)
{
    REQUIRE_PES(2);
    const int N = 1000;
    int me = shmem_my_pe();
    g_counter = 0;
    shmem_barrier_all();
    if (me == 0) {
        double t0 = now(), x = 1.0;
        while (*(volatile int *)&g_counter < N && now() - t0 < kDeadline)
            x = x * 1.0000001 + 1e-9;
        EXPECT_GT(x, 0.0);
        EXPECT_EQ(*(volatile int *)&g_counter, N);
    } else if (me == 1) {
        for (int i = 0; i < N; i++)
            shmem_int_atomic_inc(&g_counter, 0);
        shmem_quiet();
    } else {
        double t0 = now();
        int seen = 0;
        while ((seen = shmem_int_g(&g_counter, 0)) < N && now() - t0 < kDeadline)
            ;
        EXPECT_EQ(seen, N);
    }
    shmem_barrier_all();
    EXPECT_EQ(shmem_int_g(&g_counter, 0), N);
    shmem_barrier_all();
}

// 3. MPI interop: PE 0 flushes a comm queue of 100,000 adds (and PUTs, GETs) for PE 1
// while PE 1 (and every other PE) already waits in MPI_Barrier / MPI_Allreduce.
TEST(OneSided, QueueFlushWhileTargetWaitsInMpi)
{
    REQUIRE_PES(2);
    const int K = 1000, OPS = 100000;
    int me = shmem_my_pe();
    long *ctr = static_cast<long *>(shmem_calloc(K, sizeof(long)));
    long *vals = static_cast<long *>(shmem_calloc(K, sizeof(long)));
    std::vector<long> got(K, -1);
    shmem_barrier_all();
    for (int variant = 0; variant < 2; variant++) {
        if (me == 0) {
            shmem_queue_t q;
            shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ANY);
            ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
            const long one = 1;
            for (int i = 0; i < OPS; i++) {
                int rc;
                while ((rc = shmem_long_queue_comm_push(q, &ctr[i % K], &one, 1, 1,
                                                        SHMEM_OP_ATOMIC_ADD)) ==
                       SHMEM_QUEUE_ERR_FULL)
                    ASSERT_GE(shmem_queue_progress(q), 0);
                ASSERT_EQ(rc, 0);
            }
            for (int i = 0; i < K; i++) {
                long v = 1000 * variant + i;
                ASSERT_EQ(shmem_long_queue_comm_push(q, &vals[i], &v, 1, 1, SHMEM_OP_PUT), 0);
            }
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
            // GETs read what the PUTs left: the flush made them complete and visible
            for (int i = 0; i < K; i++)
                ASSERT_EQ(shmem_long_queue_comm_push(q, &got[i], &vals[i], 1, 1, SHMEM_OP_GET), 0);
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
            ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
            for (int i = 0; i < K; i++)
                ASSERT_EQ(got[i], 1000 * variant + i) << i;
        }
        // everybody else is already here, inside MPI, waiting for PE 0
        if (variant == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
        } else {
            int x = 1, sum = 0;
            MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            EXPECT_EQ(sum, shmem_n_pes());
        }
        if (me == 1) {
            for (int i = 0; i < K; i++) {
                ASSERT_EQ(ctr[i], (long)(variant + 1) * (OPS / K)) << i;
                ASSERT_EQ(vals[i], 1000 * variant + i) << i;
            }
        }
        shmem_barrier_all();
    }
    shmem_free(ctr);
    shmem_free(vals);
}

// 4. The target computes (no spinning on a flag of ours): blocking gets, fetching AMOs,
// compare-and-swap and a 64 KiB get complete meanwhile; then the flag releases it.
TEST(OneSided, BlockingOpsOnComputingTarget)
{
    REQUIRE_PES(2);
    const size_t N = 65536;
    long *word = static_cast<long *>(shmem_calloc(4, sizeof(long)));
    long *flag = static_cast<long *>(shmem_calloc(1, sizeof(long)));
    char *big = static_cast<char *>(shmem_malloc(N));
    for (size_t i = 0; i < N; i++)
        big[i] = (char)(shmem_my_pe() + i * 3);
    word[0] = 100 + shmem_my_pe();
    shmem_barrier_all();
    if (is_origin()) {
        int t = partner();
        EXPECT_EQ(shmem_long_g(&word[0], t), 100 + t);
        EXPECT_EQ(shmem_long_atomic_fetch_add(&word[1], 5, t), 0);
        EXPECT_EQ(shmem_long_atomic_fetch_add(&word[1], 5, t), 5);
        EXPECT_EQ(shmem_long_atomic_compare_swap(&word[2], 0, 42, t), 0);
        EXPECT_EQ(shmem_long_atomic_compare_swap(&word[2], 0, 43, t), 42);
        EXPECT_EQ(shmem_long_atomic_fetch(&word[2], t), 42);
        std::vector<char> got(N);
        shmem_getmem(got.data(), big, N, t);
        for (size_t i = 0; i < N; i++)
            ASSERT_EQ(got[i], (char)(t + i * 3)) << i;
        shmem_long_atomic_set(flag, 1, t);
        shmem_quiet();
    } else if (is_target()) {
        EXPECT_GT(compute_until<long>(flag, 1), 0.0);
        EXPECT_EQ(*(volatile long *)flag, 1) << "the origin never got through";
        EXPECT_EQ(word[1], 10);
        EXPECT_EQ(word[2], 42);
    }
    shmem_barrier_all();
    shmem_free(word);
    shmem_free(flag);
    shmem_free(big);
}

// 5. Atomics on the same words through every path at once: blocking and fetching AMOs,
// compare-and-swap loops and queued adds/incs, from every PE to every PE.
TEST(OneSided, AtomicsMixedAcrossPathsExact)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const int W = 16, R = 300;
    long *w = static_cast<long *>(shmem_calloc(W, sizeof(long)));
    uint64_t *bits = static_cast<uint64_t *>(shmem_calloc(W, sizeof(uint64_t)));
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ANY);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    const long one = 1, two = 2;
    for (int r = 0; r < R; r++) {
        for (int pe = 0; pe < n; pe++) {
            long *x = &w[r % W];
            long *y = &g_words[r % W];
            switch ((r + me) % 6) { // PEs differ in which kind they use when
            case 0: shmem_long_atomic_add(x, 2, pe); break;
            case 1: shmem_long_atomic_inc(x, pe), shmem_long_atomic_inc(x, pe); break;
            case 2: (void)shmem_long_atomic_fetch_add(x, 2, pe); break;
            case 3: (void)shmem_long_atomic_fetch_inc(x, pe), (void)shmem_long_atomic_fetch_inc(x, pe); break;
            case 4: {
                if (mpi_cas64_broken()) { // two adds of 1 instead (see mpi_cas64_broken)
                    shmem_long_atomic_add(x, 2, pe);
                    break;
                }
                for (int k = 0; k < 2; k++) {
                    long old = shmem_long_atomic_fetch(x, pe), seen;
                    while ((seen = shmem_long_atomic_compare_swap(x, old, old + 1, pe)) != old)
                        old = seen;
                }
                break;
            }
            default:
                ASSERT_EQ(shmem_long_queue_comm_push(q, x, &two, 1, pe, SHMEM_OP_ATOMIC_ADD), 0);
                break;
            }
            // the global words: queue INCs against blocking adds
            if ((r + me) % 2) {
                ASSERT_EQ(shmem_long_queue_comm_push(q, y, &one, 1, pe, SHMEM_OP_ATOMIC_INC), 0);
            } else {
                shmem_long_atomic_add(y, 1, pe);
            }
            // bits: each PE toggles its own bit twice, by AMO and by queue
            uint64_t bit = (uint64_t)1 << (me % 64);
            shmem_uint64_atomic_xor(&bits[r % W], bit, pe);
            ASSERT_EQ(shmem_uint64_queue_comm_push(q, &bits[r % W], &bit, 1, pe,
                                                   SHMEM_OP_ATOMIC_XOR), 0);
        }
        if (r % 50 == 49) {
            ASSERT_EQ(shmem_queue_local_flush(q), 0);
        }
    }
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    for (int i = 0; i < W; i++) {
        long want = 0, gwant = 0;
        for (int r = 0; r < R; r++)
            if (r % W == i)
                want += 2 * n, gwant += n;
        EXPECT_EQ(w[i], want) << "word " << i;
        EXPECT_EQ(g_words[i], gwant) << "global word " << i;
        EXPECT_EQ(bits[i], 0u) << "bits " << i;
    }
    shmem_barrier_all();
    std::memset(g_words, 0, sizeof g_words);
    shmem_free(w);
    shmem_free(bits);
    shmem_barrier_all();
}

// 6. Fetching nbi atomics completed by quiet, PEs swapping each other's words in lockstep
// (the pattern of a third-party atomic_nbi test that livelocked at 4 PEs): per round 64
// swap_nbi, quiet, 32 x (compare_swap_nbi + fetch_add_nbi), quiet, targets rotating over
// every PE, the last of several PEs computing meanwhile. Nothing is created or lost:
// everything swapped in equals everything fetched out plus what the words hold at the end
// (sums and sums of squares), and the adds all arrive.
TEST(OneSided, FetchingNbiAtomicsInQuietLockstep)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const int W = 16, R = 20;
    const int idle = n > 1 ? n - 1 : -1, workers = n > 1 ? n - 1 : 1;
    int *w = static_cast<int *>(shmem_calloc(W, sizeof(int)));
    int *done = static_cast<int *>(shmem_calloc(1, sizeof(int)));
    std::memset(g_counts, 0, sizeof g_counts);
    shmem_barrier_all();
    auto token = [&](int r, int k) { return 1 + me + n * (r * 96 + k); }; // unique per PE
    int64_t in_sum = 0, in_sq = 0, out_sum = 0, out_sq = 0;
    auto add = [](int64_t *s, int64_t *q, int v) { *s += v, *q += (int64_t)v * v; };
    if (me == idle) {
        EXPECT_GT(compute_until<int>(done, workers), 0.0);
        EXPECT_EQ(*(volatile int *)done, workers) << "the workers never got through";
    } else {
        int fs[64], fc[32], fa[32];
        for (int r = 0; r < R; r++) {
            for (int k = 0; k < 64; k++)
                shmem_int_atomic_swap_nbi(&fs[k], &w[k % W], token(r, k), (me + 1 + k) % n);
            shmem_quiet();
            for (int k = 0; k < 64; k++)
                add(&in_sum, &in_sq, token(r, k)), add(&out_sum, &out_sq, fs[k]);
            // cond: what this PE's last swap left in the word, so some swaps succeed
            for (int k = 0; k < 32; k++) {
                shmem_int_atomic_compare_swap_nbi(&fc[k], &w[k % W], token(r, 48 + k % W),
                                                  token(r, 64 + k), (me + 1 + k) % n);
                shmem_int_atomic_fetch_add_nbi(&fa[k], &g_counts[(k + 3) % W], 1,
                                               (me + 2 + k) % n);
            }
            shmem_quiet();
            for (int k = 0; k < 32; k++) {
                if (fc[k] == token(r, 48 + k % W))
                    add(&in_sum, &in_sq, token(r, 64 + k)), add(&out_sum, &out_sq, fc[k]);
                EXPECT_GE(fa[k], 0);
                EXPECT_LT(fa[k], workers * R * 32);
            }
        }
        if (idle >= 0)
            shmem_int_atomic_inc(done, idle);
        shmem_quiet();
    }
    shmem_barrier_all();
    int64_t end_sum = 0, end_sq = 0, count = 0;
    for (int i = 0; i < W; i++)
        add(&end_sum, &end_sq, w[i]), count += g_counts[i];
    EXPECT_EQ(yielding_allreduce(in_sum, MPI_SUM),
              yielding_allreduce(out_sum, MPI_SUM) + yielding_allreduce(end_sum, MPI_SUM));
    EXPECT_EQ(yielding_allreduce(in_sq, MPI_SUM),
              yielding_allreduce(out_sq, MPI_SUM) + yielding_allreduce(end_sq, MPI_SUM));
    EXPECT_EQ(yielding_allreduce(count, MPI_SUM), (int64_t)workers * R * 32);
    shmem_barrier_all();
    shmem_free(w);
    shmem_free(done);
}

// 7. The retry loop that livelocked: every PE swaps its number into a word on every PE,
// quiets, and repeats until it has fetched n values of its own parity. Two PEs of
// different parity whose swaps strictly alternate never finish; the back-off in quiet's
// wait (shmemi_amo_quiet) lets them drift apart. Fails after kDeadline instead of hanging.
TEST(OneSided, SwapUntilOwnParity)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *word = static_cast<long *>(shmem_malloc(sizeof(long)));
    *word = me;
    std::vector<long> got(n, -1);
    shmem_barrier_all();
    double t0 = now();
    int hits = 0;
    while (hits < n && now() - t0 < kDeadline) {
        for (int pe = 0; pe < n; pe++)
            shmem_long_atomic_swap_nbi(&got[pe], word, me, pe);
        shmem_quiet();
        for (int pe = 0; pe < n; pe++) {
            ASSERT_GE(got[pe], 0);
            ASSERT_LT(got[pe], n);
            hits += got[pe] % 2 == me % 2;
        }
    }
    EXPECT_GE(hits, n) << "still swapping in step after " << kDeadline << " s";
    shmem_barrier_all();
    EXPECT_GE(*word, 0);
    EXPECT_LT(*word, n);
    shmem_barrier_all();
    shmem_free(word);
}

// 8. shmem_ptr reaches every PE of SHMEM_TEAM_SHARED, heap and globals, and nobody else.
TEST(OneSided, PtrCoversTheNode)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *h = static_cast<long *>(shmem_calloc(n, sizeof(long)));
    g_words[0] = 0;
    shmem_barrier_all();
    int mapped = 0;
    for (int pe = 0; pe < n; pe++) {
        bool on_node = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
        long *ph = static_cast<long *>(shmem_ptr(&h[me], pe));
        long *pg = static_cast<long *>(shmem_ptr(&g_words[1], pe));
        EXPECT_EQ(ph != nullptr, on_node) << "heap of PE " << pe;
        EXPECT_EQ(pg != nullptr, on_node) << "global of PE " << pe;
        int tpe = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED);
        if (on_node) {
            EXPECT_EQ(shmem_team_ptr(SHMEM_TEAM_SHARED, &h[me], tpe), ph);
            *ph = 1000 + me; // a plain store into PE pe's heap
            mapped++;
        } else {
            shmem_long_p(&h[me], 1000 + me, pe);
        }
        // atomics through the library whatever the pointer: it keeps one atomic domain
        shmem_long_atomic_inc(&g_words[0], pe);
    }
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        EXPECT_EQ(h[pe], 1000 + pe) << "from PE " << pe;
    EXPECT_EQ(shmem_long_atomic_fetch(&g_words[0], me), n);
    // a third PE sees the stores too
    EXPECT_EQ(shmem_long_g(&h[me], (me + 1) % n), 1000 + me);
    EXPECT_EQ(mapped, shmem_team_n_pes(SHMEM_TEAM_SHARED));
    if (const char *np = getenv("SHMEMQ_NODE_PES")) { // this binary's own 1, or a run's 2
        EXPECT_LE(shmem_team_n_pes(SHMEM_TEAM_SHARED), atoi(np)) << "SHMEMQ_NODE_PES took no effect";
    }
    shmem_barrier_all();
    g_words[0] = 0;
    shmem_free(h);
    shmem_barrier_all();
}

// 9. Queue PUT and GET bursts to a target spinning on its own memory.
TEST(OneSided, QueuePutsToSpinningTarget)
{
    REQUIRE_PES(2);
    const int K = 1000;
    long *vals = static_cast<long *>(shmem_calloc(K, sizeof(long)));
    long *flag = static_cast<long *>(shmem_calloc(1, sizeof(long)));
    char *bytes = static_cast<char *>(shmem_calloc(K, 3));
    shmem_barrier_all();
    if (is_origin()) {
        int t = partner();
        shmem_queue_t q;
        shmem_queue_config_t c = comm_queue_cfg(SHMEM_OP_ANY);
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        for (int i = 0; i < K; i++) {
            long v = 7 * i + 1;
            ASSERT_EQ(shmem_long_queue_comm_push(q, &vals[i], &v, 1, t, SHMEM_OP_PUT), 0);
            char b[3] = {(char)i, (char)(i >> 3), 5};
            ASSERT_EQ(shmem_queue_comm_pushmem(q, &bytes[3 * i], b, 3, t, SHMEM_OP_PUT), 0);
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        std::vector<long> back(K, 0);
        for (int i = 0; i < K; i++)
            ASSERT_EQ(shmem_long_queue_comm_push(q, &back[i], &vals[i], 1, t, SHMEM_OP_GET), 0);
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        for (int i = 0; i < K; i++)
            ASSERT_EQ(back[i], 7 * i + 1) << i;
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        shmem_long_atomic_set(flag, 1, t);
        shmem_quiet();
    } else if (is_target()) {
        ASSERT_TRUE(spin_until<long>(flag, 1));
        for (int i = 0; i < K; i++) {
            ASSERT_EQ(vals[i], 7 * i + 1) << i;
            ASSERT_EQ(bytes[3 * i], (char)i);
            ASSERT_EQ(bytes[3 * i + 1], (char)(i >> 3));
            ASSERT_EQ(bytes[3 * i + 2], 5);
        }
    }
    shmem_barrier_all();
    shmem_free(vals);
    shmem_free(flag);
    shmem_free(bytes);
}
