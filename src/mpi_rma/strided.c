/* strided.c: strided (iput/iget), block-strided (ibput/ibget) and byte-level
 * (shmemx_iputmem/igetmem) RMA. Every routine funnels into one implementation in bytes:
 * nblks blocks of blksize bytes whose starts are dst_stride / src_stride bytes apart,
 * checked here and carried by the target's transport (shmemi_xp_strided, xport.h):
 * node peers get copies; the MPI transport's methods, their datatype cache and the
 * picker between them live in xport_mpi_strided.c (docs/strided.md).
 *
 * Completion matches shmem_put/get: put returns with the source reusable, get with the
 * data arrived. */
#include "strided_impl.h"
#include "xport.h"

/* |v| * m + add without overflow; -1 when it does not fit. */
static inline int span_of(ptrdiff_t stride, size_t n, size_t blk, size_t *out)
{
    size_t a = stride < 0 ? (size_t)0 - (size_t)stride : (size_t)stride, m;
    if (__builtin_mul_overflow(a, n - 1, &m) || __builtin_add_overflow(m, blk, out) ||
        *out > (size_t)PTRDIFF_MAX)
        return -1;
    return 0;
}

static void strided_xfer(const char *routine, shmem_ctx_t ctx, int is_get, char *dest,
                         const char *src, ptrdiff_t ds, ptrdiff_t ss, size_t blk, size_t n,
                         int pe)
{
    const char *remote = is_get ? src : dest;
    shmemi_target_t t;
    if (n == 0 || blk == 0) { /* nothing moves; the target is still checked like put/get */
        (void)shmemi_target(routine, ctx, remote, 0, pe, &t);
        return;
    }
    size_t dspan, sspan;
    if (span_of(ds, n, blk, &dspan) || span_of(ss, n, blk, &sspan)) {
        shmemi_bad_arg(routine, "%zu blocks of %zu bytes with strides %td/%td bytes overflow",
                       n, blk, ds, ss);
        return;
    }
    if (n > 1 && (ds < 0 ? (size_t)0 - (size_t)ds : (size_t)ds) < blk) {
        shmemi_bad_arg(routine, "destination blocks overlap (stride %td bytes, block %zu bytes)",
                       ds, blk);
        return;
    }
    if (n == 1) /* one block: the strides play no part (and are never negated) */
        ds = ss = (ptrdiff_t)blk;
    /* Walk the blocks in the order that makes the destination stride positive: the
     * same set of copies, and MPI's target datatypes stay simple. */
    if (ds < 0) {
        dest += (ptrdiff_t)(n - 1) * ds;
        src += (ptrdiff_t)(n - 1) * ss;
        ds = -ds;
        ss = -ss;
    }
    ptrdiff_t rs = is_get ? ss : ds;
    remote = is_get ? src : dest;
    const char *lo = rs < 0 ? remote + (ptrdiff_t)(n - 1) * rs : remote;
    if (shmemi_target(routine, ctx, lo, is_get ? sspan : dspan, pe, &t))
        return;
    if ((is_get ? (const void *)dest : (const void *)src) == NULL) {
        shmemi_bad_arg(routine, "NULL local buffer with %zu blocks", n);
        return;
    }
    shmemi_xp_strided(routine, &t, is_get, is_get ? dest : (char *)src, is_get ? ds : ss,
                      (size_t)(remote - lo), rs, blk, n);
}

void shmemi_strided_put(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
                        ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t blksize,
                        size_t nblks, int pe)
{
    strided_xfer(routine, ctx, 0, (char *)dest, (const char *)src, dst_stride, src_stride,
                 blksize, nblks, pe);
}

void shmemi_strided_get(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
                        ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t blksize,
                        size_t nblks, int pe)
{
    strided_xfer(routine, ctx, 1, (char *)dest, (const char *)src, dst_stride, src_stride,
                 blksize, nblks, pe);
}

/* ---- public wrappers: element strides become byte strides ---- */

/* Scale an element stride; -1 (reported) when it does not fit a ptrdiff_t. */
static inline int scale(const char *routine, ptrdiff_t stride, size_t elem, ptrdiff_t *out)
{
    if (__builtin_mul_overflow(stride, (ptrdiff_t)elem, out)) {
        shmemi_bad_arg(routine, "stride %td of %zu-byte elements overflows", stride, elem);
        return -1;
    }
    return 0;
}

static void iput_elems(const char *routine, shmem_ctx_t ctx, int is_get, void *dest,
                       const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems,
                       int pe)
{
    ptrdiff_t ds, ss;
    if (scale(routine, dst, elem, &ds) || scale(routine, sst, elem, &ss))
        return;
    strided_xfer(routine, ctx, is_get, (char *)dest, (const char *)src, ds, ss, elem, nelems,
                 pe);
}

/* OpenSHMEM 1.6: dst and sst are >= 1 (in elements); the destination blocks must not
 * overlap, which strided_xfer checks. */
static void ibput_elems(const char *routine, shmem_ctx_t ctx, int is_get, void *dest,
                        const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t elem,
                        size_t bsize, size_t nblocks, int pe)
{
    ptrdiff_t ds, ss;
    size_t blk;
    if (dst < 1 || sst < 1) {
        shmemi_bad_arg(routine, "strides must be >= 1 (dst %td, sst %td)", dst, sst);
        return;
    }
    if (__builtin_mul_overflow(bsize, elem, &blk)) {
        shmemi_bad_arg(routine, "block of %zu elements overflows", bsize);
        return;
    }
    if (scale(routine, dst, elem, &ds) || scale(routine, sst, elem, &ss))
        return;
    strided_xfer(routine, ctx, is_get, (char *)dest, (const char *)src, ds, ss, blk, nblocks,
                 pe);
}

#define STRIDED_PAIR(NAME, CTXNAME, T, SIZE, IS_GET)                                         \
    void CTXNAME(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                 size_t nelems, int pe)                                                      \
    {                                                                                        \
        iput_elems(#CTXNAME, ctx, IS_GET, dest, source, dst, sst, SIZE, nelems, pe);         \
    }                                                                                        \
    SHMEMI_PROFILE(CTXNAME)                                                                  \
    void NAME(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    {                                                                                        \
        iput_elems(#NAME, SHMEM_CTX_DEFAULT, IS_GET, dest, source, dst, sst, SIZE, nelems,   \
                   pe);                                                                      \
    }                                                                                        \
    SHMEMI_PROFILE(NAME)

#define BLOCK_PAIR(NAME, CTXNAME, T, SIZE, IS_GET)                                           \
    void CTXNAME(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                 size_t bsize, size_t nblocks, int pe)                                       \
    {                                                                                        \
        ibput_elems(#CTXNAME, ctx, IS_GET, dest, source, dst, sst, SIZE, bsize, nblocks, pe); \
    }                                                                                        \
    SHMEMI_PROFILE(CTXNAME)                                                                  \
    void NAME(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,          \
              size_t nblocks, int pe)                                                        \
    {                                                                                        \
        ibput_elems(#NAME, SHMEM_CTX_DEFAULT, IS_GET, dest, source, dst, sst, SIZE, bsize,   \
                    nblocks, pe);                                                            \
    }                                                                                        \
    SHMEMI_PROFILE(NAME)

#define DEFINE_TYPED_STRIDED(T, N)                                                           \
    STRIDED_PAIR(shmem_##N##_iput, shmem_ctx_##N##_iput, T, sizeof(T), 0)                    \
    STRIDED_PAIR(shmem_##N##_iget, shmem_ctx_##N##_iget, T, sizeof(T), 1)                    \
    BLOCK_PAIR(shmem_##N##_ibput, shmem_ctx_##N##_ibput, T, sizeof(T), 0)                    \
    BLOCK_PAIR(shmem_##N##_ibget, shmem_ctx_##N##_ibget, T, sizeof(T), 1)
SHMEMQ_RMA_TYPES(DEFINE_TYPED_STRIDED)

#define DEFINE_SIZED_STRIDED(BITS, BYTES)                                                    \
    STRIDED_PAIR(shmem_iput##BITS, shmem_ctx_iput##BITS, void, BYTES, 0)                     \
    STRIDED_PAIR(shmem_iget##BITS, shmem_ctx_iget##BITS, void, BYTES, 1)                     \
    BLOCK_PAIR(shmem_ibput##BITS, shmem_ctx_ibput##BITS, void, BYTES, 0)                     \
    BLOCK_PAIR(shmem_ibget##BITS, shmem_ctx_ibget##BITS, void, BYTES, 1)
SHMEMQ_SIZED_RMA(DEFINE_SIZED_STRIDED)

/* Byte-level extension: strides and block in bytes; any stride sign (structures walked
 * backwards), destination blocks must not overlap. */
void shmemx_iputmem(void *dest, const void *source, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                    size_t blksize, size_t nblks, int pe)
{
    strided_xfer("shmemx_iputmem", SHMEM_CTX_DEFAULT, 0, (char *)dest, (const char *)source,
                 dst_stride, src_stride, blksize, nblks, pe);
}
SHMEMI_PROFILE(shmemx_iputmem)

void shmemx_igetmem(void *dest, const void *source, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                    size_t blksize, size_t nblks, int pe)
{
    strided_xfer("shmemx_igetmem", SHMEM_CTX_DEFAULT, 1, (char *)dest, (const char *)source,
                 dst_stride, src_stride, blksize, nblks, pe);
}
SHMEMI_PROFILE(shmemx_igetmem)
