/* p2p.c: point-to-point synchronization: wait_until / test and their _all, _any,
 * _some and _vector forms (OpenSHMEM 1.5 section 9.10), the deprecated wait routines.
 *
 * ivars are local symmetric memory that other PEs update with puts or AMOs. A wait
 * reads them with atomic acquire loads and, between scans, calls MPI_Win_sync (the
 * unified-model memory barrier) and shmemi_progress() (MPICH ch4:ucx applies remote
 * accumulates only while the target is inside MPI), yielding the core after a few
 * spins. A test does one MPI_Win_sync + progress and one scan, so a user loop around
 * it also keeps MPI moving.
 *
 * Test set (1.5): the elements i with status == NULL or status[i] == 0.
 *   _all : waits until every element of the test set satisfies; empty set: returns.
 *          test_all returns 1 when all satisfy (also for an empty set), else 0.
 *   _any : returns the index of one satisfying element; SIZE_MAX for an empty set
 *          (test_any also when none satisfies). Scans start at a rotating position so
 *          that repeated calls eventually return every satisfying index.
 *   _some: fills indices with every satisfying element seen in one scan and returns
 *          their number (>= 1 for the wait form); 0 for an empty set.
 */
#include "shmemi_p2p.h"

enum { P2P_ALL, P2P_ANY, P2P_SOME };

static _Thread_local size_t any_rotate; /* fairness of the _any forms */

static int p2p_check(const char *routine, const void *ivars, size_t nelems, int cmp, int mode,
                     const size_t *indices, const void *values, int vector, size_t esize)
{
    if (shmemi_check_init(routine))
        return -1;
    if (SHMEMI_UNLIKELY(cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_GE)) {
        shmemi_bad_arg(routine, "invalid comparison operator %d", cmp);
        return -1;
    }
    if (nelems == 0)
        return 0;
    if (SHMEMI_UNLIKELY(ivars == NULL)) {
        shmemi_bad_arg(routine, "NULL ivars with %zu elements", nelems);
        return -1;
    }
    /* the waits load with atomics, which need natural alignment (sizes are powers of 2) */
    if (SHMEMI_UNLIKELY((uintptr_t)ivars & (esize - 1))) {
        shmemi_bad_arg(routine, "ivars %p is not aligned to its %zu-byte type", ivars, esize);
        return -1;
    }
    /* The spec wants symmetric ivars (a peer's put is what ends the wait); a local
     * variable works here, so only SHMEM_DEBUG checks, where it costs a lookup. */
    if (SHMEMI_UNLIKELY(shmemi.debug) && !shmemi_is_symmetric(ivars, nelems * esize)) {
        shmemi_bad_arg(routine, "ivars [%p, +%zu bytes) is not symmetric", ivars,
                       nelems * esize);
        return -1;
    }
    if (SHMEMI_UNLIKELY(mode == P2P_SOME && indices == NULL)) {
        shmemi_bad_arg(routine, "NULL indices with %zu elements", nelems);
        return -1;
    }
    if (SHMEMI_UNLIKELY(vector && values == NULL)) {
        shmemi_bad_arg(routine, "NULL cmp_values with %zu elements", nelems);
        return -1;
    }
    return 0;
}

#define P2P_CMP(a, cmp, b)                 \
    ((cmp) == SHMEM_CMP_EQ   ? (a) == (b)  \
     : (cmp) == SHMEM_CMP_NE ? (a) != (b)  \
     : (cmp) == SHMEM_CMP_GT ? (a) > (b)   \
     : (cmp) == SHMEM_CMP_LE ? (a) <= (b)  \
     : (cmp) == SHMEM_CMP_LT ? (a) < (b)   \
                             : (a) >= (b))

/* Failure results per mode: nothing satisfied. */
static inline size_t p2p_fail(int mode)
{
    return mode == P2P_ANY ? SIZE_MAX : 0;
}

#define DEFINE_P2P_CORE(T, N)                                                                \
    /* One pass over the test set; *eligible receives its size (ALL may stop early). */     \
    static size_t scan_##N(T *ivars, size_t n, const int *status, int cmp, T value,          \
                           const T *values, int mode, size_t *indices, size_t *eligible)     \
    {                                                                                        \
        size_t count = 0, elig = 0;                                                          \
        size_t start = (mode == P2P_ANY && n > 1) ? any_rotate++ % n : 0;                    \
        for (size_t k = 0; k < n; k++) {                                                     \
            size_t i = start + k < n ? start + k : start + k - n;                            \
            if (status != NULL && status[i] != 0)                                            \
                continue;                                                                    \
            elig++;                                                                          \
            T v = __atomic_load_n(&ivars[i], __ATOMIC_ACQUIRE);                              \
            T c = values ? values[i] : value;                                                \
            int ok = P2P_CMP(v, cmp, c);                                                     \
            if (mode == P2P_ALL) {                                                           \
                if (!ok) {                                                                   \
                    *eligible = elig;                                                        \
                    return 0;                                                                \
                }                                                                            \
            } else if (ok) {                                                                 \
                if (mode == P2P_ANY) {                                                       \
                    *eligible = elig;                                                        \
                    return i;                                                                \
                }                                                                            \
                indices[count++] = i;                                                        \
            }                                                                                \
        }                                                                                    \
        *eligible = elig;                                                                    \
        return mode == P2P_ALL ? 1 : mode == P2P_ANY ? SIZE_MAX : count;                     \
    }                                                                                        \
    static size_t wait_##N(const char *routine, T *ivars, size_t n, const int *status,       \
                           int cmp, T value, const T *values, int vector, int mode,          \
                           size_t *indices)                                                  \
    {                                                                                        \
        if (p2p_check(routine, ivars, n, cmp, mode, indices, values, vector, sizeof(T)))     \
            return p2p_fail(mode);                                                           \
        MPI_Win w = n ? shmemi_sync_win(ivars, n * sizeof(T)) : shmemi.heap_win;             \
        for (unsigned spins = 0;;) {                                                         \
            size_t elig;                                                                     \
            size_t r = scan_##N(ivars, n, status, cmp, value, values, mode, indices, &elig); \
            if (mode == P2P_ALL ? r != 0                                                     \
                                : (elig == 0 || r != p2p_fail(mode)))                        \
                return r;                                                                    \
            shmemi_wait_poll(w, &spins);                                                     \
        }                                                                                    \
    }                                                                                        \
    static size_t test_##N(const char *routine, T *ivars, size_t n, const int *status,       \
                           int cmp, T value, const T *values, int vector, int mode,          \
                           size_t *indices)                                                  \
    {                                                                                        \
        if (p2p_check(routine, ivars, n, cmp, mode, indices, values, vector, sizeof(T)))     \
            return p2p_fail(mode);                                                           \
        MPI_Win_sync(n ? shmemi_sync_win(ivars, n * sizeof(T)) : shmemi.heap_win);           \
        shmemi_progress();                                                                   \
        size_t elig;                                                                         \
        return scan_##N(ivars, n, status, cmp, value, values, mode, indices, &elig);         \
    }

SHMEMQ_P2P_TYPES(DEFINE_P2P_CORE)

#define DEFINE_P2P_API(T, N)                                                                 \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                               \
    {                                                                                        \
        if (ivar == NULL) {                                                                  \
            shmemi_bad_arg("shmem_" #N "_wait_until", "NULL ivar");                          \
            return;                                                                          \
        }                                                                                    \
        (void)wait_##N("shmem_" #N "_wait_until", ivar, 1, NULL, cmp, cmp_value, NULL, 0,    \
                       P2P_ALL, NULL);                                                       \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_wait_until)                                                   \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,     \
                                    T cmp_value)                                             \
    {                                                                                        \
        (void)wait_##N("shmem_" #N "_wait_until_all", ivars, nelems, status, cmp, cmp_value, \
                       NULL, 0, P2P_ALL, NULL);                                              \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_wait_until_all)                                               \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,   \
                                      T cmp_value)                                           \
    {                                                                                        \
        return wait_##N("shmem_" #N "_wait_until_any", ivars, nelems, status, cmp,           \
                        cmp_value, NULL, 0, P2P_ANY, NULL);                                  \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_wait_until_any)                                               \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,             \
                                       const int *status, int cmp, T cmp_value)              \
    {                                                                                        \
        return wait_##N("shmem_" #N "_wait_until_some", ivars, nelems, status, cmp,          \
                        cmp_value, NULL, 0, P2P_SOME, indices);                              \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_wait_until_some)                                              \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,       \
                                           int cmp, T *cmp_values)                           \
    {                                                                                        \
        T zero;                                                                              \
        memset(&zero, 0, sizeof zero);                                                       \
        (void)wait_##N("shmem_" #N "_wait_until_all_vector", ivars, nelems, status, cmp,     \
                       zero, cmp_values, 1, P2P_ALL, NULL);                                  \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_wait_until_all_vector)                                        \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,     \
                                             int cmp, T *cmp_values)                         \
    {                                                                                        \
        T zero;                                                                              \
        memset(&zero, 0, sizeof zero);                                                       \
        return wait_##N("shmem_" #N "_wait_until_any_vector", ivars, nelems, status, cmp,    \
                        zero, cmp_values, 1, P2P_ANY, NULL);                                 \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_wait_until_any_vector)                                        \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,      \
                                              const int *status, int cmp, T *cmp_values)     \
    {                                                                                        \
        T zero;                                                                              \
        memset(&zero, 0, sizeof zero);                                                       \
        return wait_##N("shmem_" #N "_wait_until_some_vector", ivars, nelems, status, cmp,   \
                        zero, cmp_values, 1, P2P_SOME, indices);                             \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_wait_until_some_vector)                                       \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                      \
    {                                                                                        \
        if (ivar == NULL) {                                                                  \
            shmemi_bad_arg("shmem_" #N "_test", "NULL ivar");                                \
            return 0;                                                                        \
        }                                                                                    \
        return (int)test_##N("shmem_" #N "_test", ivar, 1, NULL, cmp, cmp_value, NULL, 0,    \
                             P2P_ALL, NULL);                                                 \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_test)                                                         \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,            \
                             T cmp_value)                                                    \
    {                                                                                        \
        return (int)test_##N("shmem_" #N "_test_all", ivars, nelems, status, cmp, cmp_value, \
                             NULL, 0, P2P_ALL, NULL);                                        \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_test_all)                                                     \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                T cmp_value)                                                 \
    {                                                                                        \
        return test_##N("shmem_" #N "_test_any", ivars, nelems, status, cmp, cmp_value,      \
                        NULL, 0, P2P_ANY, NULL);                                             \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_test_any)                                                     \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,                   \
                                 const int *status, int cmp, T cmp_value)                    \
    {                                                                                        \
        return test_##N("shmem_" #N "_test_some", ivars, nelems, status, cmp, cmp_value,     \
                        NULL, 0, P2P_SOME, indices);                                         \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_test_some)                                                    \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,     \
                                    T *cmp_values)                                           \
    {                                                                                        \
        T zero;                                                                              \
        memset(&zero, 0, sizeof zero);                                                       \
        return (int)test_##N("shmem_" #N "_test_all_vector", ivars, nelems, status, cmp,     \
                             zero, cmp_values, 1, P2P_ALL, NULL);                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_test_all_vector)                                              \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                       T *cmp_values)                                        \
    {                                                                                        \
        T zero;                                                                              \
        memset(&zero, 0, sizeof zero);                                                       \
        return test_##N("shmem_" #N "_test_any_vector", ivars, nelems, status, cmp, zero,    \
                        cmp_values, 1, P2P_ANY, NULL);                                       \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_test_any_vector)                                              \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                        const int *status, int cmp, T *cmp_values)           \
    {                                                                                        \
        T zero;                                                                              \
        memset(&zero, 0, sizeof zero);                                                       \
        return test_##N("shmem_" #N "_test_some_vector", ivars, nelems, status, cmp, zero,   \
                        cmp_values, 1, P2P_SOME, indices);                                   \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_test_some_vector)

SHMEMQ_P2P_TYPES(DEFINE_P2P_API)

/* Deprecated forms: wait while *ivar == cmp_value. The volatile qualifier of the old
 * signatures is dropped: the loads are atomic anyway. */
#define DEFINE_OLD_WAIT(T, N)                                                                \
    void shmem_##N##_wait(volatile T *ivar, T cmp_value)                                     \
    {                                                                                        \
        if (ivar == NULL) {                                                                  \
            shmemi_bad_arg("shmem_" #N "_wait", "NULL ivar");                                \
            return;                                                                          \
        }                                                                                    \
        (void)wait_##N("shmem_" #N "_wait", (T *)ivar, 1, NULL, SHMEM_CMP_NE, cmp_value,     \
                       NULL, 0, P2P_ALL, NULL);                                              \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_wait)
DEFINE_OLD_WAIT(short, short)
DEFINE_OLD_WAIT(int, int)
DEFINE_OLD_WAIT(long, long)
DEFINE_OLD_WAIT(long long, longlong)

void shmem_wait(volatile long *ivar, long cmp_value)
{
    if (ivar == NULL) {
        shmemi_bad_arg("shmem_wait", "NULL ivar");
        return;
    }
    (void)wait_long("shmem_wait", (long *)ivar, 1, NULL, SHMEM_CMP_NE, cmp_value, NULL, 0,
                    P2P_ALL, NULL);
}
SHMEMI_PROFILE(shmem_wait)

void shmem_wait_until(volatile long *ivar, int cmp, long cmp_value)
{
    if (ivar == NULL) {
        shmemi_bad_arg("shmem_wait_until", "NULL ivar");
        return;
    }
    (void)wait_long("shmem_wait_until", (long *)ivar, 1, NULL, cmp, cmp_value, NULL, 0, P2P_ALL,
                    NULL);
}
SHMEMI_PROFILE(shmem_wait_until)
