/* shmemq/rma.h: contiguous RMA (OpenSHMEM 1.5 section 9.6), typed, sized and bytewise,
 * blocking and _nbi, with and without a context, plus the C11 generic selections.
 * Included by shmem.h; do not include directly. */
#ifndef SHMEMQ_RMA_H
#define SHMEMQ_RMA_H

#ifdef __cplusplus
extern "C" {
#endif

/* Default-context put/get/p/g (and their _nbi forms) are static inline in
 * shmemq/rma_inline.h unless SHMEMQ_NO_INLINE is defined: declared here only then. */
#if defined(SHMEMQ_NO_INLINE) || defined(SHMEMQ_BUILDING_LIBRARY)
#define SHMEMQ_DECL_RMA_DFLT(T, N)                                                         \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                 \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                 \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);             \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);             \
    void shmem_##N##_p(T *dest, T value, int pe);                                          \
    T shmem_##N##_g(const T *source, int pe);
SHMEMQ_RMA_TYPES(SHMEMQ_DECL_RMA_DFLT)
#undef SHMEMQ_DECL_RMA_DFLT
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
#endif

#define SHMEMQ_DECL_RMA(T, N)                                                              \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                             int pe);                                                      \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                             int pe);                                                      \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                 int pe);                                                  \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                 int pe);                                                  \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                     \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);
SHMEMQ_RMA_TYPES(SHMEMQ_DECL_RMA)
#undef SHMEMQ_DECL_RMA

#define SHMEMQ_DECL_SIZED_RMA(BITS, BYTES)                                                  \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);            \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                             int pe);                                                       \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);            \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                             int pe);                                                       \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);      \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                   size_t nelems, int pe);                                  \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);      \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                   size_t nelems, int pe);
SHMEMQ_SIZED_RMA(SHMEMQ_DECL_SIZED_RMA)
#undef SHMEMQ_DECL_SIZED_RMA

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);

#ifdef __cplusplus
}
#endif

/* ---- helpers for C11 generic selections (also used by the other area headers) ---- */
#define SHMEMQ_CAT_(a, b) a##b
#define SHMEMQ_CAT(a, b) SHMEMQ_CAT_(a, b)
#define SHMEMQ_NARG_(a1, a2, a3, a4, a5, a6, a7, a8, N, ...) N
#define SHMEMQ_NARG(...) SHMEMQ_NARG_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)

#ifdef SHMEMQ_HAVE_GENERIC
/* One association per type: ", T *: shmem_<name>_<op>"; the leading comma lets the
 * list close without a trailing one. */
#define SHMEMQ_G_PUT(T, N) , T *: shmem_##N##_put
#define SHMEMQ_G_CTX_PUT(T, N) , T *: shmem_ctx_##N##_put
#define SHMEMQ_G_GET(T, N) , T *: shmem_##N##_get
#define SHMEMQ_G_CTX_GET(T, N) , T *: shmem_ctx_##N##_get
#define SHMEMQ_G_PUT_NBI(T, N) , T *: shmem_##N##_put_nbi
#define SHMEMQ_G_CTX_PUT_NBI(T, N) , T *: shmem_ctx_##N##_put_nbi
#define SHMEMQ_G_GET_NBI(T, N) , T *: shmem_##N##_get_nbi
#define SHMEMQ_G_CTX_GET_NBI(T, N) , T *: shmem_ctx_##N##_get_nbi
#define SHMEMQ_G_P(T, N) , T *: shmem_##N##_p
#define SHMEMQ_G_CTX_P(T, N) , T *: shmem_ctx_##N##_p
#define SHMEMQ_G_G(T, N) , T *: shmem_##N##_g, const T *: shmem_##N##_g
#define SHMEMQ_G_CTX_G(T, N) , T *: shmem_ctx_##N##_g, const T *: shmem_ctx_##N##_g

#define SHMEMQ_PUT4(d, s, n, pe) _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_PUT))(d, s, n, pe)
#define SHMEMQ_PUT5(c, d, s, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_PUT))(c, d, s, n, pe)
#define shmem_put(...) SHMEMQ_CAT(SHMEMQ_PUT, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_GET4(d, s, n, pe) _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_GET))(d, s, n, pe)
#define SHMEMQ_GET5(c, d, s, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_GET))(c, d, s, n, pe)
#define shmem_get(...) SHMEMQ_CAT(SHMEMQ_GET, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_PUT_NBI4(d, s, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_PUT_NBI))(d, s, n, pe)
#define SHMEMQ_PUT_NBI5(c, d, s, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_PUT_NBI))(c, d, s, n, pe)
#define shmem_put_nbi(...) SHMEMQ_CAT(SHMEMQ_PUT_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_GET_NBI4(d, s, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_GET_NBI))(d, s, n, pe)
#define SHMEMQ_GET_NBI5(c, d, s, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_GET_NBI))(c, d, s, n, pe)
#define shmem_get_nbi(...) SHMEMQ_CAT(SHMEMQ_GET_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_P3(d, v, pe) _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_P))(d, v, pe)
#define SHMEMQ_P4(c, d, v, pe) _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_P))(c, d, v, pe)
#define shmem_p(...) SHMEMQ_CAT(SHMEMQ_P, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_G2(s, pe) _Generic((s)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_G))(s, pe)
#define SHMEMQ_G3(c, s, pe) _Generic((s)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_G))(c, s, pe)
#define shmem_g(...) SHMEMQ_CAT(SHMEMQ_G, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#endif /* SHMEMQ_HAVE_GENERIC */

#endif /* SHMEMQ_RMA_H */
