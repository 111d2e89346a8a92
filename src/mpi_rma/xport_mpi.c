/* xport_mpi.c: the MPI transport (xport.h): contiguous bytes, blocking atomics,
 * completion. Nonblocking atomics are in xport_mpi_amo.c, strided transfers in
 * xport_mpi_strided.c, the comm queue's bursts in xport_mpi_burst.c.
 *
 * Byte movers: MPI_Put/MPI_Get on the target's window, split at SHMEMI_MAX_MPI_COUNT (MPI
 * counts are int; shmemi_mpi_bytes is the one split loop). A blocking put ends with
 * MPI_Win_flush_local (source reusable), a blocking get with MPI_Win_flush; nbi forms
 * complete at quiet (MPI_Win_flush_all).
 *
 * Blocking fetching atomics do not wait inside MPI_Win_flush while the target still has
 * to act (MPICH ch4 applies accumulates as active messages at the target): they wait on
 * an MPI_Rget_accumulate request with progress, yields and a randomised back-off
 * (shmemi_mpi_wait_req), so PEs that outnumber the cores give the target theirs and PEs
 * atomically hitting each other drift out of lockstep; the flush that follows only
 * confirms what the reply showed (MPI calls a request-based accumulate complete at the
 * origin, not at the target).
 * MPI has no request-based compare-and-swap: on request a fetching no-op on the same word,
 * ordered after it by MPI's default accumulate_ordering, stands in as its request. That
 * costs a second round trip (MPICH off-node blocking CAS 1.0 M/s without, 0.5 M/s with;
 * Open MPI 0.6 against 0.26 M/s), so only the lock, whose waits are the contended ones,
 * asks for it; compare_swap waits in the flush. */
#include "xport_mpi.h"

int shmemi_mpi_bytes(int is_get, char *buf, size_t len, int rank, MPI_Aint disp, MPI_Win win)
{
    int rc = MPI_SUCCESS;
    for (size_t done = 0; done < len && rc == MPI_SUCCESS;) {
        size_t k = len - done < SHMEMI_MAX_MPI_COUNT ? len - done : SHMEMI_MAX_MPI_COUNT;
        if (is_get)
            rc = MPI_Get(buf + done, (int)k, MPI_BYTE, rank, disp + (MPI_Aint)done, (int)k,
                         MPI_BYTE, win);
        else
            rc = MPI_Put(buf + done, (int)k, MPI_BYTE, rank, disp + (MPI_Aint)done, (int)k,
                         MPI_BYTE, win);
        done += k;
    }
    return rc;
}

void shmemi_mpi_put(const char *routine, const shmemi_target_t *t, const void *src, size_t n,
                    int done)
{
    SHMEMI_MPI_CHECK(routine, shmemi_mpi_bytes(0, (char *)src, n, t->rank, t->disp, t->win));
    if (done == SHMEMI_XP_LOCAL)
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush_local(t->rank, t->win));
    else if (done == SHMEMI_XP_REMOTE)
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t->rank, t->win));
}

void shmemi_mpi_get(const char *routine, const shmemi_target_t *t, void *dest, size_t n,
                    int done)
{
    SHMEMI_MPI_CHECK(routine, shmemi_mpi_bytes(1, (char *)dest, n, t->rank, t->disp, t->win));
    if (done != SHMEMI_XP_NBI)
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t->rank, t->win));
}

/* A fetching no-op on t's word, ordered after this PE's earlier atomics on it: its
 * request completing means they were applied at the target. */
static int order_probe(const shmemi_target_t *t, void *result, MPI_Datatype dt,
                       MPI_Request *req)
{
    static const uint64_t unused[1]; /* MPI_NO_OP ignores its operand */
    return MPI_Rget_accumulate(unused, 1, dt, result, 1, dt, t->rank, t->disp, 1, dt, MPI_NO_OP,
                               t->win, req);
}

void shmemi_mpi_fetch_op(const char *routine, const shmemi_target_t *t, shmemi_xtype_t xt,
                         shmemi_xop_t op, const void *value, void *result)
{
    MPI_Datatype dt = shmemi_mpi_type(xt);
    MPI_Request req;
    SHMEMI_MPI_CHECK(routine, MPI_Rget_accumulate(value, 1, dt, result, 1, dt, t->rank, t->disp,
                                                  1, dt, shmemi_mpi_op(op), t->win, &req));
    SHMEMI_MPI_CHECK(routine, shmemi_mpi_wait_req(&req));
    SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t->rank, t->win));
}

void shmemi_mpi_cas(const char *routine, const shmemi_target_t *t, shmemi_xtype_t xt,
                    const void *value, const void *cond, void *result, int ordered)
{
    MPI_Datatype dt = shmemi_mpi_type(xt);
    SHMEMI_MPI_CHECK(routine,
                     MPI_Compare_and_swap(value, cond, result, dt, t->rank, t->disp, t->win));
    if (ordered) {
        uint64_t after; /* the probe's value, unused */
        MPI_Request req;
        SHMEMI_MPI_CHECK(routine, order_probe(t, &after, dt, &req));
        SHMEMI_MPI_CHECK(routine, shmemi_mpi_wait_req(&req));
    }
    SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t->rank, t->win));
}

void shmemi_mpi_amo_now(const char *routine, const shmemi_target_t *t, shmemi_xtype_t xt,
                        shmemi_xop_t op, const void *value)
{
    MPI_Datatype dt = shmemi_mpi_type(xt);
    SHMEMI_MPI_CHECK(routine, MPI_Accumulate(value, 1, dt, t->rank, t->disp, 1, dt,
                                             shmemi_mpi_op(op), t->win));
    /* An accumulate to the calling PE may be held back by MPI until a flush (MPICH
     * does so on MPI_Win_create windows), and nothing else would flush it before the
     * local wait that expects it: complete it now; it costs no network round trip. */
    if (t->rank == shmemi.my_pe)
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t->rank, t->win));
    else
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush_local(t->rank, t->win));
}

void shmemi_mpi_quiet(const char *routine, const struct shmemq_ctx *c)
{
    shmemi_amo_quiet(c); /* fetching nbi atomics: waited with back-off, not in MPI */
    SHMEMI_MPI_CHECK(routine, MPI_Win_flush_all(c->heap_win));
    SHMEMI_MPI_CHECK(routine, MPI_Win_flush_all(c->data_win));
}

void shmemi_mpi_quiet_rank(const char *routine, const struct shmemq_ctx *c, int rank)
{
    SHMEMI_MPI_CHECK(routine, MPI_Win_flush(rank, c->heap_win));
    SHMEMI_MPI_CHECK(routine, MPI_Win_flush(rank, c->data_win));
}
