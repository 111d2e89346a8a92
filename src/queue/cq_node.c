/* cq_node.c: the comm queue's node transport (src/mpi_rma/xport.h). A burst for a PE
 * of this node is either posted to that PE's mailbox (cq_owner.c: the owner applies it
 * inside a library call, or this PE does after a bounded wait) or applied by the
 * pushing PE into that PE's memory mapped here: atomics with CPU atomics, puts and gets
 * as copies, complete on return. */
#include "comm_queue.h"
#include "cq_owner.h"

#include "cq_dense.h"

static int node_add_dense(shmem_queue_t q, unsigned char *base, const cq_range_t *r,
                          const uint64_t *disp, const unsigned char *opnd, uint32_t n, int esize,
                          int narrow_only)
{
    uint64_t span = dense_span(r, n, esize, CQ_DENSE_BURST);
    if (!span || (narrow_only && span > n) || !dense_array(q))
        return 0;
    dense_sum(q->dense, r->lo, disp, opnd, n, esize);
    /* words whose sum was 0 count as merged away */
    q->st.combined_ops += n - dense_apply(q->dense, 0, span - 1, base + r->lo, esize);
    return 1;
}

uint32_t shmemi_queue_comm_dense_compact(shmem_queue_t q, const uint64_t *disp,
                                         const unsigned char *opnd, uint32_t n, int esize,
                                         uint64_t lo, uint64_t span, uint64_t *out_disp,
                                         unsigned char *out_opnd)
{
    if (span > CQ_DENSE_BURST || !dense_array(q))
        return UINT32_MAX;
    dense_sum(q->dense, lo, disp, opnd, n, esize);
    uint64_t first = 0;
    uint32_t m = dense_emit(q->dense, &first, span - 1, lo, esize, out_disp, out_opnd, UINT32_MAX);
    q->st.combined_ops += n - m;
    return m;
}

/* ---- Held sums ----
 * ADD bursts to this PE's own memory, on a table a few times narrower than the records
 * pushed to it, are summed with plain adds into the array's top and applied later with
 * one CPU atomic per word touched: when the sums hold CQ_SUM_PER_WORD times as many
 * records as words (most words then take many), when a burst falls outside the window, and
 * at every issue-all (local_flush, flush, a full queue's progress, destroy). A locked add
 * costs several plain ones even on a line in this cache, and the PE's own share of a
 * histogram was a quarter of its cycles in them (bench/README.md, "Held sums").
 * Completion is unchanged: the held records stay in `outstanding` until applied, and a
 * queue with a flush timeout never holds (its records must reach memory on the timer). */
void cq_node_hold_drain(shmem_queue_t q)
{
    if (q->hold.n)
        (void)sumwin_apply(q, &q->hold, q->dense + CQ_SELF_AT, q->hold_base, q->hold_esize);
}

/* Takes the burst (n records, range r; `pushed` records leave the outstanding count when
 * the sums are applied) into the held sums, or returns 0. */
static int node_hold(shmem_queue_t q, unsigned char *base, const cq_range_t *r,
                     const uint64_t *disp, const unsigned char *opnd, uint32_t n, int esize,
                     uint32_t pushed)
{
    const uint64_t es = (uint64_t)esize, span = dense_span(r, n, esize, CQ_HOLD_WORDS);
    if (q->timed || !span)
        return 0;
    if (q->hold.n && (base != q->hold_base || esize != q->hold_esize ||
                      !sumwin_fits(&q->hold, r, es, CQ_HOLD_WORDS)))
        cq_node_hold_drain(q);
    if (!q->hold.n) {
        if (!dense_array(q))
            return 0;
        sumwin_open(&q->hold, r, span, es, CQ_HOLD_WORDS);
        q->hold_base = base;
        q->hold_esize = esize;
    }
    sumwin_add(&q->hold, q->dense + CQ_SELF_AT, r, disp, opnd, n, esize, pushed);
    if (sumwin_full(&q->hold, CQ_SUM_PER_WORD, q->max_elems))
        cq_node_hold_drain(q);
    return 1;
}

/* 64-bit adds to this PE's own table: locked adds do not overlap their misses (x86
 * orders them), so on a table past the caches the lines are fetched a few records
 * ahead (as the owner's apply does, cq_owner.c). */
static void node_add64_prefetch(unsigned char *base, const uint64_t *disp, const uint64_t *v,
                                uint32_t n)
{
    uint32_t i = 0;
    for (; i + 16 < n; i++) {
        __builtin_prefetch(base + disp[i + 16], 1);
        __atomic_fetch_add((uint64_t *)(void *)(base + disp[i]), v[i], __ATOMIC_RELAXED);
    }
    for (; i < n; i++)
        __atomic_fetch_add((uint64_t *)(void *)(base + disp[i]), v[i], __ATOMIC_RELAXED);
}

/* Applies the slot's chunk (n pushed records, `sent` after combining) at `base`: complete
 * on return, so every pushed record leaves the outstanding count now; or posts an atomic
 * one to the target's mailbox (cq_owner.c), whose records leave the count when applied. */
int cq_node_burst(shmem_queue_t q, cq_slot_t *s, cq_chunk_t *c, unsigned char *base,
                  uint32_t n, uint32_t sent)
{
    cq_msghdr_t *h = chunk_hdr(c);
    if ((h->slot == CQ_S_PUT || h->slot == CQ_S_GET) && h->tidx != SHMEMI_XT_BYTES) {
        /* one-element typed records (cq_push.c): not made for node targets, which the
         * push copies at once; applied here should a chunk ever reach a node PE */
        size_t es = cq_esize[h->tidx];
        if (h->slot == CQ_S_PUT)
            cq_apply_typed_puts(base, s->disp, s->opnd, n, es);
        else
            cq_apply_typed_gets(base, s->disp, s->opnd, n, es);
        q->st.bytes += (uint64_t)n * es;
    } else if (h->slot == CQ_S_PUT) {
        cq_apply_puts(base, chunk_data(c), n);
        q->st.bytes += c->used;
    } else if (h->slot == CQ_S_GET) {
        cq_apply_gets(base, chunk_data(c), n);
        q->st.bytes += c->used;
    } else {
        cq_range_t r = dense_range(s->disp, sent);
        if (shmemi_queue_comm_owner_post(q, s, c, &r, n, sent)) {
            /* the records went to the mailbox; they stay outstanding until applied
             * (reaped at progress, at a burst, at a flush) */
            s->n = 0;
            chunk_put(q, c);
            q->st.bursts++;
            return 0;
        }
        if (h->slot == CQ_S_ADD && c->pe == q->me &&
            node_hold(q, base, &r, s->disp, s->opnd, sent, h->esize, n)) {
            /* outstanding until cq_node_hold_drain applies them */
            q->st.bytes += (uint64_t)sent * h->esize;
            s->n = 0;
            chunk_put(q, c);
            q->st.bursts++;
            return 0;
        }
        /* Own table, peers posting theirs to us: the lines stay here, so summing a table
         * wider than the burst (a branch per word of it) costs more than it saves */
        int narrow_only = c->pe == q->me && q->own_mode;
        int summed = h->slot == CQ_S_ADD &&
                     node_add_dense(q, base, &r, s->disp, s->opnd, sent, h->esize, narrow_only);
        /* own table too wide to sum (1M counters): prefetched, with or without owners
         * (every PE its own node: +5 % commq, bench/README.md) */
        if (!summed && c->pe == q->me && h->slot == CQ_S_ADD && h->esize == 8)
            node_add64_prefetch(base, s->disp, (const uint64_t *)(const void *)s->opnd, sent);
        else if (!summed)
            cq_apply_atomics(base, h->slot, h->esize, s->disp, s->opnd, sent, 1);
        q->st.bytes += (uint64_t)sent * h->esize;
    }
    s->n = 0;
    chunk_put(q, c);
    q->outstanding -= n;
    q->st.bursts++;
    return 0;
}

/* Test hook (test_commq_hold): records held in q's sums now. */
uint64_t shmemi_queue_comm_held(shmem_queue_t q)
{
    cq_lock(q);
    uint64_t n = q->hold.n;
    cq_unlock(q);
    return n;
}
