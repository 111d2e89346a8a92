/* xport_mpi.c: the MPI transport (xport.h).
 *
 * Byte movers: MPI_Put/MPI_Get on the target's window, split at SHMEMI_MAX_MPI_COUNT (MPI
 * counts are int). Completion is the caller's: a flush, or quiet.
 *
 * Blocking fetching atomics do not wait inside MPI_Win_flush while the target still has
 * to act (MPICH ch4 applies accumulates as active messages at the target): they wait on
 * an MPI_Rget_accumulate request with progress, yields and a randomised back-off
 * (shmemi_p2p_wait_req), so PEs that outnumber the cores give the target theirs and PEs
 * atomically hitting each other drift out of lockstep; the flush that follows only
 * confirms what the reply showed (MPI calls a request-based accumulate complete at the
 * origin, not at the target).
 * MPI has no request-based compare-and-swap: on request a fetching no-op on the same word,
 * ordered after it by MPI's default accumulate_ordering, stands in as its request. That
 * costs a second round trip (MPICH off-node blocking CAS 1.0 M/s without, 0.5 M/s with;
 * Open MPI 0.6 against 0.26 M/s), so only the lock, whose waits are the contended ones,
 * asks for it; compare_swap waits in the flush. */
#include "shmemi_p2p.h"

void shmemi_mpi_put(const char *routine, const shmemi_target_t *t, const void *src, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t k = n - done < SHMEMI_MAX_MPI_COUNT ? n - done : SHMEMI_MAX_MPI_COUNT;
        SHMEMI_MPI_CHECK(routine, MPI_Put((const char *)src + done, (int)k, MPI_BYTE, t->rank,
                                          t->disp + (MPI_Aint)done, (int)k, MPI_BYTE, t->win));
        done += k;
    }
}

void shmemi_mpi_get(const char *routine, const shmemi_target_t *t, void *dest, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t k = n - done < SHMEMI_MAX_MPI_COUNT ? n - done : SHMEMI_MAX_MPI_COUNT;
        SHMEMI_MPI_CHECK(routine, MPI_Get((char *)dest + done, (int)k, MPI_BYTE, t->rank,
                                          t->disp + (MPI_Aint)done, (int)k, MPI_BYTE, t->win));
        done += k;
    }
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

void shmemi_mpi_fetch_op(const char *routine, const shmemi_target_t *t, const void *value,
                         void *result, MPI_Datatype dt, MPI_Op op)
{
    MPI_Request req;
    SHMEMI_MPI_CHECK(routine, MPI_Rget_accumulate(value, 1, dt, result, 1, dt, t->rank, t->disp,
                                                  1, dt, op, t->win, &req));
    SHMEMI_MPI_CHECK(routine, shmemi_p2p_wait_req(&req));
    SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t->rank, t->win));
}

void shmemi_mpi_cas(const char *routine, const shmemi_target_t *t, const void *value,
                    const void *cond, void *result, MPI_Datatype dt, int probe)
{
    SHMEMI_MPI_CHECK(routine,
                     MPI_Compare_and_swap(value, cond, result, dt, t->rank, t->disp, t->win));
    if (probe) {
        uint64_t after; /* the probe's value, unused */
        MPI_Request req;
        SHMEMI_MPI_CHECK(routine, order_probe(t, &after, dt, &req));
        SHMEMI_MPI_CHECK(routine, shmemi_p2p_wait_req(&req));
    }
    SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t->rank, t->win));
}

