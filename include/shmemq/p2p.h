/* shmemq/p2p.h: point-to-point synchronization (OpenSHMEM 1.5 section 9.10): wait_until
 * and test with their _all/_any/_some and _vector forms, the deprecated wait routines,
 * the 1.6 shmem_team_ptr and shmem_pe_quiet, and the C11 generic selections.
 * Included by shmem.h; do not include directly. */
#ifndef SHMEMQ_P2P_H
#define SHMEMQ_P2P_H

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEMQ_DECL_P2P(T, N)                                                                \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                              \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,     \
                                    T cmp_value);                                            \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,   \
                                      T cmp_value);                                          \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,             \
                                       const int *status, int cmp, T cmp_value);             \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,       \
                                           int cmp, T *cmp_values);                          \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,     \
                                             int cmp, T *cmp_values);                        \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,      \
                                              const int *status, int cmp, T *cmp_values);    \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                     \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,            \
                             T cmp_value);                                                   \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                T cmp_value);                                                \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,                   \
                                 const int *status, int cmp, T cmp_value);                   \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,     \
                                    T *cmp_values);                                          \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                       T *cmp_values);                                       \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                        const int *status, int cmp, T *cmp_values);
SHMEMQ_P2P_TYPES(SHMEMQ_DECL_P2P)
#undef SHMEMQ_DECL_P2P

/* Deprecated (1.4): wait while *ivar == cmp_value. */
void shmem_short_wait(volatile short *ivar, short cmp_value);
void shmem_int_wait(volatile int *ivar, int cmp_value);
void shmem_long_wait(volatile long *ivar, long cmp_value);
void shmem_longlong_wait(volatile long long *ivar, long long cmp_value);
void shmem_wait(volatile long *ivar, long cmp_value);
/* The pre-1.4 untyped long form. Under C11 the generic macro below takes the name
 * (it selects shmem_long_wait_until for long *); (shmem_wait_until)(...) still calls
 * this function. */
void shmem_wait_until(volatile long *ivar, int cmp, long cmp_value);

/* 1.6: address of dest on team PE pe when it is reachable by loads/stores, else NULL. */
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
/* 1.6: complete the puts, AMOs and signals issued to the listed PEs only. */
void shmem_pe_quiet(const int *target_pes, size_t npes);
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);

#ifdef __cplusplus
}
#endif

#ifdef SHMEMQ_HAVE_GENERIC
#define SHMEMQ_G_P2P(T, N, OP) , T *: shmem_##N##_##OP
#define SHMEMQ_G_WAIT_UNTIL(T, N) SHMEMQ_G_P2P(T, N, wait_until)
#define SHMEMQ_G_WAIT_UNTIL_ALL(T, N) SHMEMQ_G_P2P(T, N, wait_until_all)
#define SHMEMQ_G_WAIT_UNTIL_ANY(T, N) SHMEMQ_G_P2P(T, N, wait_until_any)
#define SHMEMQ_G_WAIT_UNTIL_SOME(T, N) SHMEMQ_G_P2P(T, N, wait_until_some)
#define SHMEMQ_G_WAIT_UNTIL_ALL_V(T, N) SHMEMQ_G_P2P(T, N, wait_until_all_vector)
#define SHMEMQ_G_WAIT_UNTIL_ANY_V(T, N) SHMEMQ_G_P2P(T, N, wait_until_any_vector)
#define SHMEMQ_G_WAIT_UNTIL_SOME_V(T, N) SHMEMQ_G_P2P(T, N, wait_until_some_vector)
#define SHMEMQ_G_TEST(T, N) SHMEMQ_G_P2P(T, N, test)
#define SHMEMQ_G_TEST_ALL(T, N) SHMEMQ_G_P2P(T, N, test_all)
#define SHMEMQ_G_TEST_ANY(T, N) SHMEMQ_G_P2P(T, N, test_any)
#define SHMEMQ_G_TEST_SOME(T, N) SHMEMQ_G_P2P(T, N, test_some)
#define SHMEMQ_G_TEST_ALL_V(T, N) SHMEMQ_G_P2P(T, N, test_all_vector)
#define SHMEMQ_G_TEST_ANY_V(T, N) SHMEMQ_G_P2P(T, N, test_any_vector)
#define SHMEMQ_G_TEST_SOME_V(T, N) SHMEMQ_G_P2P(T, N, test_some_vector)
#define SHMEMQ_G_P2P_SEL(ivars, G) _Generic((ivars)SHMEMQ_GENERIC_P2P_TYPES(G))

#define shmem_wait_until(ivar, cmp, v) SHMEMQ_G_P2P_SEL(ivar, SHMEMQ_G_WAIT_UNTIL)(ivar, cmp, v)
#define shmem_wait_until_all(ivars, n, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_WAIT_UNTIL_ALL)(ivars, n, st, cmp, v)
#define shmem_wait_until_any(ivars, n, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_WAIT_UNTIL_ANY)(ivars, n, st, cmp, v)
#define shmem_wait_until_some(ivars, n, idx, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_WAIT_UNTIL_SOME)(ivars, n, idx, st, cmp, v)
#define shmem_wait_until_all_vector(ivars, n, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_WAIT_UNTIL_ALL_V)(ivars, n, st, cmp, v)
#define shmem_wait_until_any_vector(ivars, n, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_WAIT_UNTIL_ANY_V)(ivars, n, st, cmp, v)
#define shmem_wait_until_some_vector(ivars, n, idx, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_WAIT_UNTIL_SOME_V)(ivars, n, idx, st, cmp, v)
#define shmem_test(ivar, cmp, v) SHMEMQ_G_P2P_SEL(ivar, SHMEMQ_G_TEST)(ivar, cmp, v)
#define shmem_test_all(ivars, n, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_TEST_ALL)(ivars, n, st, cmp, v)
#define shmem_test_any(ivars, n, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_TEST_ANY)(ivars, n, st, cmp, v)
#define shmem_test_some(ivars, n, idx, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_TEST_SOME)(ivars, n, idx, st, cmp, v)
#define shmem_test_all_vector(ivars, n, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_TEST_ALL_V)(ivars, n, st, cmp, v)
#define shmem_test_any_vector(ivars, n, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_TEST_ANY_V)(ivars, n, st, cmp, v)
#define shmem_test_some_vector(ivars, n, idx, st, cmp, v) \
    SHMEMQ_G_P2P_SEL(ivars, SHMEMQ_G_TEST_SOME_V)(ivars, n, idx, st, cmp, v)
#endif /* SHMEMQ_HAVE_GENERIC */

#endif /* SHMEMQ_P2P_H */
