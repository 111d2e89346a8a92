/* shmemq/coll.h: collectives. Team-based (OpenSHMEM 1.5 section 9.9) with the 1.6 sum
 * scans, the deprecated active-set forms (1.4), and the C11 generic selections.
 * Team routines return 0 on success and nonzero on error (nothing written).
 * Included by shmem.h; do not include directly. */
#ifndef SHMEMQ_COLL_H
#define SHMEMQ_COLL_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Team-based data movement ---- */
#define SHMEMQ_DECL_COLL_MOVE(T, N)                                                          \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,    \
                              int PE_root);                                                  \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);     \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);    \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);    \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,    \
                              ptrdiff_t sst, size_t nelems);
SHMEMQ_RMA_TYPES(SHMEMQ_DECL_COLL_MOVE)
#undef SHMEMQ_DECL_COLL_MOVE

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

/* ---- Team-based reductions ---- */
#define SHMEMQ_DECL_REDUCE(T, N, OP) \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define SHMEMQ_DECL_REDUCE_BIT(T, N) \
    SHMEMQ_DECL_REDUCE(T, N, and) SHMEMQ_DECL_REDUCE(T, N, or) SHMEMQ_DECL_REDUCE(T, N, xor)
#define SHMEMQ_DECL_REDUCE_MINMAX(T, N) \
    SHMEMQ_DECL_REDUCE(T, N, max) SHMEMQ_DECL_REDUCE(T, N, min)
#define SHMEMQ_DECL_REDUCE_ARITH(T, N) \
    SHMEMQ_DECL_REDUCE(T, N, sum) SHMEMQ_DECL_REDUCE(T, N, prod)
SHMEMQ_REDUCE_BITWISE_TYPES(SHMEMQ_DECL_REDUCE_BIT)
SHMEMQ_REDUCE_MINMAX_TYPES(SHMEMQ_DECL_REDUCE_MINMAX)
SHMEMQ_REDUCE_ARITH_TYPES(SHMEMQ_DECL_REDUCE_ARITH)
#undef SHMEMQ_DECL_REDUCE_BIT
#undef SHMEMQ_DECL_REDUCE_MINMAX
#undef SHMEMQ_DECL_REDUCE_ARITH

/* ---- 1.6 scans: inclusive and exclusive prefix sums in team PE order. The exclusive
 * scan writes zeros (the sum's identity) on team PE 0. ---- */
#define SHMEMQ_DECL_SCAN(T, N)                                                              \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems);
SHMEMQ_REDUCE_ARITH_TYPES(SHMEMQ_DECL_SCAN)
#undef SHMEMQ_DECL_SCAN
#undef SHMEMQ_DECL_REDUCE

/* ---- Deprecated active-set collectives (OpenSHMEM 1.4). The active set is PEs
 * PE_start + i * 2^logPE_stride, i < PE_size. pSync and pWrk are accepted and not
 * used. ---- */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
/* shmem_sync(team) (1.5) and the deprecated shmem_sync(PE_start, logPE_stride, PE_size,
 * pSync) share one name: the argument count picks the routine (C and C++). */
#define SHMEMQ_SYNC1(team) shmem_team_sync(team)
#define SHMEMQ_SYNC4(start, logstride, size, psync) shmem_sync(start, logstride, size, psync)
#define shmem_sync(...) SHMEMQ_CAT(SHMEMQ_SYNC, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_DECL_LEGACY_MOVE(BITS)                                                         \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,    \
                               int PE_start, int logPE_stride, int PE_size, long *pSync);     \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                             int logPE_stride, int PE_size, long *pSync);                     \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                              int logPE_stride, int PE_size, long *pSync);                    \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                              int logPE_stride, int PE_size, long *pSync);                    \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,    \
                               long *pSync);
SHMEMQ_DECL_LEGACY_MOVE(32)
SHMEMQ_DECL_LEGACY_MOVE(64)
#undef SHMEMQ_DECL_LEGACY_MOVE

/* Legacy reduction types (1.4 table). */
#define SHMEMQ_LEGACY_BITWISE_TYPES(X) \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEMQ_LEGACY_MINMAX_TYPES(X) SHMEMQ_LEGACY_BITWISE_TYPES(X) \
    X(float, float) X(double, double) X(long double, longdouble)
#define SHMEMQ_LEGACY_ARITH_TYPES(X) SHMEMQ_LEGACY_MINMAX_TYPES(X) \
    X(double _Complex, complexd) X(float _Complex, complexf)

#define SHMEMQ_DECL_TO_ALL(T, N, OP)                                                       \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,    \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define SHMEMQ_DECL_TO_ALL_BIT(T, N) \
    SHMEMQ_DECL_TO_ALL(T, N, and) SHMEMQ_DECL_TO_ALL(T, N, or) SHMEMQ_DECL_TO_ALL(T, N, xor)
#define SHMEMQ_DECL_TO_ALL_MINMAX(T, N) \
    SHMEMQ_DECL_TO_ALL(T, N, max) SHMEMQ_DECL_TO_ALL(T, N, min)
#define SHMEMQ_DECL_TO_ALL_ARITH(T, N) \
    SHMEMQ_DECL_TO_ALL(T, N, sum) SHMEMQ_DECL_TO_ALL(T, N, prod)
SHMEMQ_LEGACY_BITWISE_TYPES(SHMEMQ_DECL_TO_ALL_BIT)
SHMEMQ_LEGACY_MINMAX_TYPES(SHMEMQ_DECL_TO_ALL_MINMAX)
SHMEMQ_LEGACY_ARITH_TYPES(SHMEMQ_DECL_TO_ALL_ARITH)
#undef SHMEMQ_DECL_TO_ALL_BIT
#undef SHMEMQ_DECL_TO_ALL_MINMAX
#undef SHMEMQ_DECL_TO_ALL_ARITH
#undef SHMEMQ_DECL_TO_ALL

#ifdef __cplusplus
}
#endif

/* ---- C11 generic selections on the type of dest ---- */
#ifdef SHMEMQ_HAVE_GENERIC
/* The signed fixed-width types are bitwise reduction types too (1.5 table 10); they
 * alias signed char, short, int and long, none of which is listed otherwise. */
#define SHMEMQ_GENERIC_REDUCE_BITWISE_TYPES(X) \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)
#define SHMEMQ_GENERIC_REDUCE_MINMAX_TYPES(X) \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort) \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
    X(float, float) X(double, double) X(long double, longdouble)
#define SHMEMQ_GENERIC_REDUCE_ARITH_TYPES(X) SHMEMQ_GENERIC_REDUCE_MINMAX_TYPES(X) \
    X(double _Complex, complexd) X(float _Complex, complexf)

#define SHMEMQ_G_BROADCAST(T, N) , T *: shmem_##N##_broadcast
#define SHMEMQ_G_COLLECT(T, N) , T *: shmem_##N##_collect
#define SHMEMQ_G_FCOLLECT(T, N) , T *: shmem_##N##_fcollect
#define SHMEMQ_G_ALLTOALL(T, N) , T *: shmem_##N##_alltoall
#define SHMEMQ_G_ALLTOALLS(T, N) , T *: shmem_##N##_alltoalls
#define SHMEMQ_G_AND_REDUCE(T, N) , T *: shmem_##N##_and_reduce
#define SHMEMQ_G_OR_REDUCE(T, N) , T *: shmem_##N##_or_reduce
#define SHMEMQ_G_XOR_REDUCE(T, N) , T *: shmem_##N##_xor_reduce
#define SHMEMQ_G_MAX_REDUCE(T, N) , T *: shmem_##N##_max_reduce
#define SHMEMQ_G_MIN_REDUCE(T, N) , T *: shmem_##N##_min_reduce
#define SHMEMQ_G_SUM_REDUCE(T, N) , T *: shmem_##N##_sum_reduce
#define SHMEMQ_G_PROD_REDUCE(T, N) , T *: shmem_##N##_prod_reduce
#define SHMEMQ_G_SUM_INSCAN(T, N) , T *: shmem_##N##_sum_inscan
#define SHMEMQ_G_SUM_EXSCAN(T, N) , T *: shmem_##N##_sum_exscan

#define shmem_broadcast(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_BROADCAST))(team, d, __VA_ARGS__)
#define shmem_collect(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_COLLECT))(team, d, __VA_ARGS__)
#define shmem_fcollect(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_FCOLLECT))(team, d, __VA_ARGS__)
#define shmem_alltoall(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_ALLTOALL))(team, d, __VA_ARGS__)
#define shmem_alltoalls(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_ALLTOALLS))(team, d, __VA_ARGS__)
#define shmem_and_reduce(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_REDUCE_BITWISE_TYPES(SHMEMQ_G_AND_REDUCE))(team, d, __VA_ARGS__)
#define shmem_or_reduce(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_REDUCE_BITWISE_TYPES(SHMEMQ_G_OR_REDUCE))(team, d, __VA_ARGS__)
#define shmem_xor_reduce(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_REDUCE_BITWISE_TYPES(SHMEMQ_G_XOR_REDUCE))(team, d, __VA_ARGS__)
#define shmem_max_reduce(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_REDUCE_MINMAX_TYPES(SHMEMQ_G_MAX_REDUCE))(team, d, __VA_ARGS__)
#define shmem_min_reduce(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_REDUCE_MINMAX_TYPES(SHMEMQ_G_MIN_REDUCE))(team, d, __VA_ARGS__)
#define shmem_sum_reduce(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_REDUCE_ARITH_TYPES(SHMEMQ_G_SUM_REDUCE))(team, d, __VA_ARGS__)
#define shmem_prod_reduce(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_REDUCE_ARITH_TYPES(SHMEMQ_G_PROD_REDUCE))(team, d, __VA_ARGS__)
#define shmem_sum_inscan(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_REDUCE_ARITH_TYPES(SHMEMQ_G_SUM_INSCAN))(team, d, __VA_ARGS__)
#define shmem_sum_exscan(team, d, ...) \
    _Generic((d)SHMEMQ_GENERIC_REDUCE_ARITH_TYPES(SHMEMQ_G_SUM_EXSCAN))(team, d, __VA_ARGS__)
#endif /* SHMEMQ_HAVE_GENERIC */

#endif /* SHMEMQ_COLL_H */
