/*
 * queue_usage.c: shmemx_queue_usage (what one queue holds and has sent) and
 * shmemx_queue_model (what a queue would hold, from P, PEs per node and the config), for
 * both queue kinds. docs/queues.md ("Usage and the memory model") defines the fields,
 * docs/queues_design.md ("Memory model") the formulas; test/test_scale.cc checks the
 * one against the other.
 *
 * The model and the queues share their size rules (shmemi_cq_sizes here for comm
 * queues, shmemi_queue_data_default_room for data queues), so the formulas cannot drift from
 * what create does. The usage side reads the queue's state: its chunk count and chunk
 * size, its room, its scratch mapping's size, whether the summing and peer arrays exist;
 * only the per-PE arrays made at create (meta) are sized by the same formula on both
 * sides (cq_meta, dq_meta: keep them in step with create's allocations), so a test
 * comparing the two checks the accounting of everything that varies with use.
 */
#include "comm_queue.h"
#include "cq_dense.h"
#include "data_queue.h"
#include "dq_route.h"
#include "dq_nbx.h"
#include "queue_usage.h"


void shmemi_cq_sizes(int path, int npes, size_t *cbytes_out, uint32_t *hsize_out,
                     size_t *scratch_out)
{
    /* AM chunks are messages and must fit the receive buffers (cq_chunk_bytes). RMA
     * bursts are MPI calls: 64 KiB (4096 int64 adds per MPI_Accumulate, as the raw-MPI
     * baseline) measured better than 256 KiB on MPICH (histogram commq_rma 9.5-16 vs
     * 7-10 Mupd/s); SHMEMQ_RMA_CHUNK_BYTES overrides (1K-64M). */
    size_t cbytes = cq_chunk_bytes;
    if (path == CQ_PATH_RMA) {
        size_t rb = 65536;
        const char *e = getenv("SHMEMQ_RMA_CHUNK_BYTES");
        if (e && shmemi_parse_size(e, &rb) == 0 && rb >= 1024 && rb <= (64u << 20))
            rb &= ~(size_t)63;
        else
            rb = 65536;
        cbytes = rb;
    }
    /* one open chunk per (target, op): bound that memory at many PEs (64 MiB per op
     * slot; an AM chunk may be smaller than the receive buffers, never larger) */
    cbytes = cq_plan_chunk_bytes(cbytes, npes);
    size_t maxrec = cbytes / 12 + 1;
    uint32_t hsize = 1;
    while (hsize < 2 * maxrec)
        hsize <<= 1;
    *cbytes_out = cbytes;
    *hsize_out = hsize;
    /* one mapping: hstamp and hash (4 bytes a slot each), then the MPI datatype scratch */
    *scratch_out = 2 * sizeof(uint32_t) * hsize + shmemi_mpi_burst_scratch_bytes(maxrec);
}

/* Operation slots a comm queue of this op_type can open per target PE. */
static uint64_t cq_model_slots(int op)
{
    return (uint64_t)cq_planes(cq_opmask(op)); /* as create allocates them */
}

/* The budget: 64 MiB of chunks per op kind the queue carries by default, the figure the
 * chunk size already keeps every target's open chunk under (64 MiB / P per chunk, see
 * shmemi_cq_sizes), so it binds only past that: when chunks reach their 4 KiB floor
 * (P > 16,384), or near it through the chunks' headers (docs/queues_design.md). The
 * count is cq_plan_budget_chunks, which the simulator (bench/cqsim.c) calls too. */
/* SHMEMQ_QUEUE_BUDGET in bytes per op kind (0: none), read once at shmem_init
 * (cq_budget_init) like the other settings of the whole process, not at every create and
 * model call; atomic only because a test may set it (shmemi_queue_comm_budget_test)
 * while another thread reads it. */
static size_t cq_budget_per_kind = CQ_PLAN_BUDGET_DEFAULT;
static int cq_budget_given; /* SHMEMQ_QUEUE_BUDGET set (to a valid value): every mode's */

static size_t cq_budget_parse(const char *e)
{
    size_t per_kind = CQ_PLAN_BUDGET_DEFAULT;
    if (e && *e && shmemi_parse_size(e, &per_kind) != 0)
        per_kind = CQ_PLAN_BUDGET_DEFAULT; /* reported at shmem_init (settings.c) */
    return per_kind;
}

static void cq_budget_set(const char *e)
{
    size_t unused;
    __atomic_store_n(&cq_budget_given, e && *e && shmemi_parse_size(e, &unused) == 0,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&cq_budget_per_kind, cq_budget_parse(e), __ATOMIC_RELAXED);
}

void cq_budget_init(void)
{
    cq_budget_set(getenv("SHMEMQ_QUEUE_BUDGET"));
}

void shmemi_queue_comm_budget_test(const char *value)
{
    if (value)
        cq_budget_set(value);
    else
        cq_budget_init();
}

uint64_t shmemi_cq_budget_chunks(int op_type, size_t cbytes, int node_routed)
{
    size_t per_kind = __atomic_load_n(&cq_budget_per_kind, __ATOMIC_RELAXED);
    if (node_routed && !__atomic_load_n(&cq_budget_given, __ATOMIC_RELAXED))
        per_kind = CQ_PLAN_BUDGET_NODE_DEFAULT;
    return cq_plan_budget_chunks((uint64_t)per_kind, cq_model_slots(op_type), cbytes);
}

/* Per-PE arrays of a comm queue (comm_queue.c, create): slots (`planes` op slots each),
 * rma_pes with rma_pe_dirty, and on the AM path am_dirty, flush_reqs, flush_hdrs. */
static uint64_t cq_meta(int npes, uint64_t planes, int am)
{
    uint64_t n = (uint64_t)npes;
    uint64_t per_pe = planes * sizeof(cq_slot_t) + sizeof(int) + 1;
    if (am)
        per_pe += 1 + 2 * sizeof(MPI_Request) + sizeof(cq_msghdr_t);
    return sizeof(struct shmem_queue_s) + n * per_pe;
}

/* Per-PE arrays of a data queue (data_queue.c, dq_allocate). */
static uint64_t dq_meta(int npes)
{
    uint64_t n = (uint64_t)npes;
    uint64_t vb = 4 * n * sizeof(int) + 2 * n * sizeof(MPI_Datatype);
    uint64_t vc = 2 * n * (sizeof(MPI_Count) + sizeof(MPI_Aint));
    return sizeof(struct shmemi_dataq) + 2 * n * sizeof(char *) + 6 * n * sizeof(size_t) +
           4 * n * sizeof(uint64_t) + (vb > vc ? vb : vc);
}

/* NBX mode: the rooms' per-peer arrays only (the exchange's count arrays are freed when
 * NBX is chosen, dq_choose_exchange) and the exchange's state. */
static uint64_t dq_meta_nbx(int npes)
{
    uint64_t n = (uint64_t)npes;
    return sizeof(struct shmemi_dataq) + 2 * n * sizeof(char *) + 3 * n * sizeof(size_t) +
           sizeof(struct shmemi_dq_nbx);
}

/* Most scratch the NBX lists reach: n - 1 destinations and n - 1 sources in one flush
 * (dq_nbx_next_cap's growth). A message that overflows its room passes through a buffer
 * of its size that the flush frees: not counted. */
static uint64_t dq_nbx_scratch_max(int npes)
{
    uint64_t c = 0;
    while (c < (uint64_t)npes - 1)
        c = dq_nbx_next_cap(c);
    return c * (sizeof(struct dq_nbx_send) + sizeof(MPI_Request) + sizeof(void *) +
                sizeof(struct dq_nbx_recv));
}

/* Bytes of records buffered in open chunks (not yet issued): the open list's. */
static uint64_t cq_held(shmem_queue_t q)
{
    uint64_t b = 0;
    for (cq_chunk_t *c = q->open_head; c; c = c->next)
        b += cq_open_fill(q, c);
    return b;
}

static void cq_usage(shmem_queue_t q, shmemx_queue_usage_t *u)
{
    cq_lock(q);
    u->mode = q->path == CQ_PATH_AM ? SHMEMX_QUEUE_MODE_COMM_AM
              : q->fast.route     ? SHMEMX_QUEUE_MODE_COMM_NODE
                                  : SHMEMX_QUEUE_MODE_COMM_RMA;
    u->npes = (uint32_t)q->fast.n_pes;
    u->held_bytes = cq_held(q);
    u->meta_bytes = cq_meta(q->n_idx, (uint64_t)cq_planes(q->opmask), q->path == CQ_PATH_AM) +
                    shmemi_qtraffic_bytes(&q->tr);
    u->scratch_bytes = q->scratch_bytes + (q->dense ? q->dense_cap * sizeof(uint64_t) : 0) +
                       cq_rhold_bytes(q);
    u->buffers = q->n_chunks;
    u->buffer_bytes = q->n_chunks * cq_plan_chunk_alloc(q->cbytes);
    u->msgs_last = q->tr.msgs_last;
    u->bytes_last = q->tr.bytes_last;
    u->peers_last = q->tr.peers_last;
    u->msgs_total = q->st.bursts;
    u->bytes_total = q->st.bytes;
    u->peers_total = q->tr.peers_total;
    u->flushes = q->st.flushes;
    cq_unlock(q);
}

static void dq_usage(struct shmemi_dataq *q, shmemx_queue_usage_t *u)
{
    dq_lock(q);
    int n = q->h.npes;
    u->mode = q->rt ? (q->rt->nh == 3 ? SHMEMX_QUEUE_MODE_DATA_ROUTED3
                                      : SHMEMX_QUEUE_MODE_DATA_ROUTED)
            : q->nbx ? SHMEMX_QUEUE_MODE_DATA_NBX : SHMEMX_QUEUE_MODE_DATA_FLAT;
    u->npes = (uint32_t)n;
    uint64_t held = 0;
    if (q->rt) {
        size_t in, out;
        shmemi_queue_data_route_sizes(q, SHMEM_QUEUE_ANY_PE, &in, &out);
        held = (uint64_t)in + out;
    } else {
        for (int p = 0; p < n; p++)
            held += q->h.out_len[p] + q->h.in_len[p];
    }
    u->held_bytes = held;
    if (q->rt) {
        /* porter buffers (as made at create, or grown); staging, the per-source FIFOs
         * and the destination and source lists follow the traffic: scratch */
        shmemi_queue_data_route_usage(q, &u->meta_bytes, &u->buffers, &u->buffer_bytes,
                                      &u->scratch_bytes);
        u->meta_bytes += shmemi_qtraffic_bytes(&q->tr);
    } else {
        u->meta_bytes = (q->nbx ? dq_meta_nbx(n) : dq_meta(n)) + shmemi_qtraffic_bytes(&q->tr);
        u->scratch_bytes = q->nbx ? shmemi_queue_data_nbx_scratch(q) : 0;
        /* one outgoing and one incoming room per peer, all allocated at create */
        u->buffers = 2 * (uint64_t)n;
        u->buffer_bytes = 2 * (uint64_t)n * q->h.room;
    }
    u->msgs_last = q->tr.msgs_last;
    u->bytes_last = q->tr.bytes_last;
    u->peers_last = q->tr.peers_last;
    u->msgs_total = q->tr.msgs;
    u->bytes_total = q->stats.bytes;
    u->peers_total = q->tr.peers_total;
    u->flushes = q->stats.flushes;
    dq_unlock(q);
}

int shmemx_queue_usage(shmem_queue_t queue, shmemx_queue_usage_t *usage)
{
    static const char *routine = "shmemx_queue_usage";
    if (queue == NULL) {
        shmemi_debug(routine, "NULL queue handle");
        return SHMEM_QUEUE_ERR_ARG;
    }
    /* a comm handle is recognised by the registry before any of its memory is read */
    if (cq_foreign(queue) && shmemi_is_dataq(queue)) {
        if (!shmemi.initialized) {
            shmemi_debug(routine, "OpenSHMEM is not initialized");
            return SHMEM_QUEUE_ERR_STATE;
        }
        if (usage == NULL) {
            shmemi_debug(routine, "NULL usage");
            return SHMEM_QUEUE_ERR_ARG;
        }
        dq_usage((struct shmemi_dataq *)(void *)queue, usage);
        return 0;
    }
    int rc = cq_check(queue, routine);
    if (rc)
        return rc;
    if (usage == NULL) {
        shmemi_debug(routine, "NULL usage");
        return SHMEM_QUEUE_ERR_ARG;
    }
    cq_usage(queue, usage);
    return 0;
}
SHMEMI_PROFILE(shmemx_queue_usage)

int shmemx_queue_model(const shmem_queue_config_t *c, int mode, int npes, int node_pes,
                       shmemx_queue_model_t *m)
{
    static const char *routine = "shmemx_queue_model";
    if (c == NULL || m == NULL) {
        shmemi_debug(routine, "NULL %s", c == NULL ? "config" : "model");
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (npes < 1 || node_pes < 1) {
        shmemi_debug(routine, "npes %d and node_pes %d must be at least 1", npes, node_pes);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (node_pes > npes)
        node_pes = npes; /* a node holds at most the whole job */
    int comm = mode == SHMEMX_QUEUE_MODE_COMM_RMA || mode == SHMEMX_QUEUE_MODE_COMM_AM ||
               mode == SHMEMX_QUEUE_MODE_COMM_NODE;
    int routed = mode == SHMEMX_QUEUE_MODE_DATA_ROUTED || mode == SHMEMX_QUEUE_MODE_DATA_ROUTED3;
    if (!comm && mode != SHMEMX_QUEUE_MODE_DATA_FLAT && !routed &&
        mode != SHMEMX_QUEUE_MODE_DATA_NBX) {
        shmemi_debug(routine, "unknown mode %d", mode);
        return SHMEM_QUEUE_ERR_ARG;
    }
    if (comm != (c->qtype == SHMEM_QUEUE_COMM)) {
        shmemi_debug(routine, "mode %d does not fit qtype %d", mode, (int)c->qtype);
        return SHMEM_QUEUE_ERR_ARG;
    }
    memset(m, 0, sizeof *m);
    /* node-routed comm queues keep one entry per node peer and per other node */
    int nodes = (int)((npes + node_pes - 1) / node_pes);
    int n_idx = mode == SHMEMX_QUEUE_MODE_COMM_NODE ? node_pes + nodes - 1 : npes;
    m->track_bytes = (uint64_t)n_idx * sizeof(uint32_t);
    if (comm) {
        if (!shmemi.initialized) { /* cq_chunk_bytes is read at shmem_init */
            shmemi_debug(routine, "OpenSHMEM is not initialized");
            return SHMEM_QUEUE_ERR_STATE;
        }
        if ((unsigned)c->op_type > SHMEM_OP_ATOMIC_XOR && c->op_type != SHMEM_OP_ANY) {
            shmemi_debug(routine, "invalid op_type %d", (int)c->op_type);
            return SHMEM_QUEUE_ERR_ARG;
        }
        size_t cbytes, scratch;
        uint32_t hsize;
        shmemi_cq_sizes(mode == SHMEMX_QUEUE_MODE_COMM_AM ? CQ_PATH_AM : CQ_PATH_RMA, npes,
                        &cbytes, &hsize, &scratch);
        m->meta_bytes =
            cq_meta(n_idx, cq_model_slots((int)c->op_type), mode == SHMEMX_QUEUE_MODE_COMM_AM);
        m->scratch_bytes = scratch;
        /* atomics go through the node transport when the job is one node or when atomics
         * follow one domain per node (this job's off-node transport is AM: xport.h's
         * shmemi_xp_amo_node), and only node bursts of adds sum into the dense array */
        int adds = c->op_type == SHMEM_OP_ANY || c->op_type == SHMEM_OP_ATOMIC_ADD ||
                   c->op_type == SHMEM_OP_ATOMIC_INC;
        int node_atomics = node_pes == npes || shmemi.offnode_am ||
                           mode == SHMEMX_QUEUE_MODE_COMM_NODE; /* node routing needs AM */
        m->scratch_once_bytes = node_atomics && adds ? CQ_DENSE_MAX * sizeof(uint64_t) : 0;
        /* adds to other PEs summed per target (cq_rhold.c): node peers' where atomics
         * take the node transport, other nodes' (and node peers' otherwise) on the RMA
         * path; every window in use, as a table spread over four or more PEs has */
        if (adds && npes > 1 && c->timeout_flush < 0 && shmemi_env_bool("SHMEMQ_HOLD_SUMS", 1) &&
            (mode == SHMEMX_QUEUE_MODE_COMM_RMA || (node_pes > 1 && node_atomics)))
            m->scratch_once_bytes += CQ_RHOLD_BYTES;
        m->buffer_bytes = cq_plan_chunk_alloc(cbytes);
        m->min_buffers = 0;
        uint64_t open = cq_model_slots((int)c->op_type) * (uint64_t)n_idx;
        if (mode != SHMEMX_QUEUE_MODE_COMM_AM) {
            /* chunks are open, free or in flight; past the pool, a chunk is allocated
             * only when none is in flight (all reclaimed), i.e. all are open */
            m->max_buffers = open > CQ_PLAN_RMA_POOL ? open : CQ_PLAN_RMA_POOL;
        } else {
            /* AM: in-flight messages each carry at least one outstanding operation */
            uint64_t me = c->max_elems ? c->max_elems : ((uint64_t)1 << 20);
            m->max_buffers = open + me;
        }
        /* the budget bounds them all: open, in flight (both paths) and free */
        uint64_t budget = shmemi_cq_budget_chunks((int)c->op_type, cbytes,
                                                  mode == SHMEMX_QUEUE_MODE_COMM_NODE);
        if (m->max_buffers > budget)
            m->max_buffers = budget;
    } else {
        size_t elem = c->data_elem_size ? c->data_elem_size : 1;
        size_t room;
        if (c->max_bytes) {
            room = (size_t)c->max_bytes - (size_t)c->max_bytes % elem;
            if (room == 0) {
                shmemi_debug(routine, "max_bytes %llu is less than one element",
                             (unsigned long long)c->max_bytes);
                return SHMEM_QUEUE_ERR_ARG;
            }
        } else {
            room = shmemi_queue_data_default_room(elem, npes);
        }
        if (routed) {
            int hops = mode == SHMEMX_QUEUE_MODE_DATA_ROUTED3 ? 3 : 2;
            /* a team whose nodes differ in size is direct (dq_route.h) */
            if (npes % node_pes != 0) {
                shmemi_debug(routine, "%d PEs are not nodes of %d: routed mode would be "
                             "direct", npes, node_pes);
                return SHMEM_QUEUE_ERR_ARG;
            }
            /* a porter buffer per PE of the node; peers tracked: the node's and the
             * column's; staging, delivered data and the lists of destinations and
             * sources follow the traffic and are not in the model (docs/queues_design.md) */
            m->meta_bytes = shmemi_queue_data_route_meta(npes, node_pes, hops);
            m->track_bytes = shmemi_queue_data_route_track(npes, node_pes, hops);
            m->buffer_bytes = shmemi_queue_data_route_proom(npes, node_pes, hops);
            m->min_buffers = m->max_buffers = (uint64_t)node_pes;
        } else {
            m->meta_bytes = mode == SHMEMX_QUEUE_MODE_DATA_NBX ? dq_meta_nbx(npes) : dq_meta(npes);
            /* NBX: the lists grow with the peers of a flush, up to all of them */
            m->scratch_once_bytes = mode == SHMEMX_QUEUE_MODE_DATA_NBX ? dq_nbx_scratch_max(npes) : 0;
            m->buffer_bytes = room;
            m->min_buffers = m->max_buffers = 2 * (uint64_t)npes;
        }
    }
    m->max_total_bytes = m->meta_bytes + m->track_bytes + m->scratch_bytes +
                         m->scratch_once_bytes + m->max_buffers * m->buffer_bytes;
    return 0;
}
SHMEMI_PROFILE(shmemx_queue_model)

void shmemi_queue_data_count_flush(struct shmemi_dataq *q)
{
    /* what dq_flush_finish moves: send[p] to each peer; the own share is the whole own
     * outgoing room when the rooms trade places (dq_flush_self), else send[me] */
    uint64_t bytes = 0;
    for (int p = 0; p < q->h.npes; p++) {
        size_t b = p == q->me && q->self_swap ? q->h.out_len[p] : q->send[p];
        if (b) {
            bytes += b;
            q->tr.msgs++;
            shmemi_qtraffic_sent(&q->tr, q->h.npes, p);
        }
    }
    shmemi_qtraffic_flushed(&q->tr, q->tr.msgs, q->stats.bytes + bytes);
}
