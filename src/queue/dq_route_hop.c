/*
 * dq_route_hop.c: one hop of a routed data-queue flush (dq_route.h; docs/data_queues.md,
 * "Routed mode"): every PE of a hop sends each of its peers one block of bytes and
 * receives one from each: the PEs of its node, of its column, or (3 hops) its cross
 * peers, which are ranks base .. base + np - 1 of the cross communicator (the other
 * residue class of the pair, this PE among them only when its class is the pair's
 * both). So every hop is symmetric: a PE hears from exactly the peers it sends to.
 *
 * Two ways to move it, chosen per hop alike on every PE at create (rt->p2p):
 *   - point to point (when every block fits an int count and the hop has at most
 *     DQ_PLAN_HOP_P2P_MAX PEs, dq_plan.h): one MPI_Isend per peer, empty ones
 *     included, so each receiver knows it gets exactly one message from every peer; it
 *     finds their sizes with MPI_Improbe, lays them out in peer order and takes them
 *     with MPI_Imrecv. No count exchange: a hop is one synchronising step, not two (a
 *     count MPI_Ialltoall, then the data's MPI_Ialltoallv), one latency less per hop
 *     on a network (on 16 PEs time-sliced on 2 cores no change in speed showed).
 *   - collective: the counts by MPI_Ialltoall (started early by the caller, overlapping
 *     its packing), then MPI_Ialltoallv, or MPI_Ialltoallv_c when a block may exceed an
 *     int (int_counts 0; MPI 4 only, else the queue was made direct). A hop with many
 *     peers goes this way: its log2 np rounds cost less than a message to every peer.
 * Messages of successive hops on one communicator cannot mix: every PE makes the same
 * sequence of hops, MPI keeps the order of messages from one source, and a receiver
 * probes each source by name. Each count carries one flag bit (RT_FLAG), ORed over the
 * hop's PEs (*flags), that a flush uses to learn whether any PE held unpopped data; in
 * point-to-point mode it is the message's tag instead.
 */
#include "dq_route.h"

static const char *const hop_routine = "shmem_queue_global_flush";

#define RT_FLAG ((uint64_t)1 << 63)
#define RT_TAG 1 /* RT_TAG + 1: the sender's flag is set */

/* b holds exactly `bytes` (its old contents are not kept). */
static void hop_resize(struct shmemq_dataq_rbuf *b, size_t bytes)
{
    b->len = 0;
    shmemi_queue_data_route_reserve_or_die(b, bytes);
    b->len = bytes;
}

/* The hop's communicator and peers: np of them, ranks base .. base + np - 1, this PE
 * peer self (-1: not among them). */
struct hop_peers {
    MPI_Comm c;
    int np, self, base;
};

static struct hop_peers hop_comm(const struct shmemi_dq_route *rt, int kind)
{
    if (kind == DQ_HOP_NODE)
        return (struct hop_peers){rt->nodec, rt->n, rt->lr, 0};
    if (kind == DQ_HOP_COLUMN)
        return (struct hop_peers){rt->colc, rt->nnodes, rt->node, 0};
    return (struct hop_peers){rt->crossc, rt->xnp, rt->xself, rt->xbase};
}

/* The per-peer arrays of a point-to-point hop live in vbuf (rt_vbuf_bytes makes room). */
struct hop_p2p {
    MPI_Request *sreq, *rreq;
    MPI_Message *msg;
};

static struct hop_p2p hop_arrays(struct shmemi_dq_route *rt)
{
    struct hop_p2p a;
    a.sreq = (MPI_Request *)rt->vbuf;
    a.rreq = a.sreq + rt->k;
    a.msg = (MPI_Message *)(void *)(a.rreq + rt->k);
    return a;
}

static int hop_err(const char *call, int mrc)
{
    return shmemi_queue_mpi_err(hop_routine, call, mrc);
}

static int hop_p2p(struct shmemi_dq_route *rt, int kind, const char *sbuf, const uint64_t *sc,
                   int flag, struct shmemq_dataq_rbuf *rb, uint64_t *rc, int *flags)
{
    struct hop_peers hp = hop_comm(rt, kind);
    const int np = hp.np, self = hp.self;
    struct hop_p2p a = hop_arrays(rt);
    int mrc = MPI_SUCCESS, f = flag;
    size_t self_off = 0;
    for (int i = 0; i < np; i++) {
        a.sreq[i] = a.rreq[i] = MPI_REQUEST_NULL;
        a.msg[i] = MPI_MESSAGE_NULL;
        rc[i] = RT_FLAG; /* not arrived yet */
    }
    /* Each PE sends to the peers after it first, then wraps round (self + 1, ..., np -
     * 1, 0, ..., self - 1): were every PE to start with peer 0, all first messages of
     * the hop would meet there. A PE not among its peers (a cross hop between two
     * classes) starts at the peer its own index names, for the same reason. */
    int first = self >= 0 ? self + 1 : (rt->node / rt->n) % (np > 0 ? np : 1);
    for (int i = 0; i < self; i++)
        self_off += sc[i];
    size_t so = 0; /* peer first's block */
    for (int i = 0; i < first && i < np; i++)
        so += sc[i];
    for (int k = first; k < first + np - (self >= 0) && mrc == MPI_SUCCESS; k++) {
        if (k == np)
            so = 0; /* round to peer 0 */
        int i = k < np ? k : k - np;
        /* int_counts: every block fits */
        mrc = MPI_Isend(sbuf + so, (int)sc[i], MPI_BYTE, hp.base + i, RT_TAG + (flag != 0),
                        hp.c, &a.sreq[i]);
        so += sc[i];
    }
    if (mrc != MPI_SUCCESS)
        return hop_err("MPI_Isend", mrc); /* a failed MPI: the flush ends the queue */
    if (self >= 0)
        rc[self] = sc[self];
    /* every peer's message, probed by name (see above); waits as shmemi_wait_request does */
    int left = np - (self >= 0);
    for (unsigned spins = 0; left > 0; spins++) {
        int got = 0;
        for (int i = 0; i < np && mrc == MPI_SUCCESS; i++) {
            if (rc[i] != RT_FLAG)
                continue;
            int found = 0, cnt = 0;
            MPI_Status st;
            mrc = MPI_Improbe(hp.base + i, MPI_ANY_TAG, hp.c, &found, &a.msg[i], &st);
            if (mrc != MPI_SUCCESS || !found)
                continue;
            mrc = MPI_Get_count(&st, MPI_BYTE, &cnt);
            rc[i] = (uint64_t)cnt;
            f |= st.MPI_TAG == RT_TAG + 1;
            left--, got++;
        }
        if (mrc != MPI_SUCCESS)
            return hop_err("MPI_Improbe", mrc);
        if (left > 0 && !got)
            shmemi_wait_pass(spins); /* other traffic goes on; a peer may need our core */
    }
    if (flags)
        *flags = f;
    size_t tot = 0;
    for (int i = 0; i < np; i++)
        tot += rc[i];
    hop_resize(rb, tot);
    size_t ro = 0;
    for (int i = 0; i < np && mrc == MPI_SUCCESS; i++) {
        if (i == self) {
            if (sc[self]) /* rb->p and sbuf may be NULL when there is nothing */
                memcpy(rb->p + ro, sbuf + self_off, sc[self]);
        } else {
            mrc = MPI_Imrecv(rb->p + ro, (int)rc[i], MPI_BYTE, &a.msg[i], &a.rreq[i]);
        }
        ro += rc[i];
    }
    for (int i = 0; i < np && mrc == MPI_SUCCESS; i++)
        if (a.rreq[i] != MPI_REQUEST_NULL)
            mrc = shmemi_wait_request(&a.rreq[i]);
    for (int i = 0; i < np && mrc == MPI_SUCCESS; i++)
        if (a.sreq[i] != MPI_REQUEST_NULL)
            mrc = shmemi_wait_request(&a.sreq[i]);
    return mrc == MPI_SUCCESS ? 0 : hop_err("MPI_Imrecv", mrc);
}

int shmemi_queue_data_route_hop_begin(struct shmemi_dq_route *rt, int kind, const uint64_t *sc,
                                      int flag, uint64_t *rc, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    if (rt->p2p[kind])
        return 0; /* the counts travel as the messages' sizes */
    struct hop_peers hp = hop_comm(rt, kind);
    int size;
    MPI_Comm_size(hp.c, &size);
    /* over the whole communicator: a cross hop's non-peers get 0 bytes, and rc is indexed
     * by rank here and in hop_end (callers read only the blocks received) */
    uint64_t *w = (uint64_t *)rt->vbuf; /* k words at least: rt_vbuf_bytes */
    for (int r = 0; r < size; r++) {
        int i = r - hp.base;
        w[r] = (i >= 0 && i < hp.np ? sc[i] : 0) | (flag ? RT_FLAG : 0);
    }
    int mrc = MPI_Ialltoall(w, 1, MPI_UINT64_T, rc, 1, MPI_UINT64_T, hp.c, req);
    return mrc == MPI_SUCCESS ? 0 : hop_err("MPI_Ialltoall", mrc);
}

int shmemi_queue_data_route_hop_end(struct shmemi_dq_route *rt, int kind, const char *sbuf,
                                    const uint64_t *sc, int flag, struct shmemq_dataq_rbuf *rb,
                                    uint64_t *rc, MPI_Request *creq, int *flags)
{
    rt->hops[!rt->p2p[kind]]++;
    if (rt->p2p[kind])
        return hop_p2p(rt, kind, sbuf, sc, flag, rb, rc, flags);
    struct hop_peers hp = hop_comm(rt, kind);
    int np; /* here: every rank of the communicator, non-peers with 0 bytes (hop_begin) */
    MPI_Comm_size(hp.c, &np);
    MPI_Comm c = hp.c;
    MPI_Request req;
    int mrc = shmemi_wait_request(creq);
    if (mrc != MPI_SUCCESS)
        return hop_err("MPI_Ialltoall", mrc);
    size_t tot = 0;
    uint64_t f = 0;
    for (int i = 0; i < np; i++) {
        f |= rc[i];
        rc[i] &= ~RT_FLAG;
        tot += rc[i];
    }
    if (flags)
        *flags = (f & RT_FLAG) != 0;
    hop_resize(rb, tot);
    const char *call = "MPI_Ialltoallv";
    if (rt->int_counts) { /* every count and displacement fits: see int_counts */
        int *cs = (int *)rt->vbuf, *cr = cs + np, *ds = cr + np, *dr = ds + np;
        size_t so = 0, ro = 0;
        for (int i = 0; i < np; i++) {
            uint64_t si = i >= hp.base && i < hp.base + hp.np ? sc[i - hp.base] : 0;
            cs[i] = (int)si, cr[i] = (int)rc[i];
            ds[i] = (int)so, dr[i] = (int)ro;
            so += si, ro += rc[i];
        }
        mrc = MPI_Ialltoallv(sbuf, cs, ds, MPI_BYTE, rb->p, cr, dr, MPI_BYTE, c, &req);
    } else {
#if MPI_VERSION >= 4
        MPI_Count *cs = (MPI_Count *)rt->vbuf, *cr = cs + np;
        MPI_Aint *ds = (MPI_Aint *)(void *)(cr + np), *dr = ds + np;
        MPI_Aint so = 0, ro = 0;
        for (int i = 0; i < np; i++) {
            uint64_t si = i >= hp.base && i < hp.base + hp.np ? sc[i - hp.base] : 0;
            cs[i] = (MPI_Count)si, cr[i] = (MPI_Count)rc[i];
            ds[i] = so, dr[i] = ro;
            so += (MPI_Aint)si, ro += (MPI_Aint)rc[i];
        }
        mrc = MPI_Ialltoallv_c(sbuf, cs, ds, MPI_BYTE, rb->p, cr, dr, MPI_BYTE, c, &req);
        call = "MPI_Ialltoallv_c";
#else
        (void)sc, (void)flag; /* not reached: such a queue was made direct (route_setup) */
        return hop_err("MPI_Ialltoallv_c (needs MPI 4)", MPI_ERR_OTHER);
#endif
    }
    if (mrc == MPI_SUCCESS)
        mrc = shmemi_wait_request(&req);
    return mrc == MPI_SUCCESS ? 0 : hop_err(call, mrc);
}

int shmemi_queue_data_route_hop(struct shmemi_dq_route *rt, int kind, const char *sbuf,
                                const uint64_t *sc, int flag, struct shmemq_dataq_rbuf *rb,
                                uint64_t *rc, int *flags)
{
    MPI_Request creq;
    int rc1 = shmemi_queue_data_route_hop_begin(rt, kind, sc, flag, rc, &creq);
    return rc1 ? rc1 : shmemi_queue_data_route_hop_end(rt, kind, sbuf, sc, flag, rb, rc, &creq,
                                                       flags);
}
