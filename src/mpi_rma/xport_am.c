/* xport_am.c: the AM transport's origin side (xport_am.h): requests to the server of the
 * target's node, the replies they wait for, completion (quiet, flush), the comm queue's
 * get bursts in flight. The wire format is xport_am_proto.h's; the comm queue's bursts
 * are made into requests in xport_am_burst.c; the server is xport_am_serve.c; the choice
 * made at init and the set-up are xport_am_init.c's.
 *
 * Origin state is under one lock (o.lock): the reply slots, the sends in flight and the
 * servers sent to since their last flush. Requests are sent under it, so requests of
 * several threads reach a server in the order the lock gave them. Nothing waits for
 * another PE while holding it except for MPI to finish a send whose receiver already
 * answered a later request; waits that need another PE (a reply) run without it and
 * keep progressing (shmemi_progress, and this PE's own server: two servers fetching
 * from each other must both keep serving). */
#include "xport.h"
#include "xport_am_proto.h"
#include <sched.h>

static struct {
    pthread_mutex_t lock;
    MPI_Request req[AM_NSLOTS];
    uint64_t val[AM_NSLOTS];  /* an atomic's old value arrives here */
    void *result[AM_NSLOTS];  /* nbi atomics: where it goes at quiet (NULL: a get) */
    uint8_t size[AM_NSLOTS];
    int free_slots[AM_NSLOTS];
    int n_free;
    int nbi[AM_NSLOTS]; /* slots completed at quiet */
    int n_nbi;
    am_pends_t sends; /* request sends in flight, each with its copy */
    am_pends_t gets;  /* the comm queue's get bursts in flight (am_getb_t buffers) */
    unsigned char *dirty; /* per world rank: a server sent to since its last flush */
    unsigned *unflushed;  /* per world rank: requests sent to it since then */
    int *dirty_list;
    int n_dirty;
    int quieting; /* quiets in progress (another thread's quiet may hold our flush) */
} o = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const char *am_routine = "shmemq AM transport";

/* ---- waiting ---- */

/* Set while the comm queue's burst paths wait here: they run inside the queue's own
 * state changes, so the progress hooks (a session's hook progresses its queue) must not
 * run under them; MPI and this PE's server still do. */
static _Thread_local int no_hooks;

/* Wait for one request. locked: o.lock is held, so only MPI and this PE's server may run
 * meanwhile (a progress hook might send through this transport and take the lock).
 * Unlocked, each pass runs every hook, so the agent stands down while it waits (a
 * blocking AMO's round trip otherwise had this PE and its agent polling side by side). */
static void wait_req(MPI_Request *r, int locked)
{
    locked |= no_hooks;
    int self = -1; /* shmemi_wait_self_begin's answer, after the first test */
    for (unsigned spins = 0;; spins++) {
        int done = 0;
        int rc = MPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            shmemi_mpi_fail(am_routine, "MPI_Test", rc);
        if (done)
            break;
        if (!locked) {
            if (self < 0)
                self = shmemi_wait_self_begin();
            shmemi_progress();
        }
        if (shmemi_am.is_server)
            shmemi_am_serve(NULL);
        if (spins > 64)
            sched_yield(); /* with more PEs than cores the server needs our core */
    }
    shmemi_wait_self_end(self);
}

static void wait_locked(MPI_Request *r)
{
    wait_req(r, 1);
}

/* Sends in flight: free the finished ones; all: wait for every one. Lock held. */
static void reap_sends(int all)
{
    am_pends_reap(&o.sends, all, wait_locked, free, am_routine);
}

/* ---- slots (lock held) ---- */

static void complete_nbi_locked(void);

static int slot_get(void)
{
    if (o.n_free == 0)
        complete_nbi_locked(); /* early completion of nbi results is allowed */
    if (o.n_free == 0)
        shmemi_fatal(am_routine, "more than %d replies outstanding", AM_NSLOTS);
    return o.free_slots[--o.n_free];
}

static void slot_put(int s)
{
    o.free_slots[o.n_free++] = s;
}

static void slot_finish(int s)
{
    if (o.result[s])
        memcpy(o.result[s], &o.val[s], o.size[s]);
    o.result[s] = NULL;
    slot_put(s);
}

static void complete_nbi_locked(void)
{
    for (int i = 0; i < o.n_nbi; i++) {
        wait_req(&o.req[o.nbi[i]], 1);
        slot_finish(o.nbi[i]);
    }
    o.n_nbi = 0;
}

/* ---- sending (lock held) ---- */

/* One request (header h, then a and b bytes) to server. The bytes are copied, so every
 * source is reusable on return. MPI_SUCCESS, or the MPI error (nothing sent). */
static unsigned char *req_buf(size_t n)
{
    unsigned char *buf = malloc(n);
    if (!buf)
        shmemi_fatal(am_routine, "out of memory (%zu bytes)", n);
    if (n > (size_t)INT32_MAX)
        shmemi_fatal(am_routine, "request of %zu bytes", n);
    return buf;
}

/* A request of header h, then a and b bytes, copied: every source is reusable. */
static unsigned char *req_copy(const am_req_t *h, const void *a, size_t na, const void *b,
                               size_t nb, size_t *n)
{
    *n = sizeof *h + na + nb;
    unsigned char *buf = req_buf(*n);
    memcpy(buf, h, sizeof *h);
    if (na)
        memcpy(buf + sizeof *h, a, na);
    if (nb)
        memcpy(buf + sizeof *h + na, b, nb);
    return buf;
}

/* A request of header h, then disp[0..n) narrowed to uint32 (the packed burst forms:
 * narrowed while copied, as the plain form copies anyway), then nt tail bytes. */
unsigned char *shmemi_am_req_narrow(const am_req_t *h, const uint64_t *disp, uint32_t n,
                                    const void *tail, size_t nt, size_t *len)
{
    size_t nd = (size_t)n * 4;
    *len = sizeof *h + nd + nt;
    unsigned char *buf = req_buf(*len);
    memcpy(buf, h, sizeof *h);
    shmemi_burst_narrow(buf + sizeof *h, (const unsigned char *)disp, n);
    if (nt)
        memcpy(buf + sizeof *h + nd, tail, nt);
    return buf;
}

unsigned char *shmemi_am_req_narrow_tagged(const am_req_t *h, const uint64_t *disp, uint32_t n,
                                           const void *tail, size_t nt, size_t *len)
{
    *len = sizeof *h + (size_t)n * 6 + nt;
    unsigned char *buf = req_buf(*len), *p = buf + sizeof *h;
    memcpy(buf, h, sizeof *h);
    for (size_t i = 0; i < n; i++) {
        uint32_t off = (uint32_t)(disp[i] & SHMEMI_XB_OFF_MASK);
        uint16_t lr = (uint16_t)(disp[i] >> SHMEMI_XB_TAG_SHIFT);
        memcpy(p + i * 4, &off, 4);
        memcpy(p + (size_t)n * 4 + i * 2, &lr, 2);
    }
    if (nt)
        memcpy(p + (size_t)n * 6, tail, nt);
    return buf;
}

static int send_buf(int server, const am_req_t *h, unsigned char *buf, size_t n);

static int try_send_req(int server, am_req_t *h, const void *a, size_t na, const void *b,
                        size_t nb)
{
    size_t n;
    unsigned char *buf = req_copy(h, a, na, b, nb, &n);
    return send_buf(server, h, buf, n);
}

/* Send buf (n bytes, h first, malloc'd: owned from here on, freed once sent). */
static int send_buf(int server, const am_req_t *h, unsigned char *buf, size_t n)
{
    shmemi_am_comb_before(server, h); /* held atomics go first: the server applies in order */
    am_pend_t *e = am_pends_room(&o.sends, free, am_routine);
    int rc = MPI_Isend(buf, (int)n, MPI_BYTE, server, AM_TAG_REQ, shmemi_am.comm, &e->req);
    if (rc != MPI_SUCCESS) {
        free(buf);
        return rc;
    }
    e->buf = buf;
    o.sends.n++;
    /* A flush leaves nothing to flush, and a get's own reply is waited for before any
     * completion counts it (quiet, or the caller), and proves every earlier request of
     * this origin to that server applied: neither needs a flush. */
    if (h->kind == AM_FLUSH || h->kind == AM_GET || h->kind == AM_BTGET ||
        h->kind == AM_BTGETP || h->kind == AM_BGET)
        return MPI_SUCCESS;
    if (!o.dirty[server]) {
        o.dirty[server] = 1;
        o.dirty_list[o.n_dirty++] = server;
    }
    __atomic_fetch_add(&o.unflushed[server], 1u, __ATOMIC_RELAXED); /* throttle reads it unlocked */
    return MPI_SUCCESS;
}

/* The OpenSHMEM routines return nothing: a failed send ends the job, naming the call. */
static void send_req(int server, am_req_t *h, const void *a, size_t na, const void *b, size_t nb)
{
    int rc = try_send_req(server, h, a, na, b, nb);
    if (rc != MPI_SUCCESS)
        shmemi_mpi_fail(am_routine, "MPI_Isend", rc);
}

/* Flow control: MPI buffers requests the server has not received yet (eager sends finish
 * at once), so an origin that only sends could pile up unbounded memory there. Every
 * AM_WINDOW requests to one server, wait for them to be applied (a flush). Lock not held. */
#define AM_WINDOW 8192u
static void quiet(int server);
static void throttle(int server)
{
    if (__atomic_load_n(&o.unflushed[server], __ATOMIC_RELAXED) >= AM_WINDOW)
        quiet(server);
}

/* Post the receive of slot s's reply (n bytes into buf) from server. */
static void post_reply(int s, int server, void *buf, size_t n)
{
    int rc = MPI_Irecv(buf, (int)n, MPI_BYTE, server, s + 1, shmemi_am.comm, &o.req[s]);
    if (rc != MPI_SUCCESS)
        shmemi_mpi_fail(am_routine, "MPI_Irecv", rc);
}

static void req_init(am_req_t *h, int kind, const shmemi_target_t *t)
{
    memset(h, 0, sizeof *h);
    h->kind = (uint8_t)kind;
    h->region = (uint8_t)t->region;
    h->pe = t->rank;
    h->off = t->off;
}

/* ---- for the combining of non-fetching atomics (xport_am_comb.c) ---- */

void shmemi_am_lock(void)
{
    pthread_mutex_lock(&o.lock);
}

int shmemi_am_trylock(void)
{
    return pthread_mutex_trylock(&o.lock);
}

void shmemi_am_unlock(void)
{
    pthread_mutex_unlock(&o.lock);
}

int shmemi_am_send_owned(int server, const am_req_t *h, unsigned char *buf, size_t n)
{
    return send_buf(server, h, buf, n);
}

unsigned char *shmemi_am_req_buf(size_t n)
{
    return req_buf(n);
}

void shmemi_am_throttle(int server)
{
    throttle(server);
}

/* ---- for the comm queue's bursts (xport_am_burst.c) ---- */

unsigned char *shmemi_am_req_copy(const am_req_t *h, const void *a, size_t na, const void *b,
                                  size_t nb, size_t *n)
{
    return req_copy(h, a, na, b, nb, n);
}

void shmemi_am_burst_throttle(int server)
{
    no_hooks = 1; /* the queue is in the middle of its own state changes */
    throttle(server);
    no_hooks = 0;
}

/* ---- atomics ---- */

/* One atomic; fetching ones wait for the old value unless nbi (then it lands in result
 * at quiet). */
static void amo(const shmemi_target_t *t, size_t size, int kind, shmemi_xop_t op,
                const void *value, const void *cond, void *result, int nbi)
{
    am_req_t h;
    req_init(&h, AM_AMO, t);
    h.size = (uint8_t)size;
    h.amokind = (uint8_t)kind;
    h.op = (uint8_t)op;
    if (value)
        memcpy(&h.value, value, size);
    if (cond)
        memcpy(&h.cond, cond, size);
    int server = shmemi_am.server[t->rank];
    int fetch = kind != SHMEMI_AMO_ACC && result != NULL;
    pthread_mutex_lock(&o.lock);
    int s = -1;
    if (fetch) {
        s = slot_get();
        o.size[s] = (uint8_t)size;
        o.result[s] = result;
        post_reply(s, server, &o.val[s], sizeof o.val[s]);
        h.tag = s + 1;
        if (nbi)
            o.nbi[o.n_nbi++] = s;
    }
    send_req(server, &h, NULL, 0, NULL, 0);
    pthread_mutex_unlock(&o.lock);
    throttle(server);
    if (fetch && !nbi) {
        wait_req(&o.req[s], 0);
        pthread_mutex_lock(&o.lock);
        slot_finish(s);
        pthread_mutex_unlock(&o.lock);
    }
}

void shmemi_am_fetch_op(const char *routine, const shmemi_target_t *t, size_t size,
                        shmemi_xop_t op, const void *value, void *result)
{
    (void)routine;
    amo(t, size, SHMEMI_AMO_FOP, op, value, NULL, result, 0);
}

void shmemi_am_cas(const char *routine, const shmemi_target_t *t, size_t size, const void *value,
                   const void *cond, void *result)
{
    (void)routine;
    amo(t, size, SHMEMI_AMO_CAS, SHMEMI_XOP_CAS, value, cond, result, 0);
}

void shmemi_am_amo_nbi(const char *routine, const shmemi_target_t *t, size_t size, int kind,
                       shmemi_xop_t op, const void *value, const void *cond, void *result)
{
    (void)routine;
    amo(t, size, kind, op, value, cond, result, 1);
}

void shmemi_am_amo_comb(const char *routine, const shmemi_target_t *t, size_t size, int kind,
                        shmemi_xop_t op, const void *value, const void *cond, void *result)
{
    (void)routine;
    /* a non-fetching atomic may be held for a burst (xport_am_comb.c); others go as one */
    if (kind == SHMEMI_AMO_ACC && shmemi_am_comb_add(t, size, op, value))
        return;
    amo(t, size, kind, op, value, cond, result, 1);
}

/* ---- the comm queue's get bursts in flight ---- */

/* One get burst's buffer: this header, the reply (total bytes, padded to 8), then where
 * its values go: n local addresses (typed gets) or the n records {disp, len, local
 * address} (a copy: the queue reuses its chunk once the burst returns). */
typedef struct {
    int slot; /* its reply tag - 1 */
    int typed;
    uint32_t n;
    size_t esize, total;
} am_getb_t;

static unsigned char *getb_reply(am_getb_t *g)
{
    return (unsigned char *)(g + 1);
}

static unsigned char *getb_where(am_getb_t *g)
{
    return getb_reply(g) + ((g->total + 7) & ~(size_t)7);
}

/* A get burst's reply is in: put every value at its local address (record order), give
 * the slot back, free the buffer. Lock held. */
static void getb_finish(void *buf)
{
    am_getb_t *g = buf;
    const unsigned char *in = getb_reply(g), *w = getb_where(g);
    size_t at = 0;
    if (g->typed && g->esize == 8) { /* the common case: constant-size stores */
        for (uint32_t i = 0; i < g->n; i++) {
            uint64_t local;
            memcpy(&local, w + (size_t)i * 8, 8);
            memcpy((void *)(uintptr_t)local, in + (size_t)i * 8, 8);
        }
        slot_put(g->slot);
        free(g);
        return;
    }
    for (uint32_t i = 0; i < g->n; i++) {
        uint64_t local, len = g->esize;
        if (g->typed) {
            memcpy(&local, w + (size_t)i * 8, 8);
        } else {
            memcpy(&len, w + (size_t)i * 24 + 8, 8);
            memcpy(&local, w + (size_t)i * 24 + 16, 8);
        }
        if (len)
            memcpy((void *)(uintptr_t)local, in + at, len);
        at += len;
    }
    slot_put(g->slot);
    free(g);
}

/* ---- completion ---- */

/* Flush the servers in list (n of them) and wait for their answers. Lock not held. */
static void flush_servers(const int *list, int n)
{
    int slots[64];
    for (int i = 0; i < n;) {
        int m = 0;
        pthread_mutex_lock(&o.lock);
        for (; i < n && m < 64; i++, m++) {
            int s = slot_get();
            o.result[s] = NULL;
            post_reply(s, list[i], NULL, 0);
            am_req_t h;
            memset(&h, 0, sizeof h);
            h.kind = AM_FLUSH;
            h.tag = s + 1;
            h.pe = list[i];
            send_req(list[i], &h, NULL, 0, NULL, 0);
            slots[m] = s;
        }
        pthread_mutex_unlock(&o.lock);
        for (int k = 0; k < m; k++)
            wait_req(&o.req[slots[k]], 0);
        pthread_mutex_lock(&o.lock);
        for (int k = 0; k < m; k++)
            slot_put(slots[k]);
        pthread_mutex_unlock(&o.lock);
    }
}

/* Complete: every dirty server (server < 0) or one, then every nbi result. */
static void quiet(int server)
{
    pthread_mutex_lock(&o.lock);
    shmemi_am_comb_send(server); /* held atomics leave first, so the flush covers them */
    if (o.n_dirty == 0 && o.n_nbi == 0 && o.gets.n == 0 && o.quieting == 0) {
        if (o.sends.n)
            reap_sends(0);
        pthread_mutex_unlock(&o.lock);
        return;
    }
    int n = 0, *list = NULL;
    if (server < 0 && o.n_dirty) {
        list = malloc(sizeof(int) * (size_t)o.n_dirty);
        if (!list)
            shmemi_fatal(am_routine, "out of memory");
        for (int i = 0; i < o.n_dirty; i++) {
            list[n++] = o.dirty_list[i];
            o.dirty[o.dirty_list[i]] = 0;
            __atomic_store_n(&o.unflushed[o.dirty_list[i]], 0u, __ATOMIC_RELAXED);
        }
        o.n_dirty = 0;
    } else if (server >= 0 && o.dirty[server]) {
        list = malloc(sizeof(int));
        if (!list)
            shmemi_fatal(am_routine, "out of memory");
        list[n++] = server;
        o.dirty[server] = 0;
        __atomic_store_n(&o.unflushed[server], 0u, __ATOMIC_RELAXED);
        for (int i = 0; i < o.n_dirty; i++)
            if (o.dirty_list[i] == server)
                o.dirty_list[i] = o.dirty_list[--o.n_dirty];
    }
    __atomic_fetch_add(&o.quieting, 1, __ATOMIC_RELEASE); /* read unlocked below */
    pthread_mutex_unlock(&o.lock);

    flush_servers(list, n); /* may complete nbi results itself when it runs out of slots */
    /* the nbi results to wait for: ours now (taken after the flush, which may need their
     * slots), so another thread's later ones are not waited for here */
    pthread_mutex_lock(&o.lock);
    int nn = o.n_nbi, *nbi = NULL;
    if (nn) {
        nbi = malloc(sizeof(int) * (size_t)nn);
        if (!nbi)
            shmemi_fatal(am_routine, "out of memory");
        memcpy(nbi, o.nbi, sizeof(int) * (size_t)nn);
        o.n_nbi = 0;
    }
    /* and the get bursts in flight (all of them, as the nbi results: conservative) */
    am_pends_t gets = o.gets;
    o.gets.v = NULL;
    o.gets.n = o.gets.cap = 0;
    pthread_mutex_unlock(&o.lock);
    for (int i = 0; i < nn; i++)
        wait_req(&o.req[nbi[i]], 0);
    for (size_t i = 0; i < gets.n; i++)
        wait_req(&gets.v[i].req, 0);

    pthread_mutex_lock(&o.lock);
    for (int i = 0; i < nn; i++)
        slot_finish(nbi[i]);
    for (size_t i = 0; i < gets.n; i++)
        getb_finish(gets.v[i].buf);
    free(gets.v);
    __atomic_fetch_sub(&o.quieting, 1, __ATOMIC_RELEASE);
    reap_sends(0);
    pthread_mutex_unlock(&o.lock);
    free(list);
    free(nbi);
    /* Another thread's quiet may have taken a flush that covers our requests: wait for
     * it too (multi-threaded programs only; the count is 0 otherwise). */
    for (unsigned spins = 0; __atomic_load_n(&o.quieting, __ATOMIC_ACQUIRE) > 0; spins++) {
        if (!no_hooks)
            shmemi_progress();
        if (shmemi_am.is_server)
            shmemi_am_serve(NULL);
        if (spins > 64)
            sched_yield();
    }
}

void shmemi_am_quiet(void)
{
    quiet(-1);
}

void shmemi_am_quiet_pe(int pe)
{
    quiet(shmemi_am.server[pe]);
}

void shmemi_am_burst_quiet(int pe)
{
    no_hooks = 1;
    if (pe >= 0)
        quiet(shmemi_am.server[pe]);
    else
        quiet(-1);
    no_hooks = 0;
}

/* ---- bytes ---- */

/* Up to 64 gets in flight waited together (a blocking get of many pieces, a strided
 * get of many blocks). */
typedef struct {
    int slots[64];
    int n;
} get_batch_t;

static void batch_wait(get_batch_t *g)
{
    for (int k = 0; k < g->n; k++)
        wait_req(&o.req[g->slots[k]], 0);
    pthread_mutex_lock(&o.lock);
    for (int k = 0; k < g->n; k++)
        slot_put(g->slots[k]);
    pthread_mutex_unlock(&o.lock);
    g->n = 0;
}

/* Get n bytes at offset off of t's region into dest, in pieces; g NULL: complete at
 * quiet (nbi). */
static void get_bytes(const shmemi_target_t *t, uint64_t off, char *dest, size_t n,
                      get_batch_t *g)
{
    int server = shmemi_am.server[t->rank];
    for (size_t done = 0; done < n;) {
        size_t len = n - done < AM_CHUNK ? n - done : AM_CHUNK;
        am_req_t h;
        req_init(&h, AM_GET, t);
        h.off = off + done;
        h.len = len;
        pthread_mutex_lock(&o.lock);
        int s = slot_get();
        o.result[s] = NULL;
        post_reply(s, server, dest + done, len);
        h.tag = s + 1;
        send_req(server, &h, NULL, 0, NULL, 0);
        if (!g)
            o.nbi[o.n_nbi++] = s;
        pthread_mutex_unlock(&o.lock);
        if (g) {
            g->slots[g->n++] = s;
            if (g->n == 64)
                batch_wait(g);
        }
        done += len;
    }
}

static void put_bytes(const shmemi_target_t *t, uint64_t off, const char *src, size_t n)
{
    int server = shmemi_am.server[t->rank];
    for (size_t done = 0; done < n;) {
        size_t len = n - done < AM_CHUNK ? n - done : AM_CHUNK;
        am_req_t h;
        req_init(&h, AM_PUT, t);
        h.off = off + done;
        h.len = len;
        pthread_mutex_lock(&o.lock);
        send_req(server, &h, src + done, len, NULL, 0);
        pthread_mutex_unlock(&o.lock);
        throttle(server);
        done += len;
    }
}

void shmemi_am_put(const char *routine, const shmemi_target_t *t, const void *src, size_t n,
                   int done)
{
    (void)routine;
    if (n == 0)
        return;
    put_bytes(t, t->off, src, n); /* copied: LOCAL and NBI complete here */
    if (done == SHMEMI_XP_REMOTE)
        quiet(shmemi_am.server[t->rank]);
}

void shmemi_am_get(const char *routine, const shmemi_target_t *t, void *dest, size_t n, int done)
{
    (void)routine;
    if (n == 0)
        return;
    if (done == SHMEMI_XP_NBI) {
        get_bytes(t, t->off, dest, n, NULL);
        return;
    }
    get_batch_t g = {.n = 0};
    get_bytes(t, t->off, dest, n, &g);
    batch_wait(&g);
}

/* Strided put of small blocks: packed, as many blocks per request as fit AM_CHUNK. */
static void put_strided(const shmemi_target_t *t, uint64_t off, const char *local,
                        ptrdiff_t lstride, ptrdiff_t rstride, size_t blk, size_t n)
{
    int server = shmemi_am.server[t->rank];
    size_t per = AM_CHUNK / blk;
    char *pack = malloc(per * blk);
    if (!pack)
        shmemi_fatal(am_routine, "out of memory");
    for (size_t k = 0; k < n;) {
        size_t m = n - k < per ? n - k : per;
        for (size_t j = 0; j < m; j++)
            memcpy(pack + j * blk, local + (ptrdiff_t)(k + j) * lstride, blk);
        am_req_t h;
        req_init(&h, AM_PUTS, t);
        h.off = (uint64_t)((int64_t)off + (int64_t)k * (int64_t)rstride);
        h.len = blk;
        h.value = m;
        int64_t rs = (int64_t)rstride;
        memcpy(&h.cond, &rs, sizeof rs);
        pthread_mutex_lock(&o.lock);
        send_req(server, &h, pack, m * blk, NULL, 0);
        pthread_mutex_unlock(&o.lock);
        throttle(server);
        k += m;
    }
    free(pack);
}

/* Strided, blocking: puts of small blocks packed into few requests, larger ones block by
 * block (copied out, so complete locally on return); gets block by block, pipelined 64
 * pieces at a time. */
void shmemi_am_strided(const char *routine, const shmemi_target_t *t, int is_get, char *local,
                       ptrdiff_t lstride, size_t roff, ptrdiff_t rstride, size_t blk, size_t n)
{
    (void)routine;
    if (!is_get && n > 1 && blk > 0 && blk <= AM_CHUNK / 4) {
        put_strided(t, t->off + roff, local, lstride, rstride, blk, n);
        return;
    }
    get_batch_t g = {.n = 0};
    for (size_t k = 0; k < n; k++) {
        uint64_t off = (uint64_t)((ptrdiff_t)(t->off + roff) + (ptrdiff_t)k * rstride);
        char *l = local + (ptrdiff_t)k * lstride;
        if (is_get)
            get_bytes(t, off, l, blk, &g);
        else
            put_bytes(t, off, l, blk);
    }
    if (is_get)
        batch_wait(&g);
}

/* ---- the comm queue's get bursts and bytes ---- */

/* A get burst (shmemi_am_burst): post the receive of its values, send the request and
 * return; the values are scattered to the local addresses when the reply is reaped: at
 * the latest by the queue's completion (shmemi_am_burst_quiet, which waits for every get
 * burst), earlier when the bound of AM_GET_BURSTS in flight makes a new one complete the
 * oldest. Waiting runs no progress hook (no_hooks): the queue is in the middle of its
 * own state changes. Returns the data bytes. */
size_t shmemi_am_burst_get(const shmemi_xp_burst_t *b, am_req_t *h, shmemi_xp_status_t *st)
{
    int server = shmemi_am.server[b->pe];
    int typed = b->kind == SHMEMI_XB_TYPED_GETS, packed = h->kind == AM_BTGETP;
    const void *req = typed ? (const void *)b->disp : (const void *)b->records;
    size_t nreq = (size_t)b->n * (packed ? (h->tagged ? 6 : 4) : typed ? 8 : 24), total = 0;
    if (typed)
        total = (size_t)b->n * b->esize;
    else
        for (uint32_t i = 0; i < b->n; i++) {
            uint64_t len;
            memcpy(&len, b->records + (size_t)i * 24 + 8, 8);
            total += len;
        }
    if (total > (size_t)INT32_MAX)
        shmemi_fatal(am_routine, "get burst of %zu bytes", total);
    size_t where = typed ? (size_t)b->n * 8 : nreq;
    am_getb_t *g = malloc(sizeof *g + ((total + 7) & ~(size_t)7) + where);
    if (!g)
        shmemi_fatal(am_routine, "out of memory (%zu bytes)", total + where);
    g->slot = -1;
    g->typed = typed;
    g->n = b->n;
    g->esize = b->esize;
    g->total = total;
    if (where)
        memcpy(getb_where(g), typed ? (const void *)b->elems : (const void *)b->records, where);

    no_hooks = 1;
    pthread_mutex_lock(&o.lock);
    /* At the bound, complete the oldest (most likely answered already: one MPI_Test, where
     * testing every burst in flight would run MPI progress 32 times per burst). */
    while (o.gets.n >= AM_GET_BURSTS) { /* unlocked while it waits */
        am_pend_t e = o.gets.v[0];
        memmove(o.gets.v, o.gets.v + 1, --o.gets.n * sizeof e);
        __atomic_fetch_add(&o.quieting, 1, __ATOMIC_RELEASE); /* a quiet meanwhile waits for it */
        pthread_mutex_unlock(&o.lock);
        wait_req(&e.req, 0);
        pthread_mutex_lock(&o.lock);
        getb_finish(e.buf);
        __atomic_fetch_sub(&o.quieting, 1, __ATOMIC_RELEASE);
    }
    int s = slot_get();
    g->slot = s;
    am_pend_t *e = am_pends_room(&o.gets, getb_finish, am_routine);
    int rc = MPI_Irecv(getb_reply(g), (int)total, MPI_BYTE, server, s + 1, shmemi_am.comm,
                       &e->req);
    if (rc != MPI_SUCCESS)
        shmemi_mpi_fail(am_routine, "MPI_Irecv", rc);
    h->tag = s + 1;
    if (packed) { /* uint32 displacements */
        size_t len;
        unsigned char *buf = h->tagged ? shmemi_am_req_narrow_tagged(h, b->disp, b->n, NULL, 0, &len)
                                       : shmemi_am_req_narrow(h, b->disp, b->n, NULL, 0, &len);
        rc = send_buf(server, h, buf, len); /* touches o.sends only: e stays */
    } else {
        rc = try_send_req(server, h, req, nreq, NULL, 0);
    }
    if (rc != MPI_SUCCESS) { /* nothing will answer: withdraw the receive */
        MPI_Cancel(&e->req);
        MPI_Wait(&e->req, MPI_STATUS_IGNORE);
        slot_put(s);
    } else {
        e->buf = g;
        o.gets.n++;
    }
    pthread_mutex_unlock(&o.lock);
    no_hooks = 0;
    if (rc != MPI_SUCCESS) {
        free(g);
        am_burst_note(st, rc, "MPI_Isend");
        return 0;
    }
    return total;
}

void shmemi_am_burst_bytes(int is_get, void *buf, size_t len, int pe, int region, uint64_t off)
{
    shmemi_target_t t;
    memset(&t, 0, sizeof t);
    t.rank = pe;
    t.region = region;
    t.off = (uintptr_t)off;
    no_hooks = 1; /* the throttle's wait: the queue is in the middle of its state changes */
    if (is_get)
        get_bytes(&t, off, buf, len, NULL); /* complete at shmemi_am_burst_quiet */
    else
        put_bytes(&t, off, buf, len); /* copied: buf is free on return */
    no_hooks = 0;
}

/* ---- set-up and shutdown of the origin state (xport_am_init.c decides and calls) ---- */

void shmemi_am_origin_init(void)
{
    o.dirty = calloc((size_t)shmemi.n_pes, 1);
    o.unflushed = calloc((size_t)shmemi.n_pes, sizeof(unsigned));
    o.dirty_list = malloc(sizeof(int) * (size_t)shmemi.n_pes);
    if (!o.dirty || !o.unflushed || !o.dirty_list)
        shmemi_fatal("shmem_init", "out of memory");
    o.n_free = 0;
    for (int s = AM_NSLOTS - 1; s >= 0; s--)
        o.free_slots[o.n_free++] = s;
    shmemi_am_comb_init();
}

void shmemi_am_origin_fini(void)
{
    /* no quiet here: every PE quieted before finalize's barriers, and a server may be
     * past this point already; the sends left are received (their flushes answered) */
    shmemi_am_comb_fini(); /* what is held leaves (finalize quieted: nothing, normally) */
    pthread_mutex_lock(&o.lock);
    am_pends_fini(&o.gets, wait_locked, getb_finish, am_routine);
    am_pends_fini(&o.sends, wait_locked, free, am_routine);
    pthread_mutex_unlock(&o.lock);
    free(o.dirty);
    free(o.unflushed);
    free(o.dirty_list);
    o.dirty = NULL;
    o.unflushed = NULL;
    o.dirty_list = NULL;
    o.n_dirty = o.n_nbi = 0;
}
