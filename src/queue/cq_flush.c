/* cq_flush.c: how the comm queue's chunks leave and complete (docs/queues_design.md): a burst
 * goes to one transport (cq_node.c, cq_rma.c, am.c), optionally merged first; flushes
 * issue every open chunk and wait for each transport's completion; the timeout and
 * shmem_queue_progress drive them. */
#include "comm_queue.h"
#include "cq_owner.h"
#include <limits.h>
#include <sched.h>

/* ---- bursts: the queue picks the transport (cq_node.c, cq_rma.c, am.c) ---- */
/* Merges operations on one address inside the open chunk: ADD sums, AND/OR/XOR apply
 * the op, SET keeps the later value (queued ops are unordered, so either is valid). */
static void combine_ops(shmem_queue_t q, cq_slot_t *s, int esize, int slot)
{
    uint32_t n = s->n, m = 0;
    uint32_t gen = ++q->hgen;
    if (gen == 0) {
        memset(q->hstamp, 0, sizeof(uint32_t) * ((size_t)q->hmask + 1));
        gen = q->hgen = 1;
    }
    uint64_t *d = s->disp;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t key = d[i];
        uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ULL) >> 40) & q->hmask;
        for (;;) {
            if (q->hstamp[h] != gen) {
                q->hstamp[h] = gen;
                q->hash[h] = m;
                d[m] = key;
                if (m != i)
                    memcpy(s->opnd + (size_t)m * esize, s->opnd + (size_t)i * esize, (size_t)esize);
                m++;
                break;
            }
            uint32_t j = q->hash[h];
            if (d[j] == key) {
                unsigned char *a = s->opnd + (size_t)j * esize;
                const unsigned char *b = s->opnd + (size_t)i * esize;
                if (slot == CQ_S_SET) {
                    memcpy(a, b, (size_t)esize);
                } else if (esize == 8) {
                    uint64_t x, y;
                    memcpy(&x, a, 8);
                    memcpy(&y, b, 8);
                    x = slot == CQ_S_ADD ? x + y : slot == CQ_S_AND ? x & y : slot == CQ_S_OR ? x | y : x ^ y;
                    memcpy(a, &x, 8);
                } else {
                    uint32_t x, y;
                    memcpy(&x, a, 4);
                    memcpy(&y, b, 4);
                    x = slot == CQ_S_ADD ? x + y : slot == CQ_S_AND ? x & y : slot == CQ_S_OR ? x | y : x ^ y;
                    memcpy(a, &x, 4);
                }
                break;
            }
            h = (h + 1) & q->hmask;
        }
    }
    q->st.combined_ops += n - m;
    s->n = m;
}

/* Issue one open chunk as a burst. */
int cq_slot_issue(shmem_queue_t q, cq_slot_t *s)
{
    cq_chunk_t *c = s->ch;
    if (!c)
        return 0;
    cq_msghdr_t *h = chunk_hdr(c);
    int atomic = h->slot != CQ_S_PUT && h->slot != CQ_S_GET;
    /* slot layout (s->n records: displacements, then operands, granted capacity):
     * atomics and one-element typed PUT/GET; else a PUT/GET record stream */
    int slotted = atomic || h->tidx != SHMEMI_XT_BYTES;
    uint32_t n = slotted ? s->n : h->count;
    q->outstanding -= s->cap - s->n; /* the unused grant (0 for PUT/GET chunks) */
    q->granted -= s->cap;              /* the grant leaves with the chunk ... */
    if (q->fast.counting) {
        q->fast.open_ops -= s->n;      /* ... and so do its records */
        q->fast.counting = q->qcalls > 0; /* nobody asked since the last burst: stop */
    }
    q->qcalls = 0;
    chunk_unlink_open(q, c);
    s->ch = NULL;
    s->key = CQ_NOKEY;
    s->cap = 0;
    if (n == 0) {
        s->n = 0;
        chunk_put(q, c);
        return 0;
    }
    q->n_buffered -= q->timed ? n : 0; /* kept (and read) only for timed queues */
    if (slotted)
        q->st.ops_pushed += n; /* one add per chunk instead of one per push */
    uint32_t sent = n;
    /* node transport: this PE applies the burst, the target's CPU is not needed; it sums
     * dense ADDs itself (node_add_dense), cheaper than the hash merge below */
    unsigned char *nb = cq_node_target(c->pe, h->win, atomic);
    int rc;
    /* a node chunk's tagged displacements hold too: records for one PE of the node share
     * their tag, and a window never spans two (its range would be 2^48 words wide) */
    if (atomic && cq_rhold_take(q, c, nb, s->disp, s->opnd, n, &rc)) {
        s->n = 0; /* held: applied or sent later as sums (cq_rhold.c), outstanding until then */
        return rc;
    }
    cq_traffic(q, c->pe);
    if (atomic && !nb) {
        if (q->dedupe && n > 1) {
            combine_ops(q, s, h->esize, h->slot); /* every burst, every atomic op */
        } else if (q->combine && h->slot == CQ_S_ADD && n > 1) {
            int try_it = 1;
            if (q->combine == 2) { /* adaptive: skip a while after a burst that barely merged */
                if (q->comb_skip) {
                    q->comb_skip--;
                    try_it = 0;
                }
            }
            if (try_it) {
                uint32_t before = s->n;
                combine_ops(q, s, h->esize, CQ_S_ADD);
                if (q->combine == 2 && (before - s->n) * 4 < before)
                    q->comb_skip = 16;
            }
        }
        sent = s->n;
    }
    if (nb)
        return cq_node_burst(q, s, c, nb, n, atomic ? s->n : n);
    if (slotted) {
        /* AM messages need the operands right after the displacements; RMA bursts
         * pass them where they are (rma_burst finds them at the chunk's cap), which
         * saves a chunk-sized memmove per burst (~5% of cycles on the RMA path) */
        unsigned char *dst = chunk_data(c) + (size_t)sent * 8;
        if (q->path == CQ_PATH_AM && dst != s->opnd)
            memmove(dst, s->opnd, (size_t)sent * h->esize);
    }
    s->n = 0;
    h->count = sent;
    int pe_self = c->pe == q->me;
    if (q->path == CQ_PATH_AM && h->slot != CQ_S_GET)
        rc = cq_am_burst(q, c, sent);
    else
        rc = cq_rma_burst(q, c, sent);
    /* account for the pushed count: combined ops complete with their partner */
    if (q->path == CQ_PATH_AM && h->slot != CQ_S_GET) {
        if (rc == 0 && pe_self)
            q->outstanding -= n - sent; /* merged into ops already applied */
        else if (rc == 0)
            q->n_am_issued += n - sent;
        else
            q->outstanding -= n; /* not sent: the error goes to the caller */
    } else {
        q->n_rma_issued += n - sent;
    }
    return rc;
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The open chunks in sweep order, taken from the open list: a sweep reads every slot of
 * every plane, O(P) per flush (40 MB of slots at 1M PEs), where a flush to k targets
 * needs O(k log k). 1: done (rc set), 0: not taken (too many open, or no memory: the
 * caller sweeps). The order is the sweep's: (position from me + 1, slot). */
static int issue_open_sorted(shmem_queue_t q, int np, int *rc)
{
    uint64_t k = q->n_open;
    if (k == 0 || k * 4 > (uint64_t)np * (uint64_t)cq_planes(q->opmask))
        return 0;
    /* key: position << 3 | slot (slot < 8), then the chunk */
    uint64_t *a = malloc((size_t)k * 2 * sizeof *a);
    if (!a)
        return 0;
    uint64_t i = 0;
    for (cq_chunk_t *c = q->open_head; c && i < k; c = c->next, i++) {
        a[2 * i] = (uint64_t)cq_plan_sweep_pos(c->pe, q->me, np) << 3 | chunk_hdr(c)->slot;
        a[2 * i + 1] = (uint64_t)(uintptr_t)c;
    }
    qsort(a, (size_t)i, 2 * sizeof *a, by_key);
    for (uint64_t j = 0; j < i; j++) {
        cq_chunk_t *c = (cq_chunk_t *)(uintptr_t)a[2 * j + 1];
        cq_slot_t *s = cq_slot(q, c->pe, (int)(a[2 * j] & 7));
        if (s->ch != c)
            continue; /* not open any more (cannot happen: issuing opens nothing) */
        int r = cq_slot_issue(q, s);
        if (r && !*rc)
            *rc = r;
    }
    free(a);
    return 1;
}

/* Every open chunk leaves. The sweep starts at the next PE (me + 1) and wraps, so that
 * PEs flushing at once do not all reach PE 0 first (issue 23); per-target order and
 * completion do not depend on it. */
int cq_issue_all(shmem_queue_t q)
{
    int rc = 0, np = q->fast.n_pes;
    int first = cq_plan_sweep_first(q->me, np), npe = np;
    if (q->one_pe >= 0) {
        first = q->one_pe;
        npe = 1;
    } else if (q->one_pe == -1) {
        return 0; /* no chunk opened since the last full flush, so nothing held either */
    }
    if (npe == 1 || !issue_open_sorted(q, np, &rc)) {
        for (int k = 0, pe = first; k < npe; k++, pe = cq_plan_sweep_next(pe, np)) {
            for (int j = 0; j < CQ_NSLOTS; j++) {
                cq_slot_t *s;
                if (!q->fast.plane[j] || !(s = cq_slot(q, pe, j))->ch)
                    continue; /* an op the queue does not carry, or nothing open */
                int r = cq_slot_issue(q, s);
                if (r && !rc)
                    rc = r;
            }
        }
    }
    int r = cq_rhold_drain(q); /* after the bursts, which may have joined the held sums */
    if (r && !rc)
        rc = r;
    cq_node_hold_drain(q); /* likewise this PE's own */
    return rc;
}

int cq_flush_all(shmem_queue_t q)
{
    int rc = cq_issue_all(q);
    shmemi_queue_comm_owner_serve(NULL); /* what node peers posted here: one load if nothing */
    if (q->own_busy) /* bursts posted to node peers: applied by them or, late, by us */
        shmemi_queue_comm_owner_reap(q, 1);
    shmemi_node_quiet(); /* node bursts: visible before the flush returns */
    int r = cq_rma_complete(q);
    if (r && !rc)
        rc = r;
    r = cq_am_complete(q);
    if (r && !rc)
        rc = r;
    if (rc == 0 && q->outstanding == 0)
        q->one_pe = -1; /* nothing open or in flight: track afresh */
    q->st.flushes++;
    shmemi_qtraffic_flushed(&q->tr, q->st.bursts, q->st.bytes);
    return rc;
}

void cq_timer(shmem_queue_t q)
{
    if (q->timed && q->n_buffered && shmemi_wtime() - q->t_oldest >= q->timeout)
        cq_issue_all(q);
}

static inline int clamp_count(uint64_t n)
{
    return n > (uint64_t)INT_MAX ? INT_MAX : (int)n;
}

int cq_progress(shmem_queue_t q)
{
    /* Programs call this after every push: most calls only count. */
    if (SHMEMI_LIKELY(q != NULL && q->fast.magic == CQ_MAGIC_LIVE &&
                      q->progress_counts_only && q->outstanding < q->max_elems &&
                      (++q->progress_calls & 255) != 0))
        return clamp_count(cq_outstanding(q));
    int rc = cq_check(q, "shmem_queue_progress");
    if (rc)
        return rc;
    cq_lock(q);
    cq_am_reclaim(q);
    shmemi_progress();
    if (q->own_busy)
        shmemi_queue_comm_owner_reap(q, 0);
    rc = cq_am_epoch_end(q, 0);
    cq_timer(q);
    if (rc == 0 && q->early && q->path == CQ_PATH_AM && !q->epoch_pending &&
        cq_outstanding(q) >= q->max_elems / 2 && q->outstanding > q->n_rma_issued) {
        rc = cq_issue_all(q);
        if (rc == 0)
            rc = cq_am_epoch_start(q);
    }
    if (rc == 0 && !cq_room_for(q, 1)) {
        /* a full queue must make room: the epoch in flight, else everything */
        rc = cq_am_epoch_end(q, 1);
        if (rc == 0 && q->outstanding >= q->max_elems)
            rc = cq_flush_all(q);
    }
    if (rc == 0)
        rc = clamp_count(cq_outstanding(q));
    cq_unlock(q);
    /* An empty queue polled in a loop is a program waiting (for a vote, a flag): where
     * the machine runs more PEs than cores, give the core to a PE that works, as the
     * library's own waits do. A spinning waiter held its core for a whole time slice:
     * index-gather's dataq_commq at 4 PEs on 2 cores ran at 0.4-0.5x mpi_alltoallv
     * before, 1.0-1.45x after (bench/README.md, "Progress polls that yield"). */
    if (rc == 0 && shmemi_node_oversubscribed())
        sched_yield();
    return rc;
}

int shmem_queue_progress(shmem_queue_t q)
{
    return cq_progress(q);
}
SHMEMI_PROFILE(shmem_queue_progress)

int cq_local_flush(shmem_queue_t q)
{
    int rc = cq_check(q, "shmem_queue_local_flush");
    if (rc)
        return rc;
    cq_lock(q);
    rc = cq_flush_all(q);
    cq_unlock(q);
    return rc;
}

int shmem_queue_local_flush(shmem_queue_t q)
{
    return cq_local_flush(q);
}
SHMEMI_PROFILE(shmem_queue_local_flush)
