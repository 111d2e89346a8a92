/* amo.c: atomic memory operations over MPI-3 accumulate operations (docs/amo.md).
 *
 *   blocking fetching (fetch, swap, fetch_add, fetch_inc, fetch_and/or/xor)
 *       -> MPI_Rget_accumulate (MPI_NO_OP / MPI_REPLACE / MPI_SUM / MPI_BAND/BOR/BXOR),
 *          its request waited with back-off, then MPI_Win_flush(rank): the result is
 *          valid and the update done on return (shmemi_mpi_fetch_op, xport_mpi.c)
 *   compare_swap -> MPI_Compare_and_swap + MPI_Win_flush(rank) (shmemi_mpi_cas: MPI has
 *          no request-based CAS)
 *   non-fetching (set, add, inc, and/or/xor) -> MPI_Accumulate, no flush: they complete
 *       at quiet, as OpenSHMEM allows
 *   _nbi fetching forms -> the same calls without the wait: quiet waits for their
 *       requests with back-off (shmemi_amo_quiet) before its flush, so PEs that swap
 *       each other's words inside quiet do not spin in lockstep inside MPI (the flush
 *       then only waits for compare_swap_nbi and non-fetching operations)
 *
 * MPI may read an origin operand until the operation completes locally, and OpenSHMEM
 * passes operands by value (they live on our stack), so every operation that returns
 * before completing copies its operands into a slot of a small ring. A slot is reused
 * only after its request completed and, for operations without a request of their own,
 * MPI_Win_flush_local on the window and rank of the operation that used it.
 * A window attribute with a delete callback forgets slots whose window is freed
 * (context destroyed, finalize), so no flush ever names a dead window.
 *
 * When the whole job is one node (shmemi.amo_direct, xport.h) every AMO is a CPU atomic
 * on the target's memory mapped here (the node transport): no MPI call, no target CPU.
 * Otherwise AMOs on the calling PE and on node peers go through MPI too: a CPU atomic
 * would not be atomic with the other PEs' accumulates.
 *
 * In a 1.6 batch session (src/queue/session.c, through the context's batch operations)
 * non-fetching AMOs go to the context's queue and fetching ones complete that queue
 * first. */
#include "shmemi_p2p.h"
#include <stdatomic.h>

/* ---- TYPENAME -> MPI datatype. Integers map to the fixed-width type of the same size
 * and signedness, so aliases (long / long long / int64_t / ptrdiff_t on LP64) are one
 * MPI basic datatype: MPI promises atomicity only between accumulates of the same
 * basic datatype. ---- */
#define AMO_SDT(T) (sizeof(T) == 8 ? MPI_INT64_T : MPI_INT32_T)
#define AMO_UDT(T) (sizeof(T) == 8 ? MPI_UINT64_T : MPI_UINT32_T)
#define SHMEMI_MPI_TYPE_float MPI_FLOAT
#define SHMEMI_MPI_TYPE_double MPI_DOUBLE
#define SHMEMI_MPI_TYPE_int AMO_SDT(int)
#define SHMEMI_MPI_TYPE_long AMO_SDT(long)
#define SHMEMI_MPI_TYPE_longlong AMO_SDT(long long)
#define SHMEMI_MPI_TYPE_uint AMO_UDT(unsigned int)
#define SHMEMI_MPI_TYPE_ulong AMO_UDT(unsigned long)
#define SHMEMI_MPI_TYPE_ulonglong AMO_UDT(unsigned long long)
#define SHMEMI_MPI_TYPE_int32 MPI_INT32_T
#define SHMEMI_MPI_TYPE_int64 MPI_INT64_T
#define SHMEMI_MPI_TYPE_uint32 MPI_UINT32_T
#define SHMEMI_MPI_TYPE_uint64 MPI_UINT64_T
#define SHMEMI_MPI_TYPE_size AMO_UDT(size_t)
#define SHMEMI_MPI_TYPE_ptrdiff AMO_SDT(ptrdiff_t)

#define AMO_CHECK_SIZE(T, N) \
    _Static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMO type " #N " is not 4 or 8 bytes");
SHMEMQ_AMO_EXT_TYPES(AMO_CHECK_SIZE)

/* ---- operand ring ---- */
#define AMO_RING 64 /* power of two */
typedef struct {
    uint64_t v[2];   /* operand, and the compare value of compare_swap */
    MPI_Request req; /* fetching forms: completes when the result is here */
    MPI_Win win;     /* MPI_WIN_NULL: free */
    int rank, kind;
} amo_slot_t;

static amo_slot_t amo_ring[AMO_RING];
static unsigned amo_next;
static unsigned amo_reqs; /* slots holding a request; changed under the ring lock */
static int amo_ring_ready;
static atomic_flag amo_lock = ATOMIC_FLAG_INIT;
static int amo_keyval = MPI_KEYVAL_INVALID;
#define AMO_TAGGED 4
static MPI_Win amo_tagged[AMO_TAGGED]; /* windows known to carry our attribute */
static unsigned amo_tag_next;

/* Only SHMEM_THREAD_MULTIPLE programs can race on the ring. */
static inline void ring_lock(void)
{
    if (SHMEMI_UNLIKELY(shmemi.thread_level == SHMEM_THREAD_MULTIPLE))
        while (atomic_flag_test_and_set_explicit(&amo_lock, memory_order_acquire))
            ;
}
static inline void ring_unlock(void)
{
    if (SHMEMI_UNLIKELY(shmemi.thread_level == SHMEM_THREAD_MULTIPLE))
        atomic_flag_clear_explicit(&amo_lock, memory_order_release);
}

/* MPI_Win_free calls this (after the window's operations completed): forget it.
 * No ring lock here: MPI may hold its own lock around this callback while another thread
 * holds the ring lock inside an MPI call, which would deadlock. OpenSHMEM forbids using
 * a context while it is destroyed, so no AMO posts to this window concurrently. */
static int amo_win_deleted(MPI_Win win, int keyval, void *attr, void *extra)
{
    (void)keyval, (void)attr, (void)extra;
    for (int i = 0; i < AMO_RING; i++)
        if (amo_ring[i].win == win) {
            /* Only a program that frees a window without quiet gets here with a request;
             * MPI_Win_free completed the operation, the request object remains. */
            if (amo_ring[i].req != MPI_REQUEST_NULL) {
                MPI_Request_free(&amo_ring[i].req);
                amo_reqs--;
            }
            amo_ring[i].win = MPI_WIN_NULL;
        }
    for (int i = 0; i < AMO_TAGGED; i++)
        if (amo_tagged[i] == win)
            amo_tagged[i] = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

static void amo_ring_init(void)
{
    for (int i = 0; i < AMO_RING; i++) {
        amo_ring[i].win = MPI_WIN_NULL;
        amo_ring[i].req = MPI_REQUEST_NULL;
    }
    for (int i = 0; i < AMO_TAGGED; i++)
        amo_tagged[i] = MPI_WIN_NULL;
    if (amo_keyval == MPI_KEYVAL_INVALID)
        MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, amo_win_deleted, &amo_keyval, NULL);
    amo_ring_ready = 1;
}

/* Make sure win carries the attribute whose delete callback clears the ring. */
static void amo_tag(MPI_Win win)
{
    for (int i = 0; i < AMO_TAGGED; i++)
        if (amo_tagged[i] == win)
            return;
    void *val;
    int flag = 0;
    MPI_Win_get_attr(win, amo_keyval, &val, &flag);
    if (!flag)
        MPI_Win_set_attr(win, amo_keyval, NULL);
    amo_tagged[amo_tag_next++ % AMO_TAGGED] = win;
}

/* ---- cores ---- */
enum { AMO_ACC = SHMEMI_AMO_ACC, AMO_FOP = SHMEMI_AMO_FOP, AMO_CAS = SHMEMI_AMO_CAS };

/* Origin for MPI_NO_OP: ignored by MPI, but some implementations touch the pointer. */
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
                           const void *value, void *result, size_t size, MPI_Datatype dt,
                           MPI_Op op, int pe)
{
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(amo_target(routine, ctx, dest, size, pe, &t)))
        return;
    if (value == NULL)
        value = amo_no_operand;
    if (SHMEMI_UNLIKELY(ctx->batch_ops != NULL)) /* fetch after this PE's queued updates */
        ctx->batch_ops->flush(ctx);
    if (shmemi_xp_node_amo(&t)) {
        shmemi_node_amo(t.local, size, AMO_FOP, op, value, NULL, result);
        return;
    }
    shmemi_mpi_fetch_op(routine, &t, value, result, dt, op);
}

static inline void amo_cas(const char *routine, shmem_ctx_t ctx, void *dest, const void *cond,
                           const void *value, void *result, size_t size, MPI_Datatype dt, int pe)
{
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(amo_target(routine, ctx, dest, size, pe, &t)))
        return;
    if (SHMEMI_UNLIKELY(ctx->batch_ops != NULL))
        ctx->batch_ops->flush(ctx);
    if (shmemi_xp_node_amo(&t)) {
        shmemi_node_amo(t.local, size, AMO_CAS, MPI_NO_OP, value, cond, result);
        return;
    }
    shmemi_mpi_cas(routine, &t, value, cond, result, dt, 0);
}

/* Make slot s reusable: its operation no longer reads the operands. A request (fetching
 * forms) says so for Rget_accumulate; the rest need a local flush. Ring lock held. */
static inline void amo_slot_release(const char *routine, amo_slot_t *s)
{
    if (s->req != MPI_REQUEST_NULL) {
        SHMEMI_MPI_CHECK(routine, shmemi_p2p_wait_req(&s->req));
        amo_reqs--;
    }
    if (s->win != MPI_WIN_NULL && s->kind != AMO_FOP)
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush_local(s->rank, s->win));
}

/* A non-fetching AMO into the context's batch (batch ops, shmemi.h): 0 when batched.
 * The datatypes are amo.c's fixed-width ones, passed on with their signedness, so the
 * queue's MPI path uses the same MPI datatype and MPI's same-datatype atomicity rule
 * holds between both paths. */
static int amo_batch(struct shmemq_ctx *ctx, const void *dest, const void *value,
                     MPI_Datatype dt, MPI_Op mpi_op, int rank)
{
    int op, type;
    if (mpi_op == MPI_SUM)
        op = SHMEMI_BATCH_ADD; /* inc arrives as add of 1 */
    else if (mpi_op == MPI_REPLACE)
        op = SHMEMI_BATCH_SET;
    else if (mpi_op == MPI_BAND)
        op = SHMEMI_BATCH_AND;
    else if (mpi_op == MPI_BOR)
        op = SHMEMI_BATCH_OR;
    else if (mpi_op == MPI_BXOR)
        op = SHMEMI_BATCH_XOR;
    else
        return -1;
    if (dt == MPI_INT64_T)
        type = SHMEMI_BATCH_INT64;
    else if (dt == MPI_UINT64_T)
        type = SHMEMI_BATCH_UINT64;
    else if (dt == MPI_INT32_T)
        type = SHMEMI_BATCH_INT32;
    else if (dt == MPI_UINT32_T)
        type = SHMEMI_BATCH_UINT32;
    else if (dt == MPI_DOUBLE)
        type = SHMEMI_BATCH_DOUBLE;
    else if (dt == MPI_FLOAT)
        type = SHMEMI_BATCH_FLOAT;
    else
        return -1;
    return ctx->batch_ops->amo(ctx, (void *)dest, value, type, op, rank);
}

/* Start an operation that completes at quiet: operands go to a ring slot first.
 * kind AMO_ACC: accumulate v0 (result unused); AMO_FOP: fetch-and-op v0 into result;
 * AMO_CAS: compare v1, swap in v0, old value into result. */
static inline void amo_post(const char *routine, shmem_ctx_t ctx, const void *dest,
                            const void *v0, const void *v1, void *result, size_t size,
                            MPI_Datatype dt, MPI_Op op, int pe, int kind)
{
    shmemi_target_t t;
    if (SHMEMI_UNLIKELY(amo_target(routine, ctx, dest, size, pe, &t)))
        return;
    if (SHMEMI_UNLIKELY(kind != AMO_ACC && result == NULL)) {
        shmemi_bad_arg(routine, "NULL fetch address");
        return;
    }
    if (SHMEMI_UNLIKELY(ctx->batch_ops != NULL)) { /* 1.6 batch session */
        if (kind == AMO_ACC && amo_batch(ctx, dest, v0, dt, op, t.rank) == 0)
            return;
        if (kind != AMO_ACC)
            ctx->batch_ops->flush(ctx);
    }
    if (shmemi_xp_node_amo(&t)) { /* complete at once: no operand copy needed */
        shmemi_node_amo(t.local, size, kind, op, v0, v1, result);
        return;
    }
    ring_lock();
    if (SHMEMI_UNLIKELY(!amo_ring_ready))
        amo_ring_init();
    amo_slot_t *s = &amo_ring[amo_next++ & (AMO_RING - 1)];
    amo_slot_release(routine, s);
    if (s->win != t.win)
        amo_tag(t.win);
    memcpy(&s->v[0], v0, size);
    if (kind == AMO_ACC) {
        SHMEMI_MPI_CHECK(routine, MPI_Accumulate(&s->v[0], 1, dt, t.rank, t.disp, 1, dt, op,
                                                 t.win));
    } else if (kind == AMO_FOP) {
        SHMEMI_MPI_CHECK(routine, MPI_Rget_accumulate(&s->v[0], 1, dt, result, 1, dt, t.rank,
                                                      t.disp, 1, dt, op, t.win, &s->req));
    } else {
        memcpy(&s->v[1], v1, size);
        SHMEMI_MPI_CHECK(routine, MPI_Compare_and_swap(&s->v[0], &s->v[1], result, dt, t.rank,
                                                       t.disp, t.win));
    }
    amo_reqs += s->req != MPI_REQUEST_NULL;
    s->win = t.win;
    s->rank = t.rank;
    s->kind = kind;
    ring_unlock();
}

void shmemi_amo_quiet(const struct shmemq_ctx *c)
{
    if (__atomic_load_n(&amo_reqs, __ATOMIC_RELAXED) == 0)
        return;
    ring_lock();
    for (int i = 0; i < AMO_RING && amo_reqs > 0; i++) {
        amo_slot_t *s = &amo_ring[i];
        if (s->req != MPI_REQUEST_NULL && (s->win == c->heap_win || s->win == c->data_win)) {
            SHMEMI_MPI_CHECK("shmem_quiet", shmemi_p2p_wait_req(&s->req));
            amo_reqs--;
        }
    }
    ring_unlock();
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
#define AMO_DT(N) SHMEMI_MPI_TYPE_##N

/* T fetch_OP(dest, value) and its _nbi and non-fetching forms, for one MPI op. */
#define AMO_OP3(K, T, N, OP, MPIOP)                                                          \
    T AMO_FN(K, N, fetch_##OP)(AMO_PARAM_##K T * dest, T value, int pe)                      \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_fop(AMO_STR(AMO_FN(K, N, fetch_##OP)), AMO_CTX_##K, dest, &value, &r, sizeof(T), \
                AMO_DT(N), MPIOP, pe);                                                       \
        return r;                                                                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch_##OP))                                                    \
    void AMO_FN(K, N, fetch_##OP##_nbi)(AMO_PARAM_##K T * fetch, T * dest, T value, int pe)  \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, fetch_##OP##_nbi)), AMO_CTX_##K, dest, &value, NULL,   \
                 fetch, sizeof(T), AMO_DT(N), MPIOP, pe, AMO_FOP);                           \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch_##OP##_nbi))                                              \
    void AMO_FN(K, N, OP)(AMO_PARAM_##K T * dest, T value, int pe)                           \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, OP)), AMO_CTX_##K, dest, &value, NULL, NULL, sizeof(T), \
                 AMO_DT(N), MPIOP, pe, AMO_ACC);                                             \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, OP))

#define AMO_EXT(K, T, N)                                                                     \
    T AMO_FN(K, N, fetch)(AMO_PARAM_##K const T *source, int pe)                             \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_fop(AMO_STR(AMO_FN(K, N, fetch)), AMO_CTX_##K, source, NULL, &r, sizeof(T),      \
                AMO_DT(N), MPI_NO_OP, pe);                                                   \
        return r;                                                                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch))                                                         \
    void AMO_FN(K, N, fetch_nbi)(AMO_PARAM_##K T * fetch, const T *source, int pe)           \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, fetch_nbi)), AMO_CTX_##K, source, amo_no_operand, NULL,\
                 fetch, sizeof(T), AMO_DT(N), MPI_NO_OP, pe, AMO_FOP);                       \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch_nbi))                                                     \
    void AMO_FN(K, N, set)(AMO_PARAM_##K T * dest, T value, int pe)                          \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, set)), AMO_CTX_##K, dest, &value, NULL, NULL,          \
                 sizeof(T), AMO_DT(N), MPI_REPLACE, pe, AMO_ACC);                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, set))                                                           \
    T AMO_FN(K, N, swap)(AMO_PARAM_##K T * dest, T value, int pe)                            \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_fop(AMO_STR(AMO_FN(K, N, swap)), AMO_CTX_##K, dest, &value, &r, sizeof(T),       \
                AMO_DT(N), MPI_REPLACE, pe);                                                 \
        return r;                                                                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, swap))                                                          \
    void AMO_FN(K, N, swap_nbi)(AMO_PARAM_##K T * fetch, T * dest, T value, int pe)          \
    {                                                                                        \
        amo_post(AMO_STR(AMO_FN(K, N, swap_nbi)), AMO_CTX_##K, dest, &value, NULL, fetch,    \
                 sizeof(T), AMO_DT(N), MPI_REPLACE, pe, AMO_FOP);                            \
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
                 fetch, sizeof(T), AMO_DT(N), MPI_NO_OP, pe, AMO_CAS);                       \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, compare_swap_nbi))                                              \
    T AMO_FN(K, N, fetch_inc)(AMO_PARAM_##K T * dest, int pe)                                \
    {                                                                                        \
        T one = 1, r = 0;                                                                    \
        amo_fop(AMO_STR(AMO_FN(K, N, fetch_inc)), AMO_CTX_##K, dest, &one, &r, sizeof(T),    \
                AMO_DT(N), MPI_SUM, pe);                                                     \
        return r;                                                                            \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch_inc))                                                     \
    void AMO_FN(K, N, fetch_inc_nbi)(AMO_PARAM_##K T * fetch, T * dest, int pe)              \
    {                                                                                        \
        T one = 1;                                                                           \
        amo_post(AMO_STR(AMO_FN(K, N, fetch_inc_nbi)), AMO_CTX_##K, dest, &one, NULL, fetch, \
                 sizeof(T), AMO_DT(N), MPI_SUM, pe, AMO_FOP);                                \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, fetch_inc_nbi))                                                 \
    void AMO_FN(K, N, inc)(AMO_PARAM_##K T * dest, int pe)                                   \
    {                                                                                        \
        T one = 1;                                                                           \
        amo_post(AMO_STR(AMO_FN(K, N, inc)), AMO_CTX_##K, dest, &one, NULL, NULL, sizeof(T), \
                 AMO_DT(N), MPI_SUM, pe, AMO_ACC);                                           \
    }                                                                                        \
    AMO_PROFILE(AMO_FN(K, N, inc))                                                           \
    AMO_OP3(K, T, N, add, MPI_SUM)

#define AMO_BIT(K, T, N) \
    AMO_OP3(K, T, N, and, MPI_BAND) AMO_OP3(K, T, N, or, MPI_BOR) AMO_OP3(K, T, N, xor, MPI_BXOR)

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
                AMO_DT(N), MPI_REPLACE, pe);                                                 \
        return r;                                                                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_swap)                                                         \
    T shmem_##N##_fetch(const T *target, int pe)                                             \
    {                                                                                        \
        T r = 0;                                                                             \
        amo_fop("shmem_" #N "_fetch", SHMEM_CTX_DEFAULT, target, NULL, &r, sizeof(T),        \
                AMO_DT(N), MPI_NO_OP, pe);                                                   \
        return r;                                                                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_fetch)                                                        \
    void shmem_##N##_set(T *target, T value, int pe)                                         \
    {                                                                                        \
        amo_post("shmem_" #N "_set", SHMEM_CTX_DEFAULT, target, &value, NULL, NULL,          \
                 sizeof(T), AMO_DT(N), MPI_REPLACE, pe, AMO_ACC);                            \
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
                AMO_DT(N), MPI_SUM, pe);                                                     \
        return r;                                                                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_fadd)                                                         \
    T shmem_##N##_finc(T *target, int pe)                                                    \
    {                                                                                        \
        T one = 1, r = 0;                                                                    \
        amo_fop("shmem_" #N "_finc", SHMEM_CTX_DEFAULT, target, &one, &r, sizeof(T),         \
                AMO_DT(N), MPI_SUM, pe);                                                     \
        return r;                                                                            \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_finc)                                                         \
    void shmem_##N##_add(T *target, T value, int pe)                                         \
    {                                                                                        \
        amo_post("shmem_" #N "_add", SHMEM_CTX_DEFAULT, target, &value, NULL, NULL,          \
                 sizeof(T), AMO_DT(N), MPI_SUM, pe, AMO_ACC);                                \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_add)                                                          \
    void shmem_##N##_inc(T *target, int pe)                                                  \
    {                                                                                        \
        T one = 1;                                                                           \
        amo_post("shmem_" #N "_inc", SHMEM_CTX_DEFAULT, target, &one, NULL, NULL, sizeof(T), \
                 AMO_DT(N), MPI_SUM, pe, AMO_ACC);                                           \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_inc)

SHMEMQ_AMO_OLD_EXT_TYPES(AMO_OLD_EXT)
SHMEMQ_AMO_OLD_STD_TYPES(AMO_OLD_STD)

long shmem_swap(long *target, long value, int pe)
{
    long r = 0;
    amo_fop("shmem_swap", SHMEM_CTX_DEFAULT, target, &value, &r, sizeof(long), AMO_DT(long),
            MPI_REPLACE, pe);
    return r;
}
SHMEMI_PROFILE(shmem_swap)
