/* xport_mpi.h: inside the MPI transport (xport_mpi*.c): the neutral types and ops of
 * xport_types.h as MPI sees them, and the request wait every MPI file uses. Nothing
 * outside the MPI transport includes this (amo.c only to hand MPI terms to session.c,
 * until sessions speak the neutral ones). */
#ifndef SHMEMI_XPORT_MPI_H
#define SHMEMI_XPORT_MPI_H

#include "xport.h"
#include <sched.h>

/* Integers map to the fixed-width MPI type of the same size and signedness, so aliases
 * (long / long long / int64_t / ptrdiff_t on LP64) are one MPI basic datatype: MPI
 * promises atomicity only between accumulates of the same basic datatype, and the
 * OpenSHMEM atomics, the comm queue's atomic bursts and sessions must be atomic
 * together. char (neither signed nor unsigned for MPI) is only ever moved, not summed. */
#define SHMEMI_MPI_INT_(T)                                                                    \
    ((T)-1 < (T)1 ? (sizeof(T) == 1   ? MPI_INT8_T                                            \
                     : sizeof(T) == 2 ? MPI_INT16_T                                           \
                     : sizeof(T) == 4 ? MPI_INT32_T                                           \
                                      : MPI_INT64_T)                                          \
                  : (sizeof(T) == 1   ? MPI_UINT8_T                                           \
                     : sizeof(T) == 2 ? MPI_UINT16_T                                          \
                     : sizeof(T) == 4 ? MPI_UINT32_T                                          \
                                      : MPI_UINT64_T))
#define SHMEMI_MPI_TYPE_OF_(T)                                                                \
    _Generic((T)0, float: MPI_FLOAT, double: MPI_DOUBLE, long double: MPI_LONG_DOUBLE,        \
             char: MPI_CHAR, default: SHMEMI_MPI_INT_(T))

static inline MPI_Datatype shmemi_mpi_type(shmemi_xtype_t xt)
{
#define SHMEMI_MPI_TYPE_CASE_(T, N) \
    case SHMEMI_XT_##N:             \
        return SHMEMI_MPI_TYPE_OF_(T);
    switch (xt) {
        SHMEMQ_RMA_TYPES(SHMEMI_MPI_TYPE_CASE_)
    default:
        return MPI_BYTE;
    }
#undef SHMEMI_MPI_TYPE_CASE_
}

static inline MPI_Op shmemi_mpi_op(shmemi_xop_t op)
{
    switch (op) {
    case SHMEMI_XOP_SUM: return MPI_SUM;
    case SHMEMI_XOP_SET: return MPI_REPLACE;
    case SHMEMI_XOP_AND: return MPI_BAND;
    case SHMEMI_XOP_OR: return MPI_BOR;
    case SHMEMI_XOP_XOR: return MPI_BXOR;
    default: return MPI_NO_OP; /* FETCH; CAS has its own MPI call */
    }
}

/* Complete a request while progressing. Used instead of a blocking MPI_Win_flush wherever
 * a request-based operation exists. Spins first (yielding from the first polls made a
 * blocking AMO off the node 20-25% slower than MPI_Fetch_and_op + flush on MPICH; after 64
 * it is as fast), then yields, for the machines we run on are often oversubscribed and
 * the peer needs our core; the randomised back-off (progress.c) breaks lockstep between
 * PEs that wait on each other's atomics (swap against swap inside quiet). */
static inline int shmemi_mpi_wait_req(MPI_Request *req)
{
    for (unsigned spins = 0;;) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        shmemi_progress();
        if (++spins > 64)
            sched_yield();
        shmemi_backoff(spins);
    }
}

/* Byte runs of any length: MPI counts are int, so runs longer than SHMEMI_MAX_MPI_COUNT
 * go as several calls (the one place that splits). is_get: from the target into buf.
 * Returns the first MPI error, or MPI_SUCCESS. */
int shmemi_mpi_bytes(int is_get, char *buf, size_t len, int rank, MPI_Aint disp, MPI_Win win);

#endif /* SHMEMI_XPORT_MPI_H */
