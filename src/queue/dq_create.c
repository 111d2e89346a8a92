/*
 * dq_create.c: shmem_queue_data_create (docs/data_queues.md): check the arguments,
 * allocate, agree with every PE of the team on the config and each PE's verdict (so a bad
 * argument or a mismatch on one PE fails create on every PE, agree.c), then choose the
 * transfer, the routing (dq_route.c) and the exchange (dq_flush.c, dq_nbx.c).
 */
#include "data_queue.h"
#include "dq_route.h"
#include "dq_nbx.h"
#include "../mpi_rma/agree.h"
#include <limits.h>

static uint64_t next_queue_id; /* atomically incremented */

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

/* The value of an environment variable that names one of `n` choices: vals[i] for
 * names[i], dflt when unset; anything else is reported under SHMEM_DEBUG and gets dflt. */
static int dq_env_choice(const char *var, const char *const *names, const int *vals, int n,
                         int dflt)
{
    const char *s = getenv(var);
    if (s == NULL || *s == '\0')
        return dflt;
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return vals[i];
    shmemi_debug("shmem_queue_data_create", "%s=%s is not a value it takes: %s", var, s,
                 "using its default");
    return dflt;
}

/* Transfer, routing, exchange and chunk: knobs from the environment (every PE must use
 * the same; the agreement checks). auto routing: shmemi_queue_data_route_auto decides,
 * from P here and the nodes at create. */
static void dq_read_transfer_knobs(struct dq_params *want)
{
    static const char *const xn[] = {"auto", "v", "c", "rounds"};
    static const int xv[] = {SHMEMI_DATAQ_XFER_AUTO, SHMEMI_DATAQ_XFER_V, SHMEMI_DATAQ_XFER_C,
                             SHMEMI_DATAQ_XFER_ROUNDS};
    static const char *const rn[] = {"auto", "2hop", "3hop", "direct"};
    static const int rv[] = {SHMEMI_DATAQ_ROUTE_AUTO, SHMEMI_DATAQ_ROUTE_2HOP,
                             SHMEMI_DATAQ_ROUTE_3HOP, SHMEMI_DATAQ_ROUTE_DIRECT};
    static const char *const en[] = {"auto", "alltoallv", "nbx"};
    static const int ev[] = {SHMEMI_DATAQ_EXCH_AUTO, SHMEMI_DATAQ_EXCH_ALLTOALLV,
                             SHMEMI_DATAQ_EXCH_NBX};
    want->xfer = dq_env_choice("SHMEMQ_DATAQ_XFER", xn, xv, 4, SHMEMI_DATAQ_XFER_AUTO);
    want->route = dq_env_choice("SHMEMQ_DATAQ_ROUTE", rn, rv, 4, SHMEMI_DATAQ_ROUTE_AUTO);
    want->exch = dq_env_choice("SHMEMQ_DATAQ_EXCHANGE", en, ev, 3, SHMEMI_DATAQ_EXCH_AUTO);
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
        shmemi_queue_data_free_memory(q, n * room);
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
    if (shmemi_queue_data_list(q) != 0)
        shmemi_debug(routine, "out of memory for the finalize list");
    if (q->rt)
        shmemi_debug(routine, "data queue %llu: routed (%dhop), %d nodes of %d PEs",
                     (unsigned long long)(q->queue_id & ~SHMEMI_DATAQ_ID_BIT), q->rt->nh,
                     q->rt->nnodes, q->rt->n);
    q->h.rt = q->rt ? &q->rt->h : NULL;
    /* SHARED queues get the other magic: the inline paths leave them to the library;
     * EXCLUSIVE routed ones theirs: the inline push takes the routed path, their pops
     * the library's (no per-peer incoming rooms) */
    __atomic_store_n(&q->h.magic,
                     shared    ? SHMEMQ_DATAQ_LIVE_SHARED
                     : q->rt   ? SHMEMQ_DATAQ_LIVE_ROUTED
                               : SHMEMQ_DATAQ_LIVE,
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
    int hops = want->route == SHMEMI_DATAQ_ROUTE_3HOP ? 3 : 2;
    int rc = shmemi_queue_data_route_setup(q, team, maxroom, hops,
                                           want->route == SHMEMI_DATAQ_ROUTE_AUTO, &uneven);
    if (!rc && uneven) {
        if (uneven == 3)
            shmemi_debug(routine, "SHMEMQ_DATAQ_ROUTE=auto: the team is one node, one PE per "
                                  "node, or nodes of different sizes, so this data queue is "
                                  "direct");
        else
            shmemi_debug(routine, "SHMEMQ_DATAQ_ROUTE=%dhop: %s, so this data queue is direct",
                         hops, uneven == 2 ? "a routed flush of this room could pass 2 GiB, "
                                             "which needs MPI 4's MPI_Ialltoallv_c"
                                           : "the team's nodes differ in size");
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
            shmemi_queue_data_free_memory(q, (size_t)npes * want.room);
        return rc;
    }
    if (routed && (rc = dq_route_create(routine, &q, team, &want, comm, maxroom)) != 0) {
        if (q)
            shmemi_queue_data_free_memory(q, (size_t)npes * want.room);
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
