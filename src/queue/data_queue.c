/*
 * data_queue.c: the OpenSHMEM data-queue API (docs/data_queues.md): push, pop, global
 * flush, progress, the queries, destroy, and finalize's release of the queues a program
 * left alive (with the list of live queues it needs). Create is dq_create.c.
 *
 * Push and pop are local memcpy's into per-peer rooms; the flush engine that moves the
 * rooms' contents is dq_flush.c. The global flush and destroy first agree with every
 * PE of the team (shmemi_queue_data_sync); that agreement also carries each PE's verdict on
 * its arguments and which routine it is in (global flush or destroy), so a bad argument
 * or a mismatch on one PE fails the routine on every PE instead of leaving the others
 * waiting (agree.c).
 */
#include "data_queue.h"
#include "dq_route.h"
#include "dq_nbx.h"
#include "../mpi_rma/agree.h"
#include "../mpi_rma/registry.h"

/* Live queues in creation order, so shmem_finalize can release those never destroyed
 * (every member created them in the same order: collective). */
static shmemi_registry_t live = SHMEMI_REGISTRY_INIT;

/* Handle check for every routine: NULL -> ARG; not a live data queue (a comm queue,
 * a destroyed queue) -> STATE. */
static inline int dq_check_handle(const char *routine, shmem_queue_t queue,
                                  struct shmemi_dataq **out)
{
    if (SHMEMI_UNLIKELY(queue == NULL)) {
        shmemi_debug(routine, "queue is NULL");
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (SHMEMI_UNLIKELY(!shmemi_is_dataq(queue))) {
        shmemi_debug(routine, "not a live data queue (destroyed, or a communication queue)");
        return SHMEM_QUEUE_ERR_STATE;
    }
    if (SHMEMI_UNLIKELY(!shmemi.initialized)) {
        shmemi_debug(routine, "OpenSHMEM is not initialized");
        return SHMEM_QUEUE_ERR_STATE;
    }
    *out = (struct shmemi_dataq *)(void *)queue;
    return 0;
}

/* The handle check of the collective routines (global flush, destroy): a PE with a bad
 * handle cannot take part, and its peers will wait for it, so say so even without
 * SHMEM_DEBUG (under it, the peers' watchdog ends the job). */
static int dq_check_handle_coll(const char *routine, shmem_queue_t queue,
                                struct shmemi_dataq **out)
{
    int rc = dq_check_handle(routine, queue, out);
    if (SHMEMI_UNLIKELY(rc))
        shmemi_agree_orphan(routine, queue == NULL ? "the queue handle is NULL"
                                                   : "the queue handle is not a live data "
                                                     "queue (destroyed, or a comm queue)");
    return rc;
}


/* Bytes waiting to be popped from pe and pushed to pe and not flushed (pe may be
 * SHMEM_QUEUE_ANY_PE: the sums). Caller holds the lock. */
static void dq_sizes(const struct shmemi_dataq *q, int pe, size_t *in, size_t *out)
{
    if (q->rt) { /* routed: no per-peer arrays (dq_route.h) */
        shmemi_queue_data_route_sizes(q, pe, in, out);
        return;
    }
    *in = *out = 0;
    for (int p = pe == SHMEM_QUEUE_ANY_PE ? 0 : pe;
         p < (pe == SHMEM_QUEUE_ANY_PE ? q->h.npes : pe + 1); p++) {
        *in += q->h.in_len[p];
        *out += q->h.out_len[p];
    }
}

/* Elements pushed: every pushed byte was either sent by a flush or is still outgoing
 * (so the inline push needs no counter). Caller holds the lock. */
static uint64_t dq_elems_pushed(const struct shmemi_dataq *q)
{
    size_t in, out;
    dq_sizes(q, SHMEM_QUEUE_ANY_PE, &in, &out);
    return (q->stats.bytes + out) / q->h.elem;
}

const char shmemi_queue_data_finalize_routine[] = "shmem_finalize";

int shmemi_queue_data_list(struct shmemi_dataq *q)
{
    return shmemi_registry_add(&live, q);
}

void shmemi_queue_data_free_memory(struct shmemi_dataq *q, size_t bufbytes)
{
    shmemi_queue_data_route_free(q);
    shmemi_queue_data_nbx_free(q);
    if (q->buf_out)
        shmemi_queue_data_buf_give(q->buf_out, bufbytes);
    if (q->buf_in)
        shmemi_queue_data_buf_give(q->buf_in, bufbytes);
    free(q->h.out_at), free(q->h.in_at);
    free(q->h.out_len), free(q->h.in_head), free(q->h.in_len);
    free(q->send), free(q->recv), free(q->rdisp), free(q->xmine), free(q->xpeer);
    free(q->vbuf);
    shmemi_qtraffic_free(&q->tr);
    free(q);
}


/* ---- push, pop, flush, queries, destroy, finalize ---- */

/* The out-of-line push: shmemq/dataq.h inlines the common case and calls this for the
 * rest (FULL, errors, SHARED queues). Parenthesized: shmem_queue_data_push is a macro. */
int (shmem_queue_data_push)(shmem_queue_t queue, const void *src, size_t nelems, int pe)
{
    static const char *routine = "shmem_queue_data_push";
    struct shmemi_dataq *q;
    int rc = dq_check_handle(routine, queue, &q);
    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(pe < 0 || pe >= q->h.npes)) {
        shmemi_debug(routine, "PE %d is not in the queue's team of %d PEs", pe, q->h.npes);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (SHMEMI_UNLIKELY(nelems == 0))
        return 0;
    /* More than the whole room can never fit: refusing with FULL would loop forever. */
    if (SHMEMI_UNLIKELY(src == NULL || nelems > q->h.room_elems)) {
        shmemi_debug(routine, src ? "%zu elements exceed max_bytes" : "src is NULL", nelems);
        return SHMEM_QUEUE_ERR_ARG;
    }
    size_t bytes = nelems * q->h.elem;
    dq_lock(q);
    if (q->rt) { /* routed: the same FULL rule on its destination table (dq_route.c) */
        rc = shmemi_queue_data_route_push(q, src, bytes, pe);
        q->stats.full_returns += rc == SHMEM_QUEUE_ERR_FULL;
        dq_unlock(q);
        if (rc == SHMEM_QUEUE_ERR_NOMEM)
            shmemi_debug(routine, "out of memory growing a porter buffer");
        return rc;
    }
    size_t len = q->h.out_len[pe];
    if (SHMEMI_UNLIKELY(bytes > q->h.room - len)) { /* the logical room, in both modes */
        q->stats.full_returns++;
        dq_unlock(q);
        return SHMEM_QUEUE_ERR_FULL;
    }
    memcpy(q->h.out_at[pe] + len, src, bytes);
    q->h.out_len[pe] = len + bytes;
    dq_unlock(q);
    return 0;
}
SHMEMI_PROFILE(shmem_queue_data_push)

/* Take bytes from source p (caller holds the lock and checked availability). */
static inline void dq_take_from(struct shmemi_dataq *q, int p, char *dest, size_t bytes)
{
    memcpy(dest, q->h.in_at[p] + q->h.in_head[p], bytes);
    q->h.in_len[p] -= bytes;
    /* Reset to the front when empty, unless an exchange is landing behind the data. */
    if (q->h.in_len[p] == 0 && q->h.phase == SHMEMI_DATAQ_IDLE)
        q->h.in_head[p] = 0;
    else
        q->h.in_head[p] += bytes;
}

/* The out-of-line pop (the inline one in shmemq/dataq.h calls it for what it does not
 * handle: a pop spanning sources, errors, SHARED queues). */
int (shmem_queue_data_pop)(shmem_queue_t queue, void *dest, size_t nelems, int pe)
{
    static const char *routine = "shmem_queue_data_pop";
    struct shmemi_dataq *q;
    int rc = dq_check_handle(routine, queue, &q);
    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(pe != SHMEM_QUEUE_ANY_PE && (pe < 0 || pe >= q->h.npes))) {
        shmemi_debug(routine, "PE %d is not in the queue's team of %d PEs", pe, q->h.npes);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (SHMEMI_UNLIKELY(nelems == 0))
        return 0;
    size_t bytes;
    if (SHMEMI_UNLIKELY(dest == NULL || __builtin_mul_overflow(nelems, q->h.elem, &bytes))) {
        shmemi_debug(routine, dest ? "%zu elements overflow size_t" : "dest is NULL", nelems);
        return SHMEM_QUEUE_ERR_ARG;
    }
    dq_lock(q);
    if (q->rt) { /* routed: its list of sources (dq_route_in.c) */
        rc = shmemi_queue_data_route_pop(q, dest, bytes, pe);
        dq_unlock(q);
        return rc;
    }
    if (pe != SHMEM_QUEUE_ANY_PE) {
        if (q->h.in_len[pe] < bytes) {
            dq_unlock(q);
            return SHMEM_QUEUE_ERR_EMPTY;
        }
        dq_take_from(q, pe, (char *)dest, bytes);
    } else {
        /* every source below any_from is empty (pops only shrink FIFOs) */
        int from = q->h.any_from;
        while (from < q->h.npes && q->h.in_len[from] == 0)
            from++;
        q->h.any_from = from;
        size_t total = 0;
        for (int p = from; p < q->h.npes && total < bytes; p++)
            total += q->h.in_len[p];
        if (total < bytes) {
            dq_unlock(q);
            return SHMEM_QUEUE_ERR_EMPTY;
        }
        char *d = (char *)dest;
        for (int p = from; p < q->h.npes && bytes; p++) {
            size_t b = q->h.in_len[p] < bytes ? q->h.in_len[p] : bytes;
            if (b) {
                dq_take_from(q, p, d, b);
                d += b;
                bytes -= b;
            }
        }
    }
    dq_unlock(q);
    return 0;
}
SHMEMI_PROFILE(shmem_queue_data_pop)

int shmem_queue_global_flush(shmem_queue_t queue)
{
    static const char *routine = "shmem_queue_global_flush";
    struct shmemi_dataq *q;
    int rc = dq_check_handle_coll(routine, queue, &q);
    if (rc)
        return rc;
    /* Goal: finish a background flush in flight, then one flush of everything pushed
     * until now; its agreed status is the result. An idle PE starts its own flush at
     * once, so the agreement overlaps it; a PE with a background flush in flight asks
     * for one more. PEs whose background flushes lag catch up (dataq_sync). */
    uint64_t want = q->started + 1;
    /* Routed: the flush is blocking (dq_route.c), so agree first: a PE whose peer failed
     * its arguments must not wait in the flush */
    if (q->rt) {
        if ((rc = shmemi_queue_data_sync(q, want, routine, SHMEMI_DATAQ_SYNC_FLUSH, 0)) != 0)
            return rc;
        return q->last_rc;
    }
    if (q->h.phase == SHMEMI_DATAQ_IDLE && (rc = shmemi_queue_data_flush_start(q, 0)) != 0)
        return rc;
    if ((rc = shmemi_queue_data_sync(q, want, routine, SHMEMI_DATAQ_SYNC_FLUSH, 0)) != 0)
        return rc;
    return q->last_rc;
}
SHMEMI_PROFILE(shmem_queue_global_flush)

int shmem_queue_data_progress(shmem_queue_t queue, shmem_team_t team)
{
    static const char *routine = "shmem_queue_data_progress";
    struct shmemi_dataq *q;
    int rc = dq_check_handle(routine, queue, &q);
    if (rc)
        return rc;
    if (team != q->team) {
        shmemi_debug(routine, "team is not the team the queue was created over");
        return SHMEM_QUEUE_ERR_ARG;
    }
    /* Routed: no background flush (its flush is blocking; progress is optional). */
    if (q->rt)
        return 0;
    /* Idle: start a background flush. In flight: test it, never start another in the
     * same call. The call that sees it complete returns its status; an NBX flush may
     * complete in the progress hook (dq_nbx.c), and then the next call reports it. */
    if (q->h.phase == SHMEMI_DATAQ_IDLE && q->bg_done) {
        q->bg_done = 0;
        return q->bg_done_rc;
    }
    if (q->h.phase == SHMEMI_DATAQ_IDLE && (rc = shmemi_queue_data_flush_start(q, 1)) != 0)
        return rc;
    rc = shmemi_queue_data_flush_step(q, 0);
    if (rc < 0)
        return rc;
    return rc == 1 ? q->last_rc : 0;
}
SHMEMI_PROFILE(shmem_queue_data_progress)

int shmem_query_data_size(shmem_queue_t queue, size_t *incoming, size_t *outgoing, int pe)
{
    static const char *routine = "shmem_query_data_size";
    struct shmemi_dataq *q;
    int rc = dq_check_handle(routine, queue, &q);
    if (rc)
        return rc;
    if (incoming == NULL && outgoing == NULL) { /* one NULL: "don't care", as elsewhere */
        shmemi_debug(routine, "incoming and outgoing are both NULL");
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (pe != SHMEM_QUEUE_ANY_PE && (pe < 0 || pe >= q->h.npes)) {
        shmemi_debug(routine, "PE %d is not in the queue's team of %d PEs", pe, q->h.npes);
        return SHMEM_QUEUE_ERR_ARG;
    }
    size_t in, out;
    dq_lock(q);
    dq_sizes(q, pe, &in, &out);
    dq_unlock(q);
    if (incoming)
        *incoming = in;
    if (outgoing)
        *outgoing = out;
    return 0;
}
SHMEMI_PROFILE(shmem_query_data_size)

int shmemi_queue_data_query_attr(shmem_queue_t queue, shmem_queue_attr_t *attr)
{
    static const char *routine = "shmem_query_attr";
    struct shmemi_dataq *q;
    int rc = dq_check_handle(routine, queue, &q);
    if (rc)
        return rc;
    if (attr == NULL) {
        shmemi_debug(routine, "attr is NULL");
        return SHMEM_QUEUE_ERR_ARG;
    }
    size_t in, out;
    dq_lock(q);
    dq_sizes(q, SHMEM_QUEUE_ANY_PE, &in, &out);
    dq_unlock(q);
    attr->queue_id = q->queue_id;
    attr->outstanding_elems = out / q->h.elem; /* pushed, not yet moved by a flush */
    attr->available_elems = ((size_t)q->h.npes * q->h.room - out) / q->h.elem;
    return 0;
}

int shmemi_queue_data_query_size(shmem_queue_t queue, size_t *size)
{
    static const char *routine = "shmem_query_size";
    shmem_queue_attr_t a;
    if (size == NULL) {
        shmemi_debug(routine, "size is NULL");
        return SHMEM_QUEUE_ERR_ARG;
    }
    int rc = shmemi_queue_data_query_attr(queue, &a);
    if (rc == 0)
        *size = (size_t)a.outstanding_elems;
    return rc;
}

int shmemi_queue_data_stats(shmem_queue_t queue, shmemx_queue_stats_t *stats)
{
    struct shmemi_dataq *q;
    int rc = dq_check_handle("shmemx_queue_stats", queue, &q);
    if (rc)
        return rc;
    if (stats == NULL)
        return SHMEM_QUEUE_ERR_ARG;
    dq_lock(q);
    *stats = q->stats;
    stats->ops_pushed = dq_elems_pushed(q);
    dq_unlock(q);
    return 0;
}

/* For tests: flushes of a routed queue that skipped the overflow reduction (dq_route.c,
 * step 7). -1 when the handle is bad or the queue is not routed. */
int shmemi_queue_data_route_skipped(shmem_queue_t queue, uint64_t *out)
{
    struct shmemi_dataq *q;
    if (dq_check_handle("shmemi_queue_data_route_skipped", queue, &q) != 0 || q->rt == NULL)
        return -1;
    dq_lock(q);
    *out = q->rt->agree_skipped;
    dq_unlock(q);
    return 0;
}

/* For tests: hops of a routed queue moved point to point (out[0]) and collectively
 * (out[1]) (dq_route_hop.c). -1 when the handle is bad or the queue is not routed. */
int shmemi_queue_data_route_hops(shmem_queue_t queue, uint64_t out[2])
{
    struct shmemi_dataq *q;
    if (dq_check_handle("shmemi_queue_data_route_hops", queue, &q) != 0 || q->rt == NULL)
        return -1;
    dq_lock(q);
    out[0] = q->rt->hops[0];
    out[1] = q->rt->hops[1];
    dq_unlock(q);
    return 0;
}

static int dq_release(struct shmemi_dataq *q, const char *routine, int bad, size_t *left_out);

int shmem_queue_data_destroy(shmem_queue_t *queue, shmem_team_t team)
{
    static const char *routine = "shmem_queue_data_destroy";
    struct shmemi_dataq *q;
    if (queue == NULL) {
        shmemi_agree_orphan(routine, "the pointer to the queue handle is NULL");
        return SHMEM_QUEUE_ERR_ARG;
    }
    int rc = dq_check_handle_coll(routine, *queue, &q);
    if (rc)
        return rc;
    /* The queue is known, so a wrong team still takes part in the agreement: every PE
     * returns ARG and the queue stays alive everywhere. */
    int bad = team != q->team;
    if (bad)
        shmemi_debug(routine, "team is not the team the queue was created over");
    size_t left;
    int src = dq_release(q, routine, bad, &left);
    if (src == SHMEM_QUEUE_ERR_ARG)
        return src; /* not destroyed, on any PE */
    *queue = NULL;
    if (src)
        return src;
    if (left) {
        shmemi_debug(routine, "%zu bytes were still queued and are dropped", left);
        return SHMEM_QUEUE_ERR_DATALOSS;
    }
    return 0;
}
SHMEMI_PROFILE(shmem_queue_data_destroy)

/* Collective over q's team: complete a background flush, free communicators and memory.
 * *left: bytes still queued (outgoing and incoming), now dropped. Returns
 * SHMEM_QUEUE_ERR_ARG, with nothing freed, when the agreement failed (bad here or on
 * another PE, or another PE in a global flush). */
static int dq_release(struct shmemi_dataq *q, const char *routine, int bad, size_t *left_out)
{
    /* Complete any background flush on every PE, so no collective is left pending. */
    int src = shmemi_queue_data_sync(q, q->started, routine, SHMEMI_DATAQ_SYNC_DESTROY, bad);
    if (src == SHMEM_QUEUE_ERR_ARG)
        return src;
    size_t in, out;
    dq_sizes(q, SHMEM_QUEUE_ANY_PE, &in, &out);
    size_t left = in + out;
    if (shmemi_env_bool("SHMEMQ_STATS", 0))
        fprintf(stderr,
                "[shmemq PE %d] data queue %llu: %llu elems pushed, %llu exchanges, %llu bytes "
                "sent, %llu flushes, %llu full\n",
                shmemi.my_pe, (unsigned long long)(q->queue_id & ~SHMEMI_DATAQ_ID_BIT),
                (unsigned long long)dq_elems_pushed(q), (unsigned long long)q->stats.bursts,
                (unsigned long long)q->stats.bytes, (unsigned long long)q->stats.flushes,
                (unsigned long long)q->stats.full_returns);
    __atomic_store_n(&q->h.magic, SHMEMI_DATAQ_DEAD, __ATOMIC_RELEASE);
    MPI_Comm_free(&q->comm);
    MPI_Comm_free(&q->ctrl);
    pthread_mutex_destroy(&q->lock);
    shmemi_registry_remove(&live, q);
    shmemi_queue_data_free_memory(q, (size_t)q->h.npes * q->h.room);
    *left_out = left;
    return src;
}

/* shmem_finalize: release data queues the program never destroyed, oldest first. */
void shmemi_queue_data_fini(void)
{
    for (;;) {
        struct shmemi_dataq *q = shmemi_registry_at(&live, 0);
        if (q == NULL)
            break;
        uint64_t id = q->queue_id & ~SHMEMI_DATAQ_ID_BIT;
        size_t left;
        /* removes q from live; ARG: a peer passed bad arguments to its destroy and
         * returned an error: meet it at its next one (a peer in a global flush ends
         * the job in dataq_sync) */
        while (dq_release(q, shmemi_queue_data_finalize_routine, 0, &left) == SHMEM_QUEUE_ERR_ARG)
            ;
        /* Always said: a destroy would have returned DATALOSS, finalize returns nothing,
         * and after finalize no PE can pop what a flush would deliver. */
        if (left)
            fprintf(stderr,
                    "[shmemq PE %d] shmem_finalize: data queue %llu was not destroyed: %zu "
                    "bytes still queued (pushed and not flushed, or delivered and not popped) "
                    "are dropped\n",
                    shmemi.my_pe, (unsigned long long)id, left);
        else
            shmemi_debug("shmem_finalize", "data queue %llu was not destroyed: freed",
                         (unsigned long long)id);
    }
    shmemi_registry_clear(&live);
    shmemi_queue_data_nbx_fini();
    shmemi_queue_data_buf_cache_free();
}
