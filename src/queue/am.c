/* am.c: the communication queues' message engine, the AM transport of xport.h: the send
 * side (bursts as messages, the PACKED encoding, flush epochs; at the end of this file)
 * and the receive engine. Applying what arrives is cq_apply.c's.
 *
 * Every PE keeps CQ_NRECV receives posted on shmemi.queue_comm (tag CQ_TAG_MSG), from
 * shmem_init on, so PEs that never create a queue still apply what others send. The
 * progress hook (run by every blocking routine and every queue call, and by the progress
 * thread: it is registered SHMEMI_PROGRESS_THREAD_SAFE and locks) applies the
 * batches in the order they were POSTED: MPI matches one sender's messages to posted
 * receives in order, so handling the ring strictly in posting order keeps each
 * sender's batches and its later flush request in order. A flush request is answered
 * (a 0-byte message on the request's own tag) after all earlier batches of that
 * sender were applied: that is remote completion. Atomicity of the applied batches:
 * cq_apply.c. */
#include "comm_queue.h"

#define CQ_NRECV 16

/* 128 KiB by measurement (bench/results/comm_queue.md: 32K-1M sweep of bench/histogram, MPICH,
 * 2 PEs: 64K-256K beat 32K by ~25% against the same run's MPI_Alltoallv baseline). */
size_t cq_chunk_bytes = 131072;

static struct {
    int up;
    int tag_ub;
    uint32_t next_token;
    MPI_Request req[CQ_NRECV];
    unsigned char *buf[CQ_NRECV];
    int head; /* oldest posted receive */
    pthread_mutex_t lock;
} am = {.lock = PTHREAD_MUTEX_INITIALIZER};

int cq_am_ready(void)
{
    return am.up;
}

uint32_t cq_am_token(void)
{
    uint32_t span = (uint32_t)am.tag_ub - 2;
    uint32_t t = __atomic_fetch_add(&am.next_token, 1, __ATOMIC_RELAXED);
    return 2 + t % span;
}

/* Rewrites an atomic batch of n ops (displacements then operands) in place as PACKED
 * when it qualifies; returns the new body size, or 0 (left as it is). */
size_t cq_pack(cq_msghdr_t *h, unsigned char *data, uint32_t n)
{
    if (h->slot == CQ_S_PUT || h->slot == CQ_S_GET || n < 2 || (h->esize != 8 && h->esize != 4))
        return 0;
    /* chunk data is 8-aligned; operands start 8n bytes in */
    const unsigned char *opnd = data + (size_t)n * 8;
    if (!shmemi_burst_packable((const uint64_t *)(const void *)data, opnd, h->esize, n))
        return 0;
    unsigned char v[8];
    memcpy(v, opnd, h->esize);
    shmemi_burst_narrow(data, data, n); /* in place */
    memcpy(data + (size_t)n * 4, v, h->esize);
    h->type = CQ_MSG_PACKED;
    return (size_t)n * 4 + h->esize;
}

static void repost(int i)
{
    MPI_Irecv(am.buf[i], (int)(sizeof(cq_msghdr_t) + cq_chunk_bytes), MPI_BYTE, MPI_ANY_SOURCE,
              CQ_TAG_MSG, shmemi.queue_comm, &am.req[i]);
}

static int am_poll(void *arg)
{
    (void)arg;
    if (pthread_mutex_trylock(&am.lock) != 0)
        return 0; /* another thread is applying */
    int served = 0;
    for (;; served++) {
        int i = am.head, done = 0;
        MPI_Status status;
        if (MPI_Test(&am.req[i], &done, &status) != MPI_SUCCESS || !done)
            break;
        const cq_msghdr_t *h = (const cq_msghdr_t *)am.buf[i];
        if (h->type == CQ_MSG_BATCH || h->type == CQ_MSG_PACKED) {
            cq_apply(h, am.buf[i] + sizeof(cq_msghdr_t));
        } else if (h->type == CQ_MSG_FLUSH) {
            /* Everything this sender sent before the request has been applied. */
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
            MPI_Request r;
            if (MPI_Isend(NULL, 0, MPI_BYTE, status.MPI_SOURCE, (int)h->token, shmemi.queue_comm,
                          &r) == MPI_SUCCESS)
                MPI_Request_free(&r);
        }
        repost(i);
        am.head = (i + 1) % CQ_NRECV;
    }
    pthread_mutex_unlock(&am.lock);
    return served;
}

size_t cq_chunk_setting(void)
{
    size_t cb = 0;
    const char *e = getenv("SHMEMQ_CHUNK_BYTES");
    if (e && shmemi_parse_size(e, &cb) == 0 && cb >= 1024 && cb <= (64u << 20))
        return cb & ~(size_t)63;
    return cq_chunk_bytes; /* unset or not valid (settings.c said so): as it is */
}

/* Module start-up (queue_layer.c): at shmem_init, on every PE. */
void cq_am_init(void)
{
    cq_chunk_bytes = cq_chunk_setting();
    /* Plain read-modify-writes only when nothing else can write this PE's memory while
     * its thread applies a batch: another thread of this PE (THREAD_MULTIPLE, the node
     * agent), or a node peer, which applies its bursts and AMOs with CPU atomics here
     * (and, when the job spans nodes, the leader's agent serving other nodes for us). */
    cq_atomic_apply = shmemi.thread_level == SHMEM_THREAD_MULTIPLE || shmemi_agent_planned() ||
                      shmemi.node_size > 1;
    void *v;
    int flag = 0;
    MPI_Comm_get_attr(shmemi.queue_comm, MPI_TAG_UB, &v, &flag);
    am.tag_ub = flag ? *(int *)v : 32767;
    if (am.tag_ub > (1 << 30))
        am.tag_ub = 1 << 30;
    for (int i = 0; i < CQ_NRECV; i++) {
        am.buf[i] = malloc(sizeof(cq_msghdr_t) + cq_chunk_bytes);
        if (!am.buf[i])
            shmemi_fatal("shmem_init", "out of memory for queue receive buffers");
        repost(i);
    }
    am.head = 0;
    if (shmemi_progress_register_flags(am_poll, NULL, SHMEMI_PROGRESS_THREAD_SAFE) != 0)
        shmemi_fatal("shmem_init", "no room for the queue progress hook");
    am.up = 1;
}

/* Finalize, step DRAIN. Nothing lost at finalize: queues still live are completed (and
 * freed) while the windows exist and every PE still applies batches; the runtime's
 * barrier that follows (it progresses) keeps each PE applying until every PE's flushes
 * are done, so no batch arrives after cq_am_stop cancels the receives. */
void cq_am_drain(void)
{
    if (!am.up)
        return;
    cq_stop_threads();
    shmemi_queue_comm_flush_live(1);
}

/* Finalize, step STOP (after the barrier). */
void cq_am_stop(void)
{
    if (!am.up)
        return;
    cq_cache_free();
    cq_scratch_cache_free();
    shmemi_progress_unregister(am_poll, NULL);
    am_poll(NULL); /* apply whatever already arrived */
    for (int i = 0; i < CQ_NRECV; i++) {
        MPI_Cancel(&am.req[i]);
        MPI_Wait(&am.req[i], MPI_STATUS_IGNORE);
        free(am.buf[i]);
        am.buf[i] = NULL;
    }
    am.up = 0;
}

/* ---- send side: bursts, flush epochs, remote completion ---- */
void cq_am_reclaim(shmem_queue_t q)
{
    while (q->am_head) {
        int done = 0;
        cq_chunk_t *c = q->am_head;
        MPI_Test(&c->req, &done, MPI_STATUS_IGNORE);
        if (!done)
            break;
        q->am_head = c->next;
        if (!q->am_head)
            q->am_tail = NULL;
        chunk_put(q, c);
    }
}

static int wait_all(int n, MPI_Request *reqs)
{
    for (unsigned spins = 0;; spins++) {
        int all = 1;
        for (int i = 0; i < n; i++) {
            int flag = 0;
            int rc = MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return cq_mpi_err("MPI_Test", rc);
            all &= flag;
        }
        if (all)
            return 0;
        shmemi_wait_pass(spins);
    }
}

/* AM remote completion: a flush request to every PE that got batches; the reply comes
 * after the target applied all of them (messages on one tag do not overtake). One
 * such "epoch" may be in flight without waiting: progress starts one when the queue is
 * half full, so a full queue usually finds room already made. */
int cq_am_epoch_start(shmem_queue_t q)
{
    /* from the next PE on, wrapping, as cq_issue_all: not every PE's requests first to PE 0 */
    int k = 0, np = q->fast.n_pes, pe = (q->me + 1) % np, npe = np;
    if (q->one_pe >= 0) {
        pe = q->one_pe;
        npe = 1;
    }
    if (q->am_dirty == NULL)
        npe = 0; /* the RMA path: no batches, no per-PE epoch state (create) */
    for (int i = 0; i < npe; i++, pe = pe + 1 == np ? 0 : pe + 1) {
        if (!q->am_dirty[pe])
            continue;
        q->am_dirty[pe] = 0;
        cq_msghdr_t *h = &q->flush_hdrs[k];
        memset(h, 0, sizeof *h);
        h->type = CQ_MSG_FLUSH;
        h->token = cq_am_token();
        int rc = MPI_Irecv(NULL, 0, MPI_BYTE, pe, (int)h->token, shmemi.queue_comm,
                           &q->flush_reqs[2 * k]);
        if (rc != MPI_SUCCESS)
            return cq_mpi_err("MPI_Irecv", rc);
        rc = MPI_Isend(h, sizeof *h, MPI_BYTE, pe, CQ_TAG_MSG, shmemi.queue_comm,
                       &q->flush_reqs[2 * k + 1]);
        if (rc != MPI_SUCCESS)
            return cq_mpi_err("MPI_Isend", rc);
        k++;
    }
    q->epoch_npes = k;
    q->epoch_ops = q->n_am_issued;
    q->n_am_issued = 0;
    q->epoch_pending = 1;
    return 0;
}

/* Completes the epoch in flight (wait: block while progressing; else only test). */
int cq_am_epoch_end(shmem_queue_t q, int wait)
{
    if (!q->epoch_pending)
        return 0;
    int rc = 0, n = 2 * q->epoch_npes;
    if (wait) {
        rc = wait_all(n, q->flush_reqs);
    } else {
        for (int i = 0; i < n; i++) {
            int flag = 0;
            int mrc = MPI_Test(&q->flush_reqs[i], &flag, MPI_STATUS_IGNORE);
            if (mrc != MPI_SUCCESS)
                return cq_mpi_err("MPI_Test", mrc);
            if (!flag)
                return 0;
        }
    }
    q->epoch_pending = 0;
    q->outstanding -= q->epoch_ops;
    q->epoch_ops = 0;
    return rc;
}

int cq_am_complete(shmem_queue_t q)
{
    int rc = cq_am_epoch_end(q, 1);
    int r = cq_am_epoch_start(q);
    if (r == 0)
        r = cq_am_epoch_end(q, 1);
    if (r && !rc)
        rc = r;
    /* every batch was applied, so every send has completed or is about to */
    while (q->am_head) {
        cq_am_reclaim(q);
        if (q->am_head)
            shmemi_progress();
    }
    return rc;
}
int cq_am_burst(shmem_queue_t q, cq_chunk_t *c, uint32_t n)
{
    cq_msghdr_t *h = chunk_hdr(c);
    if (c->pe == q->me) {
        /* our own PE: applied here and now, exactly as a target applies a batch */
        cq_apply(h, chunk_data(c));
        chunk_put(q, c);
        q->outstanding -= n;
        q->st.bursts++;
        return 0;
    }
    size_t bytes = h->slot == CQ_S_PUT && h->tidx == SHMEMI_XT_BYTES ? c->used
                                                                : (size_t)n * (8 + h->esize);
    if (q->pack) {
        size_t packed = cq_pack(h, chunk_data(c), n);
        if (packed)
            bytes = packed;
    }
    int mrc = MPI_Isend(c->msg, (int)(sizeof(cq_msghdr_t) + bytes), MPI_BYTE, c->pe, CQ_TAG_MSG,
                        shmemi.queue_comm, &c->req);
    if (mrc != MPI_SUCCESS) {
        chunk_put(q, c);
        return cq_mpi_err("MPI_Isend", mrc);
    }
    c->next = NULL;
    if (q->am_tail)
        q->am_tail->next = c;
    else
        q->am_head = c;
    q->am_tail = c;
    q->am_dirty[c->pe] = 1;
    q->n_am_issued += n;
    q->st.bursts++;
    q->st.bytes += bytes;
    return 0;
}
