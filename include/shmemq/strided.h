/* shmemq/strided.h: strided RMA (OpenSHMEM 1.5 iput/iget) and block-strided RMA
 * (OpenSHMEM 1.6 ibput/ibget), typed, sized, with and without a context, plus the C11
 * generic selections. Strides and block sizes are in elements; iput/iget move blocks of
 * one element. Included by shmem.h; do not include directly. */
#ifndef SHMEMQ_STRIDED_H
#define SHMEMQ_STRIDED_H

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEMQ_DECL_STRIDED(T, N)                                                           \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,           \
                          size_t nelems, int pe);                                           \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,     \
                              ptrdiff_t sst, size_t nelems, int pe);                        \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,           \
                          size_t nelems, int pe);                                           \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,     \
                              ptrdiff_t sst, size_t nelems, int pe);                        \
    void shmem_##N##_ibput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,          \
                           size_t bsize, size_t nblocks, int pe);                           \
    void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,    \
                               ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);        \
    void shmem_##N##_ibget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,          \
                           size_t bsize, size_t nblocks, int pe);                           \
    void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,    \
                               ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);
SHMEMQ_RMA_TYPES(SHMEMQ_DECL_STRIDED)
#undef SHMEMQ_DECL_STRIDED

#define SHMEMQ_DECL_SIZED_STRIDED(BITS, BYTES)                                              \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                          size_t nelems, int pe);                                           \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source,             \
                              ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);        \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                          size_t nelems, int pe);                                           \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source,             \
                              ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);        \
    void shmem_ibput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,    \
                           size_t bsize, size_t nblocks, int pe);                           \
    void shmem_ctx_ibput##BITS(shmem_ctx_t ctx, void *dest, const void *source,            \
                               ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, \
                               int pe);                                                     \
    void shmem_ibget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,    \
                           size_t bsize, size_t nblocks, int pe);                           \
    void shmem_ctx_ibget##BITS(shmem_ctx_t ctx, void *dest, const void *source,            \
                               ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, \
                               int pe);
SHMEMQ_SIZED_RMA(SHMEMQ_DECL_SIZED_STRIDED)
#undef SHMEMQ_DECL_SIZED_STRIDED

#ifdef __cplusplus
}
#endif

#ifdef SHMEMQ_HAVE_GENERIC
#define SHMEMQ_G_IPUT(T, N) , T *: shmem_##N##_iput
#define SHMEMQ_G_CTX_IPUT(T, N) , T *: shmem_ctx_##N##_iput
#define SHMEMQ_G_IGET(T, N) , T *: shmem_##N##_iget
#define SHMEMQ_G_CTX_IGET(T, N) , T *: shmem_ctx_##N##_iget
#define SHMEMQ_G_IBPUT(T, N) , T *: shmem_##N##_ibput
#define SHMEMQ_G_CTX_IBPUT(T, N) , T *: shmem_ctx_##N##_ibput
#define SHMEMQ_G_IBGET(T, N) , T *: shmem_##N##_ibget
#define SHMEMQ_G_CTX_IBGET(T, N) , T *: shmem_ctx_##N##_ibget

/* The context forms take one argument more; SHMEMQ_NARG tells them apart. */
#define SHMEMQ_IPUT6(d, s, dst, sst, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_IPUT))(d, s, dst, sst, n, pe)
#define SHMEMQ_IPUT7(c, d, s, dst, sst, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_IPUT))(c, d, s, dst, sst, n, pe)
#define shmem_iput(...) SHMEMQ_CAT(SHMEMQ_IPUT, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_IGET6(d, s, dst, sst, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_IGET))(d, s, dst, sst, n, pe)
#define SHMEMQ_IGET7(c, d, s, dst, sst, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_IGET))(c, d, s, dst, sst, n, pe)
#define shmem_iget(...) SHMEMQ_CAT(SHMEMQ_IGET, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_IBPUT7(d, s, dst, sst, b, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_IBPUT))(d, s, dst, sst, b, n, pe)
#define SHMEMQ_IBPUT8(c, d, s, dst, sst, b, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_IBPUT))(c, d, s, dst, sst, b, n, pe)
#define shmem_ibput(...) SHMEMQ_CAT(SHMEMQ_IBPUT, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_IBGET7(d, s, dst, sst, b, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_IBGET))(d, s, dst, sst, b, n, pe)
#define SHMEMQ_IBGET8(c, d, s, dst, sst, b, n, pe) \
    _Generic((d)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_CTX_IBGET))(c, d, s, dst, sst, b, n, pe)
#define shmem_ibget(...) SHMEMQ_CAT(SHMEMQ_IBGET, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#endif /* SHMEMQ_HAVE_GENERIC */

#endif /* SHMEMQ_STRIDED_H */
