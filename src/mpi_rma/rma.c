/* rma.c: contiguous put and get. Every typed, sized and bytewise routine funnels into
 * shmemi_put_bytes / shmemi_get_bytes.
 *
 * Blocking put = MPI_Put + MPI_Win_flush_local (source reusable, as OpenSHMEM asks);
 * blocking get = MPI_Get + MPI_Win_flush; _nbi forms complete at quiet
 * (MPI_Win_flush_all). Transfers to the calling PE and to node peers are plain memory
 * copies (the node transport, xport.h; shmemq_node_copy, as the inline path): complete on
 * return, no target CPU needed.
 * In a 1.6 batch session (src/queue/session.c) small remote puts go to the context's
 * queue, through the batch operations the session installs on the context. */
#include "shmemi_p2p.h"

void shmemi_put_bytes(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
                      size_t nbytes, int pe, int blocking)
{
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(shmemi_target(routine, ctx, dest, nbytes, pe, &t)))
        return;
    if (SHMEMI_UNLIKELY(nbytes == 0))
        return;
    if (SHMEMI_UNLIKELY(src == NULL)) {
        shmemi_bad_arg(routine, "NULL source with %zu bytes", nbytes);
        return;
    }
    if (shmemi_xp_node_bytes(&t)) { /* this PE or a node peer: a copy (rma_inline.h) */
        shmemq_node_copy(t.local, src, nbytes);
        return;
    }
    /* 1.6 batch session: small puts go to the context's queue */
    if (SHMEMI_UNLIKELY(ctx->batch_ops != NULL) &&
        ctx->batch_ops->put(ctx, dest, src, nbytes, t.rank) == 0)
        return;
    shmemi_mpi_put(routine, &t, src, nbytes);
    if (blocking)
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush_local(t.rank, t.win));
}

void shmemi_get_bytes(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
                      size_t nbytes, int pe, int blocking)
{
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(shmemi_target(routine, ctx, src, nbytes, pe, &t)))
        return;
    if (SHMEMI_UNLIKELY(nbytes == 0))
        return;
    if (SHMEMI_UNLIKELY(dest == NULL)) {
        shmemi_bad_arg(routine, "NULL destination with %zu bytes", nbytes);
        return;
    }
    /* a get reads this PE's earlier session updates, as it would without a session */
    if (SHMEMI_UNLIKELY(ctx->batch_ops != NULL))
        ctx->batch_ops->flush(ctx);
    if (shmemi_xp_node_bytes(&t)) {
        shmemq_node_copy(dest, t.local, nbytes);
        return;
    }
    shmemi_mpi_get(routine, &t, dest, nbytes);
    if (blocking)
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t.rank, t.win));
}

/* Element counts become byte counts; a count that overflows size_t is refused. */
static inline int bytes_of(const char *routine, size_t nelems, size_t elem, size_t *out)
{
    if (SHMEMI_UNLIKELY(elem != 0 && nelems > SIZE_MAX / elem)) {
        shmemi_bad_arg(routine, "%zu elements of %zu bytes overflow", nelems, elem);
        return -1;
    }
    *out = nelems * elem;
    return 0;
}

#define RMA_PAIR(NAME, CTXNAME, T, SIZE, BLOCKING, FN)                                       \
    void CTXNAME(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)           \
    {                                                                                        \
        size_t nb;                                                                           \
        if (bytes_of(#CTXNAME, nelems, SIZE, &nb) == 0)                                      \
            FN(#CTXNAME, ctx, dest, source, nb, pe, BLOCKING);                               \
    }                                                                                        \
    SHMEMI_PROFILE(CTXNAME)                                                                  \
    void NAME(T *dest, const T *source, size_t nelems, int pe)                               \
    {                                                                                        \
        size_t nb;                                                                           \
        if (bytes_of(#NAME, nelems, SIZE, &nb) == 0)                                         \
            FN(#NAME, SHMEM_CTX_DEFAULT, dest, source, nb, pe, BLOCKING);                    \
    }                                                                                        \
    SHMEMI_PROFILE(NAME)

#define DEFINE_TYPED_RMA(T, N)                                                               \
    RMA_PAIR(shmem_##N##_put, shmem_ctx_##N##_put, T, sizeof(T), 1, shmemi_put_bytes)        \
    RMA_PAIR(shmem_##N##_get, shmem_ctx_##N##_get, T, sizeof(T), 1, shmemi_get_bytes)        \
    RMA_PAIR(shmem_##N##_put_nbi, shmem_ctx_##N##_put_nbi, T, sizeof(T), 0, shmemi_put_bytes) \
    RMA_PAIR(shmem_##N##_get_nbi, shmem_ctx_##N##_get_nbi, T, sizeof(T), 0, shmemi_get_bytes) \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                        \
    {                                                                                        \
        shmemi_put_bytes("shmem_ctx_" #N "_p", ctx, dest, &value, sizeof(T), pe, 1);         \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_ctx_##N##_p)                                                        \
    void shmem_##N##_p(T *dest, T value, int pe)                                             \
    {                                                                                        \
        shmemi_put_bytes("shmem_" #N "_p", SHMEM_CTX_DEFAULT, dest, &value, sizeof(T), pe, 1); \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_p)                                                            \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                            \
    {                                                                                        \
        T value;                                                                             \
        memset(&value, 0, sizeof value);                                                     \
        shmemi_get_bytes("shmem_ctx_" #N "_g", ctx, &value, source, sizeof(T), pe, 1);       \
        return value;                                                                        \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_ctx_##N##_g)                                                        \
    T shmem_##N##_g(const T *source, int pe)                                                 \
    {                                                                                        \
        T value;                                                                             \
        memset(&value, 0, sizeof value);                                                     \
        shmemi_get_bytes("shmem_" #N "_g", SHMEM_CTX_DEFAULT, &value, source, sizeof(T), pe, 1); \
        return value;                                                                        \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_g)

SHMEMQ_RMA_TYPES(DEFINE_TYPED_RMA)

#define DEFINE_SIZED_RMA(BITS, BYTES)                                                        \
    RMA_PAIR(shmem_put##BITS, shmem_ctx_put##BITS, void, BYTES, 1, shmemi_put_bytes)         \
    RMA_PAIR(shmem_get##BITS, shmem_ctx_get##BITS, void, BYTES, 1, shmemi_get_bytes)         \
    RMA_PAIR(shmem_put##BITS##_nbi, shmem_ctx_put##BITS##_nbi, void, BYTES, 0, shmemi_put_bytes) \
    RMA_PAIR(shmem_get##BITS##_nbi, shmem_ctx_get##BITS##_nbi, void, BYTES, 0, shmemi_get_bytes)

SHMEMQ_SIZED_RMA(DEFINE_SIZED_RMA)

RMA_PAIR(shmem_putmem, shmem_ctx_putmem, void, 1, 1, shmemi_put_bytes)
RMA_PAIR(shmem_getmem, shmem_ctx_getmem, void, 1, 1, shmemi_get_bytes)
RMA_PAIR(shmem_putmem_nbi, shmem_ctx_putmem_nbi, void, 1, 0, shmemi_put_bytes)
RMA_PAIR(shmem_getmem_nbi, shmem_ctx_getmem_nbi, void, 1, 0, shmemi_get_bytes)
