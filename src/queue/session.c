/* session.c: OpenSHMEM 1.6 context sessions (shmem_ctx_session_start/stop), docs/sessions.md.
 *
 * A session with SHMEM_CTX_SESSION_BATCH gives its context a communication queue: it
 * installs batch operations on the context (ctx->batch_ops, shmemi.h), through which the
 * runtime hands over, while the session is active, the context's puts of at most
 * SHMEMQ_SESSION_MAX_PUT bytes (default 256) to PEs off the node (node peers are a
 * plain copy either way) and its non-fetching AMOs; they are pushed to the queue with
 * the queue layer's internal calls (comm_queue.h) and leave in bursts. Sessions are
 * hints and change no completion or ordering rule, so:
 *   - quiet, fence, pe_quiet, barrier_all (the default context), ctx_destroy and
 *     session_stop complete the queue first (a local flush = remote completion);
 *   - blocking gets and all fetching AMOs on the context complete it first too, so a PE
 *     reads its own earlier updates as it does without a session (MPI orders same-origin
 *     accumulates; the queue does not);
 *   - a put's source is copied into the queue at the push, so a blocking put returns
 *     with its source reusable and an _nbi one needs nothing more (rma.c);
 *   - the queue is timed (SHMEMQ_SESSION_TIMEOUT seconds, default 1e-3) and a progress
 *     hook drives it while the PE waits anywhere in the library, so a PE that puts a flag
 *     in a session and then waits for an answer never withholds the flag forever.
 * The queue uses world PE numbers; shmemi_target() already translated team PEs.
 * A stopped session's queue is parked (up to SESSION_PARKED) for the next start;
 * shmemi_queue_session_fini, at finalize (step COMPLETE, queue_layer.c), completes every
 * active session and frees all. */
#include "comm_queue.h"
#include <pthread.h>
#include <stdatomic.h>

#define SESSION_PARKED 4
#define SESSION_MAX_PUT_DEFAULT 256
#define SESSION_TIMEOUT_DEFAULT 1e-3

typedef struct shmemi_session {
    shmem_queue_t q;
    int shared;        /* the queue is SHMEM_QUEUE_SHARED (THREAD_MULTIPLE programs) */
    long options;
    size_t total_ops;  /* hint, recorded (SHMEM_DEBUG prints it at stop) */
    atomic_int dirty;  /* pushed since the last flush: set after a push, cleared before a flush */
    uint64_t pushed;
    struct shmemi_session *next; /* active list, or parked list */
} shmemi_session_t;

static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;
static shmemi_session_t *parked;
static int n_parked;
static shmemi_session_t *active;
static size_t max_put = SESSION_MAX_PUT_DEFAULT; /* 0: puts are never queued */
static double timeout = SESSION_TIMEOUT_DEFAULT;
static int env_read;
/* Set while this thread is inside a queue call: the queue progresses internally, and the
 * hook must not re-enter it. */
static _Thread_local int in_queue;

static void read_env(void)
{
    const char *s = getenv("SHMEMQ_SESSION_MAX_PUT");
    size_t v;
    if (s && *s && shmemi_parse_size(s, &v) == 0)
        max_put = v;
    /* Puts are queued on every path (SHMEMQ_SESSION_PUTS=0 turns them off, as
     * SHMEMQ_SESSION_MAX_PUT=0 does); test_session's AlternatingWindows and
     * test_commq_putget's SmallPutsAlternatingWindowsLandExactly keep the PUT bursts
     * exact at 4 PEs. */
    if (!shmemi_env_bool("SHMEMQ_SESSION_PUTS", 1))
        max_put = 0;
    s = getenv("SHMEMQ_SESSION_TIMEOUT");
    if (s && *s) {
        char *end;
        double t = strtod(s, &end);
        if (*end == '\0' && t >= 0)
            timeout = t;
    }
    env_read = 1;
}

/* While a PE waits inside the library: let the timer issue old operations. */
static int session_hook(void *arg)
{
    shmemi_session_t *s = arg;
    if (in_queue || !atomic_load_explicit(&s->dirty, memory_order_relaxed))
        return 0;
    in_queue = 1;
    (void)cq_progress(s->q);
    in_queue = 0;
    return 1;
}

static void flush_queue(const char *routine, shmemi_session_t *s)
{
    atomic_store(&s->dirty, 0);
    in_queue = 1;
    int rc = cq_local_flush(s->q);
    in_queue = 0;
    if (rc != 0)
        shmemi_fatal(routine, "completing the session's queue failed: %s",
                     shmemx_queue_strerror(rc));
}

/* ---- the batch operations installed on the context (shmemi.h) ---- */
static void session_flush(struct shmemq_ctx *c)
{
    shmemi_session_t *s = c->batch;
    if (s != NULL && atomic_load_explicit(&s->dirty, memory_order_acquire))
        flush_queue("shmem_quiet", s);
}

/* The push went into the queue: 0. Otherwise -1 and the caller issues it directly. */
static inline int pushed(shmemi_session_t *s, int rc)
{
    if (SHMEMI_UNLIKELY(rc != 0))
        return -1;
    s->pushed++;
    atomic_store_explicit(&s->dirty, 1, memory_order_release);
    return 0;
}

static int session_put(struct shmemq_ctx *c, void *dest, const void *src, size_t nbytes,
                       int world_pe)
{
    shmemi_session_t *s = c->batch;
    if (nbytes > max_put)
        return -1; /* issued directly: MPI_Put */
    in_queue = 1;
    int rc;
    while ((rc = cq_push_general(s->q, "shmem_put (session)", dest, src, nbytes, world_pe,
                                 SHMEM_OP_PUT, SHMEMI_XT_BYTES)) == SHMEM_QUEUE_ERR_FULL)
        if (cq_progress(s->q) < 0)
            break;
    in_queue = 0;
    return pushed(s, rc);
}

/* A batched atomic's op -> the queue's operation (inc arrives as SUM of 1; FETCH and CAS
 * are never batched). The type is amo.c's fixed-width one, so the queue's MPI path uses
 * the same MPI datatype as amo.c. */
static const int batch_op[] = {
    [SHMEMI_XOP_SUM] = SHMEM_OP_ATOMIC_ADD, [SHMEMI_XOP_SET] = SHMEM_OP_ATOMIC_SET,
    [SHMEMI_XOP_FETCH] = -1,                [SHMEMI_XOP_AND] = SHMEM_OP_ATOMIC_AND,
    [SHMEMI_XOP_OR] = SHMEM_OP_ATOMIC_OR,   [SHMEMI_XOP_XOR] = SHMEM_OP_ATOMIC_XOR,
    [SHMEMI_XOP_CAS] = -1,
};

static int session_amo(struct shmemq_ctx *c, void *dest, const void *value, shmemi_xtype_t xt,
                       shmemi_xop_t op, int world_pe)
{
    shmemi_session_t *s = c->batch;
    size_t es;
    switch (xt) {
    case SHMEMI_XT_int32: case SHMEMI_XT_uint32: case SHMEMI_XT_float: es = 4; break;
    case SHMEMI_XT_int64: case SHMEMI_XT_uint64: case SHMEMI_XT_double: es = 8; break;
    default: return -1;
    }
    if ((unsigned)op >= sizeof batch_op / sizeof batch_op[0] || batch_op[op] < 0)
        return -1;
    int rc;
    in_queue = 1;
    while ((rc = cq_push(s->q, "shmem_atomic (session)", dest, value, 1, world_pe,
                         batch_op[op], (int)xt, es)) == SHMEM_QUEUE_ERR_FULL)
        if (cq_progress(s->q) < 0)
            break;
    in_queue = 0;
    return pushed(s, rc);
}

static void session_stop(const char *routine, struct shmemq_ctx *c);
static void session_ctx_stop(struct shmemq_ctx *c)
{
    session_stop("shmem_ctx_destroy", c);
}

static const struct shmemi_ctx_batch_ops session_ops = {
    .put = session_put,
    .amo = session_amo,
    .flush = session_flush,
    .stop = session_ctx_stop,
};

static shmemi_session_t *session_get(int shared)
{
    pthread_mutex_lock(&session_lock);
    shmemi_session_t **pp = &parked;
    while (*pp && (*pp)->shared != shared)
        pp = &(*pp)->next;
    shmemi_session_t *s = *pp;
    if (s) {
        *pp = s->next;
        n_parked--;
    }
    pthread_mutex_unlock(&session_lock);
    if (s)
        return s;
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    shmem_queue_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.qtype = SHMEM_QUEUE_COMM;
    cfg.thread_model = shared ? SHMEM_QUEUE_SHARED : SHMEM_QUEUE_EXCLUSIVE;
    cfg.max_elems = 0; /* the queue's default */
    cfg.timeout_flush = timeout;
    cfg.op_type = SHMEM_OP_ANY;
    cfg.pe_type = SHMEM_PE_ALL;
    int rc = cq_create(&s->q, &cfg);
    if (rc != 0) {
        shmemi_debug("shmem_ctx_session_start", "no queue for the session (%s): not batching",
                     shmemx_queue_strerror(rc));
        free(s);
        return NULL;
    }
    s->shared = shared;
    return s;
}

static void session_destroy(shmemi_session_t *s)
{
    in_queue = 1;
    (void)cq_destroy(s->q);
    in_queue = 0;
    free(s);
}

#define SESSION_OPTIONS SHMEM_CTX_SESSION_BATCH

void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask)
{
    static const char *routine = "shmem_ctx_session_start";
    if (ctx == SHMEM_CTX_INVALID)
        return; /* 1.6: no action */
    if (shmemi_check_init(routine))
        return;
    if (config_mask & ~SHMEM_CTX_SESSION_TOTAL_OPS) {
        shmemi_bad_arg(routine, "unknown config_mask bits 0x%lx",
                       config_mask & ~SHMEM_CTX_SESSION_TOTAL_OPS);
        config_mask &= SHMEM_CTX_SESSION_TOTAL_OPS;
    }
    if (config_mask != 0 && config == NULL) {
        shmemi_bad_arg(routine, "NULL config with config_mask 0x%lx", config_mask);
        config_mask = 0;
    }
    if (options & ~SESSION_OPTIONS) /* hints: no combination is an error (1.6) */
        shmemi_debug(routine, "ignoring unknown session options 0x%lx", options & ~SESSION_OPTIONS);
    if (!env_read)
        read_env();
    struct shmemq_ctx *c = shmemi_ctx(ctx);
    shmemi_session_t *s = c->batch;
    if (s != NULL) { /* already batching: options OR, masked config replaces */
        s->options |= options;
        if (config_mask & SHMEM_CTX_SESSION_TOTAL_OPS)
            s->total_ops = config->total_ops;
        return;
    }
    if (!(options & SHMEM_CTX_SESSION_BATCH))
        return; /* no hint we act on */
    s = session_get(shmemi.thread_level == SHMEM_THREAD_MULTIPLE);
    if (s == NULL)
        return; /* a hint: the context just works without batching */
    s->options = options;
    s->total_ops = (config_mask & SHMEM_CTX_SESSION_TOTAL_OPS) ? config->total_ops : SIZE_MAX;
    s->pushed = 0;
    atomic_store(&s->dirty, 0);
    pthread_mutex_lock(&session_lock);
    s->next = active;
    active = s;
    pthread_mutex_unlock(&session_lock);
    if (shmemi_progress_register(session_hook, s) != 0)
        shmemi_debug(routine, "no progress hook slot: queued operations wait for the timer "
                              "until the next session call");
    c->batch = s;
    c->batch_ops = &session_ops;
    if (c->is_default) /* the inline put/get would bypass the session's queue */
        shmemi_node_inline(0);
}
SHMEMI_PROFILE(shmem_ctx_session_start)

void shmem_ctx_session_stop(shmem_ctx_t ctx)
{
    static const char *routine = "shmem_ctx_session_stop";
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (shmemi_check_init(routine))
        return;
    session_stop(routine, shmemi_ctx(ctx));
}
SHMEMI_PROFILE(shmem_ctx_session_stop)

static void session_stop(const char *routine, struct shmemq_ctx *c)
{
    shmemi_session_t *s = c->batch;
    if (s == NULL)
        return; /* already stopped: no effect */
    /* Complete now: a parked queue is out of reach of the context's quiet. */
    flush_queue(routine, s);
    c->batch_ops = NULL;
    c->batch = NULL;
    if (c->is_default)
        shmemi_node_inline(1);
    shmemi_progress_unregister(session_hook, s);
    shmemi_debug(routine, "%llu operations batched (total_ops hint %zu)",
                 (unsigned long long)s->pushed, s->total_ops);
    pthread_mutex_lock(&session_lock);
    for (shmemi_session_t **pp = &active; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    int park = n_parked < SESSION_PARKED;
    if (park) {
        s->next = parked;
        parked = s;
        n_parked++;
    }
    pthread_mutex_unlock(&session_lock);
    if (!park)
        session_destroy(s);
}

/* At finalize, before its barrier: sessions still active are completed (their contexts
 * may be destroyed later by nobody), then every queue is freed. */
void shmemi_queue_session_fini(void)
{
    if (shmemi.default_ctx.batch != NULL)
        session_stop("shmem_finalize", &shmemi.default_ctx);
    for (;;) {
        pthread_mutex_lock(&session_lock);
        shmemi_session_t *s = active;
        if (s)
            active = s->next;
        pthread_mutex_unlock(&session_lock);
        if (s == NULL)
            break;
        /* its context still points at it; nothing may use that context after finalize */
        flush_queue("shmem_finalize", s);
        shmemi_progress_unregister(session_hook, s);
        session_destroy(s);
    }
    pthread_mutex_lock(&session_lock);
    shmemi_session_t *p = parked;
    parked = NULL;
    n_parked = 0;
    pthread_mutex_unlock(&session_lock);
    while (p) {
        shmemi_session_t *n = p->next;
        session_destroy(p);
        p = n;
    }
}
