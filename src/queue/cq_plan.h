/*
 * cq_plan.h: the comm queue's planning rules, free of MPI, so the dry-run simulator
 * (bench/cqsim.c) runs the queues' own rules for 100,000 virtual PEs in one process.
 * queue_usage.c (chunk sizes, the budget), cq_budget.c (which open chunks leave when the
 * budget is spent) and cq_flush.c (the flush sweep) call these; nothing here allocates
 * or communicates. docs/queues_design.md: "Structure: chunks, slots, bursts", "One memory
 * budget", "Memory model".
 */
#ifndef SHMEMI_CQ_PLAN_H
#define SHMEMI_CQ_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* Bytes a chunk costs beside its data: sizeof(cq_chunk_t) + 64 (aligning the message) +
 * sizeof(cq_msghdr_t), as chunk_get allocates it (comm_queue.h asserts the sum). */
#define CQ_PLAN_CHUNK_EXTRA 120
/* Chunks an RMA-path queue allocates before it reclaims bursts in flight (cq_push.c). */
#define CQ_PLAN_RMA_POOL 64
/* Operations in flight on the RMA path before a burst completes them all (cq_rma.c:
 * MPICH 4.0.2 aborts beyond ~300k unflushed accumulates). */
#define CQ_PLAN_MAX_RMA_INFLIGHT 200000
/* The default budget: 64 MiB of chunks per op kind (queue_usage.c says why). */
#define CQ_PLAN_BUDGET_DEFAULT ((size_t)64 << 20)
/* ... and a node-routed queue's (SHMEMQ_QUEUE_ROUTE=node), made for jobs of many nodes:
 * 8 MiB, so that a queue stays under 16 MiB a PE at 1M PEs (docs/scaling.md). */
#define CQ_PLAN_BUDGET_NODE_DEFAULT ((size_t)8 << 20)
/* Buckets of fill for choosing the fullest open chunks (cq_budget.c). */
#define CQ_PLAN_FILL_BUCKETS 64

/* ---- sizes ---- */
/* Data bytes per chunk from the path's chunk setting C and the PEs the queue reaches: one
 * open chunk per (target, op) is bounded to 64 MiB / P, 4 KiB at least, a multiple of 64. */
static inline size_t cq_plan_chunk_bytes(size_t C, int npes)
{
    size_t per_pe = ((size_t)64 << 20) / (size_t)npes;
    if (per_pe < 4096)
        per_pe = 4096;
    return C > per_pe ? per_pe & ~(size_t)63 : C;
}
/* Bytes of one allocated chunk of cbytes data bytes. */
static inline uint64_t cq_plan_chunk_alloc(size_t cbytes)
{
    return (uint64_t)cbytes + CQ_PLAN_CHUNK_EXTRA;
}
/* Records an atomic (or one-element typed PUT/GET) chunk holds: displacements, then
 * operands of esize bytes. */
static inline size_t cq_plan_records(size_t cbytes, size_t esize)
{
    return cbytes / (8 + esize);
}
/* Chunks a queue carrying `kinds` op kinds may hold with a budget of per_kind bytes per
 * kind (0: none, UINT64_MAX), one at least. */
static inline uint64_t cq_plan_budget_chunks(uint64_t per_kind, uint64_t kinds, size_t cbytes)
{
    uint64_t bytes;
    if (per_kind == 0 || __builtin_mul_overflow(per_kind, kinds, &bytes))
        return UINT64_MAX;
    uint64_t n = bytes / cq_plan_chunk_alloc(cbytes);
    return n ? n : 1;
}

/* ---- the budget: issue the fullest eighth of the open chunks ----
 * Pass 1 counts the open chunks per fill bucket, cq_plan_fullest_cut finds the lowest
 * bucket t that with those above it holds `want` chunks, pass 2 (in the open list's
 * order) issues every chunk above t and the first at_t of bucket t. */
static inline uint64_t cq_plan_fullest_want(uint64_t n_open)
{
    return n_open / 8 ? n_open / 8 : 1;
}
/* Bucket of an open chunk holding `fill` bytes of records. */
static inline unsigned cq_plan_fill_bucket(size_t fill, size_t cbytes)
{
    size_t b = fill * CQ_PLAN_FILL_BUCKETS / (cbytes + 1);
    return b >= CQ_PLAN_FILL_BUCKETS ? CQ_PLAN_FILL_BUCKETS - 1 : (unsigned)b;
}
/* The cut: returns t, sets *at_t to the chunks of bucket t to issue. */
static inline unsigned cq_plan_fullest_cut(const uint64_t count[CQ_PLAN_FILL_BUCKETS],
                                           uint64_t want, uint64_t *at_t)
{
    unsigned t = CQ_PLAN_FILL_BUCKETS - 1;
    uint64_t above = 0;
    while (t > 0 && above + count[t] < want)
        above += count[t--];
    *at_t = want - above;
    return t;
}
/* Pass 2: whether the chunk of bucket b leaves (and takes one of bucket t's places). */
static inline int cq_plan_fullest_take(unsigned b, unsigned t, uint64_t *at_t)
{
    if (b < t || (b == t && *at_t == 0))
        return 0;
    if (b == t)
        --*at_t;
    return 1;
}

/* ---- the flush sweep: from the next PE (me + 1), wrapping, so that PEs flushing at
 * once do not all reach PE 0 first ---- */
static inline int cq_plan_sweep_first(int me, int npes)
{
    return (me + 1) % npes;
}
static inline int cq_plan_sweep_next(int pe, int npes)
{
    return pe + 1 == npes ? 0 : pe + 1;
}
/* Position of target pe in me's sweep (0 first). */
static inline int cq_plan_sweep_pos(int pe, int me, int npes)
{
    int k = pe - cq_plan_sweep_first(me, npes);
    return k < 0 ? k + npes : k;
}

#endif /* SHMEMI_CQ_PLAN_H */
