/*
 * queue.h: what every file of the queue layer (src/queue: comm queues, data queues,
 * 1.6 sessions) shares, and the entry points queue_layer.c registers with the runtime.
 * The runtime (src/mpi_rma) never includes this header: the layers are a line,
 * queue -> runtime (docs/architecture.md).
 */
#ifndef SHMEMQ_QUEUE_H
#define SHMEMQ_QUEUE_H

#include "shmemi.h"

/* A failed MPI call inside a queue routine: under SHMEM_DEBUG print the call with MPI's
 * error string; returns SHMEM_QUEUE_ERR_MPI (queue_layer.c). */
int shmemi_queue_mpi_err(const char *routine, const char *call, int rc);

/* ---- start-up and shutdown, run by the runtime through the modules queue_layer.c
 * registers (shmemi.h has the finalize steps) ---- */
void cq_am_init(void);       /* am.c: the receive engine, up from shmem_init */
void cq_budget_init(void);   /* queue_usage.c: SHMEMQ_QUEUE_BUDGET, read at shmem_init */
void cq_am_drain(void);      /* am.c, step DRAIN: live comm queues complete and are freed */
void cq_am_stop(void);       /* am.c, step STOP: the receive engine stops */
void shmemi_queue_session_fini(void); /* session.c, step COMPLETE: active sessions complete */
void shmemi_queue_data_fini(void);    /* data_queue.c, step COLLECTIVE: data queues left alive */

#endif
