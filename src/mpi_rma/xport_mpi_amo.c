/* xport_mpi_amo.c: the MPI transport's nonblocking atomics (xport.h, shmemi_mpi_amo_nbi)
 * and the operand ring they need.
 *
 *   non-fetching (set, add, inc, and/or/xor) -> MPI_Accumulate, no flush: they complete
 *       at quiet, as OpenSHMEM allows
 *   _nbi fetching forms -> MPI_Rget_accumulate / MPI_Compare_and_swap without a wait:
 *       quiet waits for their requests with back-off (shmemi_amo_quiet) before its flush,
 *       so PEs that swap each other's words inside quiet do not spin in lockstep inside
 *       MPI (the flush then only waits for compare_swap_nbi and non-fetching operations)
 *
 * MPI may read an origin operand until the operation completes locally, and OpenSHMEM
 * passes operands by value (they live on our stack), so every operation that returns
 * before completing copies its operands into a slot of a small ring. A slot is reused
 * only after its request completed and, for operations without a request of their own,
 * MPI_Win_flush_local on the window and rank of the operation that used it.
 * A window attribute with a delete callback forgets slots whose window is freed
 * (context destroyed, finalize), so no flush ever names a dead window. */
#include "xport_mpi.h"
#include <stdatomic.h>

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

/* Make slot s reusable: its operation no longer reads the operands. A request (fetching
 * forms) says so for Rget_accumulate; the rest need a local flush. Ring lock held. */
static inline void amo_slot_release(const char *routine, amo_slot_t *s)
{
    if (s->req != MPI_REQUEST_NULL) {
        SHMEMI_MPI_CHECK(routine, shmemi_mpi_wait_req(&s->req));
        amo_reqs--;
    }
    if (s->win != MPI_WIN_NULL && s->kind != SHMEMI_AMO_FOP)
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush_local(s->rank, s->win));
}

void shmemi_mpi_amo_nbi(const char *routine, const shmemi_target_t *t, shmemi_xtype_t xt,
                        size_t size, int kind, shmemi_xop_t xop, const void *v0, const void *v1,
                        void *result)
{
    MPI_Datatype dt = shmemi_mpi_type(xt);
    MPI_Op op = shmemi_mpi_op(xop);
    ring_lock();
    if (SHMEMI_UNLIKELY(!amo_ring_ready))
        amo_ring_init();
    amo_slot_t *s = &amo_ring[amo_next++ & (AMO_RING - 1)];
    amo_slot_release(routine, s);
    if (s->win != t->win)
        amo_tag(t->win);
    memcpy(&s->v[0], v0, size);
    if (kind == SHMEMI_AMO_ACC) {
        SHMEMI_MPI_CHECK(routine, MPI_Accumulate(&s->v[0], 1, dt, t->rank, t->disp, 1, dt, op,
                                                 t->win));
    } else if (kind == SHMEMI_AMO_FOP) {
        SHMEMI_MPI_CHECK(routine, MPI_Rget_accumulate(&s->v[0], 1, dt, result, 1, dt, t->rank,
                                                      t->disp, 1, dt, op, t->win, &s->req));
    } else {
        memcpy(&s->v[1], v1, size);
        SHMEMI_MPI_CHECK(routine, MPI_Compare_and_swap(&s->v[0], &s->v[1], result, dt, t->rank,
                                                       t->disp, t->win));
    }
    amo_reqs += s->req != MPI_REQUEST_NULL;
    s->win = t->win;
    s->rank = t->rank;
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
            SHMEMI_MPI_CHECK("shmem_quiet", shmemi_mpi_wait_req(&s->req));
            amo_reqs--;
        }
    }
    ring_unlock();
}
