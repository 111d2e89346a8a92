/* xport_am_serve.c: the AM transport's server (xport_am.h): on each node's leader,
 * receive the requests of PEs of other nodes and apply them into the memory of the node's
 * PEs through the node transport (xport_node.h: copies and CPU atomics on the mappings
 * node.c made), so that every atomic on the node's memory is a CPU atomic.
 *
 * Registered as a progress hook with SHMEMI_PROGRESS_THREAD_SAFE: it runs inside every
 * blocking routine of the leader and on the node's progress agent, and a waiting origin
 * on the leader calls it directly. A try-lock makes it run on one thread at a time (the
 * one that has the lock serves everything pending; the other returns at once), which
 * also keeps requests applied in arrival order: what a FLUSH answer promises
 * (xport_am_proto.h). Replies are nonblocking sends from copies: their receives were
 * posted before the requests, so they finish without the origin's help, and the server
 * never waits for anyone. */
#include "xport.h"
#include "xport_am_proto.h"

static struct {
    pthread_mutex_t lock;
    int registered;
    unsigned char *buf;
    size_t cap;
    am_pends_t replies; /* replies in flight, each with its copy */
    /* node-routed bursts (tagged): the node's PEs by node rank, and their regions' bases
     * as mapped here */
    int nl;
    int *lr_pe;
    char **lr_base[2];
} sv = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const char *routine = "shmemq AM server";

static void reply_wait(MPI_Request *r)
{
    int rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        shmemi_mpi_fail(routine, "MPI_Wait", rc);
}

/* Send n bytes of copy (malloc'd or NULL; freed once sent) to origin with tag. */
static void reply_owned(int origin, int tag, void *copy, size_t n)
{
    am_pend_t *e = am_pends_room(&sv.replies, free, routine);
    int rc = MPI_Isend(copy, (int)n, MPI_BYTE, origin, tag, shmemi_am.comm, &e->req);
    if (rc != MPI_SUCCESS)
        shmemi_mpi_fail(routine, "MPI_Isend", rc);
    e->buf = copy;
    sv.replies.n++;
}

/* Send n bytes from src (copied) to origin with tag. */
static void reply(int origin, int tag, const void *src, size_t n)
{
    void *copy = NULL;
    if (n) {
        copy = malloc(n);
        if (!copy)
            shmemi_fatal(routine, "out of memory (%zu bytes)", n);
        memcpy(copy, src, n);
    }
    reply_owned(origin, tag, copy, n);
}

/* The target bytes [off, off+len) of PE pe's region as mapped here; a request that does
 * not fit is a protocol error (origins check their arguments before sending). */
static char *at(const am_req_t *h, uint64_t off, uint64_t len, int origin)
{
    size_t size = h->region == 0 ? shmemi.heap_size : shmemi.data_size;
    char *base = h->region <= 1 && h->pe >= 0 && h->pe < shmemi.n_pes
                     ? shmemi_node_region(h->region, h->pe)
                     : NULL;
    if (!base || off > size || len > size - off)
        shmemi_fatal(routine, "request from PE %d for PE %d region %d [%llu, +%llu) is not "
                              "served here", origin, (int)h->pe, (int)h->region,
                     (unsigned long long)off, (unsigned long long)len);
    return base + off;
}

static void bad_burst(int origin)
{
    shmemi_fatal(routine, "malformed put/get burst from PE %d", origin);
}

/* A record's bytes: at() for its own PE when the burst is tagged (the displacement's top
 * bits name the PE of this node, SHMEMI_XB_TAG_SHIFT), else for the request's PE. */
static char *rec_at(const am_req_t *h, uint64_t d, uint64_t len, int origin)
{
    if (!h->tagged)
        return at(h, d, len, origin);
    uint64_t lr = d >> SHMEMI_XB_TAG_SHIFT;
    if (lr >= (uint64_t)sv.nl)
        shmemi_fatal(routine, "burst from PE %d for node rank %llu of %d", origin,
                     (unsigned long long)lr, sv.nl);
    am_req_t t = *h;
    t.pe = sv.lr_pe[lr];
    return at(&t, d & SHMEMI_XB_OFF_MASK, len, origin);
}

/* Record i's displacement in a typed burst whose displacements are dw bytes: 8, or 4 (an
 * offset; 6: and a uint16 node rank at tg, a tagged burst's). */
static inline uint64_t typed_disp(const unsigned char *pl, uint64_t i, size_t dw,
                                  const unsigned char *tg)
{
    if (dw != 8) {
        uint32_t d;
        memcpy(&d, pl + i * 4, 4);
        if (tg) {
            uint16_t lr;
            memcpy(&lr, tg + i * 2, 2);
            return (uint64_t)d | (uint64_t)lr << SHMEMI_XB_TAG_SHIFT;
        }
        return d;
    }
    uint64_t d;
    memcpy(&d, pl + i * 8, 8);
    return d;
}

/* The comm queue's put and get bursts (AM_BTPUT .. AM_BGET, AM_BTPUTP, AM_BTGETP:
 * xport_am_proto.h); pl holds plen bytes after the header. Gets answer with the values
 * in record order. */
static void apply_burst(const am_req_t *h, const unsigned char *pl, size_t plen, int origin)
{
    uint64_t cnt = h->len;
    size_t es = h->size;
    switch (h->kind) {
    case AM_BTPUT:
    case AM_BTGET:
    case AM_BTPUTP:
    case AM_BTGETP: {
        const int get = h->kind == AM_BTGET || h->kind == AM_BTGETP;
        const int narrow = h->kind == AM_BTPUTP || h->kind == AM_BTGETP;
        const size_t dw = narrow ? (h->tagged ? 6 : 4) : 8;
        if (es == 0 || cnt > plen / dw)
            bad_burst(origin);
        if (get ? plen != cnt * dw : plen - cnt * dw != cnt * es)
            bad_burst(origin);
        unsigned char *out = NULL;
        if (get && cnt && !(out = malloc(cnt * es)))
            shmemi_fatal(routine, "out of memory");
        /* the region once (at() checks it), then each record's range against its size;
         * tagged: each record's PE */
        char *base = cnt && !h->tagged ? at(h, 0, 0, origin) : NULL;
        size_t rsize = h->region == 0 ? shmemi.heap_size : shmemi.data_size;
        const unsigned char *val = pl + cnt * dw; /* a put's values */
        const unsigned char *tg = narrow && h->tagged ? pl + cnt * 4 : NULL;
        for (uint64_t i = 0; i < cnt; i++) {
            uint64_t d = typed_disp(pl, i, dw, tg);
            char *p;
            if (h->tagged) { /* the record's PE from its tag, through the table */
                uint64_t lr = d >> SHMEMI_XB_TAG_SHIFT, o = d & SHMEMI_XB_OFF_MASK;
                if (lr >= (uint64_t)sv.nl || h->region > 1 || o > rsize || es > rsize - o)
                    p = rec_at(h, d, es, origin); /* reports it */
                else
                    p = sv.lr_base[h->region][lr] + o;
            } else if (d > rsize || es > rsize - d)
                p = at(h, d, es, origin); /* reports it */
            else
                p = base + d;
            /* 8 bytes, the common case, as a constant-size copy: a copy of es bytes
             * compiled to `rep movsq`, whose start-up was 80% of this loop */
            if (out && es == 8)
                memcpy(out + i * 8, p, 8);
            else if (out)
                memcpy(out + i * es, p, es);
            else if (es == 8)
                memcpy(p, val + i * 8, 8);
            else
                memcpy(p, val + i * es, es);
        }
        if (get)
            reply_owned(origin, h->tag, out, cnt * es);
        return;
    }
    case AM_BPUT: {
        const unsigned char *p = pl, *end = pl + plen;
        for (uint64_t i = 0; i < cnt; i++) {
            uint64_t d, len;
            if ((size_t)(end - p) < 16)
                bad_burst(origin);
            memcpy(&d, p, 8);
            memcpy(&len, p + 8, 8);
            if (len > (size_t)(end - p) - 16)
                bad_burst(origin);
            memcpy(rec_at(h, d, len, origin), p + 16, len);
            uint64_t step = 16 + ((len + 7) & ~(uint64_t)7);
            p = step > (size_t)(end - p) ? end : p + step; /* the last pad may be cut */
        }
        if (p != end)
            bad_burst(origin);
        return;
    }
    case AM_BGET: {
        if (cnt > plen / 24 || plen != cnt * 24)
            bad_burst(origin);
        size_t total = 0;
        for (uint64_t i = 0; i < cnt; i++) {
            uint64_t d, len;
            memcpy(&d, pl + i * 24, 8);
            memcpy(&len, pl + i * 24 + 8, 8);
            rec_at(h, d, len, origin); /* checks the range before anything is summed */
            total += len;
        }
        unsigned char *out = total ? malloc(total) : NULL;
        if (total && !out)
            shmemi_fatal(routine, "out of memory (%zu bytes)", total);
        size_t o = 0;
        for (uint64_t i = 0; i < cnt; i++) {
            uint64_t d, len;
            memcpy(&d, pl + i * 24, 8);
            memcpy(&len, pl + i * 24 + 8, 8);
            if (len)
                memcpy(out + o, rec_at(h, d, len, origin), len);
            o += len;
        }
        reply_owned(origin, h->tag, out, total);
        return;
    }
    }
}

/* Record i's displacement and operand, packed (AM_BURSTP: uint32 displacements, for a
 * tagged burst then uint16 node ranks (tg), one operand) or not (uint64 displacements,
 * then the operands). */
#define ACC_DISP(i)                                                                       \
    (packed ? (uint64_t)ld32(pl + (i) * 4) |                                              \
                  (tg ? (uint64_t)ld16(tg + (i) * 2) << SHMEMI_XB_TAG_SHIFT : 0)          \
            : ld64(pl + (i) * 8))
#define ACC_OPND(UT, i) (packed ? one : (UT)ld_ut(ops + (i) * sizeof(UT), sizeof(UT)))
/* One loop per op and word size, chosen once per burst; each word is checked against
 * the region before it is touched, and prefetched 16 records ahead (a locked add waits
 * for its line, so misses would not overlap by themselves: cq_owner.c does the same). */
#define ACC_LOOP(UT, ATOMIC_OP)                                                           \
    for (size_t i = 0; i < cnt; i++) {                                                    \
        if (i + 16 < cnt)                                                                 \
            __builtin_prefetch(base + ACC_DISP(i + 16), 1);                               \
        uint64_t d = ACC_DISP(i);                                                         \
        if (d > lim)                                                                      \
            at(h, d, sizeof(UT), origin); /* reports it */                                \
        (void)ATOMIC_OP((UT *)(void *)(base + d), ACC_OPND(UT, i), __ATOMIC_RELAXED);     \
    }
/* Tagged (node-routed) bursts: each record's PE from its displacement's top bits. */
#define ACC_TBASE(d) (lrb[(d) >> SHMEMI_XB_TAG_SHIFT])
#define ACC_LOOP_T(UT, ATOMIC_OP)                                                         \
    for (size_t i = 0; i < cnt; i++) {                                                    \
        if (i + 16 < cnt) {                                                               \
            uint64_t pd = ACC_DISP(i + 16);                                               \
            if ((pd >> SHMEMI_XB_TAG_SHIFT) < nl)                                         \
                __builtin_prefetch(ACC_TBASE(pd) + (pd & SHMEMI_XB_OFF_MASK), 1);          \
        }                                                                                 \
        uint64_t d = ACC_DISP(i), o = d & SHMEMI_XB_OFF_MASK;                             \
        if ((d >> SHMEMI_XB_TAG_SHIFT) >= nl || o > lim)                                  \
            rec_at(h, d, sizeof(UT), origin); /* reports it */                            \
        (void)ATOMIC_OP((UT *)(void *)(ACC_TBASE(d) + o), ACC_OPND(UT, i), __ATOMIC_RELAXED); \
    }
#define ACC_SWITCH(UT, LOOP)                                                              \
    switch ((shmemi_xop_t)h->op) {                                                        \
    case SHMEMI_XOP_SUM: LOOP(UT, __atomic_fetch_add) break;                              \
    case SHMEMI_XOP_SET: LOOP(UT, __atomic_store_n) break;                                \
    case SHMEMI_XOP_AND: LOOP(UT, __atomic_fetch_and) break;                              \
    case SHMEMI_XOP_OR: LOOP(UT, __atomic_fetch_or) break;                                \
    case SHMEMI_XOP_XOR: LOOP(UT, __atomic_fetch_xor) break;                              \
    default: shmemi_fatal(routine, "burst of op %d from PE %d", (int)h->op, origin);      \
    }
#define ACC_OPS(UT)                                                                       \
    do {                                                                                  \
        UT one = 0;                                                                       \
        if (packed)                                                                       \
            memcpy(&one, ops, sizeof one);                                                \
        if (h->tagged) {                                                                  \
            ACC_SWITCH(UT, ACC_LOOP_T)                                                    \
        } else {                                                                          \
            ACC_SWITCH(UT, ACC_LOOP)                                                      \
        }                                                                                 \
    } while (0)

static inline uint16_t ld16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

static inline uint32_t ld32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t ld64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t ld_ut(const unsigned char *p, size_t size)
{
    return size == 8 ? ld64(p) : ld32(p);
}

/* The comm queue's atomic bursts (AM_BURST, AM_BURSTP): cnt accumulates of one op on
 * words of one PE's region, with relaxed atomics like every queued atomic applied on a
 * node (cq_apply.c): a FLUSH's fence orders them before its reply. */
static void apply_acc(const am_req_t *h, const unsigned char *pl, size_t plen, int origin)
{
    const int packed = h->kind == AM_BURSTP;
    /* a packed tagged burst: 4 bytes of offset and 2 of node rank a record */
    size_t es = h->size, cnt = h->len, dsz = packed ? (h->tagged ? 6 : 4) : 8;
    if ((es != 4 && es != 8) || cnt > plen / dsz ||
        plen - cnt * dsz != (packed ? es : cnt * es))
        shmemi_fatal(routine, "malformed burst from PE %d", origin);
    if (cnt == 0)
        return;
    size_t rsize = h->region == 0 ? shmemi.heap_size : shmemi.data_size;
    char *base = h->tagged ? NULL : at(h, 0, 0, origin);
    char *const *lrb = h->region <= 1 ? sv.lr_base[h->region] : NULL;
    const uint64_t nl = h->tagged && lrb ? (uint64_t)sv.nl : 0; /* tagged: records' PEs */
    if (rsize < es)
        at(h, 0, es, origin); /* reports it */
    uint64_t lim = rsize - es;
    const unsigned char *ops = pl + cnt * dsz;
    const unsigned char *tg = packed && h->tagged ? pl + cnt * 4 : NULL;
    if (es == 8)
        ACC_OPS(uint64_t);
    else
        ACC_OPS(uint32_t);
}

static void apply(const unsigned char *msg, size_t n, int origin)
{
    am_req_t h;
    if (n < sizeof h)
        shmemi_fatal(routine, "short request (%zu bytes) from PE %d", n, origin);
    memcpy(&h, msg, sizeof h);
    const unsigned char *pl = msg + sizeof h;
    switch (h.kind) {
    case AM_AMO: {
        uint64_t old = 0;
        char *p = at(&h, h.off, h.size, origin);
        shmemi_node_amo(p, h.size, h.amokind, (shmemi_xop_t)h.op, &h.value, &h.cond,
                        h.tag ? &old : NULL);
        if (h.tag)
            reply(origin, h.tag, &old, sizeof old);
        break;
    }
    case AM_PUT:
        if (n - sizeof h != h.len)
            shmemi_fatal(routine, "put of %llu bytes carries %zu", (unsigned long long)h.len,
                         n - sizeof h);
        memcpy(at(&h, h.off, h.len, origin), pl, h.len);
        break;
    case AM_GET:
        reply(origin, h.tag, at(&h, h.off, h.len, origin), h.len);
        break;
    case AM_FLUSH:
        /* everything this origin sent before arrived before, and is applied */
        atomic_thread_fence(memory_order_seq_cst);
        reply(origin, h.tag, NULL, 0);
        break;
    case AM_BURST:
    case AM_BURSTP:
        apply_acc(&h, pl, n - sizeof h, origin);
        break;
    case AM_PUTS: {
        int64_t rs;
        memcpy(&rs, &h.cond, sizeof rs);
        uint64_t cnt = h.value, blk = h.len, plen = n - sizeof h;
        if (blk == 0 || cnt > plen / blk || cnt * blk != plen)
            shmemi_fatal(routine, "malformed strided put from PE %d", origin);
        for (uint64_t k = 0; k < cnt; k++)
            memcpy(at(&h, h.off + (uint64_t)((int64_t)k * rs), blk, origin), pl + k * blk, blk);
        break;
    }
    case AM_BTPUT:
    case AM_BPUT:
    case AM_BTGET:
    case AM_BGET:
    case AM_BTPUTP:
    case AM_BTGETP:
        apply_burst(&h, pl, n - sizeof h, origin);
        break;
    default:
        shmemi_fatal(routine, "unknown request kind %d from PE %d", (int)h.kind, origin);
    }
}

int shmemi_am_serve(void *arg)
{
    (void)arg;
    int done = 0; /* requests applied: the agent polls again at once after work */
    if (pthread_mutex_trylock(&sv.lock) != 0)
        return 0; /* another thread serves right now */
    if (sv.registered) {
        if (sv.replies.n)
            am_pends_reap(&sv.replies, 0, NULL, free, routine);
        for (int k = 0; k < 256; k++) { /* bounded: the caller has its own work */
            int flag = 0, cnt = 0;
            MPI_Message m;
            MPI_Status st;
            int rc = MPI_Improbe(MPI_ANY_SOURCE, AM_TAG_REQ, shmemi_am.comm, &flag, &m, &st);
            if (rc != MPI_SUCCESS)
                shmemi_mpi_fail(routine, "MPI_Improbe", rc);
            if (!flag)
                break;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            if ((size_t)cnt > sv.cap) {
                size_t cap = (size_t)cnt < 4096 ? 4096 : (size_t)cnt;
                unsigned char *b = realloc(sv.buf, cap);
                if (!b)
                    shmemi_fatal(routine, "out of memory (%zu bytes)", cap);
                sv.buf = b;
                sv.cap = cap;
            }
            rc = MPI_Mrecv(sv.buf, cnt, MPI_BYTE, &m, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                shmemi_mpi_fail(routine, "MPI_Mrecv", rc);
            apply(sv.buf, (size_t)cnt, st.MPI_SOURCE);
            done++;
        }
    }
    pthread_mutex_unlock(&sv.lock);
    return done;
}

int shmemi_am_serve_init(void)
{
    /* the node's PEs by node rank, for node-routed bursts (shmemi_am.lrank) */
    for (int p = 0; p < shmemi.n_pes; p++)
        if (shmemi_am.server[p] == shmemi.my_pe && shmemi_am.lrank[p] >= sv.nl)
            sv.nl = shmemi_am.lrank[p] + 1;
    sv.lr_pe = malloc(sizeof(int) * (size_t)sv.nl);
    sv.lr_base[0] = malloc(sizeof(char *) * (size_t)sv.nl);
    sv.lr_base[1] = malloc(sizeof(char *) * (size_t)sv.nl);
    if (!sv.lr_pe || !sv.lr_base[0] || !sv.lr_base[1])
        shmemi_fatal("shmem_init", "out of memory");
    for (int p = 0; p < shmemi.n_pes; p++)
        if (shmemi_am.server[p] == shmemi.my_pe) {
            int r = shmemi_am.lrank[p];
            sv.lr_pe[r] = p;
            sv.lr_base[0][r] = shmemi_node_region(0, p);
            sv.lr_base[1][r] = shmemi_node_region(1, p);
        }
    sv.registered = 1;
    if (shmemi_progress_register_flags(shmemi_am_serve, NULL, SHMEMI_PROGRESS_THREAD_SAFE) != 0) {
        sv.registered = 0;
        shmemi_fatal("shmem_init", "no room for the AM server's progress hook");
    }
    return 0;
}

void shmemi_am_serve_fini(void)
{
    shmemi_progress_unregister(shmemi_am_serve, NULL);
    pthread_mutex_lock(&sv.lock);
    sv.registered = 0;
    am_pends_fini(&sv.replies, reply_wait, free, routine);
    free(sv.buf);
    sv.buf = NULL;
    sv.cap = 0;
    free(sv.lr_pe);
    free(sv.lr_base[0]);
    free(sv.lr_base[1]);
    sv.lr_pe = NULL;
    sv.lr_base[0] = sv.lr_base[1] = NULL;
    sv.nl = 0;
    pthread_mutex_unlock(&sv.lock);
}
