/* cq_budget.c: one memory budget per comm queue (docs/queues_design.md, "One memory
 * budget"). A queue holds at most budget_chunks chunks, open, in flight (RMA bursts whose
 * origin buffers MPI may still read, AM messages not yet sent) or free. When a slot needs
 * a chunk and the budget is spent, chunk_get (cq_push.c) has already taken back what
 * completed; here the fullest open chunks leave early and, if none is free then, the
 * queue waits for one in flight while it progresses, as its flushes do (cq_am_complete,
 * cq_rma_reclaim), so a target that computes or waits in MPI still lets it finish.
 * FULL, the counts and the queries do not change: an early burst is an operation in
 * flight like any other. */
#include "comm_queue.h"

/* Issues the fullest eighth of the open chunks (one at least): one budget shortfall then
 * pays one O(open chunks) selection for many chunks, not one per chunk. The rule is
 * cq_plan.h's, which the simulator (bench/cqsim.c) runs too. */
static int issue_fullest(shmem_queue_t q)
{
    uint64_t want = cq_plan_fullest_want(q->n_open);
    uint64_t count[CQ_PLAN_FILL_BUCKETS] = {0};
    for (cq_chunk_t *c = q->open_head; c; c = c->next)
        count[cq_plan_fill_bucket(cq_open_fill(q, c), q->cbytes)]++;
    uint64_t at_t; /* chunks of bucket t to issue */
    unsigned t = cq_plan_fullest_cut(count, want, &at_t);
    int rc = 0;
    for (cq_chunk_t *c = q->open_head, *nx; c && want; c = nx) {
        nx = c->next; /* the burst unlinks c */
        if (!cq_plan_fullest_take(cq_plan_fill_bucket(cq_open_fill(q, c), q->cbytes), t, &at_t))
            continue;
        want--;
        int r = cq_slot_issue(q, cq_slot(q, c->pe, chunk_hdr(c)->slot));
        q->budget_issued++;
        if (r && !rc)
            rc = r;
    }
    return rc;
}

int cq_budget_make_room(shmem_queue_t q)
{
    int rc = 0;
    /* chunks leaving now are sent as they are, not held for sums (cq_rhold.c) */
    q->rh_busy++;
    if (q->open_head) {
        rc = issue_fullest(q);
        cq_am_reclaim(q); /* node and self bursts came back at once; AM sends may have */
    }
    if (!q->free_chunks) { /* the chunks held sums keep: their sums leave, they come back */
        int r = cq_rhold_drain(q);
        if (r && !rc)
            rc = r;
    }
    q->rh_busy--;
    /* Everything else is in flight: wait for the oldest while progressing (incoming
     * batches, node peers' mailboxes), as a flush waits. */
    for (unsigned spins = 0; !q->free_chunks; spins++) {
        if (q->rma_pending) {
            cq_rma_reclaim(q); /* a local flush per target: all come back */
            continue;
        }
        if (!q->am_head)
            break; /* nothing in flight: unreachable (every chunk is open, free, holding
                      sums, drained above, or in flight), and allocating one over the
                      budget is better than a hang */
        cq_am_reclaim(q);
        if (q->free_chunks)
            break;
        shmemi_wait_pass(spins);
    }
    return rc;
}

/* For tests (test_commq_budget.cc): the queue's budget in chunks (UINT64_MAX: none) and
 * the chunks it issued early because the budget was spent. -1 if q is not a live queue. */
int shmemi_queue_comm_budget_stats(shmem_queue_t q, uint64_t out[2])
{
    if (cq_check(q, "shmemi_queue_comm_budget_stats") != 0)
        return -1;
    cq_lock(q);
    out[0] = q->budget_chunks;
    out[1] = q->budget_issued;
    cq_unlock(q);
    return 0;
}
