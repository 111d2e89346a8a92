// test_offnode_queue_rma.cc: PEs of other nodes by default (issue 21;
// test_offnode_common.h): queued puts and gets to a spinning PE that is not its node's
// leader, queued gets to many PEs of other nodes in one epoch, and typed put and get
// bursts with 4- and 8-byte displacements on the wire, and queued puts and gets to a
// target that computes without calling the library.
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "test_offnode_common.h"

extern "C" int shmemi_burst_narrow_test_off;
extern "C" void shmemi_am_burst_stats(uint64_t out[6]);

namespace {

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

// Typed puts and gets of 1, 4, 8 and 16-byte elements from every PE to every other, once
// with the displacements narrowed to 4 bytes on the wire (AM_BTPUTP, AM_BTGETP: what a
// heap under 4 GiB takes) and once kept 8 bytes wide (what a larger one needs), every
// value checked by its origin (gets) and its target (puts). Where the AM transport carries
// bursts to PEs of other nodes, the burst counts say each form was the one that left.
template <typename T> T typed_value(int pe, int round, int i, int who)
{
    const long long x = (long long)pe * 7919 + (long long)round * 104729 + (long long)i * 31 + who + 1;
    return (T)(sizeof(T) == 1 ? x % 127 : x); // exact in every T, long double included
}

template <typename T>
void typed_round(shmem_queue_t q, int round, int (*push)(shmem_queue_t, T *, const T *, size_t, int,
                                                        shmem_op_type_t))
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), N = 700;
    T *in = (T *)shmem_calloc((size_t)n * N, sizeof(T)); // [origin][i]: what origins put here
    T *src = (T *)shmem_malloc((size_t)N * sizeof(T));   // what origins get from here
    ASSERT_TRUE(in && src);
    for (int i = 0; i < N; i++)
        src[i] = typed_value<T>(me, round, i, 0);
    std::vector<T> got((size_t)n * N);
    shmem_barrier_all();
    for (int k = 1; k < n; k++) {
        const int t = (me + k) % n;
        for (int i = 0; i < N; i++) {
            const T v = typed_value<T>(me, round, i, 1);
            ASSERT_EQ(push(q, &in[(size_t)me * N + i], &v, 1, t, SHMEM_OP_PUT), 0);
            ASSERT_EQ(push(q, &got[(size_t)t * N + (size_t)(N - 1 - i)], &src[i], 1, t, SHMEM_OP_GET), 0);
        }
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    shmem_barrier_all();
    for (int k = 1; k < n; k++) {
        const int t = (me + k) % n, o = (me + n - k) % n;
        for (int i = 0; i < N; i++) {
            const T g = typed_value<T>(t, round, N - 1 - i, 0), p = typed_value<T>(o, round, i, 1);
            ASSERT_TRUE(got[(size_t)t * N + i] == g)
                << "PE " << me << " get " << i << " from " << t << " (" << sizeof(T) << " bytes)";
            ASSERT_TRUE(in[(size_t)o * N + i] == p)
                << "PE " << me << " put " << i << " from " << o << " (" << sizeof(T) << " bytes)";
        }
    }
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(in);
}

TEST(OffNode, QueueTypedBurstsNarrowAndWide)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const bool offnode = shmem_team_n_pes(SHMEM_TEAM_SHARED) < n;
    shmem_queue_t q;
    shmem_queue_config_t c = comm_queue_cfg();
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    for (int wide = 0; wide < 2; wide++) {
        __atomic_store_n(&shmemi_burst_narrow_test_off, wide, __ATOMIC_RELAXED); // agent reads it
        uint64_t before[6], after[6];
        shmemi_am_burst_stats(before);
        typed_round<char>(q, 4 * wide, shmem_char_queue_comm_push);
        typed_round<int32_t>(q, 4 * wide + 1, shmem_int32_queue_comm_push);
        typed_round<int64_t>(q, 4 * wide + 2, shmem_int64_queue_comm_push);
        typed_round<long double>(q, 4 * wide + 3, shmem_longdouble_queue_comm_push);
        shmemi_am_burst_stats(after);
        if (offnode && shmemi_am_on()) { // [2], [3]: typed puts wide, narrow; [4], [5]: gets
            EXPECT_GT(after[wide ? 2 : 3] - before[wide ? 2 : 3], 0u) << "PE " << me;
            EXPECT_GT(after[wide ? 4 : 5] - before[wide ? 4 : 5], 0u) << "PE " << me;
            EXPECT_EQ(after[wide ? 3 : 2] - before[wide ? 3 : 2], 0u) << "PE " << me;
            EXPECT_EQ(after[wide ? 5 : 4] - before[wide ? 5 : 4], 0u) << "PE " << me;
        }
    }
    __atomic_store_n(&shmemi_burst_narrow_test_off, 0, __ATOMIC_RELAXED);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
}

// Queued puts and gets to a target that computes and never calls the library: every other
// PE queues typed puts, byte puts and typed gets to the last PE, flushes and raises its
// flag; the target works in slices of 50 ms and between them only reads its flags with
// plain loads (its node's agent or progress thread must serve while its own core is
// busy). Off the node through the AM transport, between node peers through shared memory.
TEST(OffNode, QueuePutsAndGetsToComputingTarget)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), t = n - 1;
    const int N = 600, K = 120;
    const bool servable = spin_servable();
    long *tl = (long *)shmem_calloc((size_t)n * N, sizeof(long));
    unsigned char *tb = (unsigned char *)shmem_calloc((size_t)n * K * 8, 1);
    long *src = (long *)shmem_malloc((size_t)N * sizeof(long));
    long *flags = (long *)shmem_calloc((size_t)n, sizeof(long));
    ASSERT_TRUE(tl && tb && src && flags);
    for (int i = 0; i < N; i++)
        src[i] = me * 7919L + 3L * i + 5;
    shmem_barrier_all();
    if (me != t) {
        shmem_queue_t q;
        shmem_queue_config_t c = comm_queue_cfg();
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        std::vector<long> got((size_t)N, -1);
        for (int i = 0; i < N; i++) {
            const long v = me * 100003L + 11L * i;
            ASSERT_EQ(shmem_long_queue_comm_push(q, &tl[(size_t)me * N + i], &v, 1, t, SHMEM_OP_PUT), 0);
            ASSERT_EQ(shmem_long_queue_comm_push(q, &got[(size_t)i], &src[(i * 7) % N], 1, t,
                                                 SHMEM_OP_GET), 0);
        }
        for (int k = 0; k < K; k++) {
            unsigned char v[5];
            for (int j = 0; j < 5; j++)
                v[j] = (unsigned char)(me * 17 + k * 5 + j + 1);
            ASSERT_EQ(shmem_queue_comm_pushmem(q, &tb[((size_t)me * K + k) * 8 + 1], v, 5, t,
                                               SHMEM_OP_PUT), 0);
        }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
        shmem_long_atomic_set(&flags[me], 1, t);
        shmem_quiet();
        for (int i = 0; i < N; i++)
            ASSERT_EQ(got[(size_t)i], t * 7919L + 3L * ((i * 7) % N) + 5) << "get " << i;
    } else {
        const double t0 = test_now();
        int seen = 0;
        if (!servable) // nobody serves a computing PE: wait in the library instead
            for (int o = 0; o < n - 1; o++)
                shmem_long_wait_until(&flags[o], SHMEM_CMP_EQ, 1);
        while (seen < n - 1) {
            compute_for(0.05);
            seen = 0;
            for (int o = 0; o < n - 1; o++)
                seen += *(volatile long *)&flags[o] == 1;
            ASSERT_LT(test_now() - t0, kDeadline) << seen << " of " << n - 1 << " flags came";
        }
        for (int o = 0; o < n - 1; o++) {
            for (int i = 0; i < N; i++)
                ASSERT_EQ(tl[(size_t)o * N + i], o * 100003L + 11L * i) << "PE " << o << " put " << i;
            for (int k = 0; k < K; k++)
                for (int j = 0; j < 8; j++) {
                    const unsigned char want = j >= 1 && j < 6 ? (unsigned char)(o * 17 + k * 5 + j) : 0;
                    ASSERT_EQ(tb[((size_t)o * K + k) * 8 + j], want) << "PE " << o << " byte " << k << "." << j;
                }
        }
    }
    shmem_barrier_all();
    shmem_free(flags);
    shmem_free(src);
    shmem_free(tb);
    shmem_free(tl);
}

} // namespace
