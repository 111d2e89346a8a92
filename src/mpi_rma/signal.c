/* signal.c: put-with-signal and the signal routines.
 *
 * Ordering: the data must be visible at the target before the signal is, so
 *   data   -> MPI_Put (split at SHMEMI_MAX_MPI_COUNT), then MPI_Win_flush(target):
 *             remote completion of the data;
 *   signal -> MPI_Accumulate of one uint64 with MPI_REPLACE (SHMEM_SIGNAL_SET) or
 *             MPI_SUM (SHMEM_SIGNAL_ADD), then MPI_Win_flush_local (its origin buffer is
 *             on our stack; MPI_Win_flush when the target is the calling PE); the
 *             signal is remotely complete at the next quiet.
 * The _nbi forms order the same way (the flush costs one round trip; MPI has no
 * cheaper put-then-accumulate ordering across targets' windows). Signals are always
 * accumulates, also to the calling PE, so adds from many PEs are atomic together.
 * Node peers (xport.h): the data is a copy, the signal a CPU atomic when the job is
 * one node (else still an accumulate, after a fence).
 * signal_fetch is MPI_Fetch_and_op(MPI_NO_OP) on the calling PE; signal_wait_until
 * spins on atomic loads with MPI_Win_sync + progress (see p2p.c). */
#include "shmemi_p2p.h"

static int signal_op(const char *routine, int sig_op, MPI_Op *op)
{
    if (sig_op == SHMEM_SIGNAL_SET)
        *op = MPI_REPLACE;
    else if (sig_op == SHMEM_SIGNAL_ADD)
        *op = MPI_SUM;
    else {
        shmemi_bad_arg(routine, "invalid sig_op %d", sig_op);
        return -1;
    }
    return 0;
}

static int signal_target(const char *routine, shmem_ctx_t ctx, const uint64_t *sig_addr, int pe,
                         shmemi_target_t *t)
{
    if (SHMEMI_UNLIKELY(shmemi_target(routine, ctx, sig_addr, sizeof(uint64_t), pe, t)))
        return -1;
    if (SHMEMI_UNLIKELY(((uintptr_t)sig_addr & (sizeof(uint64_t) - 1)) != 0)) {
        shmemi_bad_arg(routine, "sig_addr %p is not 8-byte aligned", (const void *)sig_addr);
        return -1;
    }
    return 0;
}

static void signal_update(const char *routine, const shmemi_target_t *t, uint64_t value, MPI_Op op)
{
    if (shmemi_xp_node_amo(t)) { /* seq_cst: after the data stores, as the flush orders */
        shmemi_node_amo(t->local, sizeof value, SHMEMI_AMO_ACC, op, &value, NULL, NULL);
        return;
    }
    SHMEMI_MPI_CHECK(routine, MPI_Accumulate(&value, 1, MPI_UINT64_T, t->rank, t->disp, 1,
                                             MPI_UINT64_T, op, t->win));
    /* An accumulate to the calling PE may be held back by MPI until a flush (MPICH
     * does so on MPI_Win_create windows), and nothing else would flush it before the
     * local wait that expects it: complete it now; it costs no network round trip. */
    if (t->rank == shmemi.my_pe)
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t->rank, t->win));
    else
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush_local(t->rank, t->win));
}

static void put_signal(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
                       size_t nelems, size_t elem, uint64_t *sig_addr, uint64_t signal,
                       int sig_op, int pe)
{
    shmemi_target_t st, dt;
    MPI_Op op;
    if (SHMEMI_UNLIKELY(signal_op(routine, sig_op, &op)))
        return;
    if (SHMEMI_UNLIKELY(elem != 0 && nelems > SIZE_MAX / elem)) {
        shmemi_bad_arg(routine, "%zu elements of %zu bytes overflow", nelems, elem);
        return;
    }
    size_t nbytes = nelems * elem;
    if (SHMEMI_UNLIKELY(signal_target(routine, ctx, sig_addr, pe, &st)))
        return;
    if (SHMEMI_UNLIKELY(shmemi_target(routine, ctx, dest, nbytes, pe, &dt)))
        return;
    if (nbytes > 0) {
        if (SHMEMI_UNLIKELY(src == NULL)) {
            shmemi_bad_arg(routine, "NULL source with %zu bytes", nbytes);
            return;
        }
        if (shmemi_xp_node_bytes(&dt)) {
            memmove(dt.local, src, nbytes);
            shmemi_node_quiet(); /* the data before the signal, whichever path it takes */
        } else {
            shmemi_mpi_put(routine, &dt, src, nbytes);
            /* data remotely complete before the signal is issued */
            SHMEMI_MPI_CHECK(routine, MPI_Win_flush(dt.rank, dt.win));
        }
    }
    signal_update(routine, &st, signal, op);
}

#define PUT_SIGNAL_FAMILY(NAME, CTXNAME, T, SIZE)                                            \
    void CTXNAME(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,                   \
                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                    \
    {                                                                                        \
        put_signal(#CTXNAME, ctx, dest, source, nelems, SIZE, sig_addr, signal, sig_op, pe); \
    }                                                                                        \
    SHMEMI_PROFILE(CTXNAME)                                                                  \
    void NAME(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
              int sig_op, int pe)                                                            \
    {                                                                                        \
        put_signal(#NAME, SHMEM_CTX_DEFAULT, dest, source, nelems, SIZE, sig_addr, signal,   \
                   sig_op, pe);                                                              \
    }                                                                                        \
    SHMEMI_PROFILE(NAME)

#define DEFINE_TYPED_PUT_SIGNAL(T, N)                                                          \
    PUT_SIGNAL_FAMILY(shmem_##N##_put_signal, shmem_ctx_##N##_put_signal, T, sizeof(T))        \
    PUT_SIGNAL_FAMILY(shmem_##N##_put_signal_nbi, shmem_ctx_##N##_put_signal_nbi, T, sizeof(T))
SHMEMQ_RMA_TYPES(DEFINE_TYPED_PUT_SIGNAL)

#define DEFINE_SIZED_PUT_SIGNAL(BITS, BYTES)                                                 \
    PUT_SIGNAL_FAMILY(shmem_put##BITS##_signal, shmem_ctx_put##BITS##_signal, void, BYTES)   \
    PUT_SIGNAL_FAMILY(shmem_put##BITS##_signal_nbi, shmem_ctx_put##BITS##_signal_nbi, void,  \
                      BYTES)
SHMEMQ_SIZED_RMA(DEFINE_SIZED_PUT_SIGNAL)

PUT_SIGNAL_FAMILY(shmem_putmem_signal, shmem_ctx_putmem_signal, void, 1)
PUT_SIGNAL_FAMILY(shmem_putmem_signal_nbi, shmem_ctx_putmem_signal_nbi, void, 1)

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    static const char *routine = "shmem_signal_fetch";
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(signal_target(routine, SHMEM_CTX_DEFAULT, sig_addr, shmemi.my_pe, &t)))
        return 0;
    uint64_t value = 0;
    if (shmemi_xp_node_amo(&t)) {
        shmemi_node_amo(t.local, sizeof value, SHMEMI_AMO_FOP, MPI_NO_OP, NULL, NULL, &value);
        return value;
    }
    SHMEMI_MPI_CHECK(routine, MPI_Fetch_and_op(NULL, &value, MPI_UINT64_T, t.rank, t.disp,
                                               MPI_NO_OP, t.win));
    SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t.rank, t.win));
    return value;
}
SHMEMI_PROFILE(shmem_signal_fetch)

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    static const char *routine = "shmem_signal_wait_until";
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(signal_target(routine, SHMEM_CTX_DEFAULT, sig_addr, shmemi.my_pe, &t)))
        return 0;
    if (SHMEMI_UNLIKELY(cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_GE)) {
        shmemi_bad_arg(routine, "invalid comparison operator %d", cmp);
        return 0;
    }
    for (unsigned spins = 0;;) {
        uint64_t v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
        int ok;
        switch (cmp) {
        case SHMEM_CMP_EQ: ok = v == cmp_value; break;
        case SHMEM_CMP_NE: ok = v != cmp_value; break;
        case SHMEM_CMP_GT: ok = v > cmp_value; break;
        case SHMEM_CMP_LE: ok = v <= cmp_value; break;
        case SHMEM_CMP_LT: ok = v < cmp_value; break;
        default: ok = v >= cmp_value; break;
        }
        if (ok)
            return v;
        shmemi_wait_poll(t.win, &spins);
    }
}
SHMEMI_PROFILE(shmem_signal_wait_until)

static void signal_rmw(const char *routine, shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal,
                       int pe, MPI_Op op)
{
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(signal_target(routine, ctx, sig_addr, pe, &t)))
        return;
    signal_update(routine, &t, signal, op);
}

void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_rmw("shmem_ctx_signal_add", ctx, sig_addr, signal, pe, MPI_SUM);
}
SHMEMI_PROFILE(shmem_ctx_signal_add)

void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_rmw("shmem_signal_add", SHMEM_CTX_DEFAULT, sig_addr, signal, pe, MPI_SUM);
}
SHMEMI_PROFILE(shmem_signal_add)

void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_rmw("shmem_ctx_signal_set", ctx, sig_addr, signal, pe, MPI_REPLACE);
}
SHMEMI_PROFILE(shmem_ctx_signal_set)

void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_rmw("shmem_signal_set", SHMEM_CTX_DEFAULT, sig_addr, signal, pe, MPI_REPLACE);
}
SHMEMI_PROFILE(shmem_signal_set)
