/* comm_queue.c: communication queues (docs/queues.md has the design and numbers): the
 * queue logic (handles, chunks and slots, pushes, flushes, the public routines).
 *
 * Bursts: a full chunk (or flush/timeout) leaves through one transport:
 *   node (cq_node.c)  a PE of this node: applied here, CPU atomics and copies
 *   rma  (cq_rma.c)   one MPI call with indexed datatypes (Accumulate/Put/Get)
 *   am   (am.c)       one message applied by the target (atomics and puts, on request)
 * Completion: nothing (node), MPI_Win_flush_all (RMA), a flush request/reply per target
 * (AM). */
#include "comm_queue.h"
#include "data_queue.h"
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <time.h>

#define CQ_DEFAULT_MAX_ELEMS ((uint64_t)1 << 20)
#define CQ_SLAB 64
#define CQ_RMA_POOL 64 /* chunks before RMA bursts are reclaimed with flush_local_all */
#define CQ_DEAD_KEEP 1024 /* destroyed handles stay detectable until this many more die */

const unsigned char cq_one[16] = {1};
#define CQ_SZ(T, N) [CQ_T_##N] = sizeof(T),
const unsigned char cq_esize[CQ_NTYPES + 1] = {SHMEMQ_RMA_TYPES(CQ_SZ)[CQ_T_BYTES] = 1};
#undef CQ_SZ
uint32_t cq_type_ops_rw[CQ_NTYPES + 1];
MPI_Datatype cq_mpitype[CQ_NTYPES + 1];

#define OPB(op) (1u << (op))

static void cq_tables_init(void)
{
#define T_RMA(T, N) cq_type_ops_rw[CQ_T_##N] |= OPB(SHMEM_OP_PUT) | OPB(SHMEM_OP_GET);
#define T_STD(T, N) \
    cq_type_ops_rw[CQ_T_##N] |= OPB(SHMEM_OP_ATOMIC_ADD) | OPB(SHMEM_OP_ATOMIC_INC);
#define T_EXT(T, N) cq_type_ops_rw[CQ_T_##N] |= OPB(SHMEM_OP_ATOMIC_SET);
#define T_BIT(T, N) \
    cq_type_ops_rw[CQ_T_##N] |= OPB(SHMEM_OP_ATOMIC_AND) | OPB(SHMEM_OP_ATOMIC_OR) | OPB(SHMEM_OP_ATOMIC_XOR);
    SHMEMQ_RMA_TYPES(T_RMA)
    SHMEMQ_AMO_STD_TYPES(T_STD)
    SHMEMQ_AMO_EXT_TYPES(T_EXT)
    SHMEMQ_AMO_BIT_TYPES(T_BIT)
    cq_type_ops_rw[CQ_T_BYTES] = OPB(SHMEM_OP_PUT) | OPB(SHMEM_OP_GET);
    int i = 0;
    MPI_Datatype m[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_CHAR, MPI_SIGNED_CHAR,
                        MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_UNSIGNED_CHAR,
                        MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
                        MPI_UNSIGNED_LONG_LONG, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T,
                        MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T,
                        /* size_t, ptrdiff_t: the LP64 C types they are */
                        sizeof(size_t) == sizeof(unsigned long) ? MPI_UNSIGNED_LONG : MPI_UINT64_T,
                        sizeof(ptrdiff_t) == sizeof(long) ? MPI_LONG : MPI_INT64_T, MPI_BYTE};
    for (i = 0; i <= CQ_NTYPES; i++)
        cq_mpitype[i] = m[i];
#undef T_RMA
#undef T_STD
#undef T_EXT
#undef T_BIT
}

/* ---- handle registry: headers live in never-freed slabs, so a stale handle still
 * points at our memory and its magic tells "destroyed" without undefined behaviour;
 * dead headers are reused oldest first, only once CQ_DEAD_KEEP others have died. ---- */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shmem_queue_s **slabs;
static int n_slabs;
static struct shmem_queue_s *dead_head, *dead_tail, *fresh;
static int n_dead, n_fresh;
static uint64_t next_id = 1;
static int tables_done;

static int cq_is_mine(const void *p)
{
    for (int i = 0; i < n_slabs; i++) {
        uintptr_t a = (uintptr_t)p, b = (uintptr_t)slabs[i];
        if (a >= b && a < b + sizeof(struct shmem_queue_s) * CQ_SLAB)
            return (a - b) % sizeof(struct shmem_queue_s) == 0;
    }
    return 0;
}

static struct shmem_queue_s *cq_header_alloc(void)
{
    struct shmem_queue_s *q = NULL;
    pthread_mutex_lock(&reg_lock);
    if (!tables_done) {
        cq_tables_init();
        tables_done = 1;
    }
    if (n_dead > CQ_DEAD_KEEP) {
        q = dead_head;
        dead_head = q->next_dead;
        if (!dead_head)
            dead_tail = NULL;
        n_dead--;
    } else {
        if (n_fresh == 0) {
            struct shmem_queue_s **ns = realloc(slabs, sizeof(*ns) * (size_t)(n_slabs + 1));
            struct shmem_queue_s *s = calloc(CQ_SLAB, sizeof(struct shmem_queue_s));
            if (ns)
                slabs = ns;
            if (!ns || !s) {
                free(s);
                pthread_mutex_unlock(&reg_lock);
                return NULL;
            }
            slabs[n_slabs++] = s;
            fresh = s;
            n_fresh = CQ_SLAB;
        }
        q = fresh++;
        n_fresh--;
    }
    memset(q, 0, sizeof *q);
    q->id = next_id++;
    pthread_mutex_unlock(&reg_lock);
    return q;
}

static void cq_header_free(struct shmem_queue_s *q)
{
    pthread_mutex_lock(&reg_lock);
    q->fast.magic = CQ_MAGIC_DEAD;
    q->next_dead = NULL;
    if (dead_tail)
        dead_tail->next_dead = q;
    else
        dead_head = q;
    dead_tail = q;
    n_dead++;
    pthread_mutex_unlock(&reg_lock);
}

/* 0 if q is a live comm queue, else the error to return (reported under SHMEM_DEBUG). */
/* Records in open atomic chunks: the slots' n (0 for PUT/GET slots and closed ones). */
static uint64_t open_records(shmem_queue_t q)
{
    uint64_t n = 0;
    for (size_t i = 0; CQ_SLOTS(q) && i < (size_t)q->fast.n_pes * CQ_NSLOTS; i++)
        n += CQ_SLOTS(q)[i].n;
    return n;
}

/* ops_pushed including the atomics still in open chunks (counted when they leave). */
static uint64_t ops_pushed_now(shmem_queue_t q)
{
    return q->st.ops_pushed + open_records(q) + q->fast.node_rw;
}

static int cq_check(shmem_queue_t q, const char *routine)
{
    if (SHMEMI_UNLIKELY(!shmemi.initialized)) {
        shmemi_debug(routine, "OpenSHMEM is not initialized");
        return SHMEM_QUEUE_ERR_STATE;
    }
    if (SHMEMI_UNLIKELY(q == NULL)) {
        shmemi_debug(routine, "NULL queue handle");
        return SHMEM_QUEUE_ERR_ARG;
    }
    /* A live handle is recognised without the registry lock (headers are never freed,
     * so reading the magic is safe for any handle this library returned). */
    if (SHMEMI_LIKELY(__atomic_load_n(&q->fast.magic, __ATOMIC_ACQUIRE) == CQ_MAGIC_LIVE))
        return 0;
    pthread_mutex_lock(&reg_lock);
    int mine = cq_is_mine(q);
    int rc = 0;
    if (!mine) {
        shmemi_debug(routine, "not a communication queue handle");
        rc = SHMEM_QUEUE_ERR_STATE;
    } else if (q->fast.magic != CQ_MAGIC_LIVE) {
        shmemi_debug(routine, "queue handle used after shmem_queue_comm_destroy");
        rc = SHMEM_QUEUE_ERR_STATE;
    }
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

static inline void cq_lock(shmem_queue_t q)
{
    if (q->shared)
        pthread_mutex_lock(&q->lock);
}
static inline void cq_unlock(shmem_queue_t q)
{
    if (q->shared)
        pthread_mutex_unlock(&q->lock);
}

/* ---- chunks ---- */

/* Chunks of destroyed queues are kept for the next queues (up to CQ_CACHE_BYTES per
 * PE): a program that creates and destroys queues repeatedly then does not page-fault
 * fresh chunk memory inside its push loops (the profile showed ~8% of cycles in page
 * faults and their clearing with per-queue malloc/free). Two sizes exist (AM chunks and
 * the 2x RMA chunks), cached apart. */
#define CQ_CACHE_BYTES ((size_t)64 << 20)
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    size_t cbytes;
    cq_chunk_t *head;
} chunk_cache[2];
static size_t cache_bytes;

static cq_chunk_t *cache_take(size_t cbytes)
{
    cq_chunk_t *c = NULL;
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < 2; i++) {
        if (chunk_cache[i].cbytes == cbytes && chunk_cache[i].head) {
            c = chunk_cache[i].head;
            chunk_cache[i].head = c->next;
            cache_bytes -= cbytes;
            break;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return c;
}

/* Keeps c for later queues, or frees it. */
static void cache_give(cq_chunk_t *c, size_t cbytes)
{
    pthread_mutex_lock(&cache_lock);
    if (cache_bytes + cbytes <= CQ_CACHE_BYTES) {
        for (int i = 0; i < 2; i++) {
            if (chunk_cache[i].cbytes == 0)
                chunk_cache[i].cbytes = cbytes;
            if (chunk_cache[i].cbytes == cbytes) {
                c->next = chunk_cache[i].head;
                chunk_cache[i].head = c;
                cache_bytes += cbytes;
                c = NULL;
                break;
            }
        }
    }
    pthread_mutex_unlock(&cache_lock);
    free(c);
}

void cq_cache_free(void)
{
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < 2; i++) {
        while (chunk_cache[i].head) {
            cq_chunk_t *c = chunk_cache[i].head;
            chunk_cache[i].head = c->next;
            free(c);
        }
    }
    cache_bytes = 0;
    pthread_mutex_unlock(&cache_lock);
}

static cq_chunk_t *chunk_get(shmem_queue_t q)
{
    if (!q->free_chunks) {
        cq_am_reclaim(q);
        /* MPI_Win_flush_local_all waits for the network: let a few bursts be in flight
         * before paying it (memory stays bounded by max_elems anyway). */
        if (!q->free_chunks && q->rma_pending && q->n_chunks >= CQ_RMA_POOL)
            cq_rma_reclaim(q);
    }
    cq_chunk_t *c = q->free_chunks;
    if (c) {
        q->free_chunks = c->next;
        return c;
    }
    c = cache_take(q->cbytes);
    if (!c) {
        c = malloc(sizeof(cq_chunk_t) + 64 + sizeof(cq_msghdr_t) + q->cbytes);
        if (!c)
            return NULL;
        c->msg = (unsigned char *)(((uintptr_t)(c + 1) + 63) & ~(uintptr_t)63);
    }
    q->n_chunks++;
    return c;
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
    cq_chunk_t *c = chunk_get(q);
    if (!c)
        return SHMEM_QUEUE_ERR_NOMEM;
    cq_msghdr_t *h = chunk_hdr(c);
    h->type = CQ_MSG_BATCH;
    h->count = 0;
    h->slot = (uint8_t)slot;
    h->tidx = (uint8_t)tidx;
    h->win = (uint8_t)win;
    h->esize = cq_esize[tidx];
    h->token = 0;
    c->pe = pe;
    c->used = 0;
    note_pe(q, pe);
    s->ch = c;
    s->n = 0;
    s->cap = 0; /* atomics: granted by slot_grant */
    s->key = (uint32_t)tidx | ((uint32_t)win << 8);
    if (slot == CQ_S_PUT || slot == CQ_S_GET) {
        s->disp = NULL;
        s->opnd = NULL;
    } else {
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

/* Gives every open chunk's unused grant back: `outstanding` is exact afterwards. Only
 * near max_elems; a slot without an open atomic chunk has cap == n == 0. */
static void cq_settle(shmem_queue_t q)
{
    for (size_t i = 0; i < (size_t)q->fast.n_pes * CQ_NSLOTS; i++) {
        cq_slot_t *s = &CQ_SLOTS(q)[i];
        q->outstanding -= s->cap - s->n;
        q->granted -= s->cap - s->n;
        s->cap = s->n;
    }
}

/* Queries this many times with no burst between them turn counting on (comm_queue.h). */
#define CQ_COUNT_AFTER 4

/* Operations outstanding: granted records count once they are used. O(1) while
 * counting; a query also decides whether to start counting. */
static inline uint64_t cq_outstanding(shmem_queue_t q)
{
    if (SHMEMI_LIKELY(q->fast.counting)) {
        q->qcalls = 1; /* asked since the last burst: keep counting */
        return q->outstanding - q->granted + q->fast.open_ops;
    }
    uint64_t open = open_records(q);
    if (++q->qcalls >= CQ_COUNT_AFTER) {
        q->fast.open_ops = open;
        q->fast.counting = 1;
    }
    return q->outstanding - q->granted + open;
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

/* Is there room for nops more operations? Settles the grants before saying no. */
static inline int cq_room_for(shmem_queue_t q, uint64_t nops)
{
    if (q->outstanding + nops <= q->max_elems)
        return 1;
    cq_settle(q);
    return q->outstanding + nops <= q->max_elems;
}

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
static int slot_issue(shmem_queue_t q, cq_slot_t *s)
{
    cq_chunk_t *c = s->ch;
    if (!c)
        return 0;
    cq_msghdr_t *h = chunk_hdr(c);
    int atomic = h->slot != CQ_S_PUT && h->slot != CQ_S_GET;
    uint32_t n = atomic ? s->n : h->count;
    q->outstanding -= s->cap - s->n; /* the unused grant (0 for PUT/GET chunks) */
    q->granted -= s->cap;              /* the grant leaves with the chunk ... */
    if (q->fast.counting) {
        q->fast.open_ops -= s->n;      /* ... and so do its records */
        q->fast.counting = q->qcalls > 0; /* nobody asked since the last burst: stop */
    }
    q->qcalls = 0;
    s->ch = NULL;
    s->key = CQ_NOKEY;
    s->cap = 0;
    if (n == 0) {
        s->n = 0;
        chunk_put(q, c);
        return 0;
    }
    q->n_buffered -= q->timed ? n : 0; /* kept (and read) only for timed queues */
    if (atomic)
        q->st.ops_pushed += n; /* one add per chunk instead of one per push */
    uint32_t sent = n;
    /* node transport: this PE applies the burst, the target's CPU is not needed; it sums
     * dense ADDs itself (node_add_dense), cheaper than the hash merge below */
    unsigned char *nb = cq_node_target(c->pe, h->win, atomic);
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
    if (atomic) {
        /* AM messages need the operands right after the displacements; RMA bursts
         * pass them where they are (rma_burst finds them at the chunk's cap), which
         * saves a chunk-sized memmove per burst (~5% of cycles on the RMA path) */
        unsigned char *dst = chunk_data(c) + (size_t)sent * 8;
        if (q->path == CQ_PATH_AM && dst != s->opnd)
            memmove(dst, s->opnd, (size_t)sent * h->esize);
    }
    s->n = 0;
    h->count = sent;
    int rc, pe_self = c->pe == q->me;
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

static int issue_all(shmem_queue_t q)
{
    int rc = 0;
    size_t i = 0, ns = (size_t)q->fast.n_pes * CQ_NSLOTS;
    if (q->one_pe >= 0) {
        i = (size_t)q->one_pe * CQ_NSLOTS;
        ns = i + CQ_NSLOTS;
    } else if (q->one_pe == -1) {
        return 0; /* no chunk opened since the last full flush */
    }
    for (; i < ns; i++) {
        if (CQ_SLOTS(q)[i].ch) {
            int r = slot_issue(q, &CQ_SLOTS(q)[i]);
            if (r && !rc)
                rc = r;
        }
    }
    return rc;
}

static int flush_all(shmem_queue_t q)
{
    int rc = issue_all(q);
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
    return rc;
}

static void cq_timer(shmem_queue_t q)
{
    if (q->timed && q->n_buffered && shmemi_wtime() - q->t_oldest >= q->timeout)
        issue_all(q);
}

/* After a burst: keep the network and incoming batches moving. */
static inline void after_burst(shmem_queue_t q)
{
    cq_am_reclaim(q);
    shmemi_progress();
}

/* ---- appends (the queue lock is held) ---- */
/* Sends the slot's open chunk (if any) and opens a fresh one of the given kind. */
static int slot_reopen(shmem_queue_t q, cq_slot_t *s, int pe, int slot, int tidx, int win)
{
    int rc = slot_issue(q, s);
    if (rc)
        return rc;
    after_burst(q);
    return slot_open(q, s, pe, slot, tidx, win);
}

static int append_atomic(shmem_queue_t q, int pe, int slot, int tidx, int win, uint64_t disp,
                         const void *operand)
{
    cq_slot_t *s = &CQ_SLOTS(q)[(size_t)pe * CQ_NSLOTS + (size_t)slot];
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
    size_t es = cq_esize[tidx];
    uint32_t n = s->n++;
    s->disp[n] = disp;
    memcpy(s->opnd + (size_t)n * es, operand, es);
    q->fast.open_ops += q->fast.counting;
    q->n_buffered += (uint64_t)q->timed;
    return 0;
}

/* PUT/GET record: {disp, len, payload | local address}. Too big for a chunk: issued
 * directly (PUT: MPI_Put + MPI_Win_flush_local, so src is reusable on return). */
static int append_rw(shmem_queue_t q, int pe, int slot, int win, uint64_t disp, void *local,
                     const void *payload, size_t len)
{
    size_t rec = slot == CQ_S_PUT ? 16 + ((len + 7) & ~(size_t)7) : 24;
    if (rec > q->cbytes || len > (size_t)INT_MAX) {
        MPI_Win w = win ? shmemi.data_win : shmemi.heap_win;
        disp += win ? 0 : (uint64_t)shmemi.heap_adj[pe];
        int rc = MPI_SUCCESS;
        for (size_t done = 0; done < len;) {
            size_t k = len - done < SHMEMI_MAX_MPI_COUNT ? len - done : SHMEMI_MAX_MPI_COUNT;
            if (slot == CQ_S_PUT)
                rc |= MPI_Put((const char *)payload + done, (int)k, MPI_BYTE, pe,
                              (MPI_Aint)(disp + done), (int)k, MPI_BYTE, w);
            else
                rc |= MPI_Get((char *)local + done, (int)k, MPI_BYTE, pe, (MPI_Aint)(disp + done),
                              (int)k, MPI_BYTE, w);
            done += k;
        }
        if (slot == CQ_S_PUT)
            rc |= MPI_Win_flush_local(pe, w);
        note_pe(q, pe);
        q->rma_dirty[win] = 1;
        q->n_rma_issued++;
        q->outstanding++;
        q->st.bursts++;
        q->st.bytes += len;
        return rc == MPI_SUCCESS ? 0 : SHMEM_QUEUE_ERR_MPI;
    }
    cq_slot_t *s = &CQ_SLOTS(q)[(size_t)pe * CQ_NSLOTS + (size_t)slot];
    uint32_t key = (uint32_t)CQ_T_BYTES | ((uint32_t)win << 8);
    if (s->key != key || s->ch->used + rec > q->cbytes ||
        chunk_hdr(s->ch)->count >= q->cbytes / 24) {
        int rc = slot_reopen(q, s, pe, slot, CQ_T_BYTES, win);
        if (rc)
            return rc;
    }
    cq_chunk_t *c = s->ch;
    unsigned char *p = chunk_data(c) + c->used;
    uint64_t l64 = len;
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
    if (!(cq_type_ops_rw[tidx] & OPB(op))) {
        shmemi_debug(routine, "operation %d is not defined for this element type", op);
        return SHMEM_QUEUE_ERR_TYPE;
    }
    if (!(q->opmask & OPB(op))) {
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
    if (tidx != CQ_T_BYTES && (align & (uintptr_t)(es - 1))) {
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
    } else if (op == SHMEM_OP_PUT) {
        rc = append_rw(q, pe, CQ_S_PUT, win, disp, NULL, src, nbytes);
    } else {
        rc = append_rw(q, pe, CQ_S_GET, win, disp, dest, NULL, nbytes);
    }
    if (rc == 0 && !atomic)
        q->st.ops_pushed += nops; /* atomics: counted per chunk in slot_issue */
    if (q->timed) {
        if (q->timeout == 0.0) {
            /* no aggregation: this push's chunk leaves now */
            int r = slot_issue(q, &CQ_SLOTS(q)[(size_t)pe * CQ_NSLOTS + (size_t)slot]);
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

/* ---- public routines ---- */
/* Off-node targets only: node peers always take the node transport (node_burst). RMA
 * by default: a target computing needs MPI progress either way (a progress thread across
 * nodes, SHMEMQ_ASYNC_PROGRESS), but a target blocked in an MPI call of its own, waiting
 * for this PE, runs MPI's progress and completes RMA bursts, while our AM batches would
 * wait for it to call shmemq: a deadlock the spec forbids. AM stays available on request
 * (docs/queues.md says when it is safe). */
static int env_path(void)
{
    const char *e = getenv("SHMEMQ_COMM_PATH");
    if (e && strcmp(e, "am") == 0)
        return CQ_PATH_AM;
    return CQ_PATH_RMA;
}

static void cq_free_all(shmem_queue_t q)
{
    /* called after a complete flush (or before any chunk existed): no chunk is in use */
    cq_chunk_t *lists[3] = {q->free_chunks, q->am_head, q->rma_pending};
    for (int l = 0; l < 3; l++) {
        for (cq_chunk_t *c = lists[l]; c;) {
            cq_chunk_t *n = c->next;
            cache_give(c, q->cbytes);
            c = n;
        }
    }
    if (CQ_SLOTS(q)) {
        for (size_t i = 0; i < (size_t)q->fast.n_pes * CQ_NSLOTS; i++)
            if (CQ_SLOTS(q)[i].ch)
                cache_give(CQ_SLOTS(q)[i].ch, q->cbytes);
    }
    free(CQ_SLOTS(q));
    free(q->am_dirty);
    free(q->lens);
    free(q->tdisp);
    free(q->odisp);
    free(q->hash);
    free(q->dense);
    q->dense = NULL;
    free(q->hstamp);
    free(q->freq);
    free(q->fhdr);
    q->free_chunks = q->am_head = q->am_tail = q->rma_pending = NULL;
}

/* Progress thread (SHMEMQ_PROGRESS_THREAD=1, THREAD_MULTIPLE, 0 < timeout < MAX): issues
 * timed-out operations and keeps incoming batches applied with no calls at all. The
 * queue then takes its mutex like a SHARED queue. */
static void *cq_thread_main(void *arg)
{
    shmem_queue_t q = arg;
    double period = q->timeout / 4;
    if (period > 1e-3)
        period = 1e-3;
    if (period < 1e-5)
        period = 1e-5;
    struct timespec ts = {0, (long)(period * 1e9)};
    while (!q->stop_thread) {
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&q->lock);
        cq_timer(q);
        cq_am_reclaim(q);
        pthread_mutex_unlock(&q->lock);
        shmemi_progress();
    }
    return NULL;
}

static void cq_thread_stop(shmem_queue_t q)
{
    if (!q->has_thread)
        return;
    q->stop_thread = 1;
    pthread_join(q->thread, NULL);
    q->has_thread = 0;
}

void cq_stop_threads(void)
{
    pthread_mutex_lock(&reg_lock);
    for (int i = 0; i < n_slabs; i++)
        for (int k = 0; k < CQ_SLAB; k++)
            if (slabs[i][k].fast.magic == CQ_MAGIC_LIVE)
                cq_thread_stop(&slabs[i][k]);
    pthread_mutex_unlock(&reg_lock);
}

/* Finalize (and tests): complete every queue still live. The live headers are
 * collected under the registry lock, then flushed without it (a flush progresses,
 * destroy takes the lock). destroy: also free them, as shmem_queue_comm_destroy does.
 * Returns the number of live queues found. */
int shmemi_queue_comm_flush_live(int destroy)
{
    pthread_mutex_lock(&reg_lock);
    int n = 0;
    for (int i = 0; i < n_slabs; i++)
        for (int k = 0; k < CQ_SLAB; k++)
            n += slabs[i][k].fast.magic == CQ_MAGIC_LIVE;
    shmem_queue_t *live = n ? malloc(sizeof(*live) * (size_t)n) : NULL;
    int m = 0;
    for (int i = 0; live && i < n_slabs; i++)
        for (int k = 0; k < CQ_SLAB; k++)
            if (slabs[i][k].fast.magic == CQ_MAGIC_LIVE)
                live[m++] = &slabs[i][k];
    pthread_mutex_unlock(&reg_lock);
    if (n && !live) { /* no memory for the list: flush in place, never free */
        for (int i = 0; i < n_slabs; i++)
            for (int k = 0; k < CQ_SLAB; k++)
                if (slabs[i][k].fast.magic == CQ_MAGIC_LIVE)
                    shmem_queue_local_flush(&slabs[i][k]);
        return n;
    }
    for (int i = 0; i < m; i++) {
        if (destroy) {
            shmemi_debug("shmem_finalize", "comm queue %llu still live: flushed and destroyed",
                         (unsigned long long)live[i]->id);
            shmem_queue_comm_destroy(live[i]);
        } else {
            shmem_queue_local_flush(live[i]);
        }
    }
    free(live);
    return n;
}

int shmem_queue_comm_create(shmem_queue_t *queue, const shmem_queue_config_t *c)
{
    static const char *routine = "shmem_queue_comm_create";
    if (!shmemi.initialized || !cq_am_ready()) {
        shmemi_debug(routine, "OpenSHMEM is not initialized");
        return SHMEM_QUEUE_ERR_STATE;
    }
    if (queue == NULL || c == NULL) {
        shmemi_debug(routine, "NULL %s", queue == NULL ? "queue" : "qconfig");
        return SHMEM_QUEUE_ERR_ARG;
    }
    *queue = NULL;
    if (c->qtype != SHMEM_QUEUE_COMM) {
        shmemi_debug(routine, "qtype %d is not SHMEM_QUEUE_COMM", (int)c->qtype);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (c->thread_model != SHMEM_QUEUE_EXCLUSIVE && c->thread_model != SHMEM_QUEUE_SHARED) {
        shmemi_debug(routine, "invalid thread_model %d", (int)c->thread_model);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (!((unsigned)c->op_type <= SHMEM_OP_ATOMIC_XOR || c->op_type == SHMEM_OP_ANY)) {
        shmemi_debug(routine, "invalid op_type %d", (int)c->op_type);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (c->pe_type != SHMEM_PE_SAME && c->pe_type != SHMEM_PE_ALL) {
        shmemi_debug(routine, "invalid pe_type %d", (int)c->pe_type);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (isnan(c->timeout_flush) || (c->timeout_flush < 0 && c->timeout_flush != SHMEM_QUEUE_MAX_TIMEOUT)) {
        shmemi_debug(routine, "invalid timeout_flush %g", c->timeout_flush);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (c->thread_model == SHMEM_QUEUE_SHARED && shmemi.thread_level != SHMEM_THREAD_MULTIPLE) {
        shmemi_debug(routine, "SHMEM_QUEUE_SHARED needs SHMEM_THREAD_MULTIPLE");
        return SHMEM_QUEUE_ERR_THREAD;
    }
    struct shmem_queue_s *q = cq_header_alloc();
    if (!q)
        return SHMEM_QUEUE_ERR_NOMEM;
    q->fast.n_pes = shmemi.n_pes;
    q->me = shmemi.my_pe;
    q->shared = c->thread_model == SHMEM_QUEUE_SHARED;
    q->max_elems = c->max_elems ? c->max_elems : CQ_DEFAULT_MAX_ELEMS;
    q->opmask = c->op_type == SHMEM_OP_ANY ? 0xffu : OPB(c->op_type);
    if (c->op_type == SHMEM_OP_ATOMIC_ADD || c->op_type == SHMEM_OP_ATOMIC_INC)
        q->opmask = OPB(c->op_type); /* exactly the configured op */
    q->timeout = c->timeout_flush;
    q->timed = c->timeout_flush >= 0;
    /* PUT/GET bits let one-element copies to node peers inline (queue_inline.h) */
    cq_set_fast(q, q->timed ? 0 : q->opmask);
    q->fast.node_heap = shmemi.node_heap_ok ? shmemi.node_base[0] : NULL;
    q->fast.heap_base = (uintptr_t)shmemi.heap_base;
    q->fast.heap_span = shmemi.heap_size > 15 ? shmemi.heap_size - 15 : 0;
    q->fast.data_base = (uintptr_t)shmemi.data_base;
    q->fast.data_span = shmemi.data_size > 15 ? shmemi.data_size - 15 : 0;
    q->path = env_path();
    q->early = shmemi_env_bool("SHMEMQ_EARLY_FLUSH", 1);
    q->pack = shmemi_env_bool("SHMEMQ_PACK", 1);
    /* 1: always, 0: never; unset: adaptive on Open MPI's RMA path (osc applies
     * accumulates per element at some cost, so merging pays when a burst repeats
     * addresses), off on MPICH and on the AM path (our apply is cheaper than the
     * hashing). By measurement (docs/queues.md). */
    const char *ce = getenv("SHMEMQ_COMBINE");
    if (ce && *ce)
        q->combine = shmemi_env_bool("SHMEMQ_COMBINE", 0);
#if defined(MPICH_VERSION)
    else
        q->combine = 0; /* MPICH ch4 applies a burst's accumulates about as fast */
#else
    else
        q->combine = q->path == CQ_PATH_RMA ? 2 : 0;
#endif
#if !defined(MPICH_VERSION)
    /* Open MPI 4.1 with a one-process communicator applies an accumulate whose target
     * datatype repeats a displacement only once per displacement (measured: 20 adds of
     * 1 over 4 counters gave 1 each, on the data window). Bursts there never repeat an
     * address: every atomic burst is merged first. */
    q->dedupe = q->path == CQ_PATH_RMA && shmemi.n_pes == 1;
#endif
    /* AM chunks are messages and must fit the receive buffers; RMA bursts are MPI
     * calls whose fixed cost (datatype, AM header in MPICH) favours more operations
     * each: 2x the chunk (4096 int64 adds, as the raw-MPI baseline). */
    q->cbytes = cq_chunk_bytes;
    if (q->path == CQ_PATH_RMA) {
        /* RMA bursts are MPI calls, not messages into the receive buffers: 64 KiB
         * (4096 int64 adds per MPI_Accumulate, as the raw-MPI baseline) measured
         * better than 256 KiB on MPICH (histogram commq_rma 9.5-16 vs 7-10 Mupd/s);
         * SHMEMQ_RMA_CHUNK_BYTES overrides (1K-64M). */
        size_t rb = 65536;
        const char *e = getenv("SHMEMQ_RMA_CHUNK_BYTES");
        if (e && shmemi_parse_size(e, &rb) == 0 && rb >= 1024 && rb <= (64u << 20))
            rb &= ~(size_t)63;
        else
            rb = 65536;
        q->cbytes = rb;
    }
    /* one open chunk per (target, op): bound that memory at many PEs (64 MiB per op
     * slot; an AM chunk may be smaller than the receive buffers, never larger) */
    size_t per_pe = ((size_t)64 << 20) / (size_t)q->fast.n_pes;
    if (per_pe < 4096)
        per_pe = 4096;
    if (q->cbytes > per_pe)
        q->cbytes = per_pe & ~(size_t)63;
    size_t maxrec = q->cbytes / 12 + 1;
    uint32_t hsize = 1;
    while (hsize < 2 * maxrec)
        hsize <<= 1;
    q->hmask = hsize - 1;
    size_t ns = (size_t)q->fast.n_pes * CQ_NSLOTS;
    q->fast.slots = calloc(ns, sizeof(cq_slot_t));
    /* grants: a whole buffer when max_elems allows it for every PE at once (an eighth
     * of max_elems in unused grants at most), smaller at scale, 64 at least */
    uint64_t g = q->max_elems / (8 * (uint64_t)q->fast.n_pes);
    q->grant = g < 64 ? 64 : g > UINT32_MAX ? UINT32_MAX : (uint32_t)g;
    q->am_dirty = calloc((size_t)q->fast.n_pes, 1);
    q->lens = malloc(sizeof(int) * maxrec);
    q->tdisp = malloc(sizeof(MPI_Aint) * maxrec);
    q->odisp = malloc(sizeof(MPI_Aint) * maxrec);
    q->hash = malloc(sizeof(uint32_t) * hsize);
    q->hstamp = calloc(hsize, sizeof(uint32_t));
    q->freq = malloc(sizeof(MPI_Request) * 2 * (size_t)q->fast.n_pes);
    q->fhdr = malloc(sizeof(cq_msghdr_t) * (size_t)q->fast.n_pes);
    if (!CQ_SLOTS(q) || !q->am_dirty || !q->lens || !q->tdisp || !q->odisp || !q->hash ||
        !q->hstamp || !q->freq || !q->fhdr) {
        cq_free_all(q);
        cq_header_free(q);
        return SHMEM_QUEUE_ERR_NOMEM;
    }
    for (size_t i = 0; i < ns; i++)
        CQ_SLOTS(q)[i].key = CQ_NOKEY;
    q->one_pe = -1;
    int want_thread = q->timed && q->timeout > 0 && shmemi.thread_level == SHMEM_THREAD_MULTIPLE &&
                      shmemi_env_bool("SHMEMQ_PROGRESS_THREAD", 0);
    if (want_thread)
        q->shared = 1; /* the thread and the owner share the queue */
    if (q->shared)
        cq_set_fast(q, 0);
    q->pfast = !q->shared && !q->timed;
    if (q->shared)
        pthread_mutex_init(&q->lock, NULL);
    __atomic_store_n(&q->fast.magic, CQ_MAGIC_LIVE, __ATOMIC_RELEASE);
    if (want_thread && pthread_create(&q->thread, NULL, cq_thread_main, q) == 0)
        q->has_thread = 1;
    *queue = q;
    return 0;
}
SHMEMI_PROFILE(shmem_queue_comm_create)

int shmem_queue_comm_destroy(shmem_queue_t q)
{
    static const char *routine = "shmem_queue_comm_destroy";
    int rc = cq_check(q, routine);
    if (rc)
        return rc;
    cq_thread_stop(q);
    cq_lock(q);
    rc = flush_all(q);
    if (shmemi_env_bool("SHMEMQ_STATS", 0))
        fprintf(stderr,
                "[shmemq PE %d] comm queue %llu (%s path%s): %llu ops pushed, %llu bursts, %llu bytes, "
                "%llu combined, %llu flushes, %llu full returns\n",
                shmemi.my_pe, (unsigned long long)q->id, q->path == CQ_PATH_AM ? "am" : "rma",
                q->combine ? ", combining" : "", (unsigned long long)(q->st.ops_pushed + q->fast.node_rw),
                (unsigned long long)q->st.bursts, (unsigned long long)q->st.bytes,
                (unsigned long long)q->st.combined_ops, (unsigned long long)q->st.flushes,
                (unsigned long long)q->st.full_returns);
    cq_free_all(q);
    cq_set_fast(q, 0); /* the inline push now calls the library, which says STATE */
    q->fast.magic = CQ_MAGIC_DEAD;
    cq_unlock(q);
    if (q->shared)
        pthread_mutex_destroy(&q->lock);
    cq_header_free(q);
    return rc;
}
SHMEMI_PROFILE(shmem_queue_comm_destroy)

/* Routines shared by both kinds of queue: a handle that is not a live comm queue and
 * starts with the data-queue magic is answered by the data-queue area. */

static int is_foreign(shmem_queue_t q)
{
    if (!q || !shmemi.initialized)
        return 0;
    pthread_mutex_lock(&reg_lock);
    int mine = cq_is_mine(q);
    pthread_mutex_unlock(&reg_lock);
    return !mine;
}

int shmem_query_attr(shmem_queue_t q, shmem_queue_attr_t *attr)
{
    static const char *routine = "shmem_query_attr";
    if (is_foreign(q) && shmemi_is_dataq(q))
        return shmemi_dataq_query_attr(q, attr);
    int rc = cq_check(q, routine);
    if (rc)
        return rc;
    if (!attr) {
        shmemi_debug(routine, "NULL attr");
        return SHMEM_QUEUE_ERR_ARG;
    }
    cq_lock(q);
    attr->queue_id = q->id;
    uint64_t out = cq_outstanding(q);
    attr->outstanding_elems = out;
    attr->available_elems = q->max_elems - out;
    cq_unlock(q);
    return 0;
}
SHMEMI_PROFILE(shmem_query_attr)

int shmem_query_size(shmem_queue_t q, size_t *size)
{
    static const char *routine = "shmem_query_size";
    if (is_foreign(q) && shmemi_is_dataq(q))
        return shmemi_dataq_query_size(q, size);
    int rc = cq_check(q, routine);
    if (rc)
        return rc;
    if (!size) {
        shmemi_debug(routine, "NULL size");
        return SHMEM_QUEUE_ERR_ARG;
    }
    cq_lock(q);
    *size = (size_t)cq_outstanding(q);
    cq_unlock(q);
    return 0;
}
SHMEMI_PROFILE(shmem_query_size)

int shmemx_queue_stats(shmem_queue_t q, shmemx_queue_stats_t *stats)
{
    static const char *routine = "shmemx_queue_stats";
    if (is_foreign(q) && shmemi_is_dataq(q))
        return shmemi_dataq_stats(q, stats);
    int rc = cq_check(q, routine);
    if (rc)
        return rc;
    if (!stats) {
        shmemi_debug(routine, "NULL stats");
        return SHMEM_QUEUE_ERR_ARG;
    }
    cq_lock(q);
    *stats = q->st;
    stats->ops_pushed = ops_pushed_now(q);
    cq_unlock(q);
    return 0;
}
SHMEMI_PROFILE(shmemx_queue_stats)

static inline int clamp_count(uint64_t n)
{
    return n > (uint64_t)INT_MAX ? INT_MAX : (int)n;
}

int shmem_queue_progress(shmem_queue_t q)
{
    /* Programs call this after every push: most calls only count. */
    if (SHMEMI_LIKELY(q != NULL && q->fast.magic == CQ_MAGIC_LIVE && q->pfast &&
                      q->outstanding < q->max_elems && (++q->pctr & 255) != 0))
        return clamp_count(cq_outstanding(q));
    int rc = cq_check(q, "shmem_queue_progress");
    if (rc)
        return rc;
    cq_lock(q);
    cq_am_reclaim(q);
    shmemi_progress();
    rc = cq_am_epoch_end(q, 0);
    cq_timer(q);
    if (rc == 0 && q->early && q->path == CQ_PATH_AM && !q->ep_pending &&
        cq_outstanding(q) >= q->max_elems / 2 && q->outstanding > q->n_rma_issued) {
        rc = issue_all(q);
        if (rc == 0)
            rc = cq_am_epoch_start(q);
    }
    if (rc == 0 && !cq_room_for(q, 1)) {
        /* a full queue must make room: the epoch in flight, else everything */
        rc = cq_am_epoch_end(q, 1);
        if (rc == 0 && q->outstanding >= q->max_elems)
            rc = flush_all(q);
    }
    if (rc == 0)
        rc = clamp_count(cq_outstanding(q));
    cq_unlock(q);
    return rc;
}
SHMEMI_PROFILE(shmem_queue_progress)

int shmem_queue_local_flush(shmem_queue_t q)
{
    int rc = cq_check(q, "shmem_queue_local_flush");
    if (rc)
        return rc;
    cq_lock(q);
    rc = flush_all(q);
    cq_unlock(q);
    return rc;
}
SHMEMI_PROFILE(shmem_queue_local_flush)

int shmem_queue_comm_pushmem(shmem_queue_t q, void *dest, const void *src, size_t nbytes, int pe,
                             shmem_op_type_t op)
{
    static const char *routine = "shmem_queue_comm_pushmem";
    return cq_push_general(q, routine, dest, src, nbytes, pe, (int)op, CQ_T_BYTES);
}
SHMEMI_PROFILE(shmem_queue_comm_pushmem)

#define CQ_TYPED_PUSH(T, N)                                                                  \
    int shmem_##N##_queue_comm_push(shmem_queue_t q, T *dest, const T *src, size_t nelems,   \
                                    int pe, shmem_op_type_t op)                              \
    {                                                                                        \
        return cq_push(q, "shmem_" #N "_queue_comm_push", dest, src, nelems, pe, (int)op,    \
                       CQ_T_##N, sizeof(T));                                                 \
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
                         CQ_T_BYTES);
    cq_unlock(q);
    return rc;
}
SHMEMI_PROFILE(shmemx_queue_comm_push_strided)
