/* bench/cqsim.c: the comm-queue simulator's core (cqsim.h). Origin by origin, one flush:
 *   pushes: a target's open chunk takes records up to cq_plan_records; the push after it
 *     is full issues it (one burst) and opens another (cq_push.c, append_atomic);
 *   chunks: as chunk_get gives them: a free one, else a new one while the budget allows;
 *     RMA bursts hold their chunk until reclaimed (when the queue has CQ_PLAN_RMA_POOL
 *     chunks or the budget's, or when CQ_PLAN_MAX_RMA_INFLIGHT operations are in flight);
 *     node bursts give theirs back at once; with the budget spent, the fullest eighth of
 *     the open chunks leaves (cq_plan_fullest_*, over the open list in the queue's order:
 *     the newest first), then the RMA chunks in flight come back (cq_budget.c);
 *   flush: every open chunk leaves, and completion returns every chunk in flight
 *     (cq_rma_complete); the sweep (cq_plan_sweep_*) says which target is reached first.
 * Node-routed queues (node_routed): a target on another node stands for its node, whose
 *   lowest PE (the server) the chunk is kept under and sent to (cq_route.c, cq_rep).
 * An origin keeps only its own state (fills and the open list, P x kinds entries,
 * reused), so memory is O(P) words whatever P; per-target results are sums over origins. */
#include "cqsim.h"
#include "sim.h"
#include "../src/queue/cq_plan.h"
#include <stdlib.h>
#include <string.h>

struct cqsim {
    cqsim_cfg_t c;
    size_t recs;       /* records per chunk */
    /* per slot (target d, kind k: d * kinds + k) */
    uint32_t *fill;    /* records in the origin's open chunk, 0 none */
    int32_t *prev, *next; /* the open list (head newest, as chunk_link_open) */
    int32_t head;
    uint64_t n_open;
    uint32_t *stamp;   /* P: the origin-flush that last sent to the target (peers) */
    uint32_t gen;
    uint64_t *chunks;  /* P: chunks each queue holds (kept across flushes) */
    uint64_t *early_total; /* P */
    /* the origin being simulated */
    int me;
    uint64_t n_chunks, n_free, n_pending, rma_ops;
    cqsim_pe_t *pe;
    uint64_t *fanin;
};

cqsim_t *cqsim_new(const cqsim_cfg_t *c)
{
    if (c->npes < 1 || c->n < 1 || c->npes % c->n || c->records < 0 || c->kinds < 1 ||
        c->kinds > 5 || (int64_t)c->npes * c->kinds > INT32_MAX ||
        (c->esize != 4 && c->esize != 8) || c->budget < 1 ||
        cq_plan_records(c->cbytes, c->esize) < 1)
        return NULL;
    cqsim_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->c = *c;
    s->recs = cq_plan_records(c->cbytes, c->esize);
    size_t P = (size_t)c->npes, S = P * (size_t)c->kinds;
    s->fill = calloc(S, sizeof *s->fill);
    s->prev = malloc(S * sizeof *s->prev);
    s->next = malloc(S * sizeof *s->next);
    s->stamp = calloc(P, sizeof *s->stamp);
    s->chunks = calloc(P, sizeof *s->chunks);
    s->early_total = calloc(P, sizeof *s->early_total);
    if (!s->fill || !s->prev || !s->next || !s->stamp || !s->chunks ||
        !s->early_total) {
        cqsim_free(s);
        return NULL;
    }
    s->head = -1;
    return s;
}

void cqsim_free(cqsim_t *s)
{
    if (!s)
        return;
    free(s->fill), free(s->prev), free(s->next), free(s->stamp);
    free(s->chunks), free(s->early_total);
    free(s);
}

static void link_open(cqsim_t *s, int sl)
{
    s->prev[sl] = -1;
    s->next[sl] = s->head;
    if (s->head >= 0)
        s->prev[s->head] = sl;
    s->head = sl;
    s->n_open++;
    if (s->n_open > s->pe[s->me].open_hw)
        s->pe[s->me].open_hw = (uint32_t)s->n_open;
}

static void unlink_open(cqsim_t *s, int sl)
{
    if (s->prev[sl] >= 0)
        s->next[s->prev[sl]] = s->next[sl];
    else
        s->head = s->next[sl];
    if (s->next[sl] >= 0)
        s->prev[s->next[sl]] = s->prev[sl];
    s->n_open--;
}

/* All RMA chunks in flight come back (cq_rma_reclaim; complete: also the op count). */
static void reclaim(cqsim_t *s, int complete)
{
    s->n_free += s->n_pending;
    s->n_pending = 0;
    if (complete)
        s->rma_ops = 0;
}

/* Slot sl's open chunk leaves as one burst (cq_slot_issue). */
static void issue(cqsim_t *s, int sl)
{
    const cqsim_cfg_t *c = &s->c;
    int d = sl / c->kinds;
    cqsim_pe_t *me = &s->pe[s->me], *to = &s->pe[d];
    uint32_t n = s->fill[sl];
    unlink_open(s, sl);
    s->fill[sl] = 0;
    uint64_t b = (uint64_t)n * c->esize;
    me->msgs++;
    me->bytes += b;
    to->recv++;
    int same = d / c->n == s->me / c->n;
    if (s->stamp[d] != s->gen) {
        s->stamp[d] = s->gen;
        me->peers++;
        me->peers_node += same && c->node_atomics;
    }
    if (!same) {
        to->recv_off++;
        to->bytes_recv_off += b;
        s->fanin[d / c->n]++;
    }
    if (same && c->node_atomics) { /* cq_node_burst: applied now, the chunk is free */
        me->msgs_node++;
        me->bytes_node += b;
        s->n_free++;
        return;
    }
    if (s->rma_ops + n > CQ_PLAN_MAX_RMA_INFLIGHT) /* cq_rma_burst completes first */
        reclaim(s, 1);
    s->n_pending++;
    s->rma_ops += n;
}

/* The budget is spent: issue the fullest eighth of the open chunks (cq_budget.c). */
static void issue_fullest(cqsim_t *s)
{
    cqsim_pe_t *me = &s->pe[s->me];
    size_t rb = 8 + s->c.esize; /* bytes of a record in the chunk */
    uint64_t want = cq_plan_fullest_want(s->n_open);
    uint64_t count[CQ_PLAN_FILL_BUCKETS] = {0};
    for (int sl = s->head; sl >= 0; sl = s->next[sl])
        count[cq_plan_fill_bucket(s->fill[sl] * rb, s->c.cbytes)]++;
    me->selections++;
    me->scanned += s->n_open;
    uint64_t at_t;
    unsigned t = cq_plan_fullest_cut(count, want, &at_t);
    for (int sl = s->head, nx; sl >= 0 && want; sl = nx) {
        nx = s->next[sl]; /* the burst unlinks sl */
        me->scanned++;
        if (!cq_plan_fullest_take(cq_plan_fill_bucket(s->fill[sl] * rb, s->c.cbytes), t, &at_t))
            continue;
        want--;
        issue(s, sl);
        me->early++;
    }
}

/* A chunk for a slot to open (chunk_get, cq_budget_make_room). */
static void chunk_get(cqsim_t *s)
{
    if (!s->n_free) {
        if (s->n_pending && (s->n_chunks >= CQ_PLAN_RMA_POOL || s->n_chunks >= s->c.budget))
            reclaim(s, 0);
        if (!s->n_free && s->n_chunks >= s->c.budget) {
            if (s->head >= 0)
                issue_fullest(s);
            if (!s->n_free)
                reclaim(s, 0); /* waits for the bursts in flight */
        }
    }
    if (s->n_free)
        s->n_free--;
    else
        s->n_chunks++; /* allocated (over the budget only when nothing is in flight) */
}

void cqsim_flush(cqsim_t *s, int f, cqsim_pe_t *pe, uint64_t *fanin)
{
    const cqsim_cfg_t *c = &s->c;
    const int P = c->npes;
    memset(pe, 0, (size_t)P * sizeof *pe);
    memset(fanin, 0, (size_t)(P / c->n) * sizeof *fanin);
    s->pe = pe;
    s->fanin = fanin;
    for (int src = 0; src < P; src++) {
        s->me = src;
        if (++s->gen == 0) { /* wrapped: old stamps would look current */
            memset(s->stamp, 0, (size_t)P * sizeof *s->stamp);
            s->gen = 1;
        }
        /* a queue after a flush: every chunk free, none open or in flight */
        s->n_chunks = s->chunks[src];
        s->n_free = s->n_chunks;
        s->n_pending = s->rma_ops = 0;
        for (int i = 0; i < c->records; i++) {
            int d = sim_pick(c->seed, P, c->n, c->hot_pct, f, src, i);
            if (c->node_routed && d / c->n != src / c->n)
                d -= d % c->n; /* the node's chunk, kept under its server (cq_route.c) */
            int sl = d * c->kinds + i % c->kinds;
            if (s->fill[sl] && s->fill[sl] < s->recs) {
                s->fill[sl]++;
                continue;
            }
            if (s->fill[sl])
                issue(s, sl); /* full: leaves, then the slot reopens */
            chunk_get(s);
            link_open(s, sl);
            s->fill[sl] = 1;
        }
        /* the flush: every open chunk, then completion. The sweep (from me + 1 on) sets
         * the order, which changes no count here (chunks in flight all come back at
         * completion): only where it starts is recorded, and the chunks leave in list
         * order, O(open) rather than a sort per origin. */
        int first = -1, best = P;
        for (int sl = s->head; sl >= 0; sl = s->next[sl]) {
            int pos = cq_plan_sweep_pos(sl / c->kinds, src, P);
            if (pos < best)
                best = pos, first = sl / c->kinds;
        }
        if (first >= 0)
            pe[first].sweep_first++;
        while (s->head >= 0)
            issue(s, s->head);
        reclaim(s, 1);
        s->chunks[src] = s->n_chunks;
        s->early_total[src] += pe[src].early;
        pe[src].chunks = s->n_chunks;
        pe[src].early_total = s->early_total[src];
    }
}
