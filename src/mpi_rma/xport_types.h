/* xport_types.h: the terms every transport speaks (xport.h). Element types and atomic
 * operations are small neutral enums: the OpenSHMEM routines, the queues and the node
 * transport use these, and only the MPI transport (xport_mpi.h) turns them into MPI
 * datatypes and ops, so a transport that is not MPI never sees MPI's terms. */
#ifndef SHMEMI_XPORT_TYPES_H
#define SHMEMI_XPORT_TYPES_H

#include "shmem.h"

/* Element type: the index of the type in SHMEMQ_RMA_TYPES (shmem.h), SHMEMI_XT_int etc.
 * SHMEMI_XT_BYTES: untyped bytes (contiguous runs of several elements). The comm queue's
 * chunk headers carry this number (comm_queue.h). */
#define SHMEMI_XT_ENUM_(T, N) SHMEMI_XT_##N,
typedef enum {
    SHMEMQ_RMA_TYPES(SHMEMI_XT_ENUM_) SHMEMI_XT_NTYPES,
    SHMEMI_XT_BYTES = SHMEMI_XT_NTYPES
} shmemi_xtype_t;
#undef SHMEMI_XT_ENUM_

/* Atomic operation. A swap is a fetching SET; a fetch is a fetching FETCH (no update);
 * inc is SUM of 1. CAS compares and swaps (its own kind, below). */
typedef enum {
    SHMEMI_XOP_SUM = 0,
    SHMEMI_XOP_SET,
    SHMEMI_XOP_FETCH,
    SHMEMI_XOP_AND,
    SHMEMI_XOP_OR,
    SHMEMI_XOP_XOR,
    SHMEMI_XOP_CAS
} shmemi_xop_t;

/* What an atomic returns: nothing (accumulate), the old value (fetch-and-op), or the old
 * value of a compare-and-swap. */
enum { SHMEMI_AMO_ACC, SHMEMI_AMO_FOP, SHMEMI_AMO_CAS };

/* When a put, get or non-fetching atomic counts as done (every transport honours it):
 *   NBI     at the next quiet (the caller keeps source buffers alive until then)
 *   LOCAL   the source may be reused on return (a blocking put)
 *   REMOTE  the target's memory holds the result on return (a blocking get; the data
 *           of put-with-signal before its signal) */
enum { SHMEMI_XP_NBI = 0, SHMEMI_XP_LOCAL = 1, SHMEMI_XP_REMOTE = 2 };

/* The first failure of a series of transport calls (bursts): code 0 is success, call
 * names what failed. Routines that can return an error (the queues) report it. */
typedef struct {
    int rc;
    const char *call;
} shmemi_xp_status_t;

#endif /* SHMEMI_XPORT_TYPES_H */
