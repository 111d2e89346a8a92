/* comm_queue.c: communication queues (docs/queues_design.md has the design and numbers): the
 * queue object: handles and their registry, create/destroy and the configuration, the
 * queries and statistics, the per-queue progress thread and finalize's sweep.
 *
 * The rest of the queue logic: cq_push.c (chunks, slots, grants, appends, the push
 * routines) and cq_flush.c (bursts, flushes, shmem_queue_progress). Bursts: a full chunk
 * (or flush/timeout) leaves through one transport:
 *   node (cq_node.c)  a PE of this node: applied here, CPU atomics and copies
 *   rma  (cq_rma.c)   one MPI call with indexed datatypes (Accumulate/Put/Get)
 *   am   (am.c)       one message applied by the target (atomics and puts, on request)
 * Completion: nothing (node), MPI_Win_flush per target sent to (RMA), a flush request/reply per target
 * (AM). */
#include "comm_queue.h"
#include "cq_owner.h"
#include "data_queue.h"
#include "../mpi_rma/registry.h"
#include <math.h>
#include <time.h>

#define CQ_DEFAULT_MAX_ELEMS ((uint64_t)1 << 20)
#define CQ_SLAB 64
#define CQ_DEAD_KEEP 1024 /* destroyed handles stay detectable until this many more die */

const unsigned char cq_one[16] = {1};
#define CQ_SZ(T, N) [SHMEMI_XT_##N] = sizeof(T),
const unsigned char cq_esize[SHMEMI_XT_NTYPES + 1] = {SHMEMQ_RMA_TYPES(CQ_SZ)[SHMEMI_XT_BYTES] = 1};
#undef CQ_SZ
uint32_t cq_type_ops_rw[SHMEMI_XT_NTYPES + 1];

static void cq_tables_init(void)
{
#define T_RMA(T, N) cq_type_ops_rw[SHMEMI_XT_##N] |= CQ_OPB(SHMEM_OP_PUT) | CQ_OPB(SHMEM_OP_GET);
#define T_STD(T, N) \
    cq_type_ops_rw[SHMEMI_XT_##N] |= CQ_OPB(SHMEM_OP_ATOMIC_ADD) | CQ_OPB(SHMEM_OP_ATOMIC_INC);
#define T_EXT(T, N) cq_type_ops_rw[SHMEMI_XT_##N] |= CQ_OPB(SHMEM_OP_ATOMIC_SET);
#define T_BIT(T, N) \
    cq_type_ops_rw[SHMEMI_XT_##N] |= CQ_OPB(SHMEM_OP_ATOMIC_AND) | CQ_OPB(SHMEM_OP_ATOMIC_OR) | CQ_OPB(SHMEM_OP_ATOMIC_XOR);
    SHMEMQ_RMA_TYPES(T_RMA)
    SHMEMQ_AMO_STD_TYPES(T_STD)
    SHMEMQ_AMO_EXT_TYPES(T_EXT)
    SHMEMQ_AMO_BIT_TYPES(T_BIT)
    cq_type_ops_rw[SHMEMI_XT_BYTES] = CQ_OPB(SHMEM_OP_PUT) | CQ_OPB(SHMEM_OP_GET);
#undef T_RMA
#undef T_STD
#undef T_EXT
#undef T_BIT
}

/* ---- handles: the live queues are in the registry (registry.h: finalize's walk, the
 * threads' stop, "is this a comm queue"); their headers live in never-freed slabs, so a
 * stale handle still points at our memory and its magic tells "destroyed" without
 * undefined behaviour; dead headers are reused oldest first, only once CQ_DEAD_KEEP
 * others have died. ---- */
static shmemi_registry_t cq_live = SHMEMI_REGISTRY_INIT;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER; /* the slabs */
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

/* ops_pushed including the atomics still in open chunks (counted when they leave). */
static uint64_t ops_pushed_now(shmem_queue_t q)
{
    return q->st.ops_pushed + cq_open_records(q) + q->fast.node_rw;
}

int cq_mpi_err(const char *call, int rc) { return shmemi_queue_mpi_err("comm queue", call, rc); }

/* 0 if q is a live comm queue, else the error to return (reported under SHMEM_DEBUG). */
int cq_check(shmem_queue_t q, const char *routine)
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

/* ---- create and destroy ---- */
/* Off-node targets only: node peers always take the node transport (node_burst). RMA
 * by default: a target computing needs MPI progress either way (the node agent across
 * nodes, SHMEMQ_ASYNC_PROGRESS), but a target blocked in an MPI call of its own, waiting
 * for this PE, runs MPI's progress and completes RMA bursts, while our AM batches would
 * wait for it to call shmemq: a deadlock the spec forbids. AM stays available on request
 * (docs/queues_design.md says when it is safe), except in a program that started MPI itself,
 * the program that may wait inside MPI for us, unless every PE's process runs an agent
 * that applies the batches meanwhile (every PE its own node). */
static int env_path(void)
{
    const char *e = getenv("SHMEMQ_COMM_PATH");
    if (!(e && strcmp(e, "am") == 0))
        return CQ_PATH_RMA;
    if (shmemi.mpi_was_initialized && !shmemi_agent_serves_every_pe()) {
        shmemi_debug("shmem_queue_comm_create",
                     "SHMEMQ_COMM_PATH=am not taken: the program initialised MPI and may "
                     "wait inside it while others flush to it, and a node agent does not "
                     "run in every PE's process; RMA path");
        return CQ_PATH_RMA;
    }
    return CQ_PATH_AM;
}

static void cq_free_all(shmem_queue_t q)
{
    /* called after a complete flush (or before any chunk existed): no chunk is in use */
    cq_rhold_free(q);
    cq_chunk_t *lists[3] = {q->free_chunks, q->am_head, q->rma_pending};
    for (int l = 0; l < 3; l++) {
        for (cq_chunk_t *c = lists[l]; c;) {
            cq_chunk_t *n = c->next;
            cq_cache_give(c, q->cbytes);
            c = n;
        }
    }
    for (size_t i = 0; q->slot_mem && i < q->n_slot_mem; i++)
        if (q->slot_mem[i].ch)
            cq_cache_give(q->slot_mem[i].ch, q->cbytes);
    free(q->slot_mem);
    q->slot_mem = NULL;
    free(q->am_dirty);
    cq_scratch_give(q->hstamp, q->scratch_bytes); /* hash and the MPI burst scratch with it */
    q->hstamp = NULL;
    q->hash = NULL;
    memset(&q->burst_scratch, 0, sizeof q->burst_scratch);
    free(q->rma_pes); /* rma_pe_dirty lives in the same block */
    q->rma_pes = NULL;
    q->rma_pe_dirty = NULL;
    q->n_rma_pes = 0;
    free(q->dense);
    q->dense = NULL;
    free(q->flush_reqs);
    free(q->flush_hdrs);
    shmemi_qtraffic_free(&q->tr);
    q->free_chunks = q->am_head = q->am_tail = q->rma_pending = q->open_head = NULL;
    q->n_open = 0;
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

static void cq_thread_stop_each(void *q, void *arg)
{
    (void)arg;
    cq_thread_stop(q);
}

void cq_stop_threads(void)
{
    shmemi_registry_each(&cq_live, cq_thread_stop_each, NULL);
}

/* Finalize (and tests): complete every queue still live, oldest first, without the
 * registry's lock (a flush progresses; destroy unregisters). destroy: also free them,
 * as shmem_queue_comm_destroy does. Returns the number of live queues found. */
int shmemi_queue_comm_flush_live(int destroy)
{
    int n = shmemi_registry_count(&cq_live);
    for (int i = 0; i < n; i++) {
        shmem_queue_t q = shmemi_registry_at(&cq_live, destroy ? 0 : i);
        if (q == NULL)
            break;
        if (destroy) {
            shmemi_debug("shmem_finalize", "comm queue %llu still live: flushed and destroyed",
                         (unsigned long long)q->id);
            shmem_queue_comm_destroy(q);
        } else {
            shmem_queue_local_flush(q);
        }
    }
    return n;
}

int cq_create(shmem_queue_t *queue, const shmem_queue_config_t *c)
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
    q->opmask = cq_opmask((int)c->op_type);
    q->timeout = c->timeout_flush;
    q->timed = c->timeout_flush >= 0;
    /* PUT/GET bits let one-element copies to node peers inline (queue_inline.h) */
    cq_set_fast(q, q->timed ? 0 : q->opmask);
    q->fast.node_heap = shmemi_xp_node_heaps();
    q->fast.heap_base = (uintptr_t)shmemi.heap_base;
    q->fast.heap_span = shmemi.heap_size > 15 ? shmemi.heap_size - 15 : 0;
    q->fast.data_base = (uintptr_t)shmemi.data_base;
    q->fast.data_span = shmemi.data_size > 15 ? shmemi.data_size - 15 : 0;
    q->path = env_path();
    q->n_idx = q->fast.n_pes;
    const uint64_t *table = NULL; /* node routing: the RMA path's bursts over AM only */
    if (cq_route_setup(q->path, &q->n_idx, &q->n_local, &table) < 0) {
        cq_header_free(q);
        return SHMEM_QUEUE_ERR_NOMEM;
    }
    q->fast.route = table; /* NULL: direct */
    q->own_mode = shmemi_queue_comm_owner_enable(); /* and node peers' bursts to us: served */
    q->early = shmemi_env_bool("SHMEMQ_EARLY_FLUSH", 1);
    q->pack = shmemi_env_bool("SHMEMQ_PACK", 1);
    q->rh_on = shmemi_env_bool("SHMEMQ_HOLD_SUMS", 1);
    /* 1: always, 0: never; unset: adaptive on Open MPI's RMA path (osc applies
     * accumulates per element at some cost, so merging pays when a burst repeats
     * addresses), off on MPICH and on the AM path (our apply is cheaper than the
     * hashing). By measurement (docs/queues_design.md). */
    const char *ce = getenv("SHMEMQ_COMBINE");
    int cb;
    if (ce && *ce && shmemi_parse_bool(ce, &cb) == 0) /* else: as unset (settings.c) */
        q->combine = cb;
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
    /* chunk, hash and scratch sizes: shared with the memory model (queue_usage.c) */
    size_t scratch_bytes;
    uint32_t hsize;
    shmemi_cq_sizes(q->path, q->fast.n_pes, &q->cbytes, &hsize, &scratch_bytes);
    q->budget_chunks = shmemi_cq_budget_chunks((int)c->op_type, q->cbytes, q->fast.route != NULL);
    size_t maxrec = q->cbytes / 12 + 1;
    q->hmask = hsize - 1;
    /* slots only for the ops the queue carries: 40 bytes a target PE for one op kind
     * instead of 280 (the per-PE arrays are most of a comm queue's memory at scale) */
    int nplanes = cq_planes(q->opmask);
    size_t ns = (size_t)q->n_idx * (size_t)nplanes;
    q->slot_mem = calloc(ns, sizeof(cq_slot_t));
    q->n_slot_mem = q->slot_mem ? ns : 0;
    for (int j = 0, k = 0; q->slot_mem && j < CQ_NSLOTS; j++)
        if (q->opmask & cq_slot_ops(j))
            q->fast.plane[j] = q->slot_mem + (size_t)(k++) * (size_t)q->n_idx;
    /* grants: a whole buffer when max_elems allows it for every PE at once (an eighth
     * of max_elems in unused grants at most), smaller at scale, 64 at least */
    uint64_t g = q->max_elems / (8 * (uint64_t)q->n_idx);
    q->grant = g < 64 ? 64 : g > UINT32_MAX ? UINT32_MAX : (uint32_t)g;
    /* the AM path's per-PE epoch state (am.c); the RMA path sends no batches */
    int am = q->path == CQ_PATH_AM;
    if (am)
        q->am_dirty = calloc((size_t)q->fast.n_pes, 1);
    /* One mapping, untouched (no memory) until the first burst: hstamp (zeros), hash, then
     * the MPI transport's datatype scratch (xport.h); hsize is even, so that part starts
     * 8-byte aligned. */
    q->scratch_bytes = scratch_bytes;
    char *sc = cq_scratch_take(q->scratch_bytes);
    if (sc) {
        q->hstamp = (uint32_t *)(void *)sc;
        q->hash = q->hstamp + hsize;
        shmemi_mpi_burst_scratch_init(&q->burst_scratch, q->hash + hsize, maxrec);
    }
    q->rma_pes = calloc((size_t)q->n_idx, sizeof(int) + 1);
    q->rma_pe_dirty = q->rma_pes ? (unsigned char *)(q->rma_pes + q->n_idx) : NULL;
    q->n_rma_pes = 0;
    if (am) {
        q->flush_reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)q->fast.n_pes);
        q->flush_hdrs = malloc(sizeof(cq_msghdr_t) * (size_t)q->fast.n_pes);
    }
    if (!q->slot_mem || !q->rma_pes || !q->hash || !q->hstamp ||
        (am && (!q->am_dirty || !q->flush_reqs || !q->flush_hdrs))) {
        cq_free_all(q);
        cq_header_free(q);
        return SHMEM_QUEUE_ERR_NOMEM;
    }
    for (size_t i = 0; i < ns; i++)
        q->slot_mem[i].key = CQ_NOKEY;
    q->one_pe = -1;
    int want_thread = q->timed && q->timeout > 0 && shmemi.thread_level == SHMEM_THREAD_MULTIPLE &&
                      shmemi_env_bool("SHMEMQ_PROGRESS_THREAD", 0);
    if (want_thread)
        q->shared = 1; /* the thread and the owner share the queue */
    if (q->shared)
        cq_set_fast(q, 0);
    q->progress_counts_only = !q->shared && !q->timed;
    if (shmemi_registry_add(&cq_live, q) != 0) {
        cq_free_all(q);
        cq_header_free(q);
        return SHMEM_QUEUE_ERR_NOMEM;
    }
    if (q->shared)
        pthread_mutex_init(&q->lock, NULL);
    __atomic_store_n(&q->fast.magic, CQ_MAGIC_LIVE, __ATOMIC_RELEASE);
    if (want_thread && pthread_create(&q->thread, NULL, cq_thread_main, q) == 0)
        q->has_thread = 1;
    *queue = q;
    return 0;
}

int shmem_queue_comm_create(shmem_queue_t *queue, const shmem_queue_config_t *c)
{
    return cq_create(queue, c);
}
SHMEMI_PROFILE(shmem_queue_comm_create)

int cq_destroy(shmem_queue_t q)
{
    static const char *routine = "shmem_queue_comm_destroy";
    int rc = cq_check(q, routine);
    if (rc)
        return rc;
    cq_thread_stop(q);
    cq_lock(q);
    rc = cq_flush_all(q);
    if (shmemi_env_bool("SHMEMQ_STATS", 0))
        fprintf(stderr,
                "[shmemq PE %d] comm queue %llu (%s path%s%s): %llu ops pushed, %llu bursts, %llu bytes, "
                "%llu combined, %llu flushes, %llu full returns\n",
                shmemi.my_pe, (unsigned long long)q->id,
                /* every peer on the node: bursts go through the node transport */
                shmemi.node_size >= shmemi.n_pes && shmemi.node_base[0] ? "node"
                : q->path == CQ_PATH_AM                             ? "am"
                                                                    : "rma",
                q->fast.route ? ", node-routed" : "", q->combine ? ", combining" : "",
                (unsigned long long)(q->st.ops_pushed + q->fast.node_rw),
                (unsigned long long)q->st.bursts, (unsigned long long)q->st.bytes,
                (unsigned long long)q->st.combined_ops, (unsigned long long)q->st.flushes,
                (unsigned long long)q->st.full_returns);
    cq_free_all(q);
    cq_set_fast(q, 0); /* the inline push now calls the library, which says STATE */
    q->fast.magic = CQ_MAGIC_DEAD;
    cq_unlock(q);
    if (q->shared)
        pthread_mutex_destroy(&q->lock);
    shmemi_registry_remove(&cq_live, q);
    cq_header_free(q);
    return rc;
}

int shmem_queue_comm_destroy(shmem_queue_t q)
{
    return cq_destroy(q);
}
SHMEMI_PROFILE(shmem_queue_comm_destroy)

/* Routines shared by both kinds of queue: a handle that is not a live comm queue and
 * starts with the data-queue magic is answered by the data-queue area. */

static int is_foreign(shmem_queue_t q)
{
    if (!q || !shmemi.initialized)
        return 0;
    return !shmemi_registry_contains(&cq_live, q);
}
int cq_foreign(shmem_queue_t q) { return is_foreign(q); }

int shmem_query_attr(shmem_queue_t q, shmem_queue_attr_t *attr)
{
    static const char *routine = "shmem_query_attr";
    if (is_foreign(q) && shmemi_is_dataq(q))
        return shmemi_queue_data_query_attr(q, attr);
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
        return shmemi_queue_data_query_size(q, size);
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
        return shmemi_queue_data_stats(q, stats);
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
