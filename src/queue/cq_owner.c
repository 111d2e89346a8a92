/* cq_owner.c: owner-applied atomic bursts on the node (docs/queues_design.md, "Owner-applied
 * node bursts").
 *
 * Why: an origin applying a burst with CPU atomics on a peer's table pulls every line it
 * touches into its own cache and the owner pulls it back: past L1 that costs more than
 * shipping the records (histogram -t 10000: 0.43x mpi_alltoallv). The owner applies
 * them to lines it already holds.
 *
 * Where the records live: this layer registers a module asking, before the heap window
 * is made, for a box sized for the node (shmemi_queue_comm_owner_box); heap.c reserves it
 * in every PE's heap window after the heap (shmemi_heap_spare), and node peers map the
 * whole window (node.c), so each peer finds a PE's box from heap_adj alone (no exchange;
 * queue create is not collective). The allocator never hands it out.
 *
 * A box: one 64-byte line with the count of posted bursts (the owner's doorbell), then
 * per origin (by node rank) M mailboxes of a 64-byte header and up to a chunk's worth of
 * records (displacements, then operands). A mailbox's state word goes
 *   FREE --origin fills, release--> POSTED --CAS--> CLAIMED --applied, release--> FREE
 * and the CAS is taken by the owner (progress hook: inside any library call that
 * progresses) or by the origin at its flush (after the bounded wait SHMEMQ_OWNER_WAIT_US),
 * so each burst is applied exactly once. The origin alone moves a
 * mailbox out of FREE, and counts its records out of `outstanding` when it sees FREE
 * again (a reap). Both apply with the same __atomic operations as shmem_atomic_* on the
 * node, so atomicity with them holds whoever applies.
 *
 * Origin-side bookkeeping (which queue posted what, when) is private, under one mutex:
 * SHARED queues may post from several threads. Lock order: queue, then this mutex. */
#include "cq_owner.h"
#include "queue.h"

#define OWN_MAX_M 16u /* mailboxes per (origin, owner) at most */
/* A box is at most this many bytes (+ its 64-byte doorbell) whatever the node size: see
 * shmemi_queue_comm_owner_box for the formula and why. */
#define OWN_BOX_BUDGET ((size_t)32 << 20)
/* auto: a burst whose addresses span less than this stays with the origin (bench/README.md:
 * a table that fits L1 moves few lines, and posting lost there) */
#define OWN_AUTO_MIN_SPAN ((uint64_t)32 << 10)
#define OWN_FREE 0u
#define OWN_POSTED 1u
#define OWN_CLAIMED 2u
/* Records in a mailbox: 64-bit displacements and an operand each (what the summing
 * writes), or 32-bit displacements (every address below 4 GiB) with an operand each or
 * one for all (a histogram's adds of 1: 4 bytes a record instead of 16, so the owner
 * reads and the origin writes a quarter). */
#define OWN_PREFETCH 16 /* records ahead */
enum { OWN_FMT_D64 = 0, OWN_FMT_D32, OWN_FMT_D32_ONE };

typedef struct {
    uint32_t state;
    uint8_t slot, esize, win;
    uint8_t fmt; /* OWN_FMT_* */
    uint32_t count;    /* records */
    uint32_t opnd_off; /* operands start this many bytes into the data */
    unsigned char pad2[48];
} own_mb_t;
_Static_assert(sizeof(own_mb_t) == 64, "one line per mailbox header");

struct own_ent {
    shmem_queue_t q; /* NULL: free on this side */
    uint64_t n;      /* pushed records it completes */
    double t0;       /* posted at */
};

struct own_tgt {
    unsigned char *box; /* the target's box as mapped here */
    uint32_t m;         /* its mailboxes per origin */
    uint32_t next;      /* where the next search starts */
    struct own_ent e[OWN_MAX_M];
};

static struct {
    int ready;     /* tables made (shmemi_queue_comm_owner_enable) */
    int on;        /* mailboxes exist (a node peer maps this heap, the window has slack) */
    double wait;   /* seconds an origin leaves a posted burst to the owner */
    int node_rank;
    size_t stride; /* bytes per mailbox (header + records) */
    uint32_t m_max; /* mailboxes per origin the formula gives (the box may hold fewer) */
    unsigned char *mybox;
    uint32_t my_m;
    int hooked;
    struct own_tgt **tg; /* per world PE, made on first post */
    int *pes;            /* targets posted to, at most node_size */
    int n_pes;
} own;
/* what this process did since it started, for the tests: bursts posted, applied as
 * owner, applied as origin after the wait, not posted for want of a free mailbox */
static uint64_t own_count[4];
#define OWN_COUNT(i) __atomic_fetch_add(&own_count[i], 1, __ATOMIC_RELAXED)
static pthread_mutex_t own_lock = PTHREAD_MUTEX_INITIALIZER;

static inline int64_t *box_pending(unsigned char *box)
{
    return (int64_t *)(void *)box;
}
static inline own_mb_t *box_mb(unsigned char *box, uint32_t m, int origin, uint32_t i)
{
    return (own_mb_t *)(void *)(box + 64 + ((size_t)origin * m + i) * own.stride);
}
static inline unsigned char *mb_data(own_mb_t *mb)
{
    return (unsigned char *)(mb + 1);
}

/* The box for n PEs per node and chunks of chunk_bytes (pure: test_commq_owner.cc checks
 * it at 64 and 128 PEs per node). Each origin gets M mailboxes of a 64-byte header and D
 * data bytes:
 *   D = min(chunk_bytes rounded up to 64, (B / n - 64) rounded down to 64)
 *   M = min(16, B / (n (64 + D)))          B = OWN_BOX_BUDGET = 32 MiB
 *   box = 64 + n M (64 + D)   (<= B + 64)
 * so M >= 1 for every n up to B / 128 (262,144). Default 128 KiB chunks: M = 16 up to
 * n = 15, 3 at 64, 1 at 128 (D stays a full chunk up to n = 255, then shrinks: a burst
 * whose records do not fit takes the origin's path). Why 32 MiB: it is address space per
 * PE (node peers map it: n x 32 MiB per process, 4 GiB at 128 PEs of 2^47), pages are
 * touched only by mailboxes in use, and 1 mailbox per origin is enough for a PE that
 * flushes every burst it posts; more pays only while chunks for one owner pile up
 * between reaps. Returns the bytes (0 when n < 2: no peer). */
size_t shmemi_queue_comm_owner_box(int n, size_t chunk_bytes, uint32_t *m, size_t *data)
{
    *m = 0;
    *data = 0;
    if (n < 2)
        return 0;
    size_t per = OWN_BOX_BUDGET / (size_t)n; /* one origin's share */
    if (per < 2 * sizeof(own_mb_t))
        return 0;
    size_t d = (chunk_bytes + 63) & ~(size_t)63, cap = (per - sizeof(own_mb_t)) & ~(size_t)63;
    if (d > cap)
        d = cap;
    size_t mm = OWN_BOX_BUDGET / ((size_t)n * (sizeof(own_mb_t) + d));
    if (mm > OWN_MAX_M)
        mm = OWN_MAX_M;
    *m = (uint32_t)mm;
    *data = d;
    return 64 + (size_t)n * mm * (sizeof(own_mb_t) + d);
}

/* The runtime asks this before it makes the heap window (heap.c reserves it beside the
 * heap, the same on every PE), so before cq_am_init sets cq_chunk_bytes: the chunk size
 * is read here as it will read it. */
static size_t box_request(int node_size)
{
    uint32_t m;
    size_t d;
    return shmemi_queue_comm_owner_box(node_size, cq_chunk_setting(), &m, &d);
}

static const shmemi_module_t owner_boxes = {
    .name = "comm queues (owner mailboxes)",
    .heap_spare = box_request,
};

/* Registered like queue_layer.c's modules; this object is linked whenever comm queues
 * are (comm_queue.c calls the post), and a module without init/fini makes no call. */
__attribute__((constructor)) static void owner_boxes_register(void)
{
    shmemi_module_register(&owner_boxes);
}

/* PE pe's box as mapped here and its mailboxes per origin (*m), or NULL. */
static unsigned char *box_of(int pe, uint32_t *m)
{
    uintptr_t lo, hi;
    if (shmemi_heap_spare(pe, &lo, &hi) != 0)
        return NULL;
    lo = (lo + 63) & ~(uintptr_t)63;
    if (hi < lo + 64)
        return NULL;
    size_t per = (size_t)shmemi.node_size * own.stride;
    size_t fit = (hi - lo - 64) / per;
    *m = fit > own.m_max ? own.m_max : (uint32_t)fit;
    return *m ? (unsigned char *)lo : NULL;
}

int shmemi_queue_comm_owner_mode(void)
{
    const char *e = getenv("SHMEMQ_OWNER_APPLY");
    int b;
    if (e && (strcmp(e, "auto") == 0 || *e == '\0'))
        return 2;
    if (e && shmemi_parse_bool(e, &b) == 0)
        return b;
    return 2; /* unset or not valid (settings.c said so): the default */
}

/* SHMEMQ_OWNER_WAIT_US, read at every queue create (the last create's value holds). */
static void read_wait(void)
{
    long us = 200;
    const char *w = getenv("SHMEMQ_OWNER_WAIT_US");
    if (w && *w) {
        char *end;
        long v = strtol(w, &end, 10);
        if (*end == '\0' && v >= 0 && v <= 1000000)
            us = v;
    }
    own.wait = (double)us * 1e-6;
}

static int make_tables(void)
{
    own.on = 1;
    if (shmemi.node_size < 2 || !shmemi.node_heap_ok)
        own.on = 0; /* no peer maps this heap: nothing to post */
    if (!own.on)
        return 0;
    size_t data;
    if (shmemi_queue_comm_owner_box(shmemi.node_size, cq_chunk_bytes, &own.m_max, &data) == 0) {
        own.on = 0;
        return 0;
    }
    own.stride = sizeof(own_mb_t) + data;
    MPI_Comm_rank(shmemi.node_comm, &own.node_rank);
    own.tg = calloc((size_t)shmemi.n_pes, sizeof *own.tg);
    own.pes = calloc((size_t)shmemi.node_size, sizeof *own.pes);
    if (!own.tg || !own.pes) {
        free(own.tg);
        free(own.pes);
        own.tg = NULL;
        own.pes = NULL;
        own.on = 0;
        return 0;
    }
    own.mybox = box_of(shmemi.my_pe, &own.my_m);
    return 0;
}

int shmemi_queue_comm_owner_enable(void)
{
    int mode = shmemi_queue_comm_owner_mode();
    pthread_mutex_lock(&own_lock);
    if (!own.ready) {
        make_tables();
        own.ready = 1;
    }
    read_wait();
    /* served whatever this queue's mode: a peer's queue may post here; in every call
     * that progresses, and in quiet, which does not (one load when nothing is posted) */
    if (own.on && own.mybox && !own.hooked) {
        shmemi_progress_register(shmemi_queue_comm_owner_serve, NULL);
        shmemi_quiet_poll_set(box_pending(own.mybox), shmemi_queue_comm_owner_serve);
        own.hooked = 1;
    }
    pthread_mutex_unlock(&own_lock);
    return own.on ? mode : 0;
}

void shmemi_queue_comm_owner_fini(void)
{
    pthread_mutex_lock(&own_lock);
    if (own.hooked) {
        shmemi_progress_unregister(shmemi_queue_comm_owner_serve, NULL);
        shmemi_quiet_poll_set(NULL, NULL);
    }
    if (own.tg)
        for (int pe = 0; pe < shmemi.n_pes; pe++)
            free(own.tg[pe]);
    free(own.tg);
    free(own.pes);
    memset(&own, 0, sizeof own);
    pthread_mutex_unlock(&own_lock);
}

static inline int claim(own_mb_t *mb)
{
    uint32_t expect = OWN_POSTED;
    return __atomic_compare_exchange_n(&mb->state, &expect, OWN_CLAIMED, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* Applies a claimed mailbox at base (the region mb->win of its owner as mapped here) and
 * frees it: the release store publishes the updates to whoever sees FREE. */
#define OWN_D32_BODY(UT)                                                                   \
    do {                                                                                   \
        UT v = 0;                                                                          \
        for (uint32_t i = 0; i < n; i++) {                                                 \
            UT *p = (UT *)(void *)(base + d32[i]);                                         \
            if (one) {                                                                     \
                if (i == 0)                                                                \
                    memcpy(&v, opnd, sizeof v);                                            \
            } else {                                                                       \
                memcpy(&v, opnd + (size_t)i * sizeof v, sizeof v);                         \
            }                                                                              \
            CQ_ATOMIC_OP(slot, p, v);                                                      \
        }                                                                                  \
    } while (0)

/* 32-bit displacements: the same __atomic operations as cq_apply_atomics (CQ_ATOMIC_OP,
 * comm_queue.h). The histogram's case (64-bit adds of one value) has its own loop. */
static void apply_d32(unsigned char *base, int slot, int esize, const uint32_t *d32,
                      const unsigned char *opnd, uint32_t n, int one)
{
    if (slot == CQ_S_ADD && esize == 8 && one) {
        /* A locked add waits for its line before the next can start (x86 orders them),
         * so misses on a table past the caches do not overlap as plain adds' do: fetch
         * the lines a few records ahead. */
        uint64_t v;
        memcpy(&v, opnd, 8);
        uint32_t i = 0;
        for (; i + OWN_PREFETCH < n; i++) {
            __builtin_prefetch(base + d32[i + OWN_PREFETCH], 1);
            __atomic_fetch_add((uint64_t *)(void *)(base + d32[i]), v, __ATOMIC_RELAXED);
        }
        for (; i < n; i++)
            __atomic_fetch_add((uint64_t *)(void *)(base + d32[i]), v, __ATOMIC_RELAXED);
    } else if (esize == 8) {
        OWN_D32_BODY(uint64_t);
    } else {
        OWN_D32_BODY(uint32_t);
    }
}

static void apply_release(unsigned char *box, own_mb_t *mb, unsigned char *base)
{
    const unsigned char *d = mb_data(mb);
    if (mb->fmt == OWN_FMT_D64)
        cq_apply_atomics(base, mb->slot, mb->esize, (const uint64_t *)(const void *)d,
                         d + mb->opnd_off, mb->count, 1);
    else
        apply_d32(base, mb->slot, mb->esize, (const uint32_t *)(const void *)d,
                  d + mb->opnd_off, mb->count, mb->fmt == OWN_FMT_D32_ONE);
    __atomic_fetch_sub(box_pending(box), 1, __ATOMIC_RELAXED);
    __atomic_store_n(&mb->state, OWN_FREE, __ATOMIC_RELEASE);
}

int shmemi_queue_comm_owner_serve(void *arg)
{
    (void)arg;
    unsigned char *box = own.mybox;
    if (!box || __atomic_load_n(box_pending(box), __ATOMIC_RELAXED) <= 0)
        return 0; /* one load of a line that stays in this cache while nothing is posted */
    int done = 0;
    for (int o = 0; o < shmemi.node_size; o++)
        for (uint32_t i = 0; i < own.my_m; i++) {
            own_mb_t *mb = box_mb(box, own.my_m, o, i);
            if (__atomic_load_n(&mb->state, __ATOMIC_RELAXED) == OWN_POSTED && claim(mb)) {
                apply_release(box, mb,
                              (unsigned char *)(mb->win == 0 ? shmemi.heap_base : shmemi.data_base));
                done++;
                OWN_COUNT(1);
            }
        }
    return done;
}

/* The origin applies a mailbox it claimed, at the owner's region mapped here. */
static void origin_apply(struct own_tgt *t, int pe, own_mb_t *mb)
{
    apply_release(t->box, mb, cq_node_target(pe, mb->win, 1));
}

/* Entry e of target pe (mailbox mb) is q's and FREE again: its records are done. */
static inline void reaped(shmem_queue_t q, struct own_ent *e)
{
    q->outstanding -= e->n;
    q->own_busy--;
    e->q = NULL;
}

/* A mailbox of t q may fill now, or -1; the lock is held. */
static int take_entry(shmem_queue_t q, struct own_tgt *t, int pe)
{
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t k = 0; k < t->m; k++) {
            uint32_t i = (t->next + k) % t->m;
            struct own_ent *e = &t->e[i];
            if (e->q == q &&
                __atomic_load_n(&box_mb(t->box, t->m, own.node_rank, i)->state,
                                __ATOMIC_ACQUIRE) == OWN_FREE)
                reaped(q, e);
            if (!e->q) {
                t->next = i + 1;
                return (int)i;
            }
        }
        if (pass == 0)
            shmemi_queue_comm_owner_serve(NULL); /* the owner may be waiting on us too */
    }
    /* All in use. Not taken back here: a burst the origin applies from a mailbox has
     * lost its summing (dense bursts are posted as they are), so the new burst takes
     * the origin's path instead, and the posted ones wait for the owner or the flush. */
    (void)pe;
    return -1;
}

static struct own_tgt *tgt_get(int pe)
{
    struct own_tgt *t = own.tg[pe];
    if (t)
        return t->box ? t : NULL;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->box = box_of(pe, &t->m);
    own.tg[pe] = t;
    if (!t->box)
        return NULL;
    own.pes[own.n_pes++] = pe;
    return t;
}

int shmemi_queue_comm_owner_post(shmem_queue_t q, cq_slot_t *s, cq_chunk_t *c,
                                 const cq_range_t *r, uint32_t n, uint32_t sent)
{
    cq_msghdr_t *h = chunk_hdr(c);
    int pe = c->pe;
    if (!q->own_mode || pe == q->me || (q->own_mode == 2 && h->slot != CQ_S_ADD))
        return 0;
    uint64_t lo = r->lo, hi = r->hi, low_bits = r->low_bits;
    /* A mailbox holds a chunk's records as they are, except past 255 PEs per node (the
     * box formula shrinks it): there a burst must fit in 32-bit form, operands included,
     * or it takes the origin's path. */
    const size_t cap = own.stride - sizeof(own_mb_t), es = h->esize;
    const size_t full = (size_t)sent * (8 + es);
    const size_t d32_need = (((size_t)sent * 4 + 7) & ~(size_t)7) + (size_t)sent * es;
    if (full > cap && (hi > UINT32_MAX || d32_need > cap))
        return 0;
    if (q->own_mode == 2 && hi - lo < OWN_AUTO_MIN_SPAN)
        return 0;
    pthread_mutex_lock(&own_lock);
    struct own_tgt *t = own.tg ? tgt_get(pe) : NULL;
    int i = t ? take_entry(q, t, pe) : -1;
    if (i < 0) {
        OWN_COUNT(3);
        pthread_mutex_unlock(&own_lock);
        return 0;
    }
    own_mb_t *mb = box_mb(t->box, t->m, own.node_rank, (uint32_t)i);
    unsigned char *d = mb_data(mb);
    uint32_t cnt = UINT32_MAX;
    uint64_t span = (hi - lo) / (h->esize ? h->esize : 1) + 1;
    /* adds to a table no wider than the burst: one record per word, summed here (a
     * wider one merges little, and the scan of the summing array cost more than
     * posting the records as they are) */
    if (full <= cap && h->slot == CQ_S_ADD && (h->esize == 8 || h->esize == 4) && sent >= 64 &&
        !(low_bits & (uint64_t)(h->esize - 1)) && span <= sent)
        cnt = shmemi_queue_comm_dense_compact(q, s->disp, s->opnd, sent, h->esize, lo, span,
                                              (uint64_t *)(void *)d, d + (size_t)sent * 8);
    uint8_t fmt = OWN_FMT_D64;
    uint32_t opnd_off = sent * 8;
    if (cnt == UINT32_MAX && hi <= UINT32_MAX) {
        /* 32-bit displacements, and one operand if all are equal (checked as we go) */
        uint32_t *d32 = (uint32_t *)(void *)d;
        const unsigned char *op = s->opnd;
        int same = 1;
        if (es == 8) {
            const uint64_t *v = (const uint64_t *)(const void *)op;
            for (uint32_t k = 0; k < sent; k++) {
                d32[k] = (uint32_t)s->disp[k];
                same &= v[k] == v[0];
            }
        } else {
            const uint32_t *v = (const uint32_t *)(const void *)op;
            for (uint32_t k = 0; k < sent; k++) {
                d32[k] = (uint32_t)s->disp[k];
                same &= v[k] == v[0];
            }
        }
        opnd_off = (sent * 4 + 7) & ~7u;
        memcpy(d + opnd_off, op, same ? es : (size_t)sent * es);
        fmt = same ? OWN_FMT_D32_ONE : OWN_FMT_D32;
        cnt = sent;
    } else if (cnt == UINT32_MAX) {
        cnt = sent;
        memcpy(d, s->disp, (size_t)sent * 8);
        memcpy(d + (size_t)sent * 8, s->opnd, (size_t)sent * h->esize);
    }
    mb->slot = h->slot;
    mb->esize = h->esize;
    mb->win = h->win;
    mb->count = cnt;
    mb->fmt = fmt;
    mb->opnd_off = opnd_off;
    struct own_ent *e = &t->e[i];
    e->q = q;
    e->n = n;
    e->t0 = shmemi_wtime();
    q->own_busy++;
    OWN_COUNT(0);
    q->st.bytes += (uint64_t)cnt * h->esize;
    __atomic_store_n(&mb->state, OWN_POSTED, __ATOMIC_RELEASE);
    __atomic_fetch_add(box_pending(t->box), 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&own_lock);
    return 1;
}

void shmemi_queue_comm_owner_reap(shmem_queue_t q, int wait)
{
    for (unsigned spins = 0;; spins++) {
        int busy = 0;
        double now = -1.0;
        pthread_mutex_lock(&own_lock);
        for (int k = 0; k < own.n_pes && q->own_busy; k++) {
            int pe = own.pes[k];
            struct own_tgt *t = own.tg[pe];
            for (uint32_t i = 0; i < t->m; i++) {
                struct own_ent *e = &t->e[i];
                if (e->q != q)
                    continue;
                own_mb_t *mb = box_mb(t->box, t->m, own.node_rank, i);
                uint32_t st = __atomic_load_n(&mb->state, __ATOMIC_ACQUIRE);
                if (st == OWN_FREE) {
                    reaped(q, e);
                    continue;
                }
                if (!wait)
                    continue;
                if (st == OWN_POSTED) {
                    if (now < 0)
                        now = shmemi_wtime();
                    if (now - e->t0 >= own.wait && claim(mb)) {
                        OWN_COUNT(2);
                        origin_apply(t, pe, mb); /* the owner is not coming in time */
                        reaped(q, e);
                        continue;
                    }
                }
                busy = 1;
            }
        }
        pthread_mutex_unlock(&own_lock);
        if (!busy)
            return;
        /* meanwhile serve what peers posted here (and every other hook) */
        shmemi_progress();
        shmemi_backoff(spins);
    }
}

void shmemi_queue_comm_owner_stats(uint64_t out[4])
{
    for (int i = 0; i < 4; i++)
        out[i] = __atomic_load_n(&own_count[i], __ATOMIC_RELAXED);
}

int shmemi_queue_comm_owner_reaches(int pe)
{
    uint32_t m;
    return own.on && pe != shmemi.my_pe && cq_node_target(pe, 0, 1) && box_of(pe, &m) != NULL;
}
