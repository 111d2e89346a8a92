/* cq_rhold.c: held sums for other PEs (issue 21): PEs of other nodes and node peers.
 *
 * Off the node, every record of an ADD burst costs a place on the wire and an atomic at
 * the target's node, and a PE whose adds land on a small table (a histogram's) sends the
 * same words again and again: with 1,000 counters per PE, dropping the bursts to the
 * other node altogether made the 2-PE histogram 2.1x faster (bench/README.md). On the
 * node, every record costs a locked add on a line the owner also writes (x86 does not
 * overlap them): the 10k-counter histogram ran at 0.8x mpi_alltoallv, 1.0x with plain
 * adds. So a leaving ADD chunk for another PE whose words span no more than a window
 * (CQ_RWIN_WORDS, at most CQ_RHOLD_CHUNKS chunks' records) is summed per word into one
 * of CQ_RHOLD_N windows, one per target PE, when the target is a node peer whose atomics
 * the node transport applies here, or any PE on the RMA path (which off the node takes
 * it to the target's node server). A node peer's window is applied with one CPU atomic
 * per word touched, complete on return; another's leaves as bursts of one record per
 * word touched, written into chunks of the bursts it held (kept for it, one per chunk's
 * worth of words touched, so a drain never needs another). A window leaves:
 * - when it holds 64 times as many records as words touched, or a quarter of max_elems;
 * - before a burst of its PE for another region, type or range is held in its place;
 * - at every issue of all open chunks (local_flush, a full queue's progress, destroy),
 *   and when the memory budget needs its chunks (cq_budget.c).
 * Held records stay outstanding (FULL, the counts) until applied or until the drained
 * bursts complete, like the records SHMEMQ_COMBINE merges. A timed queue never holds
 * (its operations must leave on its timer), nor does a queue made with
 * SHMEMQ_HOLD_SUMS=0. A window's sums (128 KiB) are allocated when a target first takes
 * it: memory the model counts (queue_usage.c) and shmemx_queue_usage reports. A PE's
 * own adds have their own held sums (cq_node.c). */
#include "comm_queue.h"
#include "cq_dense.h"

/* Windows in use at most: CQ_RHOLD_N, fewer in tests (shmemi_queue_comm_rhold_windows). */
static int n_windows = CQ_RHOLD_N;

/* Words a window holds: what its kept chunks can carry back, at most CQ_RWIN_WORDS. */
static uint64_t win_words(shmem_queue_t q, size_t esize)
{
    uint64_t cap = CQ_RHOLD_CHUNKS * chunk_records(q, esize);
    return cap < CQ_RWIN_WORDS ? cap : CQ_RWIN_WORDS;
}

/* Sends window w; 0 or the first burst's error. Its kept chunks always carry its sums:
 * a burst adds at most one chunk's records of words not 0 and the take keeps its chunk
 * unless the chunks kept already cover every word touched or are CQ_RHOLD_CHUNKS, which
 * cover the window (win_words). */
static int drain(shmem_queue_t q, int w)
{
    struct cq_rhold *x = &q->rh[w];
    if (!x->s.n)
        return 0;
    if (x->base) { /* a node peer's: one CPU atomic per word, complete on return, counted
                      as the node burst it replaces (cq_node_burst) */
        q->st.bytes += sumwin_apply(q, &x->s, x->acc, x->base, x->esize) * (uint64_t)x->esize;
        q->st.bursts++;
        cq_traffic(q, x->pe);
        return 0;
    }
    const cq_msghdr_t h0 = *chunk_hdr(x->chunk[0]); /* every kept chunk's header */
    const int pe = x->pe, esize = x->esize;
    const uint64_t held = x->s.n, cap = chunk_records(q, (size_t)esize);
    uint64_t k = x->s.min, sent = 0;
    int used = 0, rc = 0;
    x->s.n = 0;
    q->rh_busy++; /* a completion a burst waits for must not hold anything */
    for (; used < x->nch && k <= x->s.max; used++) {
        cq_chunk_t *c = x->chunk[used];
        /* the records where slot_open puts them: displacements, then operands at cap */
        unsigned char *data = chunk_data(c);
        uint32_t m = dense_emit(x->acc, &k, x->s.max, x->s.lo, esize, (uint64_t *)(void *)data,
                                data + cap * 8, (uint32_t)cap);
        if (m == 0) /* the rest summed to 0 */
            break;
        *chunk_hdr(c) = h0;
        chunk_hdr(c)->count = m;
        c->pe = pe;
        cq_traffic(q, pe);
        int r = cq_rma_burst(q, c, m);
        if (r && !rc)
            rc = r;
        sent += m;
    }
    q->rh_busy--;
    for (; k <= x->s.max; k++) { /* sums of 0 (mod 2^32 for 4-byte words), by the rule above */
        uint64_t v = x->acc[k];
        x->acc[k] = 0;
        if (esize == 8 ? v != 0 : (uint32_t)v != 0)
            shmemi_fatal("shmem_queue", "held sums for PE %d outgrew their chunks", pe);
    }
    for (; used < x->nch; used++)
        chunk_put(q, x->chunk[used]);
    x->nch = 0;
    q->st.combined_ops += held - sent;
    if (sent == 0) /* every sum was 0: nothing to send, all complete */
        q->outstanding -= held;
    else
        q->n_rma_issued += held - sent; /* merged away: complete with the bursts */
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

/* The window for PE pe: its own, else a free one, else -1. A window is not taken from
 * another PE: with more targets than windows (8 PEs on a node), windows passed around
 * each held a burst or two, and their drains cost more than the sums saved (the
 * histogram at 10k counters fell from 0.8-1.0x to 0.7x mpi_alltoallv); bursts for the
 * others leave as they are until a window drains (full, or at a flush). */
static int pick(shmem_queue_t q, int pe)
{
    int free_w = -1;
    for (int w = 0; w < n_windows; w++) {
        if (q->rh[w].s.n && q->rh[w].pe == pe)
            return w;
        if (!q->rh[w].s.n && free_w < 0)
            free_w = w;
    }
    return free_w;
}

int cq_rhold_take(shmem_queue_t q, cq_chunk_t *c, unsigned char *base, const uint64_t *disp,
                  const unsigned char *opnd, uint32_t n, int *rc)
{
    cq_msghdr_t *h = chunk_hdr(c);
    *rc = 0;
    if (!q->rh_on || q->rh_busy || q->timed || h->slot != CQ_S_ADD)
        return 0;
    if (base ? c->pe == q->me : q->path != CQ_PATH_RMA) /* own sums: cq_node.c's */
        return 0;
    const uint64_t es = h->esize, words = win_words(q, h->esize);
    if (n >= 64) { /* a wide table shows in the first records: skip the full scan */
        cq_range_t f = dense_range(disp, 64);
        if ((f.hi - f.lo) / es >= words)
            return 0;
    }
    cq_range_t r = dense_range(disp, n);
    uint64_t span = dense_span(&r, n, h->esize, words);
    if (!span)
        return 0;
    int w = pick(q, c->pe);
    if (w < 0)
        return 0;
    struct cq_rhold *x = &q->rh[w];
    if (!x->acc && !(x->acc = calloc(CQ_RWIN_WORDS, sizeof *x->acc)))
        return 0; /* sent as it is */
    if (x->s.n && (x->win != h->win || x->tidx != h->tidx || !sumwin_fits(&x->s, &r, es, words))) {
        int r2 = drain(q, w);
        if (r2 && !*rc)
            *rc = r2;
    }
    if (!x->s.n) {
        sumwin_open(&x->s, &r, span, es, words);
        x->base = base;
        x->pe = c->pe;
        x->win = h->win;
        x->tidx = h->tidx;
        x->esize = h->esize;
    }
    sumwin_add(&x->s, x->acc, &r, disp, opnd, n, h->esize, n);
    /* a chunk per chunk's worth of words touched goes back with the sums; the drain
     * writes its records over them */
    if (!base && x->nch < CQ_RHOLD_CHUNKS &&
        (uint64_t)x->nch * chunk_records(q, h->esize) < sumwin_touched(&x->s))
        x->chunk[x->nch++] = c;
    else
        chunk_put(q, c);
    if (sumwin_full(&x->s, CQ_SUM_PER_WORD, q->max_elems)) {
        int r2 = drain(q, w);
        if (r2 && !*rc)
            *rc = r2;
    }
    return 1;
}

/* Destroy: the kept chunks go back (after a failed flush their sums are lost with the
 * queue, as a burst that failed), and the windows' sums are freed. */
void cq_rhold_free(shmem_queue_t q)
{
    for (int w = 0; w < CQ_RHOLD_N; w++) {
        struct cq_rhold *x = &q->rh[w];
        for (int i = 0; i < x->nch; i++)
            chunk_put(q, x->chunk[i]);
        x->nch = 0;
        x->s.n = 0;
        free(x->acc);
        x->acc = NULL;
    }
}

size_t cq_rhold_bytes(shmem_queue_t q)
{
    size_t b = 0;
    for (int w = 0; w < CQ_RHOLD_N; w++)
        b += q->rh[w].acc ? CQ_RWIN_WORDS * sizeof(uint64_t) : 0;
    return b;
}

/* Test hooks (test_commq_rhold): records held for other PEs now; windows to use. */
uint64_t shmemi_queue_comm_rheld(shmem_queue_t q)
{
    cq_lock(q);
    uint64_t n = 0;
    for (int w = 0; w < CQ_RHOLD_N; w++)
        n += q->rh[w].s.n;
    cq_unlock(q);
    return n;
}

void shmemi_queue_comm_rhold_windows(int n)
{
    n_windows = n < 1 ? 1 : n > CQ_RHOLD_N ? CQ_RHOLD_N : n;
}
