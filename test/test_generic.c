/* test_generic.c: the C11 generic selections (RMA and AMO), compiled as C (gnu11).
 * Each function is collective, checks values on every PE and returns its error count
 * to the GoogleTest driver in test_amo.cc. */
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>

/* Open MPI 4.x crashes in 64-bit MPI_Compare_and_swap (see test_amo.cc). */
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
#define CAS64_OK 0
#else
#define CAS64_OK 1
#endif

#ifndef SHMEMQ_HAVE_GENERIC
#error "C11 generic selections are not enabled for this C file"
#endif

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "[PE %d] %s:%d: check failed: %s\n", shmem_my_pe(), __FILE__, \
                    __LINE__, #cond);                                                     \
            errors++;                                                                     \
        }                                                                                 \
    } while (0)

static long g_long[4];
static double g_double[4];
static unsigned int g_uint;
static int g_int;

int generic_rma_errors(void)
{
    int errors = 0;
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    int *heap = shmem_malloc(8 * sizeof(int));
    int src[8];
    for (int i = 0; i < 8; i++)
        src[i] = me * 100 + i, heap[i] = -1;
    for (int i = 0; i < 4; i++)
        g_long[i] = -1, g_double[i] = -1;
    shmem_barrier_all();

    shmem_put(heap, src, 4, right);                      /* int, no ctx */
    shmem_put(SHMEM_CTX_DEFAULT, heap + 4, src + 4, 2, right); /* int, ctx */
    long lv = 1000 + me;
    shmem_p(&g_long[0], lv, right);                      /* long p */
    shmem_p(SHMEM_CTX_DEFAULT, &g_long[1], lv + 1, right);
    double dv[2] = {me + 0.5, me + 0.25};
    shmem_put_nbi(g_double, dv, 2, right);
    shmem_put_nbi(SHMEM_CTX_DEFAULT, g_double + 2, dv, 2, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < 6; i++)
        CHECK(heap[i] == left * 100 + i);
    CHECK(g_long[0] == 1000 + left && g_long[1] == 1001 + left);
    CHECK(g_double[0] == left + 0.5 && g_double[1] == left + 0.25);
    CHECK(g_double[2] == left + 0.5 && g_double[3] == left + 0.25);

    int got[6] = {0};
    shmem_get(got, heap, 3, right);
    shmem_get(SHMEM_CTX_DEFAULT, got + 3, heap + 3, 3, right);
    for (int i = 0; i < 6; i++)
        CHECK(got[i] == me * 100 + i);
    CHECK(shmem_g(&g_long[0], right) == 1000 + me);
    CHECK(shmem_g(SHMEM_CTX_DEFAULT, &g_long[1], right) == 1001 + me);
    const long *cl = &g_long[0];
    CHECK(shmem_g(cl, left) == 1000 + (left + n - 1) % n);
    double gd[4] = {0};
    shmem_get_nbi(gd, g_double, 2, right);
    shmem_get_nbi(SHMEM_CTX_DEFAULT, gd + 2, g_double + 2, 2, right);
    shmem_quiet();
    CHECK(gd[0] == me + 0.5 && gd[3] == me + 0.25);
    shmem_barrier_all();
    shmem_free(heap);
    return errors;
}

int generic_amo_errors(void)
{
    int errors = 0;
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *lc = shmem_malloc(sizeof(long));
    int *ic = shmem_malloc(sizeof(int));
    unsigned long long *bits = shmem_malloc(sizeof(unsigned long long));
    *lc = 0;
    *ic = 0;
    *bits = 0;
    g_uint = 0;
    g_double[0] = 0;
    shmem_barrier_all();

    /* every PE adds to PE 0, with and without a context */
    shmem_atomic_add(lc, 2L, 0);
    shmem_atomic_add(SHMEM_CTX_DEFAULT, lc, 3L, 0);
    shmem_atomic_inc(ic, 0);
    shmem_atomic_inc(SHMEM_CTX_DEFAULT, ic, 0);
    int f1 = shmem_atomic_fetch_inc(ic, 0);
    int f2 = shmem_atomic_fetch_inc(SHMEM_CTX_DEFAULT, ic, 0);
    CHECK(f1 >= 0 && f2 > f1 && f2 < 6 * n);
    long fa = shmem_atomic_fetch_add(lc, 10L, 0);
    long fb = shmem_atomic_fetch_add(SHMEM_CTX_DEFAULT, lc, 10L, 0);
    CHECK(fa >= 0 && fb > fa);
    long nb1 = -1, nb2 = -1;
    shmem_atomic_fetch_add_nbi(&nb1, lc, 100L, 0);
    shmem_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &nb2, lc, 100L, 0);
    int fi1 = -1, fi2 = -1;
    shmem_atomic_fetch_inc_nbi(&fi1, ic, 0);
    shmem_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &fi2, ic, 0);
    shmem_atomic_or(bits, 1ULL << me, 0);
    shmem_atomic_or(SHMEM_CTX_DEFAULT, bits, 1ULL << (me + 32), 0);
    unsigned int uo = shmem_atomic_fetch_or(&g_uint, 1u << me, 0);
    (void)uo;
    shmem_quiet();
    CHECK(nb1 >= 0 && nb2 > nb1);
    CHECK(fi1 >= 0 && fi2 > fi1);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(*lc == n * (2 + 3 + 20 + 200));
        CHECK(*ic == 6 * n);
        unsigned long long want = 0;
        for (int p = 0; p < n; p++)
            want |= (1ULL << p) | (1ULL << (p + 32));
        CHECK(*bits == want);
        CHECK(g_uint == (n >= 32 ? ~0u : (1u << n) - 1));
    }
    shmem_barrier_all();

    /* fetch / set / swap / compare_swap on a double and a long at the right neighbour */
    int right = (me + 1) % n;
    shmem_atomic_set(&g_double[0], 1.5 + me, right);
    shmem_atomic_set(SHMEM_CTX_DEFAULT, lc, (long)me, right);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    CHECK(g_double[0] == 1.5 + left && *lc == left);
    CHECK(shmem_atomic_fetch(&g_double[0], right) == 1.5 + me);
    const long *clc = lc;
    CHECK(shmem_atomic_fetch(SHMEM_CTX_DEFAULT, clc, right) == me);
    double dnb = 0;
    shmem_atomic_fetch_nbi(&dnb, &g_double[0], right);
    long lnb = -1;
    shmem_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, &lnb, lc, right);
    shmem_quiet();
    CHECK(dnb == 1.5 + me && lnb == me);
    shmem_barrier_all();
    CHECK(shmem_atomic_swap(&g_double[0], 7.0, right) == 1.5 + me);
    CHECK(shmem_atomic_swap(SHMEM_CTX_DEFAULT, lc, 70L, right) == me);
    long cs1 = -1, cs2 = -1, sw1 = -1, sw2 = -1;
    if (CAS64_OK) {
        CHECK(shmem_atomic_compare_swap(lc, 70L, 71L, right) == 70);
        CHECK(shmem_atomic_compare_swap(SHMEM_CTX_DEFAULT, lc, 0L, 99L, right) == 71);
        shmem_atomic_compare_swap_nbi(&cs1, lc, 71L, 72L, right);
        shmem_quiet();
        shmem_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, &cs2, lc, 72L, 73L, right);
        shmem_quiet();
    } else {
        CHECK(shmem_atomic_swap(lc, 71L, right) == 70);
        cs1 = 71, cs2 = 72;
        CHECK(shmem_atomic_swap(lc, 73L, right) == 71);
    }
    /* compare_swap on int, with and without a context */
    g_int = 0;
    shmem_barrier_all();
    CHECK(shmem_atomic_compare_swap(&g_int, 0, me + 1, right) == 0);
    CHECK(shmem_atomic_compare_swap(SHMEM_CTX_DEFAULT, &g_int, me + 1, me + 2, right) == me + 1);
    int ci1 = -1, ci2 = -1;
    shmem_atomic_compare_swap_nbi(&ci1, &g_int, me + 2, me + 3, right);
    shmem_quiet();
    shmem_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, &ci2, &g_int, 0, 99, right);
    shmem_quiet();
    CHECK(ci1 == me + 2 && ci2 == me + 3);
    shmem_atomic_swap_nbi(&sw1, lc, 80L, right);
    shmem_quiet();
    shmem_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &sw2, lc, 81L, right);
    shmem_quiet();
    CHECK(cs1 == 71 && cs2 == 72 && sw1 == 73 && sw2 == 80);
    shmem_barrier_all();
    CHECK(*lc == 81 && g_double[0] == 7.0);

    /* bitwise forms on unsigned long long at the right neighbour */
    *bits = 0xF0F0;
    shmem_barrier_all();
    CHECK(shmem_atomic_fetch_and(bits, 0xFF00ULL, right) == 0xF0F0);
    CHECK(shmem_atomic_fetch_xor(SHMEM_CTX_DEFAULT, bits, 0x0F00ULL, right) == 0xF000);
    CHECK(shmem_atomic_fetch_or(bits, 0x1ULL, right) == 0xFF00);
    unsigned long long b1 = 0, b2 = 0, b3 = 0, b4 = 0;
    shmem_atomic_fetch_and_nbi(&b1, bits, 0xFFF0ULL, right);
    shmem_quiet();
    shmem_atomic_fetch_or_nbi(SHMEM_CTX_DEFAULT, &b2, bits, 0x3ULL, right);
    shmem_quiet();
    shmem_atomic_fetch_xor_nbi(&b3, bits, 0x1ULL, right);
    shmem_quiet();
    shmem_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &b4, bits, ~0ULL, right);
    shmem_quiet();
    CHECK(b1 == 0xFF01 && b2 == 0xFF00 && b3 == 0xFF03 && b4 == 0xFF02);
    shmem_atomic_and(bits, 0xF0FFULL, right);
    shmem_atomic_xor(SHMEM_CTX_DEFAULT, bits, 0x0002ULL, right);
    shmem_atomic_or(bits, 0x0400ULL, right);
    shmem_atomic_and(SHMEM_CTX_DEFAULT, bits, ~0x8000ULL, right);
    shmem_atomic_xor(bits, 0x1ULL, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(*bits == 0x7401);

    /* int32_t and int64_t are bitwise AMO types too (they alias int and long) */
    int32_t *s32 = shmem_malloc(sizeof(int32_t));
    int64_t *s64 = shmem_malloc(sizeof(int64_t));
    *s32 = 0x0F;
    *s64 = 0x0F;
    shmem_barrier_all();
    CHECK(shmem_atomic_fetch_or(s32, (int32_t)0x30, right) == 0x0F);
    shmem_atomic_xor(s64, (int64_t)0x3, right);
    shmem_atomic_and(SHMEM_CTX_DEFAULT, s32, (int32_t)0x3C, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(*s32 == 0x3C && *s64 == 0x0C);
    shmem_barrier_all();
    shmem_free(s64);
    shmem_free(s32);

    /* the deprecated 1.3 generic names, on a 1.3 type and on a newer one */
    size_t *sz = shmem_malloc(sizeof(size_t));
    *sz = 0;
    shmem_barrier_all();
    shmem_add(sz, (size_t)2, 0);
    shmem_barrier_all();
    CHECK(shmem_finc(sz, 0) >= (size_t)2 * n);
    shmem_barrier_all();
    shmem_free(sz);
    long long *ll = shmem_malloc(sizeof(long long));
    double *dd = shmem_malloc(sizeof(double));
    *ll = 0;
    *dd = 0;
    shmem_barrier_all();
    shmem_add(ll, 2LL, 0);
    shmem_inc(ll, 0);
    CHECK(shmem_fadd(ll, 0LL, 0) >= 3);
    (void)shmem_finc(ll, 0);
    shmem_barrier_all();
    CHECK(shmem_fetch(ll, 0) == 4LL * n);
    shmem_barrier_all();
    if (me == 0) {
        long long old = right == 0 ? 4LL * n : 0;
        if (CAS64_OK) /* 64-bit compare_swap crashes Open MPI 4 (docs/amo.md) */
            CHECK(shmem_cswap(ll, old, -1LL, right) == old);
        else
            CHECK(shmem_swap(ll, -1LL, right) == old);
        shmem_set(dd, 2.5, right);
        CHECK(shmem_swap(dd, 1.5, right) == 2.5);
    }
    shmem_barrier_all();
    if (me == right) {
        CHECK(*dd == 1.5);
        CHECK(*ll == -1);
    }
    shmem_barrier_all();
    shmem_free(dd);
    shmem_free(ll);

    shmem_barrier_all();
    shmem_free(bits);
    shmem_free(ic);
    shmem_free(lc);
    return errors;
}
