/*
 * dq_route.c: the data queue's routed mode (dq_route.h; docs/data_queues.md, "Routed
 * mode"): grouping the team by node at create, the push into porter buffers, and the
 * two- or three-hop flush.
 *
 * A flush (blocking, collective over the team):
 *   1. compact the per-source FIFOs (free those popped empty; dq_route_in.c);
 *   2. pack: per porter l, one record {to d, from me, bytes} + payload per destination
 *      d it serves that has data, in the order they were first pushed to (the porter
 *      buffers' runs are copied to their record, in push order); the counts are known
 *      from the destination table first, so a collective hop sends them while packing;
 *   3. hop 1 on the node communicator (dq_route_hop.c: point to point, or collective);
 *   4. the porter sorts what arrived by the destination's node (stable: per-pair order
 *      holds) and 5. hop 2 does the same on the column communicator (three hops: on
 *      the cross communicator, then 4 and 5 again by local rank on the node);
 *   6. the receiver appends each record to its source's FIFO, at most up to the
 *      logical room; what does not fit is noted as an acknowledgement;
 *   7. MPI_Iallreduce(MAX) of "someone overflowed" on the queue's communicator, only
 *      when some PE held unpopped data at the start (the hops' flag bit says so);
 *   8. only then, if so: the acknowledgements go back to their senders (records to
 *      them, routed as any record), who
 *      keep the rejected tail of each destination's data outgoing, in order.
 */
#include "dq_route.h"
#include <limits.h>

static const char *const rt_routine = "shmem_queue_global_flush";

/* ---- sizes (the model reads the same functions) ---- */

static int rt_k(int npes, int n, int hops)
{
    return hops == 3 ? dq_plan_k3(npes, n) : dq_plan_k(npes, n);
}

/* One hop's per-peer arrays: the collective exchange's counts and displacements, or the
 * point-to-point one's requests and matched messages (dq_route_hop.c). */
static size_t rt_vbuf_bytes(int k)
{
#if MPI_VERSION >= 4
    size_t coll = 2 * (size_t)k * (sizeof(MPI_Count) + sizeof(MPI_Aint));
#else
    size_t coll = 4 * (size_t)k * sizeof(int);
#endif
    size_t p2p = (size_t)k * (2 * sizeof(MPI_Request) + sizeof(MPI_Message));
    return coll > p2p ? coll : p2p;
}

uint64_t shmemi_queue_data_route_meta(int npes, int n, int hops)
{
    uint64_t k = (uint64_t)rt_k(npes, n, hops);
    /* nothing per PE (the grid of a node-major team is the identity; the destination
     * table and the source list follow the traffic: scratch). per porter: its buffer
     * header and last-run offset. per hop peer: 3 counts and the MPI call's arrays. */
    return sizeof(struct shmemi_dataq) + sizeof(struct shmemi_dq_route) +
           (uint64_t)n * (sizeof(struct shmemq_dataq_rbuf) + sizeof(size_t)) +
           3 * k * sizeof(uint64_t) + rt_vbuf_bytes((int)k);
}

/* The peers a routed PE can send to: the n of its node and the P/n of its column, or
 * (3 hops) at most ceil(P/n / n) cross peers (this PE may be in both; rt_count_hop
 * numbers them). */
static int rt_track_peers(int npes, int n, int hops)
{
    int nn = npes / n;
    return n + (hops == 3 ? (nn + n - 1) / n : nn);
}

uint64_t shmemi_queue_data_route_track(int npes, int n, int hops)
{
    return (uint64_t)rt_track_peers(npes, n, hops) * sizeof(uint32_t);
}

size_t shmemi_queue_data_route_proom(int npes, int n, int hops)
{
    /* as the direct default, with the peers of every hop (n + P/n; 3 hops: n + P/n^2 +
     * n): the porter buffers and a flush's share of the staging fill about one L2 */
    return shmemi_queue_data_default_room(1, rt_track_peers(npes, n, hops) +
                                                 (hops == 3 ? n : 0));
}

/* The porter (local rank on this node) that serves destination d. */
static inline int rt_porter(const struct shmemi_dq_route *rt, uint32_t d)
{
    int g = dq_rt_grid(rt, (int)d);
    return rt->nh == 3 ? dq_plan_group3(g, rt->n, 0) : dq_plan_porter(g, rt->n);
}

/* ---- buffers ---- */

static inline int rt_reserve(struct shmemq_dataq_rbuf *b, size_t extra)
{
    if (SHMEMI_LIKELY(extra <= b->cap - b->len)) /* the push path: no call */
        return 0;
    return shmemi_queue_data_route_reserve(b, extra);
}

/* ---- the destination table: an open-addressing hash (linear probing) onto the dense
 * entries, so a porter run names its entry and a flush never hashes (the lookup,
 * dq_rt_find, is in dq_route.h for the inline push) ---- */

static void rt_slot_put(struct shmemi_dq_route *rt, uint32_t d, uint32_t i)
{
    uint32_t h = shmemq_dataq_rhash(d, rt->h.mask);
    while (rt->h.slot[h])
        h = (h + 1) & rt->h.mask;
    rt->h.slot[h] = (uint64_t)(d + 1) << 32 | i;
}

/* Slots for the entries there are (at most half full), every entry put again. */
static int rt_rehash(struct shmemi_dq_route *rt, uint32_t nslots)
{
    uint64_t *s = calloc(nslots, sizeof *s);
    if (s == NULL)
        return -1;
    free(rt->h.slot);
    rt->h.slot = s;
    rt->h.mask = nslots - 1;
    for (uint32_t i = 0; i < rt->nent; i++)
        rt_slot_put(rt, rt->h.ent[i].d, i);
    return 0;
}

/* A new entry for d (not in the table): its index, or UINT32_MAX without memory. */
static uint32_t rt_insert(struct shmemi_dq_route *rt, uint32_t d)
{
    if (rt->nent == rt->entcap) {
        /* small at first (a PE that sends to few holds little), doubling */
        uint32_t c = rt->entcap ? 2 * rt->entcap : 2;
        struct shmemq_dataq_rent *e = realloc(rt->h.ent, (size_t)c * sizeof *e);
        if (e == NULL)
            return UINT32_MAX;
        rt->h.ent = e;
        rt->entcap = c;
    }
    uint32_t nslots = rt->h.slot ? rt->h.mask + 1 : 0;
    if (2 * (uint64_t)(rt->nent + 1) > nslots &&
        rt_rehash(rt, nslots ? 2 * nslots : 4) != 0)
        return UINT32_MAX;
    uint32_t i = rt->nent++;
    uint32_t l = (uint32_t)rt_porter(rt, d);
    rt->h.ent[i] = (struct shmemq_dataq_rent){d, l, 0, 0};
    rt_slot_put(rt, d, i);
    return i;
}

/* Empty the table (a flush sent everything): only the used slots are cleared, so a
 * table grown once costs a flush what that flush touched. */
static void rt_table_clear(struct shmemi_dq_route *rt)
{
    for (uint32_t i = 0; i < rt->nent; i++) {
        uint32_t h = shmemq_dataq_rhash(rt->h.ent[i].d, rt->h.mask);
        while ((uint32_t)rt->h.slot[h] != i || rt->h.slot[h] == 0)
            h = (h + 1) & rt->h.mask; /* i is there: walk past the cleared ones */
        rt->h.slot[h] = 0;
    }
    rt->nent = 0;
    rt->h.out_total = 0;
    rt->h.last_d = UINT32_MAX;
}

/* New runs of at most 4 GiB - 1 each for `bytes`: the push path's fallback, and a flush
 * keeping data outgoing (each entry once, after the porter buffers were emptied, so no
 * run to extend). */
static int rt_append_runs(struct shmemi_dq_route *rt, int l, uint32_t i, const char *s,
                          size_t bytes)
{
    struct shmemq_dataq_rbuf *b = &rt->h.porter[l];
    if (rt_reserve(b, dq_plan_run_bytes(bytes)) != 0)
        return -1;
    while (bytes) {
        struct dq_run r = {i, bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes};
        rt->h.plast[l] = b->len;
        memcpy(b->p + b->len, &r, sizeof r);
        memcpy(b->p + b->len + sizeof r, s, r.bytes);
        b->len += sizeof r + r.bytes;
        s += r.bytes;
        bytes -= r.bytes;
    }
    return 0;
}

/* Append `bytes` for entry i to the buffer of porter l (shmemq_dataq_rappend), growing
 * it first when it must: 0, or -1 (nothing changed) without memory. */
static int rt_append(struct shmemi_dq_route *rt, uint32_t l, uint32_t i, const char *s,
                     size_t bytes)
{
    if (SHMEMI_UNLIKELY(bytes >= UINT32_MAX))
        return rt_append_runs(rt, (int)l, i, s, bytes);
    if (shmemq_dataq_rappend(&rt->h, l, i, s, bytes) == 0)
        return 0;
    /* room for a new run: an extension fits too */
    if (rt_reserve(&rt->h.porter[l], dq_plan_run_bytes(bytes)) != 0)
        return -1;
    return shmemq_dataq_rappend(&rt->h, l, i, s, bytes) == 0 ? 0 : -1;
}

int shmemi_queue_data_route_push_slow(struct shmemi_dataq *q, const void *src, size_t bytes,
                                      int pe, uint32_t i)
{
    struct shmemi_dq_route *rt = q->rt;
    uint32_t d = (uint32_t)pe;
    if (i == UINT32_MAX && (i = rt_insert(rt, d)) == UINT32_MAX)
        return SHMEM_QUEUE_ERR_NOMEM;
    if (rt_append(rt, rt->h.ent[i].porter, i, (const char *)src, bytes) != 0)
        return SHMEM_QUEUE_ERR_NOMEM; /* an entry of 0 bytes stays: it sends nothing */
    shmemq_dataq_rpushed(&rt->h, d, i, bytes);
    return 0;
}

void shmemi_queue_data_route_sizes(const struct shmemi_dataq *q, int pe, size_t *in,
                                   size_t *out)
{
    const struct shmemi_dq_route *rt = q->rt;
    *in = shmemi_queue_data_route_in_len(rt, pe);
    if (pe == SHMEM_QUEUE_ANY_PE) {
        *out = rt->h.out_total;
    } else {
        uint32_t i = dq_rt_find(rt, (uint32_t)pe);
        *out = i == UINT32_MAX ? 0 : rt->h.ent[i].len;
    }
}

/* ---- create and destroy ---- */

int shmemi_queue_data_route_test_nodes;
int shmemi_queue_data_route_test_coll;

/* This PE's node, named by the world rank of its node's first PE (tests: see
 * shmemi_queue_data_route_test_nodes). */
static int rt_node_key(int team_pe)
{
    int m = shmemi_queue_data_route_test_nodes;
    if (m > 0)
        return m - 1 - team_pe % m;
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
 * n, or 0 when the nodes differ in size; fills grid (P) unless NULL. */
static int rt_group(const int *keys, int npes, uint64_t *tmp, int *grid)
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
        if (grid)
            grid[(int)(uint32_t)tmp[g]] = g;
    }
    return n;
}

static void rt_free(struct shmemi_dq_route *rt, int npes)
{
    if (rt == NULL)
        return;
    if (rt->h.porter) /* grown buffers are kept for the next routed queue (dq_bufcache.c) */
        for (int l = 0; l < rt->n; l++)
            shmemi_queue_data_rbuf_give(rt->h.porter[l].p, rt->h.porter[l].cap);
    for (size_t i = 0; i < sizeof rt->st / sizeof rt->st[0]; i++)
        shmemi_queue_data_rbuf_give(rt->st[i].p, rt->st[i].cap);
    free(rt->h.porter), free(rt->h.plast), free(rt->grid);
    free(rt->h.ent), free(rt->h.slot), free(rt->cnt), free(rt->vbuf);
    shmemi_queue_data_route_in_free(rt);
    if (rt->nodec != MPI_COMM_NULL)
        MPI_Comm_free(&rt->nodec);
    if (rt->colc != MPI_COMM_NULL)
        MPI_Comm_free(&rt->colc);
    if (rt->crossc != MPI_COMM_NULL)
        MPI_Comm_free(&rt->crossc);
    (void)npes;
    free(rt);
}

void shmemi_queue_data_route_free(struct shmemi_dataq *q)
{
    if (q->rt == NULL)
        return;
    rt_free(q->rt, q->h.npes);
    q->rt = NULL;
}

int shmemi_queue_data_route_test_auto_pes;

int shmemi_queue_data_route_auto(int npes, int n)
{
    int from = shmemi_queue_data_route_test_auto_pes > 0 ? shmemi_queue_data_route_test_auto_pes
                                                          : SHMEMI_DATAQ_ROUTE_AUTO_PES;
    if (npes < from)
        return 0;
    return n == 0 || (n >= 2 && npes / n >= 2);
}

int shmemi_queue_data_route_auto_hops(int npes, int n)
{
    return npes / n > n ? 3 : 2;
}

int shmemi_queue_data_route_setup(struct shmemi_dataq *q, shmem_team_t team, size_t maxroom,
                                  int hops, int auto_mode, int *uneven)
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
        mrc = MPI_Allgather((int[]){rt_node_key(team->my_pe)}, 1, MPI_INT, keys, 1, MPI_INT,
                            q->comm);
    if (mrc != MPI_SUCCESS || !all) {
        free(keys), free(tmp);
        return mrc != MPI_SUCCESS ? shmemi_queue_mpi_err(routine, "MPI_Allgather", mrc)
                                  : SHMEM_QUEUE_ERR_NOMEM;
    }
    struct shmemi_dq_route *rt = calloc(1, sizeof *rt);
    int rc = 0;
    if (rt) {
        rt->nodec = rt->colc = rt->crossc = MPI_COMM_NULL;
        rt->grid = malloc(P * sizeof(int)); /* freed below when it is the identity */
    }
    /* every PE decides the same from the same keys, memory or not */
    int have_grid = rt && rt->grid;
    int n = rt_group(keys, npes, tmp, have_grid ? rt->grid : NULL);
    free(tmp);
    if (n == 0 || (auto_mode && !shmemi_queue_data_route_auto(npes, n))) {
        /* the same on every PE: all saw the same keys */
        free(keys);
        rt_free(rt, npes);
        *uneven = auto_mode ? 3 : 1;
        return 0;
    }
    free(keys);
    if (auto_mode)
        hops = shmemi_queue_data_route_auto_hops(npes, n);
    /* no memory for the grid here: this PE still joins both splits (color
     * MPI_UNDEFINED) so no PE waits, and reports NOMEM */
    if (!have_grid)
        n = -1;
    int g = n > 0 ? rt->grid[team->my_pe] : -1;
    int node = n > 0 ? dq_plan_node(g, n) : MPI_UNDEFINED;
    int lr = n > 0 ? dq_plan_lr(g, n) : MPI_UNDEFINED;
    MPI_Comm nodec = MPI_COMM_NULL, colc = MPI_COMM_NULL;
    mrc = MPI_Comm_split(q->comm, node, lr, &nodec);
    if (mrc == MPI_SUCCESS && hops == 3) {
        /* the cross communicator of the pair {x, y} = {node mod n, lr}: class (x, y)
         * (x <= y) first, then class (y, x), each by node; a PE's cross peers are the
         * other class (its own when x == y), so each node of the peers' class b mod n
         * == lr sits at rank base + b / n */
        int x = n > 0 ? node % n : 0, lo = x < lr ? x : lr, hi = x < lr ? lr : x;
        int color = n > 0 ? lo * n + hi : MPI_UNDEFINED;
        int nn = n > 0 ? npes / n : 0;
        mrc = MPI_Comm_split(q->comm, color, (x == lo && lr == hi ? 0 : nn) + node, &colc);
        if (n > 0) {
            rt->xnp = dq_plan_cross_np(nn, n, lr);
            rt->xbase = x < lr ? dq_plan_cross_np(nn, n, x) : 0;
            rt->xself = x == lr ? node / n : -1;
        }
    } else if (mrc == MPI_SUCCESS) {
        mrc = MPI_Comm_split(q->comm, lr, node, &colc);
    }
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
    if (hops == 3)
        rt->crossc = colc;
    else
        rt->colc = colc;
    rt->nh = hops;
    rt->n = n;
    rt->nnodes = npes / n;
    rt->node = node;
    rt->lr = lr;
    rt->k = rt_k(npes, n, hops);
    rt->proom = shmemi_queue_data_route_proom(npes, n, hops);
    /* What one PE sends or receives in one hop is at most P records of a room and a
     * header (hop 1: its own data; at a porter: n senders x P/n destinations); the same
     * on every PE (maxroom is agreed), so all pick the same call. */
    rt->int_counts = (size_t)INT_MAX / P > sizeof(struct dq_rec) &&
                     maxroom <= (size_t)INT_MAX / P - sizeof(struct dq_rec);
    for (int h = 0; h < 3; h++) /* cross: the largest cross hop's, alike on every PE */
        rt->p2p[h] = rt->int_counts && !(shmemi_queue_data_route_test_coll >> (h > 0) & 1) &&
                     dq_plan_hop_p2p(h == DQ_HOP_NODE     ? n
                                     : h == DQ_HOP_COLUMN ? rt->nnodes
                                                          : dq_plan_cross_np(rt->nnodes, n, 0));
    /* a node-major team (grid[p] == p) needs no table: the usual case, and the model's */
    int identity = 1;
    for (int p = 0; p < npes && identity; p++)
        identity = rt->grid[p] == p;
    if (identity) {
        free(rt->grid);
        rt->grid = NULL;
    }
    rt->h.last_d = UINT32_MAX;
    rt->h.porter = calloc((size_t)n, sizeof *rt->h.porter);
    rt->h.plast = malloc((size_t)n * sizeof *rt->h.plast);
    rt->cnt = calloc(3 * (size_t)rt->k, sizeof(uint64_t));
    rt->vbuf = calloc(1, rt_vbuf_bytes(rt->k));
    int ok = rt->h.porter && rt->h.plast && rt->cnt && rt->vbuf;
    for (int l = 0; ok && l < n; l++) { /* the model's size: kept buffers serve growth */
        rt->h.plast[l] = DQ_RT_NONE;
        rt->h.porter[l].p = malloc(rt->proom);
        rt->h.porter[l].cap = rt->proom;
        ok = rt->h.porter[l].p != NULL;
    }
    q->rt = rt;
    if (!ok) {
        shmemi_queue_data_route_free(q);
        return SHMEM_QUEUE_ERR_NOMEM;
    }
    return 0;
}

/* ---- the flush ---- */

/* Hop h of a route (0 .. nh - 1): the communicator it runs on, its peers, and the peer
 * a record for grid position g goes to. Two hops: the node (to the porter, g's local
 * rank), then the column (g's node). Three: the node (the porter serving g's node),
 * the cross peers (g's node), the node (g's local rank); dq_plan.h. */
static int rt_hop_kind(const struct shmemi_dq_route *rt, int h)
{
    return h == 0 ? DQ_HOP_NODE : rt->nh == 2 ? DQ_HOP_COLUMN : h == 1 ? DQ_HOP_CROSS : DQ_HOP_NODE;
}

static int rt_hop_np(const struct shmemi_dq_route *rt, int h)
{
    int kind = rt_hop_kind(rt, h);
    return kind == DQ_HOP_NODE ? rt->n : kind == DQ_HOP_COLUMN ? rt->nnodes : rt->xnp;
}

static inline int rt_hop_group(const struct shmemi_dq_route *rt, int g, int h)
{
    return rt->nh == 3 ? dq_plan_group3(g, rt->n, h) : dq_plan_group(g, rt->n, h == 1);
}

/* Sort the records of `in` by their `to`'s peer in hop h into `out`, keeping their order
 * within each group; cnt: the hop's counts out. */
static void rt_bucket(struct shmemi_dq_route *rt, const struct shmemq_dataq_rbuf *in, int h,
                      int payload, struct shmemq_dataq_rbuf *out, uint64_t *cnt)
{
    uint64_t *off = rt->cnt + 2 * (size_t)rt->k;
    const int groups = rt_hop_np(rt, h);
    for (int i = 0; i < groups; i++)
        cnt[i] = 0;
    struct dq_rec r;
    for (size_t o = 0; o < in->len; o += sizeof r + (payload ? r.bytes : 0)) {
        memcpy(&r, in->p + o, sizeof r);
        cnt[rt_hop_group(rt, dq_rt_grid(rt, (int)r.to), h)] +=
            sizeof r + (payload ? r.bytes : 0);
    }
    uint64_t sum = 0;
    for (int i = 0; i < groups; i++)
        off[i] = sum, sum += cnt[i];
    out->len = 0;
    shmemi_queue_data_route_reserve_or_die(out, sum);
    out->len = sum;
    for (size_t o = 0; o < in->len;) {
        memcpy(&r, in->p + o, sizeof r);
        size_t len = sizeof r + (payload ? r.bytes : 0);
        int i = rt_hop_group(rt, dq_rt_grid(rt, (int)r.to), h);
        memcpy(out->p + off[i], in->p + o, len);
        off[i] += len;
        o += len;
    }
}

/* Count hop h's messages and peers (queue_usage.h): peer i of the node, column or
 * cross peers, numbered for the peer tracking as i (node) or n + i (the others; this
 * PE among them numbered lr as in the node), so the tracking array holds
 * rt_track_peers marks, not P. */
static void rt_count_hop(struct shmemi_dataq *q, const uint64_t *sc, int h)
{
    struct shmemi_dq_route *rt = q->rt;
    int ntrack = rt_track_peers(q->h.npes, rt->n, rt->nh), np = rt_hop_np(rt, h);
    int kind = rt_hop_kind(rt, h), self = kind == DQ_HOP_COLUMN ? rt->node : rt->xself;
    for (int i = 0; i < np; i++) {
        if (!sc[i])
            continue;
        q->tr.msgs++;
        shmemi_qtraffic_sent(&q->tr, ntrack,
                             kind == DQ_HOP_NODE ? i : i == self ? rt->lr : rt->n + i);
    }
}

/* Put `keep` bytes of entry i's data of this flush (at s: its record's tail) back into
 * its porter buffer; its len (0 here) becomes keep. */
static void rt_keep(struct shmemi_dataq *q, uint32_t i, const char *s, size_t keep)
{
    struct shmemi_dq_route *rt = q->rt;
    struct shmemq_dataq_rent *e = &rt->h.ent[i];
    int l = rt_porter(rt, e->d);
    if (rt_append_runs(rt, l, i, s, keep) != 0)
        shmemi_fatal(rt_routine, "out of memory keeping %zu bytes outgoing", keep);
    e->len = keep;
    rt->h.out_total += keep;
}

/* After an overflow flush: only the entries kept outgoing stay, renumbered, and the
 * porter runs (all of kept data) name the new numbers. */
static void rt_table_compact(struct shmemi_dq_route *rt)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < rt->nent; i++)
        rt->h.ent[i].cur = rt->h.ent[i].len ? m++ : UINT32_MAX; /* cur: the new number */
    for (int l = 0; l < rt->n; l++) {
        struct shmemq_dataq_rbuf *b = &rt->h.porter[l];
        struct dq_run r;
        for (size_t o = 0; o < b->len; o += sizeof r + r.bytes) {
            memcpy(&r, b->p + o, sizeof r);
            r.dst = (uint32_t)rt->h.ent[r.dst].cur;
            memcpy(b->p + o, &r, sizeof r);
        }
    }
    m = 0;
    for (uint32_t i = 0; i < rt->nent; i++)
        if (rt->h.ent[i].len)
            rt->h.ent[m++] = rt->h.ent[i];
    rt->nent = m;
    memset(rt->h.slot, 0, ((size_t)rt->h.mask + 1) * sizeof *rt->h.slot);
    for (uint32_t i = 0; i < m; i++)
        rt_slot_put(rt, rt->h.ent[i].d, i);
    rt->h.last_d = UINT32_MAX;
}

/* The acknowledgements (records to the senders, with the rejected bytes) go back as
 * records to them, along the route any record to them takes; returns the bytes rejected
 * for this PE's own data, after keeping them outgoing. */
static int rt_route_acks(struct shmemi_dataq *q, struct shmemq_dataq_rbuf *acks, uint64_t *rejected)
{
    struct shmemi_dq_route *rt = q->rt;
    uint64_t *sc = rt->cnt, *rc = rt->cnt + rt->k;
    struct shmemq_dataq_rbuf a = {0}, b = {0};
    int rc1;
    *rejected = 0;
    rc1 = 0;
    for (int h = 0; h < rt->nh && rc1 == 0; h++) {
        rt_bucket(rt, h ? &b : acks, h, 1, &a, sc);
        rt_count_hop(q, sc, h);
        rc1 = shmemi_queue_data_route_hop(rt, rt_hop_kind(rt, h), a.p, sc, 0, &b, rc, NULL);
    }
    if (rc1 == 0) {
        struct dq_rec r;
        for (size_t o = 0; o < b.len; o += sizeof r + r.bytes) {
            memcpy(&r, b.p + o, sizeof r);
            uint32_t i = dq_rt_find(rt, r.from); /* sent this flush: it is in the table */
            if (i == UINT32_MAX)
                shmemi_fatal(rt_routine, "an acknowledgement for PE %u, sent nothing",
                             (unsigned)r.from);
            rt_keep(q, i, b.p + o + sizeof r, (size_t)r.bytes);
            *rejected += r.bytes;
        }
    }
    free(a.p), free(b.p);
    return rc1;
}

/* An MPI failure in hop 1: nothing of this PE's left it; keep it all outgoing. */
static void rt_restore(struct shmemi_dataq *q)
{
    struct shmemi_dq_route *rt = q->rt;
    rt->h.out_total = 0;
    for (uint32_t i = 0; i < rt->nent; i++) {
        size_t len = rt->h.ent[i].len;
        rt->h.ent[i].len = 0;
        if (len)
            rt_keep(q, i, rt->st[0].p + rt->h.ent[i].cur - len, len);
    }
}

int shmemi_queue_data_route_flush(struct shmemi_dataq *q)
{
    struct shmemi_dq_route *rt = q->rt;
    const int n = rt->n;
    uint64_t *sc = rt->cnt, *rc = rt->cnt + rt->k, *off = rt->cnt + 2 * (size_t)rt->k;
    dq_lock(q);
    q->started++;
    /* 1. the FIFOs: popped-empty ones freed; unpopped data to the front, or, for a
     * FIFO that is a record of the last flush's staging (borrowed), to memory of its
     * own, as the staging is about to be reused */
    shmemi_queue_data_route_in_compact(q);
    /* 2. pack, porter by porter, one record per destination pushed to */
    struct shmemq_dataq_rbuf *st = rt->st;
    uint64_t sent = 0;
    for (int l = 0; l < n; l++)
        sc[l] = 0;
    for (uint32_t i = 0; i < rt->nent; i++)
        sc[rt_porter(rt, rt->h.ent[i].d)] +=
            dq_plan_rec_bytes(rt->h.ent[i].len);
    /* the counts are known before packing: send them meanwhile, flagged when this PE
     * holds unpopped data (only then can a delivery overflow here: step 7) */
    MPI_Request creq;
    int unpopped = rt->in_total != 0, team_unpopped = 0;
    int rc1 = shmemi_queue_data_route_hop_begin(rt, 0, sc, unpopped, rc, &creq);
    if (rc1) {
        dq_unlock(q);
        return rc1; /* nothing moved yet */
    }
    st[0].len = 0;
    for (int l = 0; l < n; l++) {
        shmemi_queue_data_route_reserve_or_die(&st[0], sc[l]);
        off[l] = st[0].len;
        st[0].len += sc[l];
    }
    for (uint32_t i = 0; i < rt->nent; i++) {
        struct shmemq_dataq_rent *e = &rt->h.ent[i];
        if (!e->len)
            continue;
        int l = rt_porter(rt, e->d);
        struct dq_rec r = {e->d, (uint32_t)q->me, e->len};
        memcpy(st[0].p + off[l], &r, sizeof r);
        e->cur = off[l] + sizeof r;
        off[l] += sizeof r + e->len;
        sent += e->len;
    }
    for (int l = 0; l < n; l++) {
        struct shmemq_dataq_rbuf *b = &rt->h.porter[l];
        struct dq_run r;
        for (size_t o = 0; o < b->len; o += sizeof r + r.bytes) {
            memcpy(&r, b->p + o, sizeof r);
            struct shmemq_dataq_rent *e = &rt->h.ent[r.dst];
            shmemq_dataq_copy(st[0].p + e->cur, b->p + o + sizeof r, r.bytes);
            e->cur += r.bytes; /* ends at the end of d's payload */
        }
        b->len = 0;
        rt->h.plast[l] = DQ_RT_NONE;
    }
    /* 3. hop 1 */
    rt_count_hop(q, sc, 0);
    rc1 = shmemi_queue_data_route_hop_end(rt, DQ_HOP_NODE, st[0].p, sc, unpopped, &st[1], rc,
                                          &creq, &team_unpopped);
    if (rc1) {
        rt_restore(q);
        dq_unlock(q);
        return rc1;
    }
    /* 4, 5. the porter sorts what arrived by the next hop's peers (into st[0], sent) and
     * the hop moves it (into st[1]); three hops: twice. The flag ORs on: after the last
     * hop every PE holds it over the team */
    for (int h = 1; h < rt->nh; h++) {
        int f = team_unpopped;
        rt_bucket(rt, &st[1], h, 1, &st[0], sc);
        rt_count_hop(q, sc, h);
        if ((rc1 = shmemi_queue_data_route_hop(rt, rt_hop_kind(rt, h), st[0].p, sc, f, &st[1], rc,
                                               &team_unpopped)) != 0) {
            dq_unlock(q);
            return rc1;
        }
    }
    /* 6. deliver up to the logical room per source; note what did not fit */
    struct shmemq_dataq_rbuf acks = {0};
    uint64_t overflow = (uint64_t)shmemi_queue_data_route_in_deliver(q, &acks);
    /* 7. did anyone overflow? Only a PE that held unpopped data can (a sender's data for
     * one destination never exceeds the logical room), and hop 2's flags say whether any
     * did: every PE of the team sees the same answer, so all skip the reduction or none */
    uint64_t any = 0;
    int mrc = MPI_SUCCESS;
    if (team_unpopped) {
        MPI_Request req;
        mrc = MPI_Iallreduce(&overflow, &any, 1, MPI_UINT64_T, MPI_MAX, q->comm, &req);
        if (mrc == MPI_SUCCESS)
            mrc = shmemi_wait_request(&req);
    } else {
        rt->agree_skipped++;
        if (overflow) /* the rule above broken: a bug, never lose data quietly */
            shmemi_fatal(rt_routine, "a routed flush overflowed with no unpopped data");
    }
    if (mrc != MPI_SUCCESS) {
        free(acks.p);
        dq_unlock(q);
        return shmemi_queue_mpi_err(rt_routine, "MPI_Iallreduce", mrc);
    }
    /* 8. everything sent left; acknowledgements put rejected tails back */
    uint64_t rejected = 0;
    q->stats.bursts += (uint64_t)rt->nh;
    if (any) {
        for (uint32_t i = 0; i < rt->nent; i++)
            rt->h.ent[i].len = 0;
        rt->h.out_total = 0;
        q->stats.bursts += (uint64_t)rt->nh;
        rc1 = rt_route_acks(q, &acks, &rejected);
        rt_table_compact(rt);
    } else {
        rt_table_clear(rt);
    }
    free(acks.p);
    q->stats.bytes += sent - rejected;
    q->stats.flushes++;
    shmemi_qtraffic_flushed(&q->tr, q->tr.msgs, q->stats.bytes);
    q->last_rc = any ? SHMEM_QUEUE_ERR_OVERFLOW : 0;
    dq_unlock(q);
    return rc1;
}

void shmemi_queue_data_route_usage(const struct shmemi_dataq *q, uint64_t *meta,
                                   uint64_t *buffers, uint64_t *buffer_bytes, uint64_t *scratch)
{
    const struct shmemi_dq_route *rt = q->rt;
    uint64_t b = 0, s = 0;
    for (int l = 0; l < rt->n; l++)
        b += rt->h.porter[l].cap;
    for (size_t i = 0; i < sizeof rt->st / sizeof rt->st[0]; i++)
        s += rt->st[i].cap;
    s += (uint64_t)rt->entcap * sizeof *rt->h.ent;
    s += rt->h.slot ? ((uint64_t)rt->h.mask + 1) * sizeof *rt->h.slot : 0;
    s += shmemi_queue_data_route_in_bytes(rt);
    *meta = shmemi_queue_data_route_meta(q->h.npes, rt->n, rt->nh) +
            (rt->grid ? (uint64_t)q->h.npes * sizeof *rt->grid : 0);
    *buffers = (uint64_t)rt->n;
    *buffer_bytes = b;
    *scratch = s;
}
