/* xport_am_comb.c: the AM transport's combining of non-fetching atomics (xport_am.h).
 *
 * One AM request per shmem_atomic_add costs an MPI send here and a probe and receive at
 * the server (~0.3-0.5 us each): per-element adds off the node ran at 2-4 M/s (issue 21).
 * So a non-fetching atomic of shmem_atomic_* (not a signal: its latency is the point) is
 * held in a buffer for its target PE and leaves as one AM_BURST (the comm queue's request
 * kind: offsets, then operands) of up to COMB_MAX records:
 * - when the buffer is full, or an atomic of another op or word size comes for that PE;
 * - before any other request to that PE (xport_am.c's send path asks here first), so a
 *   PE's requests still reach its server in program order: fence still needs nothing, and
 *   a fetch or get after adds sees them;
 * - before a flush to its server (quiet, barrier, finalize);
 * - when COMB_PES buffers are in use and another PE needs one (memory ~130 KiB at any P);
 * - on every progress-hook call: this PE's waits in any library call, and its node agent
 *   on every pass.
 * The last is why only a process whose agent runs holds anything: the agent bounds the
 * hold (its longest sleep, SHMEMQ_ASYNC_PROGRESS_US) even when the PE spins on plain
 * loads after the add without calling the library. Other processes (a node's other PEs,
 * SHMEMQ_ASYNC_PROGRESS=0) send each atomic at once. The server applies a burst in order
 * with relaxed CPU atomics, as every queued atomic (xport_am_serve.c).
 *
 * State is under the origin lock (shmemi_am_lock); n is also read without it by the hook. */
#include "xport.h"
#include "xport_am_proto.h"

#define COMB_MAX 512u
#define COMB_PES 16

struct comb {
    unsigned char *buf; /* header room, COMB_MAX offsets, COMB_MAX operands */
    int pe;
    uint32_t n;
    uint8_t region, size, op;
};

static struct {
    struct comb b[COMB_PES]; /* the first n in use */
    int n;
    int last;  /* the one used last */
    int on;    /* between init and fini */
    int cap;   /* buffers in use at most: COMB_PES (a test lowers it) */
    uint64_t stats[2]; /* atomics held, requests they left in */
} cb;

/* The buffer of world rank pe, or NULL. */
static struct comb *comb_of(int pe)
{
    if (cb.n && cb.b[cb.last].pe == pe)
        return &cb.b[cb.last];
    for (int i = 0; i < cb.n; i++)
        if (cb.b[i].pe == pe) {
            cb.last = i;
            return &cb.b[i];
        }
    return NULL;
}

/* Buffer i leaves as one request; the last buffer moves into its place. */
static void comb_send(int i)
{
    struct comb c = cb.b[i];
    cb.b[i] = cb.b[--cb.n];
    cb.last = 0;
    am_req_t h;
    memset(&h, 0, sizeof h);
    h.kind = AM_BURST;
    h.region = c.region;
    h.size = c.size;
    h.op = c.op;
    h.pe = c.pe;
    h.len = c.n;
    memcpy(c.buf, &h, sizeof h);
    memmove(c.buf + sizeof h + (size_t)c.n * 8, c.buf + sizeof h + (size_t)COMB_MAX * 8,
            (size_t)c.n * c.size);
    cb.stats[1]++;
    /* the send owns the buffer from here (freed once sent) */
    int rc = shmemi_am_send_owned(shmemi_am.server[c.pe], &h, c.buf,
                                  sizeof h + (size_t)c.n * (8 + c.size));
    if (rc != MPI_SUCCESS)
        shmemi_mpi_fail("shmemq AM transport", "MPI_Isend", rc);
}

void shmemi_am_comb_send(int server)
{
    for (int i = 0; i < cb.n;) {
        if (server < 0 || shmemi_am.server[cb.b[i].pe] == server)
            comb_send(i); /* the last moves into i */
        else
            i++;
    }
}

void shmemi_am_comb_before(int server, const am_req_t *h)
{
    if (!cb.n)
        return;
    if (h->kind == AM_FLUSH)
        shmemi_am_comb_send(server);
    else if (comb_of(h->pe))
        comb_send(cb.last);
}

int shmemi_am_comb_add(const shmemi_target_t *t, size_t size, shmemi_xop_t op, const void *value)
{
    if (!cb.on || (size != 4 && size != 8) || !shmemi_agent_running())
        return 0;
    int pe = t->rank;
    shmemi_am_lock();
    struct comb *c = comb_of(pe);
    if (c && (c->region != t->region || c->size != size || c->op != (uint8_t)op)) {
        comb_send(cb.last);
        c = NULL;
    }
    if (!c) {
        if (cb.n >= cb.cap)
            comb_send(0); /* all in use: the first leaves */
        cb.last = cb.n++;
        c = &cb.b[cb.last];
        c->buf = shmemi_am_req_buf(sizeof(am_req_t) + (size_t)COMB_MAX * 16);
        c->pe = pe;
        c->n = 0;
        c->region = (uint8_t)t->region;
        c->size = (uint8_t)size;
        c->op = (uint8_t)op;
    }
    uint64_t off = t->off;
    unsigned char *b = c->buf + sizeof(am_req_t);
    memcpy(b + (size_t)c->n * 8, &off, 8);
    memcpy(b + (size_t)COMB_MAX * 8 + (size_t)c->n * size, value, size);
    cb.stats[0]++;
    int server = -1;
    if (++c->n == COMB_MAX) {
        server = shmemi_am.server[pe];
        comb_send(cb.last);
    }
    shmemi_am_unlock();
    if (server >= 0)
        shmemi_am_throttle(server);
    return 1;
}

/* Progress hook (any thread, the agent's included): whatever is held leaves. */
static int comb_progress(void *arg)
{
    (void)arg;
    if (!__atomic_load_n(&cb.n, __ATOMIC_RELAXED) || shmemi_am_trylock() != 0)
        return 0;
    int n = cb.n;
    shmemi_am_comb_send(-1);
    shmemi_am_unlock();
    return n;
}

void shmemi_am_comb_init(void)
{
    cb.n = cb.last = 0;
    cb.cap = COMB_PES;
    if (shmemi_progress_register_flags(comb_progress, NULL, SHMEMI_PROGRESS_THREAD_SAFE) != 0)
        shmemi_fatal("shmem_init", "no room for the AM transport's progress hook");
    cb.on = 1;
}

void shmemi_am_comb_fini(void)
{
    shmemi_progress_unregister(comb_progress, NULL);
    shmemi_am_lock();
    shmemi_am_comb_send(-1);
    cb.on = 0;
    shmemi_am_unlock();
}

void shmemi_am_comb_cap(int cap)
{
    shmemi_am_lock();
    shmemi_am_comb_send(-1);
    cb.cap = cap < 1 ? 1 : cap > COMB_PES ? COMB_PES : cap;
    shmemi_am_unlock();
}

void shmemi_am_comb_stats(uint64_t out[2])
{
    shmemi_am_lock();
    out[0] = cb.stats[0];
    out[1] = cb.stats[1];
    shmemi_am_unlock();
}
