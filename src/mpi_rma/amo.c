/* amo.c: the OpenSHMEM atomic memory operations (docs/amo.md), in the transport
 * interface's terms (xport.h): the element type and operation of each routine become
 * SHMEMI_XT_* and SHMEMI_XOP_*, and the transport of the target carries them.
 *
 *   blocking fetching (fetch, swap, fetch_add, fetch_inc, fetch_and/or/xor)
 *       -> shmemi_xp_fetch_op: the result is valid and the update done on return
 *   compare_swap -> shmemi_xp_cas
 *   non-fetching (set, add, inc, and/or/xor) and the _nbi fetching forms
 *       -> shmemi_xp_amo_nbi: complete at quiet, as OpenSHMEM allows; operands are
 *          copied by the transport (they live on our stack)
 *
 * The atomic domain (xport.h, shmemi_xp_amo_node): when the whole job is one node
 * (shmemi.amo_direct) or PEs of other nodes go through the AM transport (shmemi.offnode_am)
 * every AMO on a node's memory is a CPU atomic of that node: by this PE on node peers'
 * memory mapped here, by the target node's server for the others (xport_am.c). Otherwise
 * (SHMEMQ_OFFNODE=mpi) AMOs on the calling PE and on node peers go through MPI too: a CPU
 * atomic would not be atomic with the other PEs' accumulates. xport_mpi.c and
 * xport_mpi_amo.c say how MPI carries them.
 *
 * In a 1.6 batch session (src/queue/session.c, through the context's batch operations)
 * non-fetching AMOs go to the context's queue and fetching ones complete that queue
 * first. */
#include "shmemi_p2p.h"

#define AMO_CHECK_SIZE(T, N) \
    _Static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMO type " #N " is not 4 or 8 bytes");
SHMEMQ_AMO_EXT_TYPES(AMO_CHECK_SIZE)

/* ---- cores ---- */
enum { AMO_ACC = SHMEMI_AMO_ACC, AMO_FOP = SHMEMI_AMO_FOP, AMO_CAS = SHMEMI_AMO_CAS };

/* Operand of a fetch (no update): ignored, but some MPI implementations touch it. */
static const uint64_t amo_no_operand[2];

/* Checked target; the location must be naturally aligned (hardware atomics need it). */
static inline int amo_target(const char *routine, shmem_ctx_t ctx, const void *dest, size_t size,
                             int pe, shmemi_target_t *t)
{
    if (SHMEMI_UNLIKELY(shmemi_target(routine, ctx, dest, size, pe, t)))
        return -1;
    if (SHMEMI_UNLIKELY((uintptr_t)dest % size != 0)) {
        shmemi_bad_arg(routine, "address %p is not aligned to %zu bytes", dest, size);
        return -1;
    }
    return 0;
}

/* Blocking fetch-and-op: *result = old value; operands may live on the caller's stack. */
static inline void amo_fop(const char *routine, shmem_ctx_t ctx, const void *dest,
                           const void *value, void *result, size_t size, shmemi_xtype_t xt,
                           shmemi_xop_t op, int pe)
{
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(amo_target(routine, ctx, dest, size, pe, &t)))
        return;
    if (value == NULL)
        value = amo_no_operand;
    if (SHMEMI_UNLIKELY(ctx->batch_ops != NULL)) /* fetch after this PE's queued updates */
        ctx->batch_ops->flush(ctx);
    shmemi_xp_fetch_op(routine, &t, xt, size, op, value, result);
}

static inline void amo_cas(const char *routine, shmem_ctx_t ctx, void *dest, const void *cond,
                           const void *value, void *result, size_t size, shmemi_xtype_t xt, int pe)
{
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(amo_target(routine, ctx, dest, size, pe, &t)))
        return;
    if (SHMEMI_UNLIKELY(ctx->batch_ops != NULL))
        ctx->batch_ops->flush(ctx);
    shmemi_xp_cas(routine, &t, xt, size, value, cond, result, 0);
}

/* The batch operations' type of an AMO element type: the fixed-width type of its size
 * and signedness, so aliases (long / long long / int64_t) are one type there as they are
 * one MPI datatype in the MPI transport, and the queue's atomics stay atomic with ours. */
#define AMO_BATCH_TYPE_CASE(T, N)                                                            \
    case SHMEMI_XT_##N:                                                                      \
        return _Generic((T)0, float: SHMEMI_XT_float, double: SHMEMI_XT_double,              \
                        default: (T)-1 < (T)1                                                \
                                     ? (sizeof(T) == 8 ? SHMEMI_XT_int64 : SHMEMI_XT_int32)  \
                                     : (sizeof(T) == 8 ? SHMEMI_XT_uint64 : SHMEMI_XT_uint32));
static inline int amo_batch_type(shmemi_xtype_t xt)
{
    switch (xt) {
        SHMEMQ_AMO_EXT_TYPES(AMO_BATCH_TYPE_CASE)
    default:
        return -1;
    }
}
#undef AMO_BATCH_TYPE_CASE

/* A non-fetching AMO into the context's batch (batch ops, shmemi.h): 0 when batched. */
static int amo_batch(struct shmemq_ctx *ctx, const void *dest, const void *value,
                     shmemi_xtype_t xt, shmemi_xop_t xop, int rank)
{
    int type = amo_batch_type(xt);
    if (type < 0 || xop == SHMEMI_XOP_FETCH || xop == SHMEMI_XOP_CAS)
        return -1;
    return ctx->batch_ops->amo(ctx, (void *)dest, value, (shmemi_xtype_t)type, xop, rank);
}

/* Start an operation that completes at quiet. kind AMO_ACC: accumulate v0 (result
 * unused); AMO_FOP: fetch-and-op v0 into result; AMO_CAS: compare v1, swap in v0, old
 * value into result. */
static inline void amo_post(const char *routine, shmem_ctx_t ctx, const void *dest,
                            const void *v0, const void *v1, void *result, size_t size,
                            shmemi_xtype_t xt, shmemi_xop_t xop, int pe, int kind)
{
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(amo_target(routine, ctx, dest, size, pe, &t)))
        return;
    if (SHMEMI_UNLIKELY(kind != AMO_ACC && result == NULL)) {
        shmemi_bad_arg(routine, "NULL fetch address");
        return;
    }
    if (SHMEMI_UNLIKELY(ctx->batch_ops != NULL)) { /* 1.6 batch session */
        if (kind == AMO_ACC && amo_batch(ctx, dest, v0, xt, xop, t.rank) == 0)
            return;
        if (kind != AMO_ACC)
            ctx->batch_ops->flush(ctx);
    }
    shmemi_xp_amo_nbi(routine, &t, xt, size, kind, xop, v0, v1, result);
}

/* ---- public routines: each family is defined twice, K = ctx (explicit context) and
 * K = dflt (SHMEM_CTX_DEFAULT), from one body. ---- */
#define AMO_PARAM_ctx shmem_ctx_t ctx,
#define AMO_PARAM_dflt
#define AMO_CTX_ctx ctx
#define AMO_CTX_dflt SHMEM_CTX_DEFAULT
#define AMO_PFX_ctx shmem_ctx_
#define AMO_PFX_dflt shmem_
#define AMO_FN(K, N, OP) SHMEMQ_CAT(SHMEMQ_CAT(AMO_PFX_##K, N), _atomic_##OP)
#define AMO_STR_(x) #x
#define AMO_STR(x) AMO_STR_(x)
#define AMO_PROFILE(name) SHMEMI_PROFILE(name)
#define AMO_DT(N) SHMEMI_XT_##N

/* T fetch_OP(dest, value) and its _nbi and non-fetching forms, for one operation. */
#define AMO_OP3(K, T, N, OP, XOP)                                                          \
    T AMO_FN(K, N, fetch_##OP)(AMO_PARAM_##K T * dest, T value, int pe)                      \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_fop(AMO_STR(AMO_FN(K, N, fetch_##OP)), AMO_CTX_##K, dest, &value, &r, sizeof(T), \
                AMO_DT(N), XOP, pe);                                                       \
        return r;                                                                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch_##OP))                                                    \
    void AMO_FN(K, N, fetch_##OP##_nbi)(AMO_PARAM_##K T * fetch, T * dest, T value, int pe)  \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, fetch_##OP##_nbi)), AMO_CTX_##K, dest, &value, NULL,   \
                 fetch, sizeof(T), AMO_DT(N), XOP, pe, AMO_FOP);                           \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch_##OP##_nbi))                                              \
    void AMO_FN(K, N, OP)(AMO_PARAM_##K T * dest, T value, int pe)                           \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, OP)), AMO_CTX_##K, dest, &value, NULL, NULL, sizeof(T), \
                 AMO_DT(N), XOP, pe, AMO_ACC);                                             \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, OP))

#define AMO_EXT(K, T, N)                                                                     \
    T AMO_FN(K, N, fetch)(AMO_PARAM_##K const T *source, int pe)                             \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_fop(AMO_STR(AMO_FN(K, N, fetch)), AMO_CTX_##K, source, NULL, &r, sizeof(T),      \
                AMO_DT(N), SHMEMI_XOP_FETCH, pe);                                                   \
        return r;                                                                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch))                                                         \
    void AMO_FN(K, N, fetch_nbi)(AMO_PARAM_##K T * fetch, const T *source, int pe)           \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, fetch_nbi)), AMO_CTX_##K, source, amo_no_operand, NULL,\
                 fetch, sizeof(T), AMO_DT(N), SHMEMI_XOP_FETCH, pe, AMO_FOP);                       \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch_nbi))                                                     \
    void AMO_FN(K, N, set)(AMO_PARAM_##K T * dest, T value, int pe)                          \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, set)), AMO_CTX_##K, dest, &value, NULL, NULL,          \
                 sizeof(T), AMO_DT(N), SHMEMI_XOP_SET, pe, AMO_ACC);                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, set))                                                           \
    T AMO_FN(K, N, swap)(AMO_PARAM_##K T * dest, T value, int pe)                            \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_fop(AMO_STR(AMO_FN(K, N, swap)), AMO_CTX_##K, dest, &value, &r, sizeof(T),       \
                AMO_DT(N), SHMEMI_XOP_SET, pe);                                                 \
        return r;                                                                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, swap))                                                          \
    void AMO_FN(K, N, swap_nbi)(AMO_PARAM_##K T * fetch, T * dest, T value, int pe)          \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, swap_nbi)), AMO_CTX_##K, dest, &value, NULL, fetch,    \
                 sizeof(T), AMO_DT(N), SHMEMI_XOP_SET, pe, AMO_FOP);                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, swap_nbi))

#define AMO_STD(K, T, N)                                                                     \
    T AMO_FN(K, N, compare_swap)(AMO_PARAM_##K T * dest, T cond, T value, int pe)            \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_cas(AMO_STR(AMO_FN(K, N, compare_swap)), AMO_CTX_##K, dest, &cond, &value, &r,   \
                sizeof(T), AMO_DT(N), pe);                                                   \
        return r;                                                                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, compare_swap))                                                  \
    void AMO_FN(K, N, compare_swap_nbi)(AMO_PARAM_##K T * fetch, T * dest, T cond, T value,  \
                                        int pe)                                              \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, compare_swap_nbi)), AMO_CTX_##K, dest, &value, &cond,  \
                 fetch, sizeof(T), AMO_DT(N), SHMEMI_XOP_FETCH, pe, AMO_CAS);                       \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, compare_swap_nbi))                                              \
    T AMO_FN(K, N, fetch_inc)(AMO_PARAM_##K T * dest, int pe)                                \
    {                                                                                        \
        T one = 1, r = 0;                                                                    \
        amo_fop(AMO_STR(AMO_FN(K, N, fetch_inc)), AMO_CTX_##K, dest, &one, &r, sizeof(T),    \
                AMO_DT(N), SHMEMI_XOP_SUM, pe);                                                     \
        return r;                                                                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch_inc))                                                     \
    void AMO_FN(K, N, fetch_inc_nbi)(AMO_PARAM_##K T * fetch, T * dest, int pe)              \
    {                                                                                        \
        T one = 1;                                                                           \
        amo_post(AMO_STR(AMO_FN(K, N, fetch_inc_nbi)), AMO_CTX_##K, dest, &one, NULL, fetch, \
                 sizeof(T), AMO_DT(N), SHMEMI_XOP_SUM, pe, AMO_FOP);                                \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch_inc_nbi))                                                 \
    void AMO_FN(K, N, inc)(AMO_PARAM_##K T * dest, int pe)                                   \
    {                                                                                        \
        T one = 1;                                                                           \
        amo_post(AMO_STR(AMO_FN(K, N, inc)), AMO_CTX_##K, dest, &one, NULL, NULL, sizeof(T), \
                 AMO_DT(N), SHMEMI_XOP_SUM, pe, AMO_ACC);                                           \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, inc))                                                           \
    AMO_OP3(K, T, N, add, SHMEMI_XOP_SUM)

#define AMO_BIT(K, T, N) \
    AMO_OP3(K, T, N, and, SHMEMI_XOP_AND) AMO_OP3(K, T, N, or, SHMEMI_XOP_OR) AMO_OP3(K, T, N, xor, SHMEMI_XOP_XOR)

#define AMO_EXT_BOTH(T, N) AMO_EXT(ctx, T, N) AMO_EXT(dflt, T, N)
#define AMO_STD_BOTH(T, N) AMO_STD(ctx, T, N) AMO_STD(dflt, T, N)
#define AMO_BIT_BOTH(T, N) AMO_BIT(ctx, T, N) AMO_BIT(dflt, T, N)
SHMEMQ_AMO_EXT_TYPES(AMO_EXT_BOTH)
SHMEMQ_AMO_STD_TYPES(AMO_STD_BOTH)
SHMEMQ_AMO_BIT_TYPES(AMO_BIT_BOTH)

/* ---- deprecated 1.3 names: the same cores, reported under their own names ---- */
#define AMO_OLD_EXT(T, N)                                                                    \
    T shmem_##N##_swap(T *target, T value, int pe)                                           \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_fop("shmem_" #N "_swap", SHMEM_CTX_DEFAULT, target, &value, &r, sizeof(T),       \
                AMO_DT(N), SHMEMI_XOP_SET, pe);                                                 \
        return r;                                                                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_swap)                                                         \
    T shmem_##N##_fetch(const T *target, int pe)                                             \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_fop("shmem_" #N "_fetch", SHMEM_CTX_DEFAULT, target, NULL, &r, sizeof(T),        \
                AMO_DT(N), SHMEMI_XOP_FETCH, pe);                                                   \
        return r;                                                                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_fetch)                                                        \
    void shmem_##N##_set(T *target, T value, int pe)                                         \
    {                                                                                        \
        amo_post("shmem_" #N "_set", SHMEM_CTX_DEFAULT, target, &value, NULL, NULL,          \
                 sizeof(T), AMO_DT(N), SHMEMI_XOP_SET, pe, AMO_ACC);                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_set)

#define AMO_OLD_STD(T, N)                                                                    \
    T shmem_##N##_cswap(T *target, T cond, T value, int pe)                                  \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_cas("shmem_" #N "_cswap", SHMEM_CTX_DEFAULT, target, &cond, &value, &r,          \
                sizeof(T), AMO_DT(N), pe);                                                   \
        return r;                                                                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_cswap)                                                        \
    T shmem_##N##_fadd(T *target, T value, int pe)                                           \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_fop("shmem_" #N "_fadd", SHMEM_CTX_DEFAULT, target, &value, &r, sizeof(T),       \
                AMO_DT(N), SHMEMI_XOP_SUM, pe);                                                     \
        return r;                                                                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_fadd)                                                         \
    T shmem_##N##_finc(T *target, int pe)                                                    \
    {                                                                                        \
        T one = 1, r = 0;                                                                    \
        amo_fop("shmem_" #N "_finc", SHMEM_CTX_DEFAULT, target, &one, &r, sizeof(T),         \
                AMO_DT(N), SHMEMI_XOP_SUM, pe);                                                     \
        return r;                                                                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_finc)                                                         \
    void shmem_##N##_add(T *target, T value, int pe)                                         \
    {                                                                                        \
        amo_post("shmem_" #N "_add", SHMEM_CTX_DEFAULT, target, &value, NULL, NULL,          \
                 sizeof(T), AMO_DT(N), SHMEMI_XOP_SUM, pe, AMO_ACC);                                \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_add)                                                          \
    void shmem_##N##_inc(T *target, int pe)                                                  \
    {                                                                                        \
        T one = 1;                                                                           \
        amo_post("shmem_" #N "_inc", SHMEM_CTX_DEFAULT, target, &one, NULL, NULL, sizeof(T), \
                 AMO_DT(N), SHMEMI_XOP_SUM, pe, AMO_ACC);                                           \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_inc)

SHMEMQ_AMO_OLD_EXT_TYPES(AMO_OLD_EXT)
SHMEMQ_AMO_OLD_STD_TYPES(AMO_OLD_STD)

long shmem_swap(long *target, long value, int pe)
{
    long r = 0;
    amo_fop("shmem_swap", SHMEM_CTX_DEFAULT, target, &value, &r, sizeof(long), AMO_DT(long),
            SHMEMI_XOP_SET, pe);
    return r;
}
SHMEMI_PROFILE(shmem_swap)
