/* cq_rhold.c: held sums for PEs of other nodes (issue 21).
 *
 * Off the node, every record of an ADD burst costs a place on the wire and an atomic at
 * the target's node, and a PE whose adds land on a small table (a histogram's) sends the
 * same words again and again: with 1,000 counters per PE, dropping the bursts to the
 * other node altogether made the 2-PE histogram 2.1x faster (bench/README.md). So a
 * leaving ADD chunk for a PE of another node, on the RMA path (which off the node takes
 * it to the target's node server), whose words span no more than one chunk holds, is
 * summed per word into one of CQ_RHOLD_N windows of the summing array (cq_dense.h)
 * instead of sent. A window leaves as one burst of one record per word touched, in the
 * chunk its first burst came in (kept for it, so a drain never needs memory):
 * - when it holds 16 times as many records as words touched, or a quarter of max_elems;
 * - before a burst of its PE for another region, type or range is held in its place, or
 *   when every window is in use and a burst for another PE comes;
 * - at every issue of all open chunks (local_flush, a full queue's progress, destroy).
 * Held records stay outstanding (FULL, the counts) until the drained burst completes,
 * like the records SHMEMQ_COMBINE merges. A timed queue never holds (its operations must
 * leave on its timer), nor does a queue made with SHMEMQ_HOLD_SUMS=0. */
#include "comm_queue.h"
#include "cq_dense.h"

/* Windows in use at most: CQ_RHOLD_N, fewer in tests (shmemi_queue_comm_rhold_windows). */
static int n_windows = CQ_RHOLD_N;

/* Words a window holds: one chunk's records, at most its share of the array. */
static uint64_t win_words(shmem_queue_t q, size_t esize)
{
    uint64_t cap = chunk_records(q, esize), share = CQ_HOLD_WORDS / CQ_RHOLD_N;
    return cap < share ? cap : share;
}

static uint64_t *win_acc(shmem_queue_t q, int w)
{
    return q->dense + CQ_RHOLD_AT + (uint64_t)w * (CQ_HOLD_WORDS / CQ_RHOLD_N);
}

/* Sends window w; 0 or the burst's error. */
static int drain(shmem_queue_t q, int w)
{
    struct cq_rhold *x = &q->rh[w];
    if (!x->n)
        return 0;
    cq_chunk_t *c = x->chunk;
    cq_msghdr_t *h = chunk_hdr(c);
    uint64_t held = x->n;
    x->chunk = NULL;
    x->n = 0;
    /* the records where slot_open puts them: displacements, then operands at capacity */
    unsigned char *data = chunk_data(c);
    uint32_t m = dense_emit(win_acc(q, w), x->min, x->max, x->lo, h->esize,
                            (uint64_t *)(void *)data, data + chunk_records(q, h->esize) * 8);
    q->st.combined_ops += held - m;
    if (m == 0) { /* every sum was 0: nothing to send, all complete */
        chunk_put(q, c);
        q->outstanding -= held;
        return 0;
    }
    h->count = m;
    shmemi_qtraffic_sent(&q->tr, q->fast.n_pes, c->pe);
    int was_busy = q->rh_busy;
    q->rh_busy = 1; /* a completion the burst waits for must not hold anything */
    int rc = cq_rma_burst(q, c, m);
    q->rh_busy = was_busy;
    q->n_rma_issued += held - m; /* merged away: complete with the burst */
    return rc;
}

int cq_rhold_drain(shmem_queue_t q)
{
    int rc = 0;
    for (int w = 0; w < CQ_RHOLD_N; w++) {
        int r = drain(q, w);
        if (r && !rc)
            rc = r;
    }
    return rc;
}

/* The window for chunk c's PE: its own, else a free one, else one given up in turn. */
static int pick(shmem_queue_t q, const cq_chunk_t *c, int *rc)
{
    int free_w = -1;
    for (int w = 0; w < n_windows; w++) {
        if (q->rh[w].n && q->rh[w].chunk->pe == c->pe)
            return w;
        if (!q->rh[w].n && free_w < 0)
            free_w = w;
    }
    if (free_w >= 0)
        return free_w;
    int w = (int)(q->rh_next++ % (unsigned)n_windows);
    *rc = drain(q, w);
    return w;
}

int cq_rhold_take(shmem_queue_t q, cq_chunk_t *c, const uint64_t *disp,
                  const unsigned char *opnd, uint32_t n, int *rc)
{
    cq_msghdr_t *h = chunk_hdr(c);
    *rc = 0;
    if (!q->rh_on || q->rh_busy || q->timed || q->path != CQ_PATH_RMA || h->slot != CQ_S_ADD)
        return 0;
    const uint64_t es = h->esize, words = win_words(q, h->esize);
    if (n >= 64) { /* a wide table shows in the first records: skip the full scan */
        cq_range_t f = dense_range(disp, 64);
        if ((f.hi - f.lo) / es >= words)
            return 0;
    }
    cq_range_t r = dense_range(disp, n);
    uint64_t span = dense_span(&r, n, h->esize, words);
    if (!span || !dense_array(q))
        return 0;
    int w = pick(q, c, rc);
    struct cq_rhold *x = &q->rh[w];
    if (x->n) {
        cq_msghdr_t *k = chunk_hdr(x->chunk);
        if (k->win != h->win || k->tidx != h->tidx || r.lo < x->lo || (r.hi - x->lo) / es >= words) {
            int r2 = drain(q, w);
            if (r2 && !*rc)
                *rc = r2;
        }
    }
    if (!x->n) { /* a new window, centred on this burst, in this burst's chunk */
        uint64_t slack = (words - span) / 2 * es;
        x->lo = r.lo > slack ? r.lo - slack : 0;
        x->min = UINT32_MAX;
        x->max = 0;
    }
    dense_sum(win_acc(q, w), x->lo, disp, opnd, n, h->esize);
    uint32_t a = (uint32_t)((r.lo - x->lo) / es), z = (uint32_t)((r.hi - x->lo) / es);
    x->min = a < x->min ? a : x->min;
    x->max = z > x->max ? z : x->max;
    if (!x->n)
        x->chunk = c; /* read above; the drain writes its records over it */
    else
        chunk_put(q, c);
    x->n += n;
    if (x->n >= 16 * ((uint64_t)x->max - x->min + 1) || x->n >= q->max_elems / 4) {
        int r2 = drain(q, w);
        if (r2 && !*rc)
            *rc = r2;
    }
    return 1;
}

/* Destroy after a failed flush: the kept chunks go back (their sums are lost with the
 * queue, as a burst that failed). */
void cq_rhold_free(shmem_queue_t q)
{
    for (int w = 0; w < CQ_RHOLD_N; w++) {
        if (q->rh[w].chunk)
            chunk_put(q, q->rh[w].chunk);
        q->rh[w].chunk = NULL;
        q->rh[w].n = 0;
    }
}

/* Test hooks (test_commq_rhold): records held for other nodes now; windows to use. */
uint64_t shmemi_queue_comm_rheld(shmem_queue_t q)
{
    cq_lock(q);
    uint64_t n = 0;
    for (int w = 0; w < CQ_RHOLD_N; w++)
        n += q->rh[w].n;
    cq_unlock(q);
    return n;
}

void shmemi_queue_comm_rhold_windows(int n)
{
    n_windows = n < 1 ? 1 : n > CQ_RHOLD_N ? CQ_RHOLD_N : n;
}
