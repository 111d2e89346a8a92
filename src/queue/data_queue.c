/*
 * data_queue.c: the OpenSHMEM data-queue API (docs/data_queues.md): create, push, pop,
 * global flush, progress, the queries, destroy, and finalize's release of the queues a
 * program left alive (with the list of live queues it needs).
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
#include <limits.h>

static uint64_t next_queue_id; /* atomically incremented */

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

/* Frees q and its arrays; the exchange buffers (bufbytes each) go to dq_bufcache.c. */
static void dq_free_memory(struct shmemi_dataq *q, size_t bufbytes)
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

/* ---- create: validate, allocate, agree, choose the transfer ---- */

/* What this PE asks for; the team must agree on all of it. */
struct dq_params {
    size_t elem;        /* data_elem_size (0 means 1) */
    uint64_t max_bytes; /* as given; 0: the default room */
    size_t room;        /* bytes per peer and direction, whole elements */
    int xfer;           /* enum shmemi_dataq_xfer asked for (SHMEMQ_DATAQ_XFER) */
    size_t chunk;       /* rounds mode: bytes per pair and round (SHMEMQ_DATAQ_CHUNK) */
    int route;          /* enum shmemi_dataq_route_mode asked for (SHMEMQ_DATAQ_ROUTE) */
    int exch;           /* enum shmemi_dataq_exchange asked for (SHMEMQ_DATAQ_EXCHANGE) */
};

/* Without a usable team there is no collective to take part in: these fail alone. */
static int dq_check_team(const char *routine, shmem_team_t team)
{
    if (!shmemi.initialized) {
        shmemi_debug(routine, "OpenSHMEM is not initialized");
        return SHMEM_QUEUE_ERR_STATE;
    }
    if (team == SHMEM_TEAM_INVALID || team->comm == MPI_COMM_NULL || team->my_pe < 0) {
        shmemi_debug(routine, "invalid team, or this PE is not a member");
        return SHMEM_QUEUE_ERR_ARG;
    }
    return 0;
}

/* This PE's verdict on its arguments (0, ARG or THREAD), filling *want as far as they
 * are good. A bad one still joins the agreement, so every PE fails alike. */
static int dq_check_config(const char *routine, shmem_queue_t *queue,
                           const shmem_queue_config_t *qconfig, int npes, struct dq_params *want)
{
    want->elem = 1;
    want->max_bytes = 0;
    want->room = 0;
    if (queue == NULL || qconfig == NULL) {
        shmemi_debug(routine, "queue or config is NULL");
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (qconfig->qtype != SHMEM_QUEUE_DATA) {
        shmemi_debug(routine, "config qtype is not SHMEM_QUEUE_DATA");
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (qconfig->thread_model != SHMEM_QUEUE_EXCLUSIVE &&
        qconfig->thread_model != SHMEM_QUEUE_SHARED) {
        shmemi_debug(routine, "bad thread_model %d", (int)qconfig->thread_model);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (qconfig->thread_model == SHMEM_QUEUE_SHARED &&
        shmemi.thread_level < SHMEM_THREAD_MULTIPLE) {
        shmemi_debug(routine, "SHMEM_QUEUE_SHARED needs SHMEM_THREAD_MULTIPLE");
        return SHMEM_QUEUE_ERR_THREAD;
    }
    size_t elem = qconfig->data_elem_size ? qconfig->data_elem_size : 1;
    uint64_t maxb = qconfig->max_bytes;
    want->elem = elem;
    want->max_bytes = maxb;
    if (maxb > SIZE_MAX)
        return SHMEM_QUEUE_ERR_ARG;
    if (maxb) {
        want->room = (size_t)maxb - (size_t)maxb % elem; /* whole elements only */
        if (want->room == 0) {
            shmemi_debug(routine, "max_bytes %llu is smaller than one element (%zu bytes)",
                         (unsigned long long)maxb, elem);
            return SHMEM_QUEUE_ERR_ARG;
        }
    } else {
        want->room = shmemi_queue_data_default_room(elem, npes);
    }
    if (want->room > SIZE_MAX / 2 / (size_t)npes) {
        shmemi_debug(routine, "max_bytes %zu times %d PEs overflows", want->room, npes);
        return SHMEM_QUEUE_ERR_ARG;
    }
    return 0;
}

/* Transfer mode and chunk: test knobs from the environment (every PE must use the same;
 * the agreement checks). */
static void dq_read_transfer_knobs(struct dq_params *want)
{
    want->xfer = SHMEMI_DATAQ_XFER_AUTO;
    const char *xs = getenv("SHMEMQ_DATAQ_XFER");
    if (xs && !strcmp(xs, "v"))
        want->xfer = SHMEMI_DATAQ_XFER_V;
    else if (xs && !strcmp(xs, "c"))
        want->xfer = SHMEMI_DATAQ_XFER_C;
    else if (xs && !strcmp(xs, "rounds"))
        want->xfer = SHMEMI_DATAQ_XFER_ROUNDS;
    /* auto: shmemi_queue_data_route_auto decides, from P here and the nodes at create */
    want->route = SHMEMI_DATAQ_ROUTE_AUTO;
    const char *rs = getenv("SHMEMQ_DATAQ_ROUTE");
    if (rs && !strcmp(rs, "2hop"))
        want->route = SHMEMI_DATAQ_ROUTE_2HOP;
    else if (rs && !strcmp(rs, "direct"))
        want->route = SHMEMI_DATAQ_ROUTE_DIRECT;
    else if (rs && strcmp(rs, "auto"))
        shmemi_debug("shmem_queue_data_create", "SHMEMQ_DATAQ_ROUTE=%s is not direct, 2hop or "
                     "auto: direct", rs);
    want->exch = SHMEMI_DATAQ_EXCH_AUTO;
    const char *es = getenv("SHMEMQ_DATAQ_EXCHANGE");
    if (es && !strcmp(es, "alltoallv"))
        want->exch = SHMEMI_DATAQ_EXCH_ALLTOALLV;
    else if (es && !strcmp(es, "nbx"))
        want->exch = SHMEMI_DATAQ_EXCH_NBX;
    else if (es && strcmp(es, "auto"))
        shmemi_debug("shmem_queue_data_create", "SHMEMQ_DATAQ_EXCHANGE=%s is not alltoallv, "
                     "nbx or auto: auto", es);
    want->chunk = SHMEMI_MAX_MPI_COUNT;
    const char *cs = getenv("SHMEMQ_DATAQ_CHUNK");
    if (cs && (shmemi_parse_size(cs, &want->chunk) != 0 || want->chunk == 0 ||
               want->chunk > INT_MAX))
        want->chunk = SHMEMI_MAX_MPI_COUNT;
}

/* The queue and all its arrays for npes peers of `room` bytes, or NULL (nothing kept). */
static struct shmemi_dataq *dq_allocate(int npes, size_t room)
{
    size_t n = (size_t)npes;
    struct shmemi_dataq *q = calloc(1, sizeof *q);
    if (q == NULL)
        return NULL;
    q->buf_out = shmemi_queue_data_buf_take(n * room);
    q->buf_in = shmemi_queue_data_buf_take(n * room);
    q->h.out_at = calloc(n, sizeof(char *));
    q->h.in_at = calloc(n, sizeof(char *));
    q->h.out_len = calloc(n, sizeof(size_t));
    q->h.in_head = calloc(n, sizeof(size_t));
    q->h.in_len = calloc(n, sizeof(size_t));
    q->send = calloc(n, sizeof(size_t));
    q->recv = calloc(n, sizeof(size_t));
    q->rdisp = calloc(n, sizeof(size_t));
    q->xmine = calloc(2 * n, sizeof(uint64_t));
    q->xpeer = calloc(2 * n, sizeof(uint64_t));
    /* big enough for every mode: 4n ints + 2n types, or 2n counts + 2n displs */
    size_t vb = 4 * n * sizeof(int) + 2 * n * sizeof(MPI_Datatype);
    size_t vc = 2 * n * (sizeof(MPI_Count) + sizeof(MPI_Aint));
    q->vbuf = calloc(1, vb > vc ? vb : vc);
    if (!q->buf_out || !q->buf_in || !q->h.out_at || !q->h.in_at || !q->h.out_len ||
        !q->h.in_head || !q->h.in_len || !q->send || !q->recv || !q->rdisp || !q->xmine ||
        !q->xpeer || !q->vbuf) {
        dq_free_memory(q, n * room);
        return NULL;
    }
    return q;
}

/* The agreement's vector. Each value travels with its complement: MAX of v and of ~v
 * gives max and min in one reduction, so "all PEs agree" is max == ~(MAX of ~v). */
enum {
    DQ_AGREE_NOMEM = 0, /* some PE is out of memory */
    DQ_AGREE_BAD = 1,   /* some PE rejected its arguments */
    DQ_AGREE_ELEM = 2,  /* the pairs: value, then complement */
    DQ_AGREE_MAX_BYTES = 4,
    DQ_AGREE_XFER = 6,
    DQ_AGREE_CHUNK = 8,
    DQ_AGREE_ROOM = 10, /* may differ (default rooms): its max sizes the counts */
    DQ_AGREE_ROUTE = 12,
    DQ_AGREE_EXCH = 14,
    DQ_AGREE_LEN = 16
};

static int dq_all_same(const uint64_t *g, int at)
{
    return g[at] == ~g[at + 1];
}

/* Collective over the team: two private communicators (*comm for the flushes, *ctrl for
 * the agreements), then the agreement on the config and on each PE's verdict (local).
 * Returns local if this PE failed, else the team's verdict (ARG, NOMEM) or an MPI error;
 * on any failure the communicators are freed. *maxroom: the largest room on any PE.
 * One MPI_Comm_idup at a time: with two outstanding on one communicator Open MPI 4.1.4
 * (with a progress thread in MPI) left one PE's first idup incomplete forever while
 * the other PE had finished both (test_stress, off-node; Open MPI issue 2025). */
static int dq_agree(const char *routine, shmem_team_t team, const struct dq_params *want,
                    int local, MPI_Comm *comm_out, MPI_Comm *ctrl_out, size_t *maxroom)
{
    MPI_Comm comm = MPI_COMM_NULL, ctrl = MPI_COMM_NULL;
    MPI_Request req;
    int mrc = MPI_Comm_idup(team->comm, &comm, &req);
    if (mrc == MPI_SUCCESS)
        mrc = shmemi_agree_wait(&req, team->comm, routine);
    if (mrc == MPI_SUCCESS)
        mrc = MPI_Comm_idup(team->comm, &ctrl, &req);
    if (mrc == MPI_SUCCESS)
        mrc = shmemi_agree_wait(&req, team->comm, routine);
    uint64_t mine[DQ_AGREE_LEN] = {
        [DQ_AGREE_NOMEM] = local == SHMEM_QUEUE_ERR_NOMEM,
        [DQ_AGREE_BAD] = local && local != SHMEM_QUEUE_ERR_NOMEM,
        [DQ_AGREE_ELEM] = want->elem,
        [DQ_AGREE_ELEM + 1] = ~(uint64_t)want->elem,
        [DQ_AGREE_MAX_BYTES] = want->max_bytes,
        [DQ_AGREE_MAX_BYTES + 1] = ~want->max_bytes,
        [DQ_AGREE_XFER] = (uint64_t)want->xfer,
        [DQ_AGREE_XFER + 1] = ~(uint64_t)want->xfer,
        [DQ_AGREE_CHUNK] = want->chunk,
        [DQ_AGREE_CHUNK + 1] = ~(uint64_t)want->chunk,
        [DQ_AGREE_ROOM] = want->room,
        [DQ_AGREE_ROOM + 1] = ~(uint64_t)want->room,
        [DQ_AGREE_ROUTE] = (uint64_t)want->route,
        [DQ_AGREE_ROUTE + 1] = ~(uint64_t)want->route,
        [DQ_AGREE_EXCH] = (uint64_t)want->exch,
        [DQ_AGREE_EXCH + 1] = ~(uint64_t)want->exch,
    };
    uint64_t all[DQ_AGREE_LEN];
    if (mrc == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(ctrl, MPI_ERRORS_RETURN);
        mrc = MPI_Iallreduce(mine, all, DQ_AGREE_LEN, MPI_UINT64_T, MPI_MAX, ctrl, &req);
        if (mrc == MPI_SUCCESS)
            mrc = shmemi_agree_wait(&req, ctrl, routine);
    }
    int rc = local;
    if (mrc != MPI_SUCCESS) {
        rc = shmemi_queue_mpi_err(routine, "MPI_Comm_idup/MPI_Iallreduce", mrc);
    } else if (!rc) {
        if (all[DQ_AGREE_BAD] || !dq_all_same(all, DQ_AGREE_ELEM) ||
            !dq_all_same(all, DQ_AGREE_MAX_BYTES) || !dq_all_same(all, DQ_AGREE_XFER) ||
            !dq_all_same(all, DQ_AGREE_CHUNK) || !dq_all_same(all, DQ_AGREE_ROUTE) ||
            !dq_all_same(all, DQ_AGREE_EXCH)) {
            shmemi_debug(routine,
                         "the PEs of the team disagree on the config (or one has a bad one)");
            rc = SHMEM_QUEUE_ERR_ARG;
        } else if (all[DQ_AGREE_NOMEM]) {
            rc = SHMEM_QUEUE_ERR_NOMEM;
        }
    }
    if (rc) {
        if (comm != MPI_COMM_NULL)
            MPI_Comm_free(&comm);
        if (ctrl != MPI_COMM_NULL)
            MPI_Comm_free(&ctrl);
        return rc;
    }
    *comm_out = comm;
    *ctrl_out = ctrl;
    *maxroom = (size_t)all[DQ_AGREE_ROOM];
    return 0;
}

/* The exchange every PE uses (the same inputs on every PE: agreed). The largest room on
 * any PE decides whether int counts and displacements do. */
static int dq_choose_transfer(int asked, size_t maxroom, int npes)
{
    int xfer = asked;
    int fits_int = maxroom <= (size_t)INT_MAX / (size_t)npes;
    if (xfer == SHMEMI_DATAQ_XFER_V && !fits_int)
        xfer = SHMEMI_DATAQ_XFER_AUTO;
#if MPI_VERSION < 4
    if (xfer == SHMEMI_DATAQ_XFER_C)
        xfer = SHMEMI_DATAQ_XFER_ROUNDS;
#endif
    if (xfer == SHMEMI_DATAQ_XFER_AUTO) {
#if MPI_VERSION >= 4
        xfer = fits_int ? SHMEMI_DATAQ_XFER_V : SHMEMI_DATAQ_XFER_C;
#else
        xfer = fits_int ? SHMEMI_DATAQ_XFER_V : SHMEMI_DATAQ_XFER_ROUNDS;
#endif
    }
    return xfer;
}

/* Direct mode's exchange, from agreed inputs (the same on every PE): NBX (q->nbx kept and
 * served by the progress hook) or the alltoallv collectives (q->nbx freed). NBX sends a
 * room as one message with an int count: larger rooms stay with alltoallv. */
static void dq_choose_exchange(const char *routine, struct shmemi_dataq *q,
                               const struct dq_params *want, size_t maxroom, int npes)
{
    if (q->nbx == NULL) /* alltoallv asked for, or routed */
        return;
    int nbx = want->exch == SHMEMI_DATAQ_EXCH_NBX ? shmemi_queue_data_nbx_fits(maxroom)
                                                  : shmemi_queue_data_nbx_auto(npes, maxroom);
    if (want->exch == SHMEMI_DATAQ_EXCH_NBX && !nbx)
        shmemi_debug(routine, "SHMEMQ_DATAQ_EXCHANGE=nbx: a room of %zu bytes passes an int "
                     "count, so this data queue uses the alltoallv exchange", maxroom);
    if (!nbx) {
        shmemi_queue_data_nbx_free(q);
        return;
    }
    /* the per-peer count arrays are the alltoallv exchange's: NBX keeps none */
    free(q->send), free(q->recv), free(q->rdisp), free(q->xmine), free(q->xpeer);
    free(q->vbuf);
    q->send = q->recv = q->rdisp = NULL;
    q->xmine = q->xpeer = NULL;
    q->vbuf = NULL;
    shmemi_queue_data_nbx_enable(q);
}

/* Fill in the agreed queue, list it for finalize and publish its magic last. */
static void dq_go_live(const char *routine, struct shmemi_dataq *q, shmem_team_t team,
                       const struct dq_params *want, int shared, MPI_Comm comm, MPI_Comm ctrl,
                       int xfer)
{
    q->shared = shared;
    pthread_mutex_init(&q->lock, NULL);
    q->queue_id = SHMEMI_DATAQ_ID_BIT | __atomic_add_fetch(&next_queue_id, 1, __ATOMIC_RELAXED);
    q->team = team;
    q->comm = comm;
    q->ctrl = ctrl;
    q->h.npes = team->n_pes;
    q->me = team->my_pe;
    q->h.elem = want->elem;
    q->h.room = want->room;
    q->h.room_elems = want->room / want->elem;
    for (int p = 0; p < q->h.npes && !q->rt; p++) {
        q->h.out_at[p] = q->buf_out + (size_t)p * want->room;
        q->h.in_at[p] = q->buf_in + (size_t)p * want->room;
    }
    q->h.any_from = 0;
    q->xfer = xfer;
    q->chunk = want->chunk;
    q->h.phase = SHMEMI_DATAQ_IDLE;
    /* no memory on this PE alone: keep going, only finalize will not see the queue */
    if (shmemi_registry_add(&live, q) != 0)
        shmemi_debug(routine, "out of memory for the finalize list");
    if (q->rt)
        shmemi_debug(routine, "data queue %llu: routed (2hop), %d nodes of %d PEs",
                     (unsigned long long)(q->queue_id & ~SHMEMI_DATAQ_ID_BIT), q->rt->nnodes,
                     q->rt->n);
    /* SHARED queues get the other magic: the inline paths leave them to the library; so
     * do routed queues (no per-peer outgoing rooms for the inline push to write to) */
    __atomic_store_n(&q->h.magic, shared || q->rt ? SHMEMQ_DATAQ_LIVE_SHARED : SHMEMQ_DATAQ_LIVE,
                     __ATOMIC_RELEASE);
}

/* Routed mode, after the config agreement (collective over the team, on comm): group
 * the team by node and make the routed state, or, when the team's nodes differ in size,
 * the direct queue's rooms (said under SHMEM_DEBUG). Every PE returns the same: 0, or
 * NOMEM / MPI when any PE failed. *qp: the shell allocated before the agreement. */
static int dq_route_create(const char *routine, struct shmemi_dataq **qp, shmem_team_t team,
                           const struct dq_params *want, MPI_Comm comm, size_t maxroom)
{
    struct shmemi_dataq *q = *qp;
    q->comm = comm;
    int uneven = 0;
    int rc = shmemi_queue_data_route_setup(q, team, maxroom,
                                           want->route == SHMEMI_DATAQ_ROUTE_AUTO, &uneven);
    if (!rc && uneven) {
        shmemi_debug(routine, uneven == 3   ? "SHMEMQ_DATAQ_ROUTE=auto: the team is one node, "
                                              "one PE per node, or nodes of different sizes, "
                                              "so this data queue is direct"
                              : uneven == 2 ? "SHMEMQ_DATAQ_ROUTE=2hop: a routed flush of this "
                                              "room could pass 2 GiB, which needs MPI 4's "
                                              "MPI_Ialltoallv_c, so this data queue is direct"
                                            : "SHMEMQ_DATAQ_ROUTE=2hop: the team's nodes differ "
                                              "in size, so this data queue is direct");
        free(q);
        *qp = q = dq_allocate(team->n_pes, want->room);
        if (q == NULL)
            rc = SHMEM_QUEUE_ERR_NOMEM;
        /* direct after all: its exchange is chosen as for any direct queue */
        else if (want->exch != SHMEMI_DATAQ_EXCH_ALLTOALLV)
            rc = shmemi_queue_data_nbx_alloc(q);
    }
    int bad = rc != 0, any = 0;
    int mrc = MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (mrc != MPI_SUCCESS)
        return shmemi_queue_mpi_err(routine, "MPI_Allreduce", mrc);
    return rc ? rc : any ? SHMEM_QUEUE_ERR_NOMEM : 0;
}

int shmem_queue_data_create(shmem_queue_t *queue, const shmem_queue_config_t *qconfig,
                            shmem_team_t team)
{
    static const char *routine = "shmem_queue_data_create";
    int rc = dq_check_team(routine, team);
    if (rc)
        return rc;
    int npes = team->n_pes;
    struct dq_params want;
    int local = dq_check_config(routine, queue, qconfig, npes, &want);
    dq_read_transfer_knobs(&want);
    struct shmemi_dataq *q = NULL;
    /* auto below the P where routing can win is direct, decided before the agreement
     * so that it agrees with PEs that say direct */
    if (want.route == SHMEMI_DATAQ_ROUTE_AUTO && !shmemi_queue_data_route_auto(npes, 0))
        want.route = SHMEMI_DATAQ_ROUTE_DIRECT;
    int routed = want.route != SHMEMI_DATAQ_ROUTE_DIRECT;
    /* routed: the rooms are made after the node grouping (dq_route_create) */
    if (!local && (q = routed ? calloc(1, sizeof *q) : dq_allocate(npes, want.room)) == NULL) {
        shmemi_debug(routine, "out of memory for %d x 2 x %zu bytes", npes, want.room);
        local = SHMEM_QUEUE_ERR_NOMEM;
    }
    /* direct: the sparse exchange's state, before the agreement so a failure is agreed */
    if (!local && !routed && want.exch != SHMEMI_DATAQ_EXCH_ALLTOALLV &&
        (local = shmemi_queue_data_nbx_alloc(q)) != 0)
        shmemi_debug(routine, "out of memory for the sparse exchange");
    MPI_Comm comm = MPI_COMM_NULL, ctrl = MPI_COMM_NULL;
    size_t maxroom = 0;
    rc = dq_agree(routine, team, &want, local, &comm, &ctrl, &maxroom);
    if (rc) {
        if (q)
            dq_free_memory(q, (size_t)npes * want.room);
        return rc;
    }
    if (routed && (rc = dq_route_create(routine, &q, team, &want, comm, maxroom)) != 0) {
        if (q)
            dq_free_memory(q, (size_t)npes * want.room);
        MPI_Comm_free(&comm);
        MPI_Comm_free(&ctrl);
        return rc;
    }
    dq_choose_exchange(routine, q, &want, maxroom, npes);
    dq_go_live(routine, q, team, &want, qconfig->thread_model == SHMEM_QUEUE_SHARED, comm, ctrl,
               dq_choose_transfer(want.xfer, maxroom, npes));
    *queue = (shmem_queue_t)(void *)q;
    return 0;
}
SHMEMI_PROFILE(shmem_queue_data_create)

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
    dq_free_memory(q, (size_t)q->h.npes * q->h.room);
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
