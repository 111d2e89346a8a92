/*
 * dq_flush.c: the data-queue flush engine (docs/data_queues.md).
 *
 * A flush is three steps on a private dup of the team's communicator (q->comm), all
 * nonblocking so that a waiting PE keeps progressing everything else:
 *   1. MPI_Ialltoall of {outgoing bytes to q, free incoming bytes for q} per peer:
 *      both ends of every pair then compute the same amount to move;
 *   2. MPI_Iallreduce(MAX) of {overflow, rounds needed}, started together with
 *   3. one MPI_Ialltoallv straight from the outgoing rooms into the incoming rooms
 *      (MPI_Ialltoallv_c, or rounds of MPI_Ialltoallw, when counts exceed int).
 * The PE's own rooms are never moved by MPI (dq_flush_self). The background flush of
 * shmem_queue_data_progress runs the same steps, one test per call. Because PEs may call
 * progress different numbers of times, the global flush and destroy first agree (on a
 * second communicator, q->ctrl) on how many flushes were started and let every PE catch
 * up, so the collectives always match (shmemi_queue_data_sync).
 * With SHMEMQ_DATAQ_EXCHANGE choosing NBX (q->nbx set), start and step hand the flush to
 * the sparse exchange of dq_nbx.c instead; the catch-up agreement is the same.
 */
#include "data_queue.h"
#include "dq_route.h"
#include "dq_nbx.h"
#include "../mpi_rma/agree.h"

/* Snapshot and start a flush: compact incoming rooms, exchange {out, free} per peer. */
int shmemi_queue_data_flush_start(struct shmemi_dataq *q, int bg)
{
    if (q->rt) /* routed: the whole flush, blocking; the queue stays IDLE */
        return shmemi_queue_data_route_flush(q);
    if (q->nbx) /* sparse exchange instead of the three collectives below */
        return shmemi_queue_data_nbx_start(q, bg);
    dq_lock(q);
    for (int p = 0; p < q->h.npes; p++) {
        char *base = q->h.in_at[p];
        if (q->h.in_head[p]) {
            memmove(base, base + q->h.in_head[p], q->h.in_len[p]);
            q->h.in_head[p] = 0;
        }
        q->xmine[2 * p] = q->h.out_len[p];
        q->xmine[2 * p + 1] = q->h.room - q->h.in_len[p];
    }
    /* Nothing waits in the own incoming room, and nothing can arrive in it but this
     * flush's own data: the rooms can trade places at the end (dq_flush_self). */
    q->self_swap = q->h.in_len[q->me] == 0;
    /* under the lock: a concurrent pop must see the flush in flight (see dq_take_from()) */
    q->h.phase = SHMEMI_DATAQ_COUNTS;
    dq_unlock(q);
    q->started++;
    q->bg = bg;
    q->nreq = 1;
    int rc = MPI_Ialltoall(q->xmine, 2, MPI_UINT64_T, q->xpeer, 2, MPI_UINT64_T, q->comm,
                           &q->req[0]);
    if (rc != MPI_SUCCESS) {
        q->h.phase = SHMEMI_DATAQ_IDLE;
        q->nreq = 0;
        return shmemi_queue_mpi_err("shmem_queue_global_flush", "MPI_Ialltoall", rc);
    }
    return 0;
}

/* One round of the big-count fallback: pair (me, p) moves bytes [r*chunk, (r+1)*chunk)
 * of its amount, described by an hindexed type so no displacement must fit in int. */
static int dq_start_round(struct shmemi_dataq *q)
{
    int n = q->h.npes;
    int *cnt = (int *)q->vbuf;         /* 2n: send counts, recv counts (all 1 or 0) */
    int *dsp = cnt + 2 * n;            /* 2n: zeros */
    MPI_Datatype *ty = (MPI_Datatype *)(void *)(dsp + 2 * n); /* 2n */
    size_t off = (size_t)q->round * q->chunk;
    for (int p = 0; p < n; p++) {
        for (int dir = 0; dir < 2; dir++) {
            size_t amount = p == q->me ? 0 : dir == 0 ? q->send[p] : q->recv[p];
            size_t len = amount > off ? amount - off : 0;
            if (len > q->chunk)
                len = q->chunk;
            int i = dir * n + p;
            dsp[i] = 0;
            if (len == 0) {
                cnt[i] = 0;
                ty[i] = MPI_BYTE;
                continue;
            }
            int blen = (int)len;
            MPI_Aint d = dir == 0 ? (MPI_Aint)((size_t)p * q->h.room + off)
                                  : (MPI_Aint)((size_t)p * q->h.room + q->rdisp[p] + off);
            MPI_Type_create_hindexed(1, &blen, &d, MPI_BYTE, &ty[i]);
            MPI_Type_commit(&ty[i]);
            cnt[i] = 1;
        }
    }
    int rc = MPI_Ialltoallw(q->buf_out, cnt, dsp, ty, q->buf_in, cnt + n, dsp + n, ty + n, q->comm,
                            &q->req[0]);
    q->nreq = 1;
    q->stats.bursts++;
    return rc == MPI_SUCCESS ? 0 : shmemi_queue_mpi_err("shmem_queue_global_flush", "MPI_Ialltoallw", rc);
}

static void dq_free_round_types(struct shmemi_dataq *q)
{
    int n = q->h.npes;
    MPI_Datatype *ty = (MPI_Datatype *)(void *)((int *)q->vbuf + 4 * n);
    for (int i = 0; i < 2 * n; i++)
        if (ty[i] != MPI_BYTE && ty[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&ty[i]);
}

static int dq_start_payload(struct shmemi_dataq *q)
{
    int n = q->h.npes, rc;
    q->stats.bursts++;
    if (q->xfer == SHMEMI_DATAQ_XFER_V) {
        int *v = (int *)q->vbuf;
        for (int p = 0; p < n; p++) {
            int other = p != q->me; /* the own rooms are flush_self's */
            v[p] = other ? (int)q->send[p] : 0;
            v[n + p] = (int)((size_t)p * q->h.room);
            v[2 * n + p] = other ? (int)q->recv[p] : 0;
            v[3 * n + p] = other ? (int)((size_t)p * q->h.room + q->rdisp[p]) : 0;
        }
        rc = MPI_Ialltoallv(q->buf_out, v, v + n, MPI_BYTE, q->buf_in, v + 2 * n, v + 3 * n, MPI_BYTE,
                            q->comm, &q->req[1]);
        return rc == MPI_SUCCESS ? 0 : shmemi_queue_mpi_err("shmem_queue_global_flush", "MPI_Ialltoallv", rc);
    }
#if MPI_VERSION >= 4
    MPI_Count *c = (MPI_Count *)q->vbuf;
    MPI_Aint *d = (MPI_Aint *)(void *)(c + 2 * n);
    for (int p = 0; p < n; p++) {
        int other = p != q->me; /* the own rooms are flush_self's */
        c[p] = other ? (MPI_Count)q->send[p] : 0;
        c[n + p] = other ? (MPI_Count)q->recv[p] : 0;
        d[p] = (MPI_Aint)((size_t)p * q->h.room);
        d[n + p] = other ? (MPI_Aint)((size_t)p * q->h.room + q->rdisp[p]) : 0;
    }
    rc = MPI_Ialltoallv_c(q->buf_out, c, d, MPI_BYTE, q->buf_in, c + n, d + n, MPI_BYTE, q->comm,
                          &q->req[1]);
    return rc == MPI_SUCCESS ? 0 : shmemi_queue_mpi_err("shmem_queue_global_flush", "MPI_Ialltoallv_c", rc);
#else
    return shmemi_queue_mpi_err("shmem_queue_global_flush", "MPI_Ialltoallv_c (needs MPI 4)", MPI_ERR_OTHER);
#endif
}

/* The PE's own share of a flush, which MPI does not move (a self-copy inside
 * MPI_Alltoallv cost as much as the exchange with a peer: bench/README.md). Swap: the
 * incoming room was empty at the start, so the outgoing room becomes the incoming one
 * whole, pushes made since the start included (they fit: the room is the same size and
 * per-source order holds); returns 1, all done. Otherwise copies what the agreed
 * send[me] (== recv[me]) allows, as MPI would, and returns 0: dq_flush_finish then does
 * the bookkeeping it does for every peer. */
static int dq_flush_self(struct shmemi_dataq *q)
{
    int me = q->me;
    struct shmemq_dataq_hot *h = &q->h;
    if (q->self_swap) {
        char *t = h->in_at[me];
        h->in_at[me] = h->out_at[me];
        h->out_at[me] = t;
        h->in_head[me] = 0;
        h->in_len[me] = h->out_len[me];
        q->stats.bytes += h->out_len[me];
        h->out_len[me] = 0;
        return 1;
    }
    memcpy(h->in_at[me] + q->rdisp[me], h->out_at[me], q->send[me]);
    return 0;
}

/* Apply a completed exchange: drop what was sent (keep the rest in order at the
 * front), make what arrived visible. */
static void dq_flush_finish(struct shmemi_dataq *q)
{
    dq_lock(q);
    shmemi_queue_data_count_flush(q);
    for (int p = 0; p < q->h.npes; p++) {
        if (p == q->me && dq_flush_self(q))
            continue;
        size_t s = q->send[p];
        if (s) {
            char *base = q->h.out_at[p];
            memmove(base, base + s, q->h.out_len[p] - s);
            q->h.out_len[p] -= s;
            q->stats.bytes += s;
        }
        q->h.in_len[p] += q->recv[p];
    }
    q->h.any_from = 0; /* sources may have data again */
    q->stats.flushes++;
    q->last_rc = q->agree_out[0] ? SHMEM_QUEUE_ERR_OVERFLOW : 0;
    q->h.phase = SHMEMI_DATAQ_IDLE;
    dq_unlock(q);
}

/* Move the flush to its next phase once its requests are complete. */
static int dq_flush_advance(struct shmemi_dataq *q)
{
    int rc = 0;
    switch (q->h.phase) {
    case SHMEMI_DATAQ_COUNTS: {
        uint64_t overflow = 0, maxb = 0;
        for (int p = 0; p < q->h.npes; p++) {
            uint64_t mine_out = q->xmine[2 * p], mine_free = q->xmine[2 * p + 1];
            uint64_t peer_out = q->xpeer[2 * p], peer_free = q->xpeer[2 * p + 1];
            q->send[p] = (size_t)dq_plan_direct_moves(mine_out, peer_free);
            q->recv[p] = (size_t)dq_plan_direct_moves(peer_out, mine_free);
            q->rdisp[p] = q->h.room - (size_t)mine_free; /* incoming was compacted at start */
            if (q->send[p] < mine_out || q->recv[p] < peer_out)
                overflow = 1;
            if (p == q->me) /* not moved by MPI */
                continue;
            if (q->send[p] > maxb)
                maxb = q->send[p];
            if (q->recv[p] > maxb)
                maxb = q->recv[p];
        }
        q->agree_in[0] = overflow;
        q->agree_in[1] = (maxb + q->chunk - 1) / q->chunk;
        rc = MPI_Iallreduce(q->agree_in, q->agree_out, 2, MPI_UINT64_T, MPI_MAX, q->comm,
                            &q->req[0]);
        if (rc != MPI_SUCCESS)
            return shmemi_queue_mpi_err("shmem_queue_global_flush", "MPI_Iallreduce", rc);
        q->nreq = 1;
        q->h.phase = SHMEMI_DATAQ_AGREE;
        if (q->xfer != SHMEMI_DATAQ_XFER_ROUNDS) {
            if ((rc = dq_start_payload(q)) != 0)
                return rc;
            q->nreq = 2;
        }
        return 0;
    }
    case SHMEMI_DATAQ_AGREE:
        if (q->xfer == SHMEMI_DATAQ_XFER_ROUNDS && q->agree_out[1] > 0) {
            q->nrounds = q->agree_out[1];
            q->round = 0;
            q->h.phase = SHMEMI_DATAQ_MOVE;
            return dq_start_round(q);
        }
        dq_flush_finish(q);
        return 0;
    case SHMEMI_DATAQ_MOVE:
        dq_free_round_types(q);
        if (++q->round < q->nrounds)
            return dq_start_round(q);
        dq_flush_finish(q);
        return 0;
    default:
        return 0;
    }
}

/* Advance the flush in flight. block: wait for each step (progressing everything
 * else meanwhile); otherwise test once per step. Returns 1 when idle, 0 when still in
 * flight, or an error (the flush is abandoned: the queue is then unusable). */
int shmemi_queue_data_flush_step(struct shmemi_dataq *q, int block)
{
    if (q->nbx)
        return shmemi_queue_data_nbx_step(q, block);
    while (q->h.phase != SHMEMI_DATAQ_IDLE) {
        int rc;
        if (block) {
            for (int i = 0; i < q->nreq; i++)
                if ((rc = shmemi_wait_request(&q->req[i])) != MPI_SUCCESS)
                    return shmemi_queue_mpi_err("shmem_queue_global_flush", "MPI_Wait", rc);
        } else {
            int all = 1;
            for (int i = 0; i < q->nreq; i++) {
                int done = 0;
                rc = MPI_Test(&q->req[i], &done, MPI_STATUS_IGNORE);
                if (rc != MPI_SUCCESS)
                    return shmemi_queue_mpi_err("shmem_queue_data_progress", "MPI_Test", rc);
                all &= done;
            }
            if (!all)
                return 0;
        }
        q->nreq = 0;
        if ((rc = dq_flush_advance(q)) != 0) {
            q->h.phase = SHMEMI_DATAQ_IDLE;
            return rc;
        }
    }
    return 1;
}

/* Make every PE reach `started == most flushes any PE wants`, given `mine`: runs on
 * q->ctrl so the agreement never mixes with a flush's collectives in flight on
 * q->comm; a flush already started (background, or the global flush's own) goes on
 * meanwhile. A PE that started fewer flushes runs the missing ones: they match the
 * others' in-flight ones, since every flush is the same sequence of collectives.
 * The same reduction is the argument agreement: bad (this PE rejected its arguments)
 * or PEs in different routines (kind) make every PE return SHMEM_QUEUE_ERR_ARG before
 * any catch-up, with nothing changed. */
static int dq_sync(struct shmemi_dataq *q, uint64_t mine, const char *routine, int kind, int bad)
{
    uint64_t in[4] = {mine, bad != 0, (uint64_t)kind, ~(uint64_t)kind}, out[4];
    MPI_Request req;
    int rc = MPI_Iallreduce(in, out, 4, MPI_UINT64_T, MPI_MAX, q->ctrl, &req);
    if (rc == MPI_SUCCESS)
        rc = shmemi_agree_wait(&req, q->ctrl, routine);
    if (rc != MPI_SUCCESS)
        return shmemi_queue_mpi_err(routine, "MPI_Iallreduce", rc);
    if (out[1] || out[2] != ~out[3]) {
        /* A PE in shmem_finalize meets peers in a global flush of a queue it never
         * destroyed: they will never call the matching collective (this PE's next is
         * MPI_Finalize), so say so and end the job rather than leave them waiting. */
        if (!out[1] && routine == shmemi_queue_data_finalize_routine)
            shmemi_fatal(routine,
                         "this PE reached shmem_finalize while other PEs of data queue %llu's "
                         "team (%d PEs) wait in shmem_queue_global_flush on it (a global "
                         "flush must be called by every PE of the team); ending the job",
                         (unsigned long long)(q->queue_id & ~SHMEMI_DATAQ_ID_BIT), q->h.npes);
        if (!bad)
            shmemi_debug(routine, out[1] ? "another PE of the queue's team rejected its "
                                           "arguments: nothing was done"
                                         : "the PEs of the queue's team called different "
                                           "collectives (global flush, destroy): nothing "
                                           "was done");
        return SHMEM_QUEUE_ERR_ARG;
    }
    uint64_t most = out[0];
    for (;;) {
        int r = shmemi_queue_data_flush_step(q, 1);
        if (r < 0)
            return r;
        if (q->started >= most)
            return 0;
        if ((r = shmemi_queue_data_flush_start(q, 0)) != 0)
            return r;
    }
}

/* Every PE of the team is in this flush, so a PE that waits here waits for its peers'
 * pushes and hops: where the machine runs 4 or more PEs per core it naps rather than
 * yields, and the PEs still at work get the cores (shmemi_wait_nap_begin). */
int shmemi_queue_data_sync(struct shmemi_dataq *q, uint64_t mine, const char *routine, int kind,
                      int bad)
{
    int prev = shmemi_wait_nap_begin();
    int rc = dq_sync(q, mine, routine, kind, bad);
    shmemi_wait_nap_end(prev);
    return rc;
}
