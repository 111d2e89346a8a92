/*
 * dq_route.c: the data queue's routed mode (dq_route.h; docs/data_queues.md, "Routed
 * mode"): grouping the team by node at create, the push into porter buffers, and the
 * two-hop flush.
 *
 * A flush (blocking, collective over the team):
 *   1. compact the per-source FIFOs (free those popped empty);
 *   2. pack: per porter l, one record {to d, from me, bytes} + payload per destination
 *      d it serves that has data, in grid order (the porter buffers' runs are copied
 *      to their record, in push order); the counts are known from the logical lengths
 *      first, so hop 1's MPI_Ialltoall of them runs while packing;
 *   3. hop 1: that count exchange, MPI_Ialltoallv(_c) on the node communicator;
 *   4. the porter sorts what arrived by the destination's node (stable: per-pair order
 *      holds) and 5. hop 2 does the same on the column communicator;
 *   6. the receiver appends each record to its source's FIFO, at most up to the
 *      logical room; what does not fit is noted as an acknowledgement;
 *   7. MPI_Iallreduce(MAX) of "someone overflowed" on the queue's communicator;
 *   8. only then, if so: the acknowledgements go back to their senders (two hops), who
 *      keep the rejected tail of each destination's data outgoing, in order.
 */
#include "dq_route.h"
#include <limits.h>

static const char *const rt_routine = "shmem_queue_global_flush";

/* ---- sizes (the model reads the same functions) ---- */

static int rt_k(int npes, int n)
{
    return dq_plan_k(npes, n);
}

static size_t rt_vbuf_bytes(int k)
{
#if MPI_VERSION >= 4
    return 2 * (size_t)k * (sizeof(MPI_Count) + sizeof(MPI_Aint));
#else
    return 4 * (size_t)k * sizeof(int);
#endif
}

uint64_t shmemi_queue_data_route_meta(int npes, int n)
{
    uint64_t p = (uint64_t)npes, k = (uint64_t)rt_k(npes, n);
    /* per PE: grid, pe_at; the hot in_at, out_len, in_head, in_len; in_cap, cur.
     * per porter: its buffer header and last-run offset. per hop peer: 3 counts. */
    return sizeof(struct shmemi_dataq) + sizeof(struct shmemi_dq_route) +
           p * (2 * sizeof(int) + sizeof(char *) + 5 * sizeof(size_t)) +
           (uint64_t)n * (sizeof(struct dq_rbuf) + sizeof(size_t)) + 3 * k * sizeof(uint64_t) +
           rt_vbuf_bytes((int)k);
}

size_t shmemi_queue_data_route_proom(int npes, int n)
{
    /* as the direct default, with n + P/n peers: the porter buffers and a flush's share
     * of the staging fill about one L2 */
    return shmemi_queue_data_default_room(1, n + npes / n);
}

/* ---- buffers ---- */

/* Room for `extra` more bytes in b; 0, or -1 (nothing changed) when memory is short. */
static int rt_reserve(struct dq_rbuf *b, size_t extra)
{
    if (extra <= b->cap - b->len)
        return 0;
    size_t cap = dq_plan_grow(b->cap, b->len + extra); /* first: exactly */
    char *p = realloc(b->p, cap);
    if (p == NULL)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

/* Staging must exist for MPI to land the data in: without it the flush cannot go on
 * and the PEs of the team already wait in it. */
static void rt_reserve_or_die(struct dq_rbuf *b, size_t extra)
{
    if (rt_reserve(b, extra) != 0)
        shmemi_fatal(rt_routine, "out of memory for %zu bytes of routed data-queue staging",
                     b->len + extra);
}

int shmemi_queue_data_route_push(struct shmemi_dataq *q, const void *src, size_t bytes, int pe)
{
    struct shmemi_dq_route *rt = q->rt;
    int l = dq_plan_porter(rt->grid[pe], rt->n);
    struct dq_rbuf *b = &rt->porter[l];
    const char *s = (const char *)src;
    size_t last = rt->plast[l];
    if (last != DQ_RT_NONE) { /* the last run (always at the end) goes to pe: extend it */
        struct dq_run r;
        memcpy(&r, b->p + last, sizeof r);
        if (dq_plan_run_extends(r.dst, r.bytes, pe, bytes)) {
            if (rt_reserve(b, bytes) != 0)
                return SHMEM_QUEUE_ERR_NOMEM;
            memcpy(b->p + b->len, s, bytes);
            b->len += bytes;
            r.bytes += (uint32_t)bytes;
            memcpy(b->p + last, &r, sizeof r);
            return 0;
        }
    }
    if (rt_reserve(b, dq_plan_run_bytes(bytes)) != 0)
        return SHMEM_QUEUE_ERR_NOMEM;
    while (bytes) {
        struct dq_run r = {(uint32_t)pe, bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes};
        rt->plast[l] = b->len;
        memcpy(b->p + b->len, &r, sizeof r);
        memcpy(b->p + b->len + sizeof r, s, r.bytes);
        b->len += sizeof r + r.bytes;
        s += r.bytes;
        bytes -= r.bytes;
    }
    return 0;
}

/* ---- create and destroy ---- */

/* This PE's node, named by the world rank of its node's first PE. */
static int rt_node_key(void)
{
    MPI_Group ng, wg;
    int zero = 0, key = -1;
    MPI_Comm_group(shmemi.node_comm, &ng);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(ng, 1, &zero, wg, &key);
    MPI_Group_free(&ng);
    MPI_Group_free(&wg);
    return key;
}

static int rt_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Group the team by node key: nodes in key order, local ranks in team order. Returns
 * n, or 0 when the nodes differ in size; fills grid and pe_at (P each) unless NULL. */
static int rt_group(const int *keys, int npes, uint64_t *tmp, int *grid, int *pe_at)
{
    for (int p = 0; p < npes; p++)
        tmp[p] = (uint64_t)(uint32_t)keys[p] << 32 | (uint32_t)p;
    qsort(tmp, (size_t)npes, sizeof *tmp, rt_cmp_u64);
    int n = 0;
    while (n < npes && tmp[n] >> 32 == tmp[0] >> 32)
        n++;
    if (npes % n != 0)
        return 0;
    for (int g = 0; g < npes; g++) {
        /* every block of n sorted entries must be exactly one node */
        if (tmp[g] >> 32 != tmp[g - g % n] >> 32 ||
            (g % n == 0 && g > 0 && tmp[g] >> 32 == tmp[g - 1] >> 32))
            return 0;
        if (grid && pe_at) {
            int p = (int)(uint32_t)tmp[g];
            pe_at[g] = p;
            grid[p] = g;
        }
    }
    return n;
}

static void rt_free(struct shmemi_dq_route *rt, int npes)
{
    if (rt == NULL)
        return;
    if (rt->porter)
        for (int l = 0; l < rt->n; l++)
            free(rt->porter[l].p);
    for (int i = 0; i < 4; i++)
        free(rt->st[i].p);
    free(rt->porter), free(rt->plast), free(rt->grid), free(rt->pe_at);
    free(rt->in_cap), free(rt->cur), free(rt->cnt), free(rt->vbuf);
    if (rt->nodec != MPI_COMM_NULL)
        MPI_Comm_free(&rt->nodec);
    if (rt->colc != MPI_COMM_NULL)
        MPI_Comm_free(&rt->colc);
    (void)npes;
    free(rt);
}

void shmemi_queue_data_route_free(struct shmemi_dataq *q)
{
    if (q->rt == NULL)
        return;
    for (int s = 0; s < q->h.npes && q->h.in_at; s++)
        if (q->rt->in_cap[s]) /* 0: none, or a record in the staging (borrowed) */
            free(q->h.in_at[s]);
    rt_free(q->rt, q->h.npes);
    q->rt = NULL;
}

int shmemi_queue_data_route_setup(struct shmemi_dataq *q, shmem_team_t team, size_t maxroom,
                                  int *uneven)
{
    static const char *routine = "shmem_queue_data_create";
    int npes = team->n_pes;
    size_t P = (size_t)npes;
    *uneven = 0;
#if MPI_VERSION < 4
    /* int_counts below, decided alike on every PE (maxroom is agreed): without
     * MPI_Ialltoallv_c a routed flush could not move it, so the queue is direct, whose
     * exchange rounds can */
    if (!((size_t)INT_MAX / P > sizeof(struct dq_rec) &&
          maxroom <= (size_t)INT_MAX / P - sizeof(struct dq_rec))) {
        *uneven = 2;
        return 0;
    }
#endif
    int *keys = malloc(P * sizeof(int));
    uint64_t *tmp = malloc(P * sizeof(uint64_t));
    int have = keys && tmp, all = 0;
    int mrc = MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, q->comm);
    if (mrc == MPI_SUCCESS && all)
        mrc = MPI_Allgather((int[]){rt_node_key()}, 1, MPI_INT, keys, 1, MPI_INT, q->comm);
    if (mrc != MPI_SUCCESS || !all) {
        free(keys), free(tmp);
        return mrc != MPI_SUCCESS ? shmemi_queue_mpi_err(routine, "MPI_Allgather", mrc)
                                  : SHMEM_QUEUE_ERR_NOMEM;
    }
    struct shmemi_dq_route *rt = calloc(1, sizeof *rt);
    int rc = 0;
    if (rt) {
        rt->nodec = rt->colc = MPI_COMM_NULL;
        rt->grid = malloc(P * sizeof(int));
        rt->pe_at = malloc(P * sizeof(int));
    }
    /* every PE decides the same from the same keys, memory or not */
    int have_grid = rt && rt->grid && rt->pe_at;
    int n = rt_group(keys, npes, tmp, have_grid ? rt->grid : NULL, have_grid ? rt->pe_at : NULL);
    free(tmp);
    if (n == 0) { /* the same on every PE: all saw the same keys */
        free(keys);
        rt_free(rt, npes);
        *uneven = 1;
        return 0;
    }
    free(keys);
    /* no memory for the grid here: this PE still joins both splits (color
     * MPI_UNDEFINED) so no PE waits, and reports NOMEM */
    if (!have_grid)
        n = -1;
    int g = n > 0 ? rt->grid[team->my_pe] : -1;
    int node = n > 0 ? dq_plan_node(g, n) : MPI_UNDEFINED;
    int lr = n > 0 ? dq_plan_lr(g, n) : MPI_UNDEFINED;
    MPI_Comm nodec = MPI_COMM_NULL, colc = MPI_COMM_NULL;
    mrc = MPI_Comm_split(q->comm, node, lr, &nodec);
    if (mrc == MPI_SUCCESS)
        mrc = MPI_Comm_split(q->comm, lr, node, &colc);
    if (mrc != MPI_SUCCESS) {
        rc = shmemi_queue_mpi_err(routine, "MPI_Comm_split", mrc);
    } else if (n < 0) {
        rc = SHMEM_QUEUE_ERR_NOMEM;
    }
    if (n < 0 || rc) {
        if (nodec != MPI_COMM_NULL)
            MPI_Comm_free(&nodec);
        if (colc != MPI_COMM_NULL)
            MPI_Comm_free(&colc);
        rt_free(rt, npes);
        return rc ? rc : SHMEM_QUEUE_ERR_NOMEM;
    }
    MPI_Comm_set_errhandler(nodec, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(colc, MPI_ERRORS_RETURN);
    rt->nodec = nodec;
    rt->colc = colc;
    rt->n = n;
    rt->nnodes = npes / n;
    rt->node = node;
    rt->lr = lr;
    rt->k = rt_k(npes, n);
    rt->proom = shmemi_queue_data_route_proom(npes, n);
    /* What one PE sends or receives in one hop is at most P records of a room and a
     * header (hop 1: its own data; at a porter: n senders x P/n destinations); the same
     * on every PE (maxroom is agreed), so all pick the same call. */
    rt->int_counts = (size_t)INT_MAX / P > sizeof(struct dq_rec) &&
                     maxroom <= (size_t)INT_MAX / P - sizeof(struct dq_rec);
    rt->porter = calloc((size_t)n, sizeof *rt->porter);
    rt->plast = malloc((size_t)n * sizeof *rt->plast);
    rt->in_cap = calloc(P, sizeof(size_t));
    rt->cur = calloc(P, sizeof(size_t));
    rt->cnt = calloc(3 * (size_t)rt->k, sizeof(uint64_t));
    rt->vbuf = calloc(1, rt_vbuf_bytes(rt->k));
    q->h.in_at = calloc(P, sizeof(char *));
    q->h.out_len = calloc(P, sizeof(size_t));
    q->h.in_head = calloc(P, sizeof(size_t));
    q->h.in_len = calloc(P, sizeof(size_t));
    int ok = rt->porter && rt->plast && rt->in_cap && rt->cur && rt->cnt && rt->vbuf &&
             q->h.in_at && q->h.out_len && q->h.in_head && q->h.in_len;
    for (int l = 0; ok && l < n; l++) {
        rt->plast[l] = DQ_RT_NONE;
        ok = rt_reserve(&rt->porter[l], rt->proom) == 0;
    }
    q->rt = rt;
    if (!ok) {
        shmemi_queue_data_route_free(q);
        return SHMEM_QUEUE_ERR_NOMEM;
    }
    return 0;
}

/* ---- the flush ---- */

/* One hop, in two parts: rt_counts_start sends the byte counts (sc: np counts for the
 * np peers on c; rc receives theirs), so a caller may overlap it with packing;
 * rt_exchange_data completes it, then moves the bytes from sbuf into rb (len set to
 * the total). rt_exchange does both. */
static int rt_counts_start(MPI_Comm c, const uint64_t *sc, uint64_t *rc, MPI_Request *req)
{
    int mrc = MPI_Ialltoall(sc, 1, MPI_UINT64_T, rc, 1, MPI_UINT64_T, c, req);
    return mrc == MPI_SUCCESS ? 0 : shmemi_queue_mpi_err(rt_routine, "MPI_Ialltoall", mrc);
}

static int rt_exchange_data(struct shmemi_dq_route *rt, MPI_Comm c, int np, const char *sbuf,
                            const uint64_t *sc, struct dq_rbuf *rb, uint64_t *rc,
                            MPI_Request *creq)
{
    MPI_Request req;
    int mrc = shmemi_wait_request(creq);
    if (mrc != MPI_SUCCESS)
        return shmemi_queue_mpi_err(rt_routine, "MPI_Ialltoall", mrc);
    size_t tot = 0;
    for (int i = 0; i < np; i++)
        tot += rc[i];
    rb->len = 0;
    rt_reserve_or_die(rb, tot);
    rb->len = tot;
    const char *call = "MPI_Ialltoallv";
    if (rt->int_counts) { /* every count and displacement fits: see int_counts */
        int *cs = (int *)rt->vbuf, *cr = cs + np, *ds = cr + np, *dr = ds + np;
        size_t so = 0, ro = 0;
        for (int i = 0; i < np; i++) {
            cs[i] = (int)sc[i], cr[i] = (int)rc[i];
            ds[i] = (int)so, dr[i] = (int)ro;
            so += sc[i], ro += rc[i];
        }
        mrc = MPI_Ialltoallv(sbuf, cs, ds, MPI_BYTE, rb->p, cr, dr, MPI_BYTE, c, &req);
        call = "MPI_Ialltoallv";
    } else {
#if MPI_VERSION >= 4
    MPI_Count *cs = (MPI_Count *)rt->vbuf, *cr = cs + np;
    MPI_Aint *ds = (MPI_Aint *)(void *)(cr + np), *dr = ds + np;
    MPI_Aint so = 0, ro = 0;
    for (int i = 0; i < np; i++) {
        cs[i] = (MPI_Count)sc[i], cr[i] = (MPI_Count)rc[i];
        ds[i] = so, dr[i] = ro;
        so += (MPI_Aint)sc[i], ro += (MPI_Aint)rc[i];
    }
    mrc = MPI_Ialltoallv_c(sbuf, cs, ds, MPI_BYTE, rb->p, cr, dr, MPI_BYTE, c, &req);
    call = "MPI_Ialltoallv_c";
#else
    (void)sc, (void)rc; /* not reached: such a queue was made direct (route_setup) */
    return shmemi_queue_mpi_err(rt_routine, "MPI_Ialltoallv_c (needs MPI 4)", MPI_ERR_OTHER);
#endif
    }
    if (mrc == MPI_SUCCESS)
        mrc = shmemi_wait_request(&req);
    return mrc == MPI_SUCCESS ? 0 : shmemi_queue_mpi_err(rt_routine, call, mrc);
}

static int rt_exchange(struct shmemi_dq_route *rt, MPI_Comm c, int np, const char *sbuf,
                       const uint64_t *sc, struct dq_rbuf *rb, uint64_t *rc)
{
    MPI_Request creq;
    int rc1 = rt_counts_start(c, sc, rc, &creq);
    return rc1 ? rc1 : rt_exchange_data(rt, c, np, sbuf, sc, rb, rc, &creq);
}

/* Sort the records of `in` by the grid position's node (by_node) or local rank of their
 * `to` into `out`, keeping their order within each group; cnt: k counts out. */
static void rt_bucket(struct shmemi_dq_route *rt, const struct dq_rbuf *in, int by_node,
                      int payload, int groups, struct dq_rbuf *out, uint64_t *cnt)
{
    uint64_t *off = rt->cnt + 2 * (size_t)rt->k;
    for (int i = 0; i < groups; i++)
        cnt[i] = 0;
    struct dq_rec r;
    for (size_t o = 0; o < in->len; o += sizeof r + (payload ? r.bytes : 0)) {
        memcpy(&r, in->p + o, sizeof r);
        cnt[dq_plan_group(rt->grid[r.to], rt->n, by_node)] += sizeof r + (payload ? r.bytes : 0);
    }
    uint64_t sum = 0;
    for (int i = 0; i < groups; i++)
        off[i] = sum, sum += cnt[i];
    out->len = 0;
    rt_reserve_or_die(out, sum);
    out->len = sum;
    for (size_t o = 0; o < in->len;) {
        memcpy(&r, in->p + o, sizeof r);
        size_t len = sizeof r + (payload ? r.bytes : 0);
        int i = dq_plan_group(rt->grid[r.to], rt->n, by_node);
        memcpy(out->p + off[i], in->p + o, len);
        off[i] += len;
        o += len;
    }
}

/* Count a hop's messages and peers (queue_usage.h): peer i of the node or column. */
static void rt_count_hop(struct shmemi_dataq *q, const uint64_t *sc, int np, int column)
{
    struct shmemi_dq_route *rt = q->rt;
    for (int i = 0; i < np; i++) {
        if (!sc[i])
            continue;
        int g = dq_plan_hop_peer(column, i, rt->n, rt->node, rt->lr);
        q->tr.msgs++;
        shmemi_qtraffic_sent(&q->tr, q->h.npes, rt->pe_at[g]);
    }
}

/* Put d's data of this flush (the `keep` last bytes of its record in st[0]) back into
 * its porter buffer: out_len[d] must be 0 here, and becomes keep. */
static void rt_keep(struct shmemi_dataq *q, int d, size_t keep)
{
    struct shmemi_dq_route *rt = q->rt;
    if (shmemi_queue_data_route_push(q, rt->st[0].p + rt->cur[d] - keep, keep, d) != 0)
        shmemi_fatal(rt_routine, "out of memory keeping %zu bytes outgoing", keep);
    q->h.out_len[d] = keep;
}

/* The acknowledgements (records to the senders, no payload) go back two hops; returns
 * the bytes rejected for this PE's own data, after keeping them outgoing. */
static int rt_route_acks(struct shmemi_dataq *q, struct dq_rbuf *acks, uint64_t *rejected)
{
    struct shmemi_dq_route *rt = q->rt;
    uint64_t *sc = rt->cnt, *rc = rt->cnt + rt->k;
    struct dq_rbuf a = {0}, b = {0};
    int rc1;
    *rejected = 0;
    /* hop 1 to the sender's local rank, hop 2 along its column to the sender's node */
    rt_bucket(q->rt, acks, 0, 0, rt->n, &a, sc);
    rt_count_hop(q, sc, rt->n, 0);
    if ((rc1 = rt_exchange(rt, rt->nodec, rt->n, a.p, sc, &b, rc)) == 0) {
        rt_bucket(q->rt, &b, 1, 0, rt->nnodes, &a, sc);
        rt_count_hop(q, sc, rt->nnodes, 1);
        rc1 = rt_exchange(rt, rt->colc, rt->nnodes, a.p, sc, &b, rc);
    }
    if (rc1 == 0) {
        struct dq_rec r;
        for (size_t o = 0; o < b.len; o += sizeof r) {
            memcpy(&r, b.p + o, sizeof r);
            rt_keep(q, (int)r.from, (size_t)r.bytes);
            *rejected += r.bytes;
        }
    }
    free(a.p), free(b.p);
    return rc1;
}

/* An MPI failure in hop 1: nothing of this PE's left it; keep it all outgoing. */
static void rt_restore(struct shmemi_dataq *q)
{
    for (int d = 0; d < q->h.npes; d++) {
        size_t len = q->h.out_len[d];
        if (len) {
            q->h.out_len[d] = 0;
            rt_keep(q, d, len);
        }
    }
}

int shmemi_queue_data_route_flush(struct shmemi_dataq *q)
{
    struct shmemi_dq_route *rt = q->rt;
    struct shmemq_dataq_hot *h = &q->h;
    const int P = h->npes, n = rt->n, nn = rt->nnodes;
    uint64_t *sc = rt->cnt, *rc = rt->cnt + rt->k;
    dq_lock(q);
    q->started++;
    /* 1. the FIFOs: popped-empty ones freed; unpopped data to the front, or, for a
     * FIFO that is a record of the last flush's staging (borrowed, in_cap 0), to
     * memory of its own, as the staging is about to be reused */
    for (int s = 0; s < P; s++) {
        if (h->in_len[s] == 0) {
            if (rt->in_cap[s])
                free(h->in_at[s]);
            h->in_at[s] = NULL;
            rt->in_cap[s] = 0;
        } else if (rt->in_cap[s] == 0) {
            char *p = malloc(h->in_len[s]);
            if (p == NULL)
                shmemi_fatal(rt_routine, "out of memory keeping %zu unpopped bytes",
                             h->in_len[s]);
            memcpy(p, h->in_at[s] + h->in_head[s], h->in_len[s]);
            h->in_at[s] = p;
            rt->in_cap[s] = h->in_len[s];
        } else if (h->in_head[s]) {
            memmove(h->in_at[s], h->in_at[s] + h->in_head[s], h->in_len[s]);
        }
        h->in_head[s] = 0;
    }
    /* 2. pack, porter by porter, one record per destination */
    struct dq_rbuf *st = rt->st;
    uint64_t sent = 0;
    for (int l = 0; l < n; l++) {
        sc[l] = 0;
        for (int k = 0; k < nn; k++) {
            sc[l] += dq_plan_rec_bytes(h->out_len[rt->pe_at[k * n + l]]);
        }
    }
    /* the counts are known before packing: send them meanwhile */
    MPI_Request creq;
    int rc1 = rt_counts_start(rt->nodec, sc, rc, &creq);
    if (rc1) {
        dq_unlock(q);
        return rc1; /* nothing moved yet */
    }
    st[0].len = 0;
    for (int l = 0; l < n; l++)
        rt_reserve_or_die(&st[0], sc[l]), st[0].len += sc[l];
    size_t off = 0;
    for (int l = 0; l < n; l++)
        for (int k = 0; k < nn; k++) {
            int d = rt->pe_at[k * n + l];
            size_t len = h->out_len[d];
            if (!len)
                continue;
            struct dq_rec r = {(uint32_t)d, (uint32_t)q->me, len};
            memcpy(st[0].p + off, &r, sizeof r);
            rt->cur[d] = off + sizeof r;
            off += sizeof r + len;
            sent += len;
        }
    for (int l = 0; l < n; l++) {
        struct dq_rbuf *b = &rt->porter[l];
        struct dq_run r;
        for (size_t o = 0; o < b->len; o += sizeof r + r.bytes) {
            memcpy(&r, b->p + o, sizeof r);
            shmemq_dataq_copy(st[0].p + rt->cur[r.dst], b->p + o + sizeof r, r.bytes);
            rt->cur[r.dst] += r.bytes; /* ends at the end of d's payload */
        }
        b->len = 0;
        rt->plast[l] = DQ_RT_NONE;
    }
    /* 3. hop 1 */
    rt_count_hop(q, sc, n, 0);
    rc1 = rt_exchange_data(rt, rt->nodec, n, st[0].p, sc, &st[1], rc, &creq);
    if (rc1) {
        rt_restore(q);
        dq_unlock(q);
        return rc1;
    }
    /* 4, 5. the porter: by destination node, hop 2 */
    rt_bucket(rt, &st[1], 1, 1, nn, &st[2], sc);
    rt_count_hop(q, sc, nn, 1);
    if ((rc1 = rt_exchange(rt, rt->colc, nn, st[2].p, sc, &st[3], rc)) != 0) {
        dq_unlock(q);
        return rc1;
    }
    /* 6. deliver up to the logical room per source; note what did not fit */
    struct dq_rbuf acks = {0};
    uint64_t overflow = 0;
    struct dq_rec r;
    for (size_t o = 0; o < st[3].len; o += sizeof r + r.bytes) {
        memcpy(&r, st[3].p + o, sizeof r);
        int s = (int)r.from;
        size_t room = h->room - h->in_len[s], acc = r.bytes < room ? (size_t)r.bytes : room;
        size_t need = h->in_len[s] + acc;
        char *rec = st[3].p + o + sizeof r;
        if (acc && h->in_len[s] == 0 && rt->in_cap[s] == 0) {
            /* nothing waits from s (its FIFO was freed at step 1): the FIFO is the
             * record where it lies, until popped or until the next flush (step 1) */
            h->in_at[s] = rec;
        } else if (acc && need > rt->in_cap[s]) {
            size_t cap = rt->in_cap[s] ? rt->in_cap[s] : need;
            while (cap < need)
                cap *= 2;
            if (cap > h->room)
                cap = h->room;
            char *p = realloc(h->in_at[s], cap);
            if (p) {
                h->in_at[s] = p;
                rt->in_cap[s] = cap;
            } else {
                acc = 0; /* no memory: the sender keeps it, as if the room were full */
            }
        }
        if (acc && h->in_at[s] != rec)
            memcpy(h->in_at[s] + h->in_len[s], rec, acc);
        h->in_len[s] += acc;
        if (acc < r.bytes) {
            struct dq_rec a = {(uint32_t)s, (uint32_t)q->me, r.bytes - acc};
            overflow = 1;
            if (rt_reserve(&acks, sizeof a) != 0)
                shmemi_fatal(rt_routine, "out of memory for an overflow acknowledgement");
            memcpy(acks.p + acks.len, &a, sizeof a);
            acks.len += sizeof a;
        }
    }
    /* 7. did anyone overflow? */
    uint64_t any = 0;
    MPI_Request req;
    int mrc = MPI_Iallreduce(&overflow, &any, 1, MPI_UINT64_T, MPI_MAX, q->comm, &req);
    if (mrc == MPI_SUCCESS)
        mrc = shmemi_wait_request(&req);
    if (mrc != MPI_SUCCESS) {
        free(acks.p);
        dq_unlock(q);
        return shmemi_queue_mpi_err(rt_routine, "MPI_Iallreduce", mrc);
    }
    /* 8. everything sent left; acknowledgements put rejected tails back */
    for (int d = 0; d < P; d++)
        h->out_len[d] = 0;
    uint64_t rejected = 0;
    q->stats.bursts += 2;
    if (any) {
        q->stats.bursts += 2;
        rc1 = rt_route_acks(q, &acks, &rejected);
    }
    free(acks.p);
    q->stats.bytes += sent - rejected;
    q->stats.flushes++;
    shmemi_qtraffic_flushed(&q->tr, q->tr.msgs, q->stats.bytes);
    h->any_from = 0;
    q->last_rc = any ? SHMEM_QUEUE_ERR_OVERFLOW : 0;
    dq_unlock(q);
    return rc1;
}

void shmemi_queue_data_route_usage(const struct shmemi_dataq *q, uint64_t *buffers,
                                   uint64_t *buffer_bytes, uint64_t *scratch)
{
    const struct shmemi_dq_route *rt = q->rt;
    uint64_t b = 0, s = 0;
    for (int l = 0; l < rt->n; l++)
        b += rt->porter[l].cap;
    for (int i = 0; i < 4; i++)
        s += rt->st[i].cap;
    for (int p = 0; p < q->h.npes; p++)
        s += rt->in_cap[p];
    *buffers = (uint64_t)rt->n;
    *buffer_bytes = b;
    *scratch = s;
}
