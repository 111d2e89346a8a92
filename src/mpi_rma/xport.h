/*
 * xport.h: the transports under every put, get and atomic, and the one rule that picks
 * between them. The OpenSHMEM routines (rma.c, amo.c, signal.c, lock.c, strided.c) and
 * the comm queue (src/queue/cq_flush.c, cq_push.c) both decide here, never by themselves.
 *
 *   node  loads, stores and CPU atomics on a node peer's memory mapped in this process
 *         (node.c makes the mappings). Complete on return; nothing runs on the target.
 *   mpi   MPI RMA on the context's windows (MPI_Put/Get/Accumulate/Fetch_and_op/
 *         Compare_and_swap): every PE the node transport cannot reach.
 *   am    the comm queue's batched messages applied by the target (src/queue/am.c),
 *         only for targets off the node, only where the queue chose it.
 *
 * A target (shmemi_target, shmemi.h) carries both addresses: t->local for the node
 * transport and (win, rank, disp) for MPI. Data movement takes the node transport
 * whenever t->local is set. Atomics take it only when shmemi.amo_direct (the whole job
 * is one node): MPI promises no atomicity between its accumulates and CPU atomics, so a
 * job that spans nodes applies every atomic through MPI, node peers' included.
 */
#ifndef SHMEMI_XPORT_H
#define SHMEMI_XPORT_H

#include "shmemi.h"
#include <stdatomic.h>

/* Bytes: the node transport when it reaches the target. */
static inline int shmemi_xp_node_bytes(const shmemi_target_t *t)
{
    return t->local != NULL;
}

/* Atomics: the node transport only inside a single-node job (see the top). */
static inline int shmemi_xp_node_amo(const shmemi_target_t *t)
{
    return t->local != NULL && shmemi.amo_direct;
}

/* Comm-queue terms: PE pe's region base (0 heap, 1 data) mapped here, or NULL. */
static inline char *shmemi_xp_node_base(int region, int pe)
{
    return shmemi.node_base[region][pe];
}

/* ---- mpi transport (xport_mpi.c; AMOs: amo.c) ---- */
void shmemi_mpi_put(const char *routine, const shmemi_target_t *t, const void *src, size_t n);
void shmemi_mpi_get(const char *routine, const shmemi_target_t *t, void *dest, size_t n);
/* Blocking atomics on one 4- or 8-byte word of type dt: result valid, update done on
 * return. fetch_op waits on its request with progress and back-off; cas, which MPI gives
 * no request, waits in the flush unless probe (xport_mpi.c). */
void shmemi_mpi_fetch_op(const char *routine, const shmemi_target_t *t, const void *value,
                         void *result, MPI_Datatype dt, MPI_Op op);
/* probe: wait for an ordered fetching no-op with back-off before the flush (see there) */
void shmemi_mpi_cas(const char *routine, const shmemi_target_t *t, const void *value,
                    const void *cond, void *result, MPI_Datatype dt, int probe);

/* ---- node transport ---- */
enum { SHMEMI_AMO_ACC, SHMEMI_AMO_FOP, SHMEMI_AMO_CAS };

#define SHMEMI_NODE_AMO_BODY(UT)                                                          \
    do {                                                                                  \
        UT *p = (UT *)(void *)addr, v = 0, c = 0, old;                                    \
        if (value)                                                                        \
            memcpy(&v, value, sizeof v);                                                  \
        if (kind == SHMEMI_AMO_CAS) {                                                     \
            memcpy(&c, cond, sizeof c);                                                   \
            old = c;                                                                      \
            __atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        } else if (op == MPI_SUM) {                                                       \
            old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                             \
        } else if (op == MPI_REPLACE) {                                                   \
            if (kind == SHMEMI_AMO_ACC) {                                                 \
                __atomic_store_n(p, v, __ATOMIC_SEQ_CST);                                 \
                return;                                                                   \
            }                                                                             \
            old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                            \
        } else if (op == MPI_NO_OP) {                                                     \
            old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                   \
        } else if (op == MPI_BAND) {                                                      \
            old = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                             \
        } else if (op == MPI_BOR) {                                                       \
            old = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                              \
        } else {                                                                          \
            old = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                             \
        }                                                                                 \
        if (result)                                                                       \
            memcpy(result, &old, sizeof old);                                             \
    } while (0)

/* One atomic on a naturally aligned 4- or 8-byte word mapped here. op is the MPI op the
 * MPI transport would use (SUM, REPLACE, NO_OP, BAND, BOR, BXOR; ignored for CAS); sums
 * are on the unsigned type of the size, which gives two's-complement signed sums too. */
static inline void shmemi_node_amo(void *addr, size_t size, int kind, MPI_Op op,
                                   const void *value, const void *cond, void *result)
{
    if (size == 8)
        SHMEMI_NODE_AMO_BODY(uint64_t);
    else
        SHMEMI_NODE_AMO_BODY(uint32_t);
}

/* Orders and completes the node transport's stores (quiet, fence): they are done on
 * return already; the fence makes them visible before anything that follows. */
static inline void shmemi_node_quiet(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

#endif /* SHMEMI_XPORT_H */
