/*
 * pshmem.h: the OpenSHMEM profiling interface. Every shmem_* routine of shmemq is also
 * available as pshmem_* (an alias of the same code), so a tool can define shmem_* itself
 * and forward to pshmem_*. This header declares the pshmem_ names of the core routines:
 * setup and query, memory management, ordering and barriers, contexts, contiguous RMA,
 * point-to-point synchronization, signals and locks (typed families via the type tables
 * of shmem.h).
 */
#ifndef PSHMEM_H
#define PSHMEM_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

void pshmem_init(void);
int pshmem_init_thread(int requested, int *provided);
void pshmem_query_thread(int *provided);
void pshmem_finalize(void);
void pshmem_global_exit(int status);
int pshmem_my_pe(void);
int pshmem_n_pes(void);
int pshmem_pe_accessible(int pe);
int pshmem_addr_accessible(const void *addr, int pe);
void *pshmem_ptr(const void *dest, int pe);
void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe);
void pshmem_info_get_version(int *major, int *minor);
void pshmem_info_get_name(char *name);

void *pshmem_malloc(size_t size);
void *pshmem_calloc(size_t count, size_t size);
void *pshmem_align(size_t alignment, size_t size);
void *pshmem_realloc(void *ptr, size_t size);
void pshmem_free(void *ptr);
void *pshmem_malloc_with_hints(size_t size, long hints);

void pshmem_fence(void);
void pshmem_quiet(void);
void pshmem_ctx_fence(shmem_ctx_t ctx);
void pshmem_ctx_quiet(shmem_ctx_t ctx);
void pshmem_pe_quiet(const int *target_pes, size_t npes);
void pshmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);
void pshmem_barrier_all(void);
void pshmem_sync_all(void);

int pshmem_ctx_create(long options, shmem_ctx_t *ctx);
int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void pshmem_ctx_destroy(shmem_ctx_t ctx);
int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
void pshmem_ctx_session_start(shmem_ctx_t ctx, long options,
                              const shmem_ctx_session_config_t *config, long config_mask);
void pshmem_ctx_session_stop(shmem_ctx_t ctx);

#define PSHMEMQ_DECL_RMA(T, N)                                                             \
    void pshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                \
    void pshmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,    \
                              int pe);                                                     \
    void pshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                \
    void pshmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,    \
                              int pe);                                                     \
    void pshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);            \
    void pshmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source,               \
                                  size_t nelems, int pe);                                  \
    void pshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);            \
    void pshmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source,               \
                                  size_t nelems, int pe);                                  \
    void pshmem_##N##_p(T *dest, T value, int pe);                                         \
    void pshmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                    \
    T pshmem_##N##_g(const T *source, int pe);                                             \
    T pshmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                        \
    void pshmem_##N##_put_signal(T *dest, const T *source, size_t nelems,                  \
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void pshmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source,            \
                                     size_t nelems, uint64_t *sig_addr, uint64_t signal,   \
                                     int sig_op, int pe);                                  \
    void pshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,              \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                     int pe);                                              \
    void pshmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,        \
                                         size_t nelems, uint64_t *sig_addr,                \
                                         uint64_t signal, int sig_op, int pe);
SHMEMQ_RMA_TYPES(PSHMEMQ_DECL_RMA)
#undef PSHMEMQ_DECL_RMA

#define PSHMEMQ_DECL_SIZED(BITS, BYTES)                                                      \
    void pshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);            \
    void pshmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source,               \
                              size_t nelems, int pe);                                        \
    void pshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);            \
    void pshmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source,               \
                              size_t nelems, int pe);                                        \
    void pshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);      \
    void pshmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                    size_t nelems, int pe);                                  \
    void pshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);      \
    void pshmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                    size_t nelems, int pe);                                  \
    void pshmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,            \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void pshmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,        \
                                       uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                       int pe);
SHMEMQ_SIZED_RMA(PSHMEMQ_DECL_SIZED)
#undef PSHMEMQ_DECL_SIZED

void pshmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void pshmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void pshmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void pshmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void pshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void pshmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                           int pe);
void pshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void pshmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                           int pe);
void pshmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                          uint64_t signal, int sig_op, int pe);
void pshmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t pshmem_signal_fetch(const uint64_t *sig_addr);
uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
void pshmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
void pshmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);

#define PSHMEMQ_DECL_P2P(T, N)                                                               \
    void pshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                             \
    void pshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,    \
                                     T cmp_value);                                           \
    size_t pshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,  \
                                       T cmp_value);                                         \
    size_t pshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,            \
                                        const int *status, int cmp, T cmp_value);            \
    int pshmem_##N##_test(T *ivar, int cmp, T cmp_value);                                    \
    int pshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,           \
                              T cmp_value);                                                  \
    size_t pshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,        \
                                 T cmp_value);                                               \
    size_t pshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,                  \
                                  const int *status, int cmp, T cmp_value);
SHMEMQ_P2P_TYPES(PSHMEMQ_DECL_P2P)
#undef PSHMEMQ_DECL_P2P

void pshmem_set_lock(long *lock);
void pshmem_clear_lock(long *lock);
int pshmem_test_lock(long *lock);

#ifdef __cplusplus
}
#endif

#endif /* PSHMEM_H */
