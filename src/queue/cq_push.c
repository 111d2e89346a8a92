/* cq_push.c: the comm queue's push side (docs/queues_design.md): chunks and their cache, the
 * per-(target, op) slots with their capacity grants, appends of atomic and PUT/GET
 * records, and the push routines. A full chunk leaves through cq_slot_issue (cq_flush.c).
 * The one-element fast path is inline (include/shmemq/queue_inline.h, cq_push). */
#include "comm_queue.h"
#include "cq_owner.h"
#include "../mpi_rma/bufcache.h"
#include <limits.h>

/* ---- chunks ---- */

/* Chunks of destroyed queues are kept for the next queues (up to CQ_CACHE_BYTES per
 * PE): a program that creates and destroys queues repeatedly then does not page-fault
 * fresh chunk memory inside its push loops (the profile showed ~8% of cycles in page
 * faults and their clearing with per-queue malloc/free). A chunk comes back for a queue
 * of the same chunk size (AM and RMA chunks differ); the bound counts payload bytes
 * (cbytes). The cache itself is the library's one module, src/mpi_rma/bufcache.h. */
#define CQ_CACHE_BYTES ((size_t)64 << 20)
static shmemi_bufcache_t chunk_cache =
    SHMEMI_BUFCACHE_INIT(0, CQ_CACHE_BYTES, shmemi_bufcache_free);

static cq_chunk_t *cache_take(size_t cbytes)
{
    return shmemi_bufcache_take(&chunk_cache, cbytes);
}

/* Keeps c for later queues, or frees it. */
void cq_cache_give(cq_chunk_t *c, size_t cbytes)
{
    shmemi_bufcache_give(&chunk_cache, c, cbytes);
}

void cq_cache_free(void)
{
    shmemi_bufcache_drain(&chunk_cache);
    shmemi_queue_comm_owner_fini(); /* finalize, after the last burst: the mailboxes go too */
    cq_route_free();
}

/* A chunk for a slot to open: a free one, else a new one while the queue's budget
 * allows, else one the budget makes free (cq_budget.c). 0, or the error. */
static int chunk_get(shmem_queue_t q, cq_chunk_t **out)
{
    if (!q->free_chunks) {
        cq_am_reclaim(q);
        /* a local flush of the RMA bursts waits for the network: let a few be in flight
         * before paying it (the budget bounds the memory) */
        if (!q->free_chunks && q->rma_pending &&
            (q->n_chunks >= CQ_PLAN_RMA_POOL || q->n_chunks >= q->budget_chunks))
            cq_rma_reclaim(q);
        if (!q->free_chunks && q->n_chunks >= q->budget_chunks) {
            int rc = cq_budget_make_room(q);
            if (rc)
                return rc;
        }
    }
    cq_chunk_t *c = q->free_chunks;
    if (c) {
        q->free_chunks = c->next;
        *out = c;
        return 0;
    }
    c = cache_take(q->cbytes);
    if (!c) {
        c = malloc(cq_plan_chunk_alloc(q->cbytes)); /* the chunk, 64 to align, the message */
        if (!c)
            return SHMEM_QUEUE_ERR_NOMEM;
        c->msg = (unsigned char *)(((uintptr_t)(c + 1) + 63) & ~(uintptr_t)63);
    }
    q->n_chunks++;
    *out = c;
    return 0;
}

/* Single-target detection (SHMEM_PE_SAME, hinted or not): paid when a chunk opens,
 * never in the push fast path; flushes then visit one PE instead of all. */
static inline void note_pe(shmem_queue_t q, int pe)
{
    if (q->one_pe != pe)
        q->one_pe = q->one_pe == -1 ? pe : -2;
}

static int slot_open(shmem_queue_t q, cq_slot_t *s, int pe, int slot, int tidx, int win)
{
    cq_chunk_t *c = NULL;
    int rc = chunk_get(q, &c);
    if (rc)
        return rc;
    cq_msghdr_t *h = chunk_hdr(c);
    h->type = CQ_MSG_BATCH;
    h->count = 0;
    h->slot = (uint8_t)slot;
    h->tidx = (uint8_t)tidx;
    h->win = (uint8_t)win;
    /* record operand bytes: the element, or for a typed GET the local address */
    h->esize = slot == CQ_S_GET && tidx != SHMEMI_XT_BYTES ? 8 : cq_esize[tidx];
    h->token = 0;
    c->pe = cq_rep(q, pe); /* a node chunk goes to the node's server */
    c->used = 0;
    note_pe(q, c->pe);
    chunk_link_open(q, c);
    s->ch = c;
    s->n = 0;
    s->cap = 0; /* atomics: granted by slot_grant */
    s->key = (uint32_t)tidx | ((uint32_t)win << 8);
    if (tidx == SHMEMI_XT_BYTES) { /* PUT/GET record stream */
        s->disp = NULL;
        s->opnd = NULL;
    } else { /* atomics, and one-element typed PUT/GET: displacements, then operands */
        s->disp = (uint64_t *)chunk_data(c);
        s->opnd = chunk_data(c) + chunk_records(q, h->esize) * 8;
    }
    return 0;
}

/* Records the open atomic chunk of `s` can hold. */
static inline uint32_t slot_room(shmem_queue_t q, cq_slot_t *s)
{
    return (uint32_t)chunk_records(q, chunk_hdr(s->ch)->esize);
}

/* Records in open atomic chunks: the slots' n (0 for PUT/GET slots and closed ones),
 * summed over the open list: only a slot with an open chunk has records. */
uint64_t cq_open_records(shmem_queue_t q)
{
    uint64_t n = 0;
    for (cq_chunk_t *c = q->open_head; c; c = c->next)
        n += cq_slot(q, c->pe, chunk_hdr(c)->slot)->n;
    return n;
}

/* Gives every open chunk's unused grant back: `outstanding` is exact afterwards. Only
 * near max_elems; a slot without an open atomic chunk has cap == n == 0, so the open
 * list has every slot with a grant (O(open chunks), not O(P)). */
void cq_settle(shmem_queue_t q)
{
    for (cq_chunk_t *c = q->open_head; c; c = c->next) {
        cq_slot_t *s = cq_slot(q, c->pe, chunk_hdr(c)->slot);
        q->outstanding -= s->cap - s->n;
        q->granted -= s->cap - s->n;
        s->cap = s->n;
    }
}

/* Grants the open atomic chunk of `s` up to q->grant more records of max_elems (its
 * room permitting); the number granted, 0 when the queue is full. */
static uint32_t slot_grant(shmem_queue_t q, cq_slot_t *s)
{
    if (q->outstanding >= q->max_elems)
        cq_settle(q);
    uint64_t avail = q->max_elems - q->outstanding;
    uint32_t g = slot_room(q, s) - s->cap;
    if (g > q->grant)
        g = q->grant;
    if (g > avail)
        g = (uint32_t)avail;
    s->cap += g;
    q->outstanding += g;
    q->granted += g;
    return g;
}

/* After a burst: keep the network and incoming batches moving. */
static inline void after_burst(shmem_queue_t q)
{
    cq_am_reclaim(q);
    shmemi_progress(); /* node peers' bursts posted here are applied by its hook */
    if (q->own_busy)
        shmemi_queue_comm_owner_reap(q, 0);
}

/* ---- appends (the queue lock is held) ---- */
/* Sends the slot's open chunk (if any) and opens a fresh one of the given kind. */
static int slot_reopen(shmem_queue_t q, cq_slot_t *s, int pe, int slot, int tidx, int win)
{
    int rc = cq_slot_issue(q, s);
    if (rc)
        return rc;
    after_burst(q);
    return slot_open(q, s, pe, slot, tidx, win);
}

static int append_atomic(shmem_queue_t q, int pe, int slot, int tidx, int win, uint64_t disp,
                         const void *operand)
{
    cq_slot_t *s = cq_slot(q, pe, slot);
    uint32_t key = (uint32_t)tidx | ((uint32_t)win << 8);
    if (s->key != key || s->n >= s->cap) {
        if (s->key != key || s->n >= slot_room(q, s)) { /* another kind, or a full buffer */
            int rc = slot_reopen(q, s, pe, slot, tidx, win);
            if (rc)
                return rc;
        }
        if (slot_grant(q, s) == 0)
            return SHMEM_QUEUE_ERR_FULL; /* not reached: callers check cq_room_for first */
    }
    size_t es = chunk_hdr(s->ch)->esize; /* typed GET: the 8-byte local address */
    uint32_t n = s->n++;
    s->disp[n] = disp | cq_tag(q, pe);
    memcpy(s->opnd + (size_t)n * es, operand, es);
    q->fast.open_ops += q->fast.counting;
    q->n_buffered += (uint64_t)q->timed;
    return 0;
}

/* PUT/GET record: {disp, len, payload | local address}. Too big for a chunk: issued
 * directly by the transport (xport.h; a PUT's src is reusable on return). */
static int append_rw(shmem_queue_t q, int pe, int slot, int win, uint64_t disp, void *local,
                     const void *payload, size_t len)
{
    size_t rec = slot == CQ_S_PUT ? 16 + ((len + 7) & ~(size_t)7) : 24;
    if (rec > q->cbytes || len > (size_t)INT_MAX) {
        cq_mpirc_t st = {0, NULL};
        if (slot == CQ_S_PUT)
            shmemi_xp_region_bytes(0, (void *)payload, len, pe, win, disp, SHMEMI_XP_LOCAL, &st);
        else
            shmemi_xp_region_bytes(1, local, len, pe, win, disp, SHMEMI_XP_NBI, &st);
        note_pe(q, cq_rep(q, pe));
        cq_rma_note_pe(q, pe);
        q->rma_dirty[win] = 1;
        q->n_rma_issued++;
        q->outstanding++;
        q->st.bursts++;
        q->st.bytes += len;
        cq_traffic(q, pe);
        return cq_mpi_result(&st);
    }
    cq_slot_t *s = cq_slot(q, pe, slot);
    uint32_t key = (uint32_t)SHMEMI_XT_BYTES | ((uint32_t)win << 8);
    if (s->key != key || s->ch->used + rec > q->cbytes ||
        chunk_hdr(s->ch)->count >= q->cbytes / 24) {
        int rc = slot_reopen(q, s, pe, slot, SHMEMI_XT_BYTES, win);
        if (rc)
            return rc;
    }
    cq_chunk_t *c = s->ch;
    unsigned char *p = chunk_data(c) + c->used;
    uint64_t l64 = len;
    disp |= cq_tag(q, pe);
    memcpy(p, &disp, 8);
    memcpy(p + 8, &l64, 8);
    if (slot == CQ_S_PUT) {
        memcpy(p + 16, payload, len);
    } else {
        uint64_t a = (uint64_t)(uintptr_t)local;
        memcpy(p + 16, &a, 8);
    }
    c->used += (uint32_t)rec;
    chunk_hdr(c)->count++;
    q->outstanding++;
    q->n_buffered += (uint64_t)q->timed;
    return 0;
}

static int push_locked(shmem_queue_t q, const char *routine, void *dest, const void *src,
                       size_t nelems, int pe, int op, int tidx)
{
    if ((unsigned)op >= 8) {
        shmemi_debug(routine, "invalid operation %d", op);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (!(cq_type_ops_rw[tidx] & CQ_OPB(op))) {
        shmemi_debug(routine, "operation %d is not defined for this element type", op);
        return SHMEM_QUEUE_ERR_TYPE;
    }
    if (!(q->opmask & CQ_OPB(op))) {
        shmemi_debug(routine, "operation %d does not match the queue's op_type", op);
        return SHMEM_QUEUE_ERR_TYPE;
    }
    if (pe < 0 || pe >= q->fast.n_pes) {
        shmemi_debug(routine, "PE %d out of range [0, %d)", pe, q->fast.n_pes);
        return SHMEM_QUEUE_ERR_ARG;
    }
    size_t es = cq_esize[tidx];
    if (nelems > SIZE_MAX / es) {
        shmemi_debug(routine, "%zu elements of %zu bytes overflow", nelems, es);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (nelems == 0)
        return 0;
    size_t nbytes = nelems * es;
    if (dest == NULL || (src == NULL && op != SHMEM_OP_ATOMIC_INC)) {
        shmemi_debug(routine, "NULL %s", dest == NULL ? "dest" : "src");
        return SHMEM_QUEUE_ERR_ARG;
    }
    int win;
    uint64_t disp;
    const void *remote = op == SHMEM_OP_GET ? src : dest;
    if (cq_xlate(remote, nbytes, &win, &disp) != 0) {
        shmemi_debug(routine, "%s %p (%zu bytes) is not symmetric",
                     op == SHMEM_OP_GET ? "src" : "dest", remote, nbytes);
        return SHMEM_QUEUE_ERR_ADDR;
    }
    /* typed elements sit at their natural alignment (sizes are powers of two); a
     * misaligned one would make the atomics (and C) misbehave */
    uintptr_t align = (uintptr_t)dest | (op == SHMEM_OP_GET ? (uintptr_t)src : 0);
    if (tidx != SHMEMI_XT_BYTES && (align & (uintptr_t)(es - 1))) {
        const void *bad = ((uintptr_t)dest & (uintptr_t)(es - 1)) ? dest : src;
        shmemi_debug(routine, "%p is not aligned to its %zu-byte element type", bad, es);
        return SHMEM_QUEUE_ERR_ARG;
    }
    int atomic = op != SHMEM_OP_PUT && op != SHMEM_OP_GET;
    uint64_t nops = atomic ? nelems : 1;
    if (nops > q->max_elems) {
        shmemi_debug(routine, "%zu operations can never fit a queue of max_elems %llu", (size_t)nops,
                     (unsigned long long)q->max_elems);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (!cq_room_for(q, nops)) {
        q->st.full_returns++;
        return SHMEM_QUEUE_ERR_FULL;
    }
    if (q->timed && q->n_buffered == 0)
        q->t_oldest = shmemi_wtime();
    int rc = 0, slot = SHMEMQ_CQ_SLOT(op);
    int slotted = atomic; /* records in a slot: counted in ops_pushed when the chunk leaves */
    unsigned char *nb;
    if (atomic) {
        for (size_t i = 0; i < nelems && rc == 0; i++) {
            const void *operand = op == SHMEM_OP_ATOMIC_INC ? (const void *)cq_one
                                                            : (const char *)src + i * es;
            rc = append_atomic(q, pe, slot, tidx, win, disp + i * es, operand);
        }
    } else if ((nb = cq_node_target(pe, win, 0)) != NULL) {
        /* this PE or a node peer: the copy is the operation, complete now (allowed: a
         * queued operation may complete any time before the flush) */
        if (op == SHMEM_OP_PUT)
            memmove(nb + disp, src, nbytes);
        else
            memmove(dest, nb + disp, nbytes);
    } else if (nelems == 1 && tidx != SHMEMI_XT_BYTES &&
               cq_slot(q, pe, slot)->key !=
                   ((uint32_t)SHMEMI_XT_BYTES | ((uint32_t)win << 8))) {
        /* one typed element: a slot like the atomics' (displacements, then the value or,
         * for a GET, where it goes), which the inline push fills too (queue_inline.h).
         * Not while the slot collects records of several elements: joining them keeps a
         * mix of one- and multi-element pushes from issuing a burst at every switch. */
        uint64_t where = (uint64_t)(uintptr_t)dest;
        rc = append_atomic(q, pe, slot, tidx, win, disp, op == SHMEM_OP_PUT ? src : &where);
        slotted = 1;
    } else if (op == SHMEM_OP_PUT) {
        rc = append_rw(q, pe, CQ_S_PUT, win, disp, NULL, src, nbytes);
    } else {
        rc = append_rw(q, pe, CQ_S_GET, win, disp, dest, NULL, nbytes);
    }
    if (rc == 0 && !slotted)
        q->st.ops_pushed += nops;
    if (q->timed) {
        if (q->timeout == 0.0) {
            /* no aggregation: this push's chunk leaves now */
            int r = cq_slot_issue(q, cq_slot(q, pe, slot));
            if (r && !rc)
                rc = r;
        } else {
            cq_timer(q);
        }
    }
    return rc;
}

int cq_push_general(shmem_queue_t q, const char *routine, void *dest, const void *src,
                    size_t nelems, int pe, int op, int tidx)
{
    int rc = cq_check(q, routine);
    if (rc)
        return rc;
    cq_lock(q);
    rc = push_locked(q, routine, dest, src, nelems, pe, op, tidx);
    cq_unlock(q);
    return rc;
}

int shmem_queue_comm_pushmem(shmem_queue_t q, void *dest, const void *src, size_t nbytes, int pe,
                             shmem_op_type_t op)
{
    static const char *routine = "shmem_queue_comm_pushmem";
    return cq_push_general(q, routine, dest, src, nbytes, pe, (int)op, SHMEMI_XT_BYTES);
}
SHMEMI_PROFILE(shmem_queue_comm_pushmem)

#define CQ_TYPED_PUSH(T, N)                                                                  \
    int shmem_##N##_queue_comm_push(shmem_queue_t q, T *dest, const T *src, size_t nelems,   \
                                    int pe, shmem_op_type_t op)                              \
    {                                                                                        \
        return cq_push(q, "shmem_" #N "_queue_comm_push", dest, src, nelems, pe, (int)op,    \
                       SHMEMI_XT_##N, sizeof(T));                                                 \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_queue_comm_push)
SHMEMQ_RMA_TYPES(CQ_TYPED_PUSH)
#undef CQ_TYPED_PUSH

int shmemx_queue_comm_push_strided(shmem_queue_t q, void *dest, const void *src,
                                   ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t blksize,
                                   size_t nblks, int pe, shmem_op_type_t op)
{
    static const char *routine = "shmemx_queue_comm_push_strided";
    int rc = cq_check(q, routine);
    if (rc)
        return rc;
    if (op != SHMEM_OP_PUT && op != SHMEM_OP_GET) {
        shmemi_debug(routine, "only SHMEM_OP_PUT and SHMEM_OP_GET are strided");
        return (unsigned)op < 8 ? SHMEM_QUEUE_ERR_TYPE : SHMEM_QUEUE_ERR_ARG;
    }
    if (nblks == 0 || blksize == 0)
        return 0;
    if (!dest || !src) {
        shmemi_debug(routine, "NULL %s", dest ? "src" : "dest");
        return SHMEM_QUEUE_ERR_ARG;
    }
    /* Check the whole extent first so that bad input queues nothing. */
    ptrdiff_t rstride = op == SHMEM_OP_PUT ? dst_stride : src_stride;
    const char *rbase = op == SHMEM_OP_PUT ? (const char *)dest : (const char *)src;
    ptrdiff_t span;
    if (nblks - 1 > (size_t)PTRDIFF_MAX || __builtin_mul_overflow((ptrdiff_t)(nblks - 1), rstride, &span)) {
        shmemi_debug(routine, "stride overflows");
        return SHMEM_QUEUE_ERR_ARG;
    }
    const char *first = rbase, *last = (const char *)((uintptr_t)rbase + (uintptr_t)span);
    int w1, w2;
    uint64_t d1, d2;
    if (pe < 0 || pe >= shmemi.n_pes) {
        shmemi_debug(routine, "PE %d out of range", pe);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (cq_xlate(first, blksize, &w1, &d1) || cq_xlate(last, blksize, &w2, &d2) || w1 != w2) {
        shmemi_debug(routine, "strided range is not symmetric");
        return SHMEM_QUEUE_ERR_ADDR;
    }
    cq_lock(q);
    if (nblks > q->max_elems || !cq_room_for(q, nblks)) {
        q->st.full_returns++;
        cq_unlock(q);
        return nblks > q->max_elems ? SHMEM_QUEUE_ERR_ARG : SHMEM_QUEUE_ERR_FULL;
    }
    for (size_t i = 0; i < nblks && rc == 0; i++)
        rc = push_locked(q, routine, (char *)dest + (ptrdiff_t)i * dst_stride,
                         (const char *)src + (ptrdiff_t)i * src_stride, blksize, pe, (int)op,
                         SHMEMI_XT_BYTES);
    cq_unlock(q);
    return rc;
}
SHMEMI_PROFILE(shmemx_queue_comm_push_strided)
