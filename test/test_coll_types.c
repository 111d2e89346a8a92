/* test_coll_types.c: every team reduction routine (every type of every family, every
 * op) and every typed scan on one team, with exact expected values; in C so that the
 * families' X-macros of shmem.h name every routine. Small values keep every product
 * inside signed char. Returns the number of wrong results (and calls that failed) on
 * this PE; prints the first few. */
#include <shmem.h>
#include <complex.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

int coll_all_types_run(shmem_team_t team, void *scratch, int in_place);

#define NEL 2 /* elements per call */

static int report(int bad, const char *routine, int k)
{
    if (bad) {
        static int shown;
        if (shown++ < 8)
            fprintf(stderr, "PE %d: %s element %d wrong\n", shmem_my_pe(), routine, k);
    }
    return bad;
}

/* element k on team PE i: i + 1 + k; scratch: symmetric, at least 2 * NEL * 16 bytes */
#define CHECK_ARITH(T, N, OP, EXPR)                                                          \
    do {                                                                                     \
        T *s = (T *)scratch, *d = in_place ? s : (T *)scratch + NEL;                         \
        for (int k = 0; k < NEL; k++) {                                                      \
            s[k] = (T)(me + 1 + k);                                                          \
            if (!in_place)                                                                   \
                d[k] = (T)0;                                                                 \
        }                                                                                    \
        if (shmem_##N##_##OP##_reduce(team, d, s, NEL) != 0) {                               \
            bad += report(1, "shmem_" #N "_" #OP "_reduce", -1);                             \
            break;                                                                           \
        }                                                                                    \
        for (int k = 0; k < NEL; k++) {                                                      \
            long long e = EXPR;                                                              \
            bad += report(d[k] != (T)e, "shmem_" #N "_" #OP "_reduce", k);                   \
        }                                                                                    \
    } while (0)

static long long prod_of(int tn, int k)
{
    long long p = 1;
    for (int i = 0; i < tn; i++)
        p *= i + 1 + k;
    return p;
}

int coll_all_types_run(shmem_team_t team, void *scratch, int in_place)
{
    int bad = 0, me = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
#define ARITH(T, N)                                                                          \
    CHECK_ARITH(T, N, sum, (long long)tn * (tn + 1) / 2 + (long long)tn * k);                \
    CHECK_ARITH(T, N, prod, prod_of(tn, k));
#define MINMAX(T, N)                                                                         \
    CHECK_ARITH(T, N, max, tn + k);                                                          \
    CHECK_ARITH(T, N, min, 1 + k);
    SHMEMQ_REDUCE_ARITH_TYPES(ARITH)
    SHMEMQ_REDUCE_MINMAX_TYPES(MINMAX)
#undef ARITH
#undef MINMAX
    /* bitwise: bit me of element 0, a constant pattern in element 1 */
#define BITS(T, N)                                                                           \
    do {                                                                                     \
        T *s = (T *)scratch, *d = in_place ? s : (T *)scratch + NEL;                         \
        unsigned long long all = (1ull << tn) - 1, pat = 0x5A;                               \
        const char *ops[3] = {"and", "or", "xor"};                                           \
        for (int o = 0; o < 3; o++) {                                                        \
            s[0] = (T)(1ull << me);                                                          \
            s[1] = (T)pat;                                                                   \
            int rc = o == 0   ? shmem_##N##_and_reduce(team, d, s, NEL)                      \
                     : o == 1 ? shmem_##N##_or_reduce(team, d, s, NEL)                       \
                              : shmem_##N##_xor_reduce(team, d, s, NEL);                     \
            if (rc != 0) {                                                                   \
                bad += report(1, "shmem_" #N "_bitwise_reduce", o);                          \
                continue;                                                                    \
            }                                                                                \
            unsigned long long e0 = o == 0 ? (tn == 1 ? 1ull : 0ull) : all;                  \
            unsigned long long e1 = o == 2 ? (tn % 2 ? pat : 0ull) : pat;                    \
            bad += report(d[0] != (T)e0, ops[o], 0);                                         \
            bad += report(d[1] != (T)e1, ops[o], 1);                                         \
        }                                                                                    \
    } while (0);
    SHMEMQ_REDUCE_BITWISE_TYPES(BITS)
#undef BITS
    /* scans: prefix sums in team order (exclusive: zeros on team PE 0) */
#define SCANS(T, N)                                                                          \
    do {                                                                                     \
        T *s = (T *)scratch, *d = in_place ? s : (T *)scratch + NEL;                         \
        for (int x = 0; x < 2; x++) {                                                        \
            for (int k = 0; k < NEL; k++)                                                    \
                s[k] = (T)(me + 1 + k);                                                      \
            int rc = x ? shmem_##N##_sum_exscan(team, d, s, NEL)                             \
                       : shmem_##N##_sum_inscan(team, d, s, NEL);                            \
            if (rc != 0) {                                                                   \
                bad += report(1, "shmem_" #N "_sum_scan", x);                                \
                continue;                                                                    \
            }                                                                                \
            int upto = x ? me : me + 1; /* PEs summed */                                     \
            for (int k = 0; k < NEL; k++)                                                    \
                bad += report(d[k] != (T)((long long)upto * (upto + 1) / 2 +                 \
                                          (long long)upto * k),                              \
                              "shmem_" #N "_sum_scan", k);                                   \
        }                                                                                    \
    } while (0);
    SHMEMQ_REDUCE_ARITH_TYPES(SCANS)
#undef SCANS
    return bad;
}
