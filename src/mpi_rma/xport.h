/*
 * xport.h: the transport interface. Every put, get and atomic of the OpenSHMEM routines
 * (rma.c, amo.c, signal.c, lock.c, strided.c) and every burst of the comm queue goes
 * through the operations below; nothing above this header names MPI RMA (test/lint_transport.sh
 * checks it) and nothing above it decides which transport reaches a target.
 *
 * Transports, one file (set) each:
 *   node  xport_node.h            loads, stores and CPU atomics on a node peer's memory
 *                                 mapped in this process; complete on return
 *   mpi   xport_mpi.c             MPI RMA on the context's windows: contiguous and
 *         xport_mpi_amo.c         atomics (blocking, and nonblocking with the operand ring)
 *         xport_mpi_strided.c     strided transfers (methods, datatype cache, picker)
 *         xport_mpi_burst.c       the comm queue's bursts (indexed datatypes)
 *   am    src/queue/am.c          the comm queue's messages, applied by the target
 *                                 (src/queue/cq_apply.c), only for targets off the node,
 *                                 only where the queue chose it
 *
 * The choice per target is made here, inline, from the target (shmemi_target fills it):
 * t->local set means the node transport reaches the bytes. Data movement takes the node
 * transport whenever it reaches the target. Atomics take it only when shmemi.amo_direct
 * (the whole job is one node): MPI promises no atomicity between its accumulates and CPU
 * atomics, so a job that spans nodes applies every atomic through MPI, node peers'
 * included. shmemi_xp_amo_node is the one place that rule lives (the queue asks it too).
 *
 * Adding a transport: give it a file with the operations below, a value in
 * shmemi_xp_kind_t and a case in the selectors (shmemi_xp_bytes_of / shmemi_xp_amo_of)
 * and in each inline operation's switch; docs/architecture.md has the picture.
 */
#ifndef SHMEMI_XPORT_H
#define SHMEMI_XPORT_H

#include "shmemi.h"
#include "xport_types.h"
#include "xport_node.h"

typedef enum { SHMEMI_XP_NODE, SHMEMI_XP_MPI } shmemi_xp_kind_t;

/* ---- the selectors: the only "node, else MPI" decisions ---- */

/* Bytes: the node transport when it reaches the target. */
static inline shmemi_xp_kind_t shmemi_xp_bytes_of(const shmemi_target_t *t)
{
    return t->local != NULL ? SHMEMI_XP_NODE : SHMEMI_XP_MPI;
}

/* The atomic domain: CPU atomics only inside a single-node job (see the top). */
static inline int shmemi_xp_amo_node(int reachable)
{
    return reachable && shmemi.amo_direct;
}

static inline shmemi_xp_kind_t shmemi_xp_amo_of(const shmemi_target_t *t)
{
    return shmemi_xp_amo_node(t->local != NULL) ? SHMEMI_XP_NODE : SHMEMI_XP_MPI;
}

/* A put to t is complete when the call returns (no batching can gain anything). */
static inline int shmemi_xp_put_completes(const shmemi_target_t *t)
{
    return shmemi_xp_bytes_of(t) == SHMEMI_XP_NODE;
}

/* Queue terms (region 0 heap, 1 data; world PE): PE pe's region as the node transport
 * maps it here, or NULL when the queue must use another transport. atomic: the burst
 * holds atomics, which follow the atomic domain. */
static inline unsigned char *shmemi_xp_node_region(int region, int pe, int atomic)
{
    char *b = shmemi_node_region(region, pe);
    if (atomic && !shmemi_xp_amo_node(b != NULL))
        return NULL;
    return (unsigned char *)b;
}

/* The heap bases of every PE the node transport reaches (NULL entries elsewhere), for
 * the queue's inline push; NULL when the heap is not node-mapped at all. */
static inline char **shmemi_xp_node_heaps(void)
{
    return shmemi.node_heap_ok ? shmemi.node_base[0] : NULL;
}

/* ---- MPI transport (xport_mpi*.c) ----
 * routine names the OpenSHMEM routine for error messages; a failed MPI call aborts with
 * it (these routines return nothing). */
void shmemi_mpi_put(const char *routine, const shmemi_target_t *t, const void *src, size_t n,
                    int done);
void shmemi_mpi_get(const char *routine, const shmemi_target_t *t, void *dest, size_t n,
                    int done);
/* Blocking fetching atomic on one 4- or 8-byte word: result valid, update done on return.
 * It waits on its request with progress and back-off (xport_mpi.c). */
void shmemi_mpi_fetch_op(const char *routine, const shmemi_target_t *t, shmemi_xtype_t xt,
                         shmemi_xop_t op, const void *value, void *result);
/* Blocking compare-and-swap. ordered: wait for an ordered fetching no-op with back-off
 * before the flush (the lock's contended waits; see xport_mpi.c). */
void shmemi_mpi_cas(const char *routine, const shmemi_target_t *t, shmemi_xtype_t xt,
                    const void *value, const void *cond, void *result, int ordered);
/* Nonblocking atomic (kind SHMEMI_AMO_*): the operands are copied, so they may live on
 * the caller's stack; result (FOP, CAS) is valid after the next quiet (xport_mpi_amo.c). */
void shmemi_mpi_amo_nbi(const char *routine, const shmemi_target_t *t, shmemi_xtype_t xt,
                        size_t size, int kind, shmemi_xop_t op, const void *value,
                        const void *cond, void *result);
/* Non-fetching atomic whose operand may be reused on return, complete at quiet. */
void shmemi_mpi_amo_now(const char *routine, const shmemi_target_t *t, shmemi_xtype_t xt,
                        shmemi_xop_t op, const void *value);
/* Strided: n blocks of blk bytes, lstride apart here and rstride apart from t's byte
 * (xport_mpi_strided.c). Blocking: put source reusable, get data arrived. */
void shmemi_mpi_strided(const char *routine, const shmemi_target_t *t, int is_get, char *local,
                        ptrdiff_t lstride, ptrdiff_t rstride, size_t blk, size_t n);
/* Completion on a context: every target, or one world rank; nbi atomics' requests first. */
void shmemi_mpi_quiet(const char *routine, const struct shmemq_ctx *c);
void shmemi_mpi_quiet_rank(const char *routine, const struct shmemq_ctx *c, int rank);

/* Bursts (xport_mpi_burst.c): a vector of one kind of operation to one PE's region, as
 * one MPI call; the comm queue issues its chunks so (src/queue/cq_rma.c). Region terms:
 * 0 heap, 1 data, offsets from that region's base. */
enum {
    SHMEMI_XB_ATOMICS,    /* n non-fetching atomics op on elements of type: disp, operands */
    SHMEMI_XB_TYPED_PUTS, /* n one-element puts: disp, the values */
    SHMEMI_XB_TYPED_GETS, /* n one-element gets: disp, the uint64 local addresses */
    SHMEMI_XB_PUTS,       /* n records {uint64 disp, uint64 len, payload padded to 8} */
    SHMEMI_XB_GETS        /* n records {uint64 disp, uint64 len, uint64 local address} */
};
typedef struct {
    int kind;              /* SHMEMI_XB_* */
    int pe, region;        /* world PE; 0 heap, 1 data */
    shmemi_xtype_t type;   /* ATOMICS, TYPED_*: the element type ... */
    size_t esize;          /* ... and its size */
    shmemi_xop_t op;       /* ATOMICS */
    uint32_t n;
    const uint64_t *disp;  /* ATOMICS, TYPED_*: offsets in the region */
    unsigned char *elems;  /* ATOMICS: operands; TYPED_PUTS: values; TYPED_GETS: addresses */
    unsigned char *records; /* PUTS, GETS: the record stream */
} shmemi_xp_burst_t;
/* Space to build one burst's datatypes for up to maxrec records, in memory the caller
 * provides (the comm queue keeps it in one lazily touched mapping, cq_scratch.c):
 * shmemi_mpi_burst_scratch_bytes(maxrec) bytes, 8-byte aligned; init touches none of it. */
typedef struct {
    int *lens;
    MPI_Aint *tdisp, *odisp;
} shmemi_mpi_burst_scratch_t;
size_t shmemi_mpi_burst_scratch_bytes(size_t maxrec);
void shmemi_mpi_burst_scratch_init(shmemi_mpi_burst_scratch_t *sc, void *mem, size_t maxrec);
/* Issue one burst (complete at shmemi_mpi_burst_flush); returns the data bytes it moves.
 * The first MPI failure is noted in st. */
size_t shmemi_mpi_burst(const shmemi_xp_burst_t *b, shmemi_mpi_burst_scratch_t *sc,
                        shmemi_xp_status_t *st);
/* Complete the bursts issued on the regions marked in dirty[] at one PE (pe >= 0) or all;
 * local_only: only until their origin buffers may be reused. */
void shmemi_mpi_burst_flush(const int dirty[2], int pe, int local_only, shmemi_xp_status_t *st);
/* One contiguous transfer in region terms, any length; done as in xport_types.h. */
void shmemi_mpi_region_bytes(int is_get, void *buf, size_t len, int pe, int region,
                             uint64_t disp, int done, shmemi_xp_status_t *st);

/* ---- operations: each picks its transport with the selectors above ---- */

static inline void shmemi_xp_put(const char *routine, const shmemi_target_t *t, const void *src,
                                 size_t n, int done)
{
    switch (shmemi_xp_bytes_of(t)) {
    case SHMEMI_XP_NODE: shmemi_node_put(t->local, src, n, done); break;
    default: shmemi_mpi_put(routine, t, src, n, done); break;
    }
}

static inline void shmemi_xp_get(const char *routine, const shmemi_target_t *t, void *dest,
                                 size_t n, int done)
{
    switch (shmemi_xp_bytes_of(t)) {
    case SHMEMI_XP_NODE: shmemi_node_get(dest, t->local, n); break;
    default: shmemi_mpi_get(routine, t, dest, n, done); break;
    }
}

/* Strided, blocking: n blocks of blk bytes; the local side's blocks are lstride apart,
 * the remote side's rstride apart starting at t (the lowest remote byte is t's, plus
 * roff). */
static inline void shmemi_xp_strided(const char *routine, const shmemi_target_t *t, int is_get,
                                     char *local, ptrdiff_t lstride, size_t roff,
                                     ptrdiff_t rstride, size_t blk, size_t n)
{
    switch (shmemi_xp_bytes_of(t)) {
    case SHMEMI_XP_NODE:
        if (is_get)
            shmemi_node_strided(local, lstride, t->local + roff, rstride, blk, n);
        else
            shmemi_node_strided(t->local + roff, rstride, local, lstride, blk, n);
        break;
    default: {
        shmemi_target_t r = *t;
        r.disp += (MPI_Aint)roff;
        shmemi_mpi_strided(routine, &r, is_get, local, lstride, rstride, blk, n);
        break;
    }
    }
}

/* Blocking fetching atomic (op SUM/SET/FETCH/AND/OR/XOR) on a size-byte word of type xt. */
static inline void shmemi_xp_fetch_op(const char *routine, const shmemi_target_t *t,
                                      shmemi_xtype_t xt, size_t size, shmemi_xop_t op,
                                      const void *value, void *result)
{
    switch (shmemi_xp_amo_of(t)) {
    case SHMEMI_XP_NODE: shmemi_node_amo(t->local, size, SHMEMI_AMO_FOP, op, value, NULL, result); break;
    default: shmemi_mpi_fetch_op(routine, t, xt, op, value, result); break;
    }
}

/* Blocking compare-and-swap; ordered: see shmemi_mpi_cas. */
static inline void shmemi_xp_cas(const char *routine, const shmemi_target_t *t, shmemi_xtype_t xt,
                                 size_t size, const void *value, const void *cond, void *result,
                                 int ordered)
{
    switch (shmemi_xp_amo_of(t)) {
    case SHMEMI_XP_NODE:
        shmemi_node_amo(t->local, size, SHMEMI_AMO_CAS, SHMEMI_XOP_CAS, value, cond, result);
        break;
    default: shmemi_mpi_cas(routine, t, xt, value, cond, result, ordered); break;
    }
}

/* Nonblocking atomic: completes (and fills result) by the next quiet. */
static inline void shmemi_xp_amo_nbi(const char *routine, const shmemi_target_t *t,
                                     shmemi_xtype_t xt, size_t size, int kind, shmemi_xop_t op,
                                     const void *value, const void *cond, void *result)
{
    switch (shmemi_xp_amo_of(t)) {
    case SHMEMI_XP_NODE: shmemi_node_amo(t->local, size, kind, op, value, cond, result); break;
    default: shmemi_mpi_amo_nbi(routine, t, xt, size, kind, op, value, cond, result); break;
    }
}

/* Non-fetching atomic, operand reusable on return, ordered after this PE's earlier
 * REMOTE-complete puts to the same target (signals). */
static inline void shmemi_xp_amo_now(const char *routine, const shmemi_target_t *t,
                                     shmemi_xtype_t xt, size_t size, shmemi_xop_t op,
                                     const void *value)
{
    switch (shmemi_xp_amo_of(t)) {
    case SHMEMI_XP_NODE: /* seq_cst: after the data stores, as the MPI flush orders */
        shmemi_node_amo(t->local, size, SHMEMI_AMO_ACC, op, value, NULL, NULL);
        break;
    default: shmemi_mpi_amo_now(routine, t, xt, op, value); break;
    }
}

/* quiet: everything this PE issued on c is complete, on every transport. fence (order
 * only) is the same: MPI has no cheaper per-target ordering that covers puts, gets and
 * accumulates alike. */
static inline void shmemi_xp_quiet(const struct shmemq_ctx *c)
{
    shmemi_node_quiet(); /* the node transport's stores */
    shmemi_mpi_quiet("shmem_quiet", c);
}
static inline void shmemi_xp_fence(const struct shmemq_ctx *c)
{
    shmemi_xp_quiet(c);
}
/* Complete what went to one world rank (shmem_pe_quiet). */
static inline void shmemi_xp_quiet_rank(const char *routine, const struct shmemq_ctx *c, int rank)
{
    shmemi_node_quiet();
    shmemi_mpi_quiet_rank(routine, c, rank);
}

#endif /* SHMEMI_XPORT_H */
