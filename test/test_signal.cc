// test_signal.cc: put-with-signal ordering (the receiver waits on the signal, then the
// data must be complete), every form (typed, sized, mem, ctx, nbi), signal add/set
// from all PEs, signal_fetch.
#include <gtest/gtest.h>
#include <shmem.h>
#include <cstdint>
#include <vector>
#include "test_util.h"

static uint64_t static_sig;
static int static_data[64];

TEST(Signal, OrderingLargePutThenSignal)
{
    const size_t n = 1 << 16; // 512 KiB of longs
    long *buf = (long *)shmem_malloc(n * sizeof(long));
    uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    ASSERT_NE(buf, nullptr);
    ASSERT_NE(sig, nullptr);
    std::vector<long> src(n);
    int me = shmem_my_pe(), left = left_neighbor();
    shmem_barrier_all();
    for (uint64_t round = 1; round <= 4; round++) {
        for (size_t i = 0; i < n; i++)
            src[i] = (long)(me * 7 + round * 1000003 + i);
        if (round % 2)
            shmem_long_put_signal(buf, src.data(), n, sig, round, SHMEM_SIGNAL_SET, right_neighbor());
        else
            shmem_long_put_signal_nbi(buf, src.data(), n, sig, round, SHMEM_SIGNAL_SET,
                                      right_neighbor());
        EXPECT_EQ(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, round), round);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += buf[i] != (long)(left * 7 + round * 1000003 + i);
        EXPECT_EQ(bad, 0u) << "round " << round;
        shmem_quiet(); // src is reused next round (nbi)
        shmem_barrier_all();
    }
    EXPECT_EQ(shmem_signal_fetch(sig), 4u);
    shmem_free(sig);
    shmem_free(buf);
}

TEST(Signal, EveryFormDeliversDataBeforeSignal)
{
    int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    char *bytes = (char *)shmem_calloc(1024, 1);
    uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    ASSERT_NE(bytes, nullptr);
    shmem_ctx_t ctx;
    ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
    std::vector<char> src(1024);
    for (size_t i = 0; i < src.size(); i++)
        src[i] = (char)(me + i);
    static_sig = 0;
    shmem_barrier_all();
    // each step adds 1 to the signal; the receiver checks the data after each
    uint64_t expect = 0;
    auto check = [&](size_t nbytes) {
        expect++;
        shmem_signal_wait_until(sig, SHMEM_CMP_GE, expect);
        for (size_t i = 0; i < nbytes; i++)
            ASSERT_EQ(bytes[i], (char)(left + i)) << "byte " << i << " step " << expect;
        shmem_barrier_all();
        memset(bytes, 0, 1024);
        shmem_barrier_all();
    };
    const int A = SHMEM_SIGNAL_ADD;
    shmem_putmem_signal(bytes, src.data(), 1000, sig, 1, A, right); check(1000);
    shmem_putmem_signal_nbi(bytes, src.data(), 999, sig, 1, A, right); shmem_quiet(); check(999);
    shmem_ctx_putmem_signal(ctx, bytes, src.data(), 1024, sig, 1, A, right); check(1024);
    shmem_ctx_putmem_signal_nbi(ctx, bytes, src.data(), 17, sig, 1, A, right);
    shmem_ctx_quiet(ctx); check(17);
    shmem_put8_signal(bytes, src.data(), 33, sig, 1, A, right); check(33);
    shmem_put16_signal(bytes, src.data(), 33, sig, 1, A, right); check(66);
    shmem_put32_signal_nbi(bytes, src.data(), 33, sig, 1, A, right); shmem_quiet(); check(132);
    shmem_put64_signal(bytes, src.data(), 33, sig, 1, A, right); check(264);
    shmem_ctx_put128_signal(ctx, bytes, src.data(), 33, sig, 1, A, right); check(528);
    shmem_ctx_put128_signal_nbi(ctx, bytes, src.data(), 64, sig, 1, A, right);
    shmem_ctx_quiet(ctx); check(1024);
    shmem_char_put_signal(bytes, src.data(), 100, sig, 1, A, right); check(100);
    shmem_ctx_int_put_signal(ctx, (int *)bytes, (const int *)src.data(), 50, sig, 1, A, right);
    check(200);
    shmem_double_put_signal_nbi(reinterpret_cast<double *>(bytes),
                                reinterpret_cast<const double *>(src.data()), 16, sig, 1, A, right);
    shmem_quiet(); check(128);
    // zero elements: only the signal
    shmem_long_put_signal((long *)bytes, (const long *)src.data(), 0, sig, 1, A, right); check(0);
    // a static data target and a static signal
    std::vector<int> isrc(64);
    for (int i = 0; i < 64; i++)
        isrc[(size_t)i] = me * 100 + i;
    shmem_int_put_signal(static_data, isrc.data(), 64, &static_sig, 5, SHMEM_SIGNAL_SET, right);
    EXPECT_EQ(shmem_signal_wait_until(&static_sig, SHMEM_CMP_EQ, 5), 5u);
    for (int i = 0; i < 64; i++)
        EXPECT_EQ(static_data[i], left * 100 + i);
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
    shmem_free(sig);
    shmem_free(bytes);
}

TEST(Signal, AddAndSetFromAllPes)
{
    int npes = shmem_n_pes(), me = shmem_my_pe();
    uint64_t *sig = (uint64_t *)shmem_calloc(2, sizeof(uint64_t));
    long *slots = (long *)shmem_calloc((size_t)npes, sizeof(long));
    ASSERT_NE(sig, nullptr);
    shmem_barrier_all();
    shmem_ctx_t ctx;
    ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
    for (int pe = 0; pe < npes; pe++) {
        for (int k = 0; k < 5; k++) {
            if (k % 2)
                shmem_signal_add(&sig[0], (uint64_t)me + 1, pe);
            else
                shmem_ctx_signal_add(ctx, &sig[0], (uint64_t)me + 1, pe);
        }
        long v = 10 + me;
        shmem_long_put_signal(&slots[me], &v, 1, &sig[1], 1, SHMEM_SIGNAL_ADD, pe);
    }
    uint64_t total = 5 * (uint64_t)npes * (npes + 1) / 2;
    EXPECT_EQ(shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, total), total);
    EXPECT_EQ(shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, (uint64_t)npes), (uint64_t)npes);
    for (int pe = 0; pe < npes; pe++)
        EXPECT_EQ(slots[pe], 10 + pe);
    EXPECT_EQ(shmem_signal_fetch(&sig[0]), total);
    shmem_barrier_all();
    shmem_signal_set(&sig[0], 42, right_neighbor());
    shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 42);
    shmem_barrier_all();
    shmem_ctx_signal_set(ctx, &sig[0], 43, left_neighbor());
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    EXPECT_EQ(shmem_signal_fetch(&sig[0]), 43u);
    shmem_ctx_destroy(ctx);
    shmem_free(slots);
    shmem_free(sig);
}

TEST(Signal, InvalidArguments)
{
    uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    long *dst = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_NE(sig, nullptr);
    long v = 5;
    shmem_barrier_all();
    shmem_long_put_signal(dst, &v, 1, sig, 1, 7 /* bad sig_op */, shmem_my_pe());
    shmem_long_put_signal(dst, &v, 1, sig, 1, SHMEM_SIGNAL_SET, shmem_n_pes()); // bad PE
    uint64_t local_sig = 0;
    shmem_long_put_signal(dst, &v, 1, &local_sig, 1, SHMEM_SIGNAL_SET, shmem_my_pe());
    shmem_signal_add((uint64_t *)((char *)sig + 4), 1, shmem_my_pe()); // misaligned
    shmem_quiet();
    EXPECT_EQ(*dst, 0);
    EXPECT_EQ(*sig, 0u);
    EXPECT_EQ(local_sig, 0u);
    EXPECT_EQ(shmem_signal_fetch(nullptr), 0u);
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(sig);
}
