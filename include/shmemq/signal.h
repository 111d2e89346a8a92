/* shmemq/signal.h: put-with-signal (OpenSHMEM 1.5 section 9.9) and the signal routines
 * (fetch, wait_until; 1.6 add and set), plus the C11 generic selections.
 * Included by shmem.h; do not include directly. */
#ifndef SHMEMQ_SIGNAL_H
#define SHMEMQ_SIGNAL_H

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEMQ_DECL_PUT_SIGNAL(T, N)                                                          \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,  \
                                uint64_t signal, int sig_op, int pe);                         \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,                  \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,            \
                                        size_t nelems, uint64_t *sig_addr, uint64_t signal,   \
                                        int sig_op, int pe);
SHMEMQ_RMA_TYPES(SHMEMQ_DECL_PUT_SIGNAL)
#undef SHMEMQ_DECL_PUT_SIGNAL

#define SHMEMQ_DECL_SIZED_PUT_SIGNAL(BITS, BYTES)                                             \
    void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,              \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);   \
    void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source,        \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                                      int sig_op, int pe);                                    \
    void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,          \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op,        \
                                      int pe);                                                \
    void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,    \
                                          size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                          int sig_op, int pe);
SHMEMQ_SIZED_RMA(SHMEMQ_DECL_SIZED_PUT_SIGNAL)
#undef SHMEMQ_DECL_SIZED_PUT_SIGNAL

void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,
                                 int pe);

uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* 1.6 */
void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);

#ifdef __cplusplus
}
#endif

#ifdef SHMEMQ_HAVE_GENERIC
#define SHMEMQ_G_PUT_SIGNAL(T, N) , T *: shmem_##N##_put_signal
#define SHMEMQ_G_CTX_PUT_SIGNAL(T, N) , T *: shmem_ctx_##N##_put_signal
#define SHMEMQ_G_PUT_SIGNAL_NBI(T, N) , T *: shmem_##N##_put_signal_nbi
#define SHMEMQ_G_CTX_PUT_SIGNAL_NBI(T, N) , T *: shmem_ctx_##N##_put_signal_nbi
#define SHMEMQ_PUT_SIGNAL7(d, s, n, sa, sv, op, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_PUT_SIGNAL))(d, s, n, sa, sv, op, pe)
#define SHMEMQ_PUT_SIGNAL8(c, d, s, n, sa, sv, op, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_PUT_SIGNAL))(c, d, s, n, sa, sv, op, pe)
#define shmem_put_signal(...) SHMEMQ_CAT(SHMEMQ_PUT_SIGNAL, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_PUT_SIGNAL_NBI7(d, s, n, sa, sv, op, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_PUT_SIGNAL_NBI))(d, s, n, sa, sv, op, pe)
#define SHMEMQ_PUT_SIGNAL_NBI8(c, d, s, n, sa, sv, op, pe)                                 \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_PUT_SIGNAL_NBI))(c, d, s, n, sa, sv, \
                                                                        op, pe)
#define shmem_put_signal_nbi(...) \
    SHMEMQ_CAT(SHMEMQ_PUT_SIGNAL_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#endif /* SHMEMQ_HAVE_GENERIC */

#endif /* SHMEMQ_SIGNAL_H */
