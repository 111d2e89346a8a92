/*
 * xport.h: the transport interface. Every put, get and atomic of the OpenSHMEM routines
 * (rma.c, amo.c, signal.c, lock.c, strided.c) and every burst of the comm queue goes
 * through the operations below; nothing above this header names MPI RMA (test/lint_transport.sh
 * checks it) and nothing above it decides which transport reaches a target.
 *
 * Transports, one file (set) each:
 *   node  xport_node.h            loads, stores and CPU atomics on a node peer's memory
 *                                 mapped in this process; complete on return
 *   am    xport_am.c              PEs of other nodes: messages to the server of the
 *         xport_am_serve.c        target's node (its leader), which applies them with the
 *                                 node transport (shmemi.offnode_am; xport_am.h)
 *   mpi   xport_mpi.c             MPI RMA on the context's windows: contiguous and
 *         xport_mpi_amo.c         atomics (blocking, and nonblocking with the operand ring)
 *         xport_mpi_strided.c     strided transfers (methods, datatype cache, picker)
 *         xport_mpi_burst.c       the comm queue's bursts (indexed datatypes)
 *   (the comm queue's own messages, src/queue/am.c, applied by the target with
 *   src/queue/cq_apply.c, are the queue's, only where the queue chose them)
 *
 * The choice per target is made here, inline, from the target (shmemi_target fills it):
 * t->local set means the node transport reaches the bytes. Data movement takes the node
 * transport whenever it reaches the target, else AM when shmemi.offnode_am, else MPI.
 *
 * The atomic domain: every atomic on a word must go through one mechanism, since MPI
 * promises no atomicity between its accumulates and CPU atomics. Either the job is one
 * node (shmemi.amo_direct) or off-node operations take AM (shmemi.offnode_am): then every
 * atomic on a node's memory is a CPU atomic of that node (by the origin on the node, by
 * the node's server for the others) and no MPI accumulate touches the heap or the data
 * segment (the comm queue's bursts to other nodes, of every kind, go through AM too,
 * shmemi_xp_burst). Otherwise (SHMEMQ_OFFNODE=mpi, or node memory not mapped) every atomic
 * goes through MPI, node peers' included. shmemi_xp_amo_node is the one place that rule
 * lives (the queue asks it too).
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

typedef enum { SHMEMI_XP_NODE, SHMEMI_XP_AM, SHMEMI_XP_MPI } shmemi_xp_kind_t;

/* ---- the selectors: the only "node, AM or MPI" decisions ---- */

/* Bytes: the node transport when it reaches the target, else AM when it is on. */
static inline shmemi_xp_kind_t shmemi_xp_bytes_of(const shmemi_target_t *t)
{
    if (t->local != NULL)
        return SHMEMI_XP_NODE;
    return shmemi.offnode_am ? SHMEMI_XP_AM : SHMEMI_XP_MPI;
}

/* The atomic domain (see the top): CPU atomics on node memory when the job is one node
 * or off-node atomics are applied by the target's node (AM). */
static inline int shmemi_xp_amo_node(int reachable)
{
    return reachable && (shmemi.amo_direct || shmemi.offnode_am);
}

static inline shmemi_xp_kind_t shmemi_xp_amo_of(const shmemi_target_t *t)
{
    if (t->local != NULL)
        return shmemi_xp_amo_node(1) ? SHMEMI_XP_NODE : SHMEMI_XP_MPI;
    return shmemi.offnode_am ? SHMEMI_XP_AM : SHMEMI_XP_MPI;
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

/* Bursts (xport_mpi_burst.c; xport_am.c when shmemi.offnode_am): a vector of one kind of
 * operation to one PE's region, as one MPI call or one AM request; the comm queue issues
 * its chunks so (src/queue/cq_rma.c). Region terms:
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
    /* Records for several PEs of pe's node (the comm queue's node-routed chunks,
     * SHMEMQ_QUEUE_ROUTE=node): each displacement carries its target's rank on that node
     * in bits SHMEMI_XB_TAG_SHIFT and up. The AM transport only (its server maps every PE
     * of its node); shmemi_xp_burst refuses it on MPI. */
    int tagged;
} shmemi_xp_burst_t;
#define SHMEMI_XB_TAG_SHIFT 48
#define SHMEMI_XB_OFF_MASK (((uint64_t)1 << SHMEMI_XB_TAG_SHIFT) - 1)

/* Packed atomic bursts (xport_am.c): 32-bit displacements and one operand for all, a
 * quarter of the bytes. The AM transport's bursts and the comm queue's own AM batches
 * (src/queue/am.c) both pack with these. packable: every one of the n operands (esize 4
 * or 8 bytes) the same, and every displacement below 4 GiB (known without a look when no
 * region is larger). narrow: n uint64 displacements at src to uint32 at dst (dst may be
 * src: each write lands at or before its read). */
int shmemi_burst_packable(const uint64_t *disp, const unsigned char *opnd, size_t esize,
                          uint32_t n);
void shmemi_burst_narrow(unsigned char *dst, const unsigned char *src, uint32_t n);
/* Every one of the n displacements below 4 GiB, so the burst may travel with uint32 ones
 * (the AM transport's typed put and get bursts; packable above asks the same). */
int shmemi_burst_disp32(const uint64_t *disp, uint32_t n);
/* The same for a tagged burst's offsets (its tags aside). */
int shmemi_burst_disp32_tagged(const uint64_t *disp, uint32_t n);
/* Every one of the n operands (esize 4 or 8 bytes) the same (packable's other half, for
 * tagged bursts, whose offsets the AM transport tests past their tags). */
int shmemi_burst_uniform(const unsigned char *opnd, size_t esize, uint32_t n);
/* Tests only: nonzero keeps every burst's displacements 8 bytes wide (the form a region
 * past 4 GiB needs), so the wide forms run in jobs whose regions are small. */
extern int shmemi_burst_narrow_test_off;

#include "xport_am.h" /* the AM transport (needs shmemi_xp_burst_t) */
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
    case SHMEMI_XP_AM: shmemi_am_put(routine, t, src, n, done); break;
    default: shmemi_mpi_put(routine, t, src, n, done); break;
    }
}

static inline void shmemi_xp_get(const char *routine, const shmemi_target_t *t, void *dest,
                                 size_t n, int done)
{
    switch (shmemi_xp_bytes_of(t)) {
    case SHMEMI_XP_NODE: shmemi_node_get(dest, t->local, n); break;
    case SHMEMI_XP_AM: shmemi_am_get(routine, t, dest, n, done); break;
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
    case SHMEMI_XP_AM:
        shmemi_am_strided(routine, t, is_get, local, lstride, roff, rstride, blk, n);
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
    case SHMEMI_XP_AM: shmemi_am_fetch_op(routine, t, size, op, value, result); break;
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
    case SHMEMI_XP_AM: shmemi_am_cas(routine, t, size, value, cond, result); break;
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
    case SHMEMI_XP_AM: shmemi_am_amo_comb(routine, t, size, kind, op, value, cond, result); break;
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
    case SHMEMI_XP_AM: /* after earlier requests to the same server, as they were sent */
        shmemi_am_amo_nbi(routine, t, size, SHMEMI_AMO_ACC, op, value, NULL, NULL);
        break;
    default: shmemi_mpi_amo_now(routine, t, xt, op, value); break;
    }
}

/* quiet: everything this PE issued on c is complete, on every transport (AM traffic is
 * not per context: a quiet completes all of it, which is conservative). fence (order
 * only): AM requests to one PE go to one server over one communicator and tag and are
 * applied in arrival order, so they are ordered already; MPI has no cheaper per-target
 * ordering that covers puts, gets and accumulates alike, so its part is a quiet. */
static inline void shmemi_xp_quiet(const struct shmemq_ctx *c)
{
    shmemi_node_quiet(); /* the node transport's stores */
    if (shmemi.offnode_am)
        shmemi_am_quiet();
    shmemi_mpi_quiet("shmem_quiet", c);
}
static inline void shmemi_xp_fence(const struct shmemq_ctx *c)
{
    shmemi_node_quiet();
    shmemi_mpi_quiet("shmem_fence", c);
}
/* Complete what went to one world rank (shmem_pe_quiet). */
static inline void shmemi_xp_quiet_rank(const char *routine, const struct shmemq_ctx *c, int rank)
{
    shmemi_node_quiet();
    if (shmemi.offnode_am)
        shmemi_am_quiet_pe(rank);
    shmemi_mpi_quiet_rank(routine, c, rank);
}

/* The comm queue's bursts (cq_rma.c; node peers take the node path, cq_node.c, so these
 * go off the node): every kind goes through AM when off-node operations do
 * (shmemi.offnode_am): the atomic domain is per node then (no MPI accumulate may touch node
 * memory), and the target's server applies puts and answers gets without the target PE
 * entering MPI, which passive-target RMA needs on some MPIs (issue 21). Otherwise MPI.
 * Completion: shmemi_xp_burst_flush (AM get bursts too: their values land by then). */
static inline size_t shmemi_xp_burst(const shmemi_xp_burst_t *b, shmemi_mpi_burst_scratch_t *sc,
                                     shmemi_xp_status_t *st)
{
    if (shmemi.offnode_am) /* a node peer's burst would be served right too, by our leader */
        return shmemi_am_burst(b, st);
    if (SHMEMI_UNLIKELY(b->tagged)) /* the queue routes by node only over AM */
        shmemi_fatal("shmemq comm queue", "a node-routed burst without the AM transport");
    return shmemi_mpi_burst(b, sc, st);
}
/* The comm queue's one put (done SHMEMI_XP_LOCAL) or get (SHMEMI_XP_NBI) too big for a
 * chunk (cq_push.c): AM off the node as the bursts, else MPI. Complete at
 * shmemi_xp_burst_flush. */
static inline void shmemi_xp_region_bytes(int is_get, void *buf, size_t len, int pe, int region,
                                          uint64_t disp, int done, shmemi_xp_status_t *st)
{
    if (shmemi.offnode_am) {
        shmemi_am_burst_bytes(is_get, buf, len, pe, region, disp);
        return;
    }
    shmemi_mpi_region_bytes(is_get, buf, len, pe, region, disp, done, st);
}
static inline void shmemi_xp_burst_flush(const int dirty[2], int pe, int local_only,
                                         shmemi_xp_status_t *st)
{
    if (shmemi.offnode_am && !local_only) /* AM bursts are copied: local_only has nothing */
        shmemi_am_burst_quiet(pe);
    shmemi_mpi_burst_flush(dirty, pe, local_only, st);
}

#endif /* SHMEMI_XPORT_H */
