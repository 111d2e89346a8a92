/* signal.c: put-with-signal and the signal routines.
 *
 * Ordering: the data must be visible at the target before the signal is, so
 *   data   -> a put completed at the target (SHMEMI_XP_REMOTE: MPI_Put + MPI_Win_flush,
 *             or a copy and a fence on the node transport);
 *   signal -> a uint64 atomic SET (SHMEM_SIGNAL_SET) or SUM (SHMEM_SIGNAL_ADD) whose
 *             operand is reusable on return (shmemi_xp_amo_now); the signal is remotely
 *             complete at the next quiet.
 * The _nbi forms order the same way (the flush costs one round trip; MPI has no
 * cheaper put-then-accumulate ordering across targets' windows). Signals are always
 * atomics of the atomic domain (xport.h), also to the calling PE, so adds from many PEs
 * are atomic together: CPU atomics when the job is one node, else MPI accumulates.
 * signal_fetch is a blocking fetch on the calling PE; signal_wait_until spins on atomic
 * loads with MPI_Win_sync + progress (see p2p.c). */
#include "shmemi_p2p.h"

static int signal_op(const char *routine, int sig_op, shmemi_xop_t *op)
{
    if (sig_op == SHMEM_SIGNAL_SET)
        *op = SHMEMI_XOP_SET;
    else if (sig_op == SHMEM_SIGNAL_ADD)
        *op = SHMEMI_XOP_SUM;
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

static void signal_update(const char *routine, const shmemi_target_t *t, uint64_t value,
                          shmemi_xop_t op)
{
    shmemi_xp_amo_now(routine, t, SHMEMI_XT_uint64, sizeof value, op, &value);
}

static void put_signal(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
                       size_t nelems, size_t elem, uint64_t *sig_addr, uint64_t signal,
                       int sig_op, int pe)
{
    shmemi_target_t st, dt;
    shmemi_xop_t op;
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
        /* data remotely complete (node: fenced) before the signal is issued */
        shmemi_xp_put(routine, &dt, src, nbytes, SHMEMI_XP_REMOTE);
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
    uint64_t value = 0, unused = 0; /* a fetch ignores its operand */
    shmemi_xp_fetch_op(routine, &t, SHMEMI_XT_uint64, sizeof value, SHMEMI_XOP_FETCH, &unused,
                       &value);
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
                       int pe, shmemi_xop_t op)
{
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(signal_target(routine, ctx, sig_addr, pe, &t)))
        return;
    signal_update(routine, &t, signal, op);
}

void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_rmw("shmem_ctx_signal_add", ctx, sig_addr, signal, pe, SHMEMI_XOP_SUM);
}
SHMEMI_PROFILE(shmem_ctx_signal_add)

void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_rmw("shmem_signal_add", SHMEM_CTX_DEFAULT, sig_addr, signal, pe, SHMEMI_XOP_SUM);
}
SHMEMI_PROFILE(shmem_signal_add)

void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_rmw("shmem_ctx_signal_set", ctx, sig_addr, signal, pe, SHMEMI_XOP_SET);
}
SHMEMI_PROFILE(shmem_ctx_signal_set)

void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_rmw("shmem_signal_set", SHMEM_CTX_DEFAULT, sig_addr, signal, pe, SHMEMI_XOP_SET);
}
SHMEMI_PROFILE(shmem_signal_set)
