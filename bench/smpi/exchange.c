/* bench/smpi/exchange.c: the data queue's flush exchanges as plain MPI, for
 * SimGrid SMPI (issue 23; docs/scaling.md, "Cross-check with SimGrid"). It does not
 * link shmemq: SMPI compiles its own MPI, so this is the exchanges' message pattern
 * rebuilt on MPI point-to-point calls, run on the workload of bench/simulate (bench/sim.c's
 * sim_dest: R records of E bytes per PE to uniform destinations, the same destinations
 * for the same P, n and seed) with the grid rules of src/queue/dq_plan.h. Under SMPI,
 * MPI_Wtime is simulated time, so the time of a flush is what the platform file says,
 * whatever the machine's load.
 *
 *   direct  dq_flush.c: an alltoall of 2 x uint64 per peer (the counts), then the data
 *           of every pair with bytes (Isend/Irecv; MPICH's Ialltoallv skips empty pairs)
 *           beside the overflow agreement (an allreduce started with the data);
 *   routed  dq_route.c (2hop): per hop the records ({to, from, bytes} + payload, one
 *           per destination) to the node's porters (hop 1, node communicator), then from
 *           each porter, grouped by node, along its column (hop 2); then the agreement.
 *           A hop of at most DQ_PLAN_HOP_P2P_MAX PEs sends every peer a message, empty
 *           ones included (dq_route_hop.c); a larger one first exchanges its byte
 *           counts (an alltoall) and sends only the nonempty pairs;
 *   routed3 dq_route.c with three hops (dq_plan.h, "three hops"): hop 1 to the porter
 *           of the destination node's residue (node mod n), hop 2 across to that node's
 *           PE of local rank (my node mod n) on the cross communicator of the pair
 *           {my node mod n, my local rank} (ranks and peers as dq_route.c makes them;
 *           point to point or collective by the largest cross hop's peer count, alike on
 *           every PE; collective: counts over the whole communicator, non-peers 0), hop 3
 *           on the destination's node to its local rank; each hop as routed's; then the
 *           agreement. After hops 1 and 2 each record is checked to be at the PE the
 *           rule names, and at the end as the other modes' are. Its communicator is made only when it runs, so the other modes'
 *           figures are what they were before it existed;
 *   nbx     dq_nbx.c: one MPI_Isend per destination with data, each acknowledged by
 *           its receiver (8 bytes back), and, once a PE's sends are all acknowledged,
 *           the closing allreduce, while it keeps receiving and acknowledging.
 *
 * Why not SMPI's own collectives for everything: SMPI 3.32's MPI_Ialltoallv and
 * MPI_Iallreduce post all P - 1 pairs (P^2 messages), its blocking alltoallv all pairs
 * too, where MPICH skips empty pairs and reduces by recursive doubling. So the counts
 * use MPI_Alltoall (with --cfg=smpi/coll-selector:mpich: Bruck for short blocks, as
 * MPICH and bench/simulate's model have it), the data is point to point, and the
 * allreduces are recursive doubling (below; P a power of two). -V uses MPI_Ialltoallv
 * for direct mode's data instead, to show what posting every pair costs.
 *
 * Each mode runs one flush, timed from the first PE leaving a barrier to the last PE
 * done (a flush timed after an untimed one differed by about 2%: P = 256, n = 16,
 * R = 16). Every record is checked at its destination (to, from, payload) and the totals
 * against the sum of what was sent; the program prints "exchange: all records
 * delivered" when they agree.
 *
 * usage: exchange [-m direct,routed,routed3,nbx] [-n PEs per node] [-r records] [-e bytes]
 *                 [-s seed] [-V]
 * (-m: a comma list, default direct,routed,nbx; the modes run in the order direct,
 * routed, nbx, routed3)
 * Output: one CSV line per mode (header "csv,mode,..." first):
 *   csv,mode,npes,node_pes,records,elem,seconds,msgs_mean,msgs_max,bytes_mean
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim.h"
#include "../../src/queue/dq_plan.h"

enum { TAG_DATA = 11, TAG_ACK = 12, TAG_RED = 13 };

typedef struct {
    int P, n, me, R;
    size_t E;
    uint64_t seed;
    int all_pairs;             /* -V */
    int *dest;                 /* R: destination of record i */
    MPI_Comm node, col;        /* routed: my node's PEs; my column (one PE per node) */
    MPI_Comm cross;            /* routed3: the cross communicator of my pair (dq_route.c) */
    int xnp, xbase, xself;     /* routed3: my cross peers, ranks xbase .. xbase + xnp - 1
                                  of it, me among them as xself (-1: not) */
    uint64_t msgs, bytes;      /* this PE's messages sent (all hops) and payload bytes */
    uint64_t got_bytes, bad;   /* payload bytes received, records that failed the check */
} ctx_t;

static void *xalloc(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    if (!p) {
        fprintf(stderr, "exchange: out of memory (%zu B)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Payload byte k of the data from -> to: the receiver checks it. */
static unsigned char pay(int from, int to, size_t k)
{
    return (unsigned char)(from * 31 + to * 7 + (int)k);
}

/* ---- the allreduce(MAX) of one uint64 by recursive doubling, as a state machine so
 * NBX can keep receiving while it runs (MPICH's algorithm for short allreduces) ---- */
typedef struct {
    int round, rounds, on;
    uint64_t val, in;
    MPI_Request rr, sr;
} red_t;

static void red_post(red_t *r, int me, MPI_Comm c)
{
    int peer = me ^ (1 << r->round);
    MPI_Irecv(&r->in, 1, MPI_UINT64_T, peer, TAG_RED, c, &r->rr);
    MPI_Isend(&r->val, 1, MPI_UINT64_T, peer, TAG_RED, c, &r->sr);
}

static void red_start(red_t *r, uint64_t v, int P, int me)
{
    r->val = v, r->round = 0, r->on = 1, r->rounds = 0;
    while ((1 << r->rounds) < P)
        r->rounds++;
    if (r->rounds == 0) {
        r->on = 0, r->rr = r->sr = MPI_REQUEST_NULL;
        return;
    }
    red_post(r, me, MPI_COMM_WORLD);
}

/* The round's receive completed: combine and go on; 1 when the reduction is done. */
static int red_step(red_t *r, int me)
{
    MPI_Wait(&r->sr, MPI_STATUS_IGNORE); /* val is sent before it changes */
    if (r->in > r->val)
        r->val = r->in;
    if (++r->round == r->rounds) {
        r->on = 0;
        return 1;
    }
    red_post(r, me, MPI_COMM_WORLD);
    return 0;
}

static uint64_t red_blocking(uint64_t v, int P, int me)
{
    red_t r;
    red_start(&r, v, P, me);
    while (r.on) {
        MPI_Wait(&r.rr, MPI_STATUS_IGNORE);
        red_step(&r, me);
    }
    return r.val;
}

/* The program's own reductions (times, totals) by recursive doubling too: SMPI's
 * MPI_Allreduce with the mpich selector first splits the communicator by node, which
 * took minutes of the machine's time at 2,048 ranks. max: 1 max, 0 sum. */
static void rd_all(double *v, int k, int max, int P, int me)
{
    double in[8];
    for (int b = 1; b < P; b <<= 1) {
        MPI_Sendrecv(v, k, MPI_DOUBLE, me ^ b, TAG_RED + 1, in, k, MPI_DOUBLE, me ^ b,
                     TAG_RED + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < k; i++)
            v[i] = max ? (in[i] > v[i] ? in[i] : v[i]) : v[i] + in[i];
    }
}

/* A PE's outgoing bytes per destination (P long) and, in *order, the nd destinations
 * with bytes in the order they were first pushed to. */
static uint64_t *outgoing(const ctx_t *x, int **order, int *nd)
{
    uint64_t *out = xalloc((size_t)x->P * sizeof *out);
    *order = xalloc(((size_t)x->R + 1) * sizeof **order);
    *nd = 0;
    for (int i = 0; i < x->R; i++) {
        if (!out[x->dest[i]])
            (*order)[(*nd)++] = x->dest[i];
        out[x->dest[i]] += x->E;
    }
    return out;
}

/* ---- direct (dq_flush.c) ---- */
static void flush_direct(ctx_t *x)
{
    const int P = x->P, me = x->me;
    int *order, nd;
    uint64_t *out = outgoing(x, &order, &nd);
    uint64_t *mine = xalloc(2 * (size_t)P * sizeof *mine), *peer = xalloc(2 * (size_t)P * sizeof *peer);
    size_t *sd = xalloc((size_t)P * sizeof *sd), *rd = xalloc((size_t)P * sizeof *rd);
    size_t stot = 0;
    for (int p = 0; p < P; p++) {
        mine[2 * p] = out[p];
        mine[2 * p + 1] = (uint64_t)x->R * x->E; /* free room: everything fits */
        sd[p] = stot, stot += out[p];
    }
    /* 1. the counts */
    MPI_Alltoall(mine, 2, MPI_UINT64_T, peer, 2, MPI_UINT64_T, MPI_COMM_WORLD);
    size_t rtot = 0;
    for (int p = 0; p < P; p++)
        rd[p] = rtot, rtot += peer[2 * p];
    unsigned char *sb = xalloc(stot), *rb = xalloc(rtot);
    for (int p = 0; p < P; p++)
        for (uint64_t k = 0; k < out[p]; k++)
            sb[sd[p] + k] = pay(me, p, k);
    /* 2. the agreement, started with 3. the data */
    red_t red;
    red_start(&red, 0, P, me);
    MPI_Request *rq = xalloc(2 * (size_t)P * sizeof *rq);
    MPI_Request big = MPI_REQUEST_NULL;
    int nr = 0;
    if (x->all_pairs) {
        int *v = xalloc(4 * (size_t)P * sizeof *v);
        for (int p = 0; p < P; p++) {
            int other = p != me;
            v[p] = other ? (int)out[p] : 0, v[P + p] = (int)sd[p];
            v[2 * P + p] = other ? (int)peer[2 * p] : 0, v[3 * P + p] = (int)rd[p];
        }
        MPI_Ialltoallv(sb, v, v + P, MPI_BYTE, rb, v + 2 * P, v + 3 * P, MPI_BYTE,
                       MPI_COMM_WORLD, &big);
        free(v);
    } else {
        for (int p = 0; p < P; p++)
            if (p != me && peer[2 * p])
                MPI_Irecv(rb + rd[p], (int)peer[2 * p], MPI_BYTE, p, TAG_DATA, MPI_COMM_WORLD, &rq[nr++]);
        for (int p = 0; p < P; p++)
            if (p != me && out[p])
                MPI_Isend(sb + sd[p], (int)out[p], MPI_BYTE, p, TAG_DATA, MPI_COMM_WORLD, &rq[nr++]);
    }
    while (red.on) {
        MPI_Wait(&red.rr, MPI_STATUS_IGNORE);
        red_step(&red, me);
    }
    MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    MPI_Wait(&big, MPI_STATUS_IGNORE);
    memcpy(rb + rd[me], sb + sd[me], out[me]); /* the own share */
    for (int p = 0; p < P; p++) {
        if (out[p])
            x->msgs++, x->bytes += out[p];
        for (uint64_t k = 0; k < peer[2 * p]; k++)
            x->bad += rb[rd[p] + k] != pay(p, me, k);
        x->got_bytes += peer[2 * p];
    }
    free(out), free(order), free(mine), free(peer), free(sd), free(rd), free(sb), free(rb);
    free(rq);
}

/* ---- routed (dq_route.c) ---- */
/* Records of one hop, in a buffer: {to, from, bytes} + payload each. */
static size_t rec_put(unsigned char *b, int to, int from, uint64_t len)
{
    struct dq_rec h = {(uint32_t)to, (uint32_t)from, len};
    memcpy(b, &h, sizeof h);
    for (uint64_t k = 0; k < len; k++)
        b[sizeof h + k] = pay(from, to, k);
    return sizeof h + len;
}

/* A hop's peers (dq_route_hop.c): ranks base .. base + np - 1 of communicator c, this
 * PE peer self of them (-1: not among them, which only a cross hop has). Node and
 * column hops: all of c, base 0, self the PE's rank. */
typedef struct {
    MPI_Comm c;
    int np, base, self;
} peers_t;

/* A hop of at most DQ_PLAN_HOP_P2P_MAX PEs (dq_route_hop.c): a message to every peer,
 * empty ones included, no count exchange; each source probed by name, the messages laid
 * out in peer order. */
static unsigned char *hop_p2p(ctx_t *x, peers_t hp, const unsigned char *sbuf,
                              const uint64_t *sc, uint64_t *rc, size_t *rtot)
{
    const int np = hp.np, me = hp.self;
    MPI_Request *rq = xalloc((size_t)np * sizeof *rq);
    int nr = 0;
    size_t soff = 0, my_s = 0;
    for (int p = 0; p < np; p++) {
        if (sc[p])
            x->msgs++; /* usage counts messages with data, the own share included */
        if (p == me)
            my_s = soff;
        else
            MPI_Isend(sbuf + soff, (int)sc[p], MPI_BYTE, hp.base + p, TAG_DATA, hp.c, &rq[nr++]);
        soff += sc[p];
    }
    size_t tot = 0;
    for (int p = 0; p < np; p++) {
        if (p == me) {
            rc[p] = sc[me];
        } else {
            MPI_Status st;
            int cnt = 0;
            MPI_Probe(hp.base + p, TAG_DATA, hp.c, &st);
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            rc[p] = (uint64_t)cnt;
        }
        tot += rc[p];
    }
    unsigned char *rb = xalloc(tot);
    size_t off = 0;
    for (int p = 0; p < np; p++) {
        if (p == me)
            memcpy(rb + off, sbuf + my_s, sc[me]);
        else
            MPI_Recv(rb + off, (int)rc[p], MPI_BYTE, hp.base + p, TAG_DATA, hp.c,
                     MPI_STATUS_IGNORE);
        off += rc[p];
    }
    MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    free(rq);
    *rtot = tot;
    return rb;
}

/* One hop, point to point (hop_p2p) or, when p2p is 0, counts (an alltoall over the whole
 * communicator, non-peers 0 bytes, as dq_route_hop.c's hop_begin), then the nonempty
 * pairs. sc[np] bytes to each peer from sbuf in peer order; returns the receive buffer
 * and its per-peer counts in rc (np; the collective way needs rc of c's size). */
static unsigned char *hop_peers(ctx_t *x, peers_t hp, int p2p, const unsigned char *sbuf,
                                const uint64_t *sc, uint64_t *rc, size_t *rtot)
{
    if (p2p)
        return hop_p2p(x, hp, sbuf, sc, rc, rtot);
    int np, me;
    MPI_Comm c = hp.c;
    MPI_Comm_size(c, &np);
    MPI_Comm_rank(c, &me);
    /* rank r's bytes: peer r - base's, 0 for a non-peer; the hop is symmetric, so
     * nothing comes from a non-peer either */
    uint64_t *scr = xalloc((size_t)np * sizeof *scr);
    for (int r = hp.base; r < hp.base + hp.np; r++)
        scr[r] = sc[r - hp.base];
    MPI_Alltoall(scr, 1, MPI_UINT64_T, rc, 1, MPI_UINT64_T, c);
    size_t tot = 0;
    for (int p = 0; p < np; p++)
        tot += rc[p];
    unsigned char *rb = xalloc(tot);
    MPI_Request *rq = xalloc(2 * (size_t)np * sizeof *rq);
    int nr = 0;
    size_t off = 0, soff = 0, my_r = 0, my_s = 0;
    for (int p = 0; p < np; p++) {
        if (p == me)
            my_r = off;
        else if (rc[p])
            MPI_Irecv(rb + off, (int)rc[p], MPI_BYTE, p, TAG_DATA, c, &rq[nr++]);
        off += rc[p];
    }
    for (int p = 0; p < np; p++) {
        if (scr[p])
            x->msgs++; /* usage counts the own share as a message */
        if (p == me)
            my_s = soff;
        else if (scr[p])
            MPI_Isend(sbuf + soff, (int)scr[p], MPI_BYTE, p, TAG_DATA, c, &rq[nr++]);
        soff += scr[p];
    }
    memcpy(rb + my_r, sbuf + my_s, rc[me]);
    MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    free(rq), free(scr);
    /* back to peer order: the peers' blocks are contiguous, ranks base .. base + np - 1 */
    if (hp.base || hp.np != np) {
        for (int p = 0; p < hp.np; p++)
            rc[p] = rc[hp.base + p];
    }
    *rtot = tot;
    return rb;
}

/* Hop 1's send buffer: one record per destination, in first-push order, grouped by the
 * porter of my node that serves it (two hops: dq_plan_porter; three: the destination
 * node's residue); its bytes per porter in sc (n, zeroed). */
static unsigned char *pack_porters(ctx_t *x, const uint64_t *out, const int *order, int nd,
                                   int hops, uint64_t *sc)
{
    const int n = x->n;
    size_t stot = 0;
    for (int t = 0; t < nd; t++) {
        int d = order[t];
        sc[hops == 3 ? dq_plan_group3(d, n, 0) : dq_plan_porter(d, n)] += dq_plan_rec_bytes(out[d]);
        x->bytes += out[d];
    }
    size_t *at = xalloc((size_t)n * sizeof *at);
    for (int l = 0; l < n; l++)
        at[l] = stot, stot += sc[l];
    unsigned char *sb = xalloc(stot);
    for (int t = 0; t < nd; t++) {
        int d = order[t], l = hops == 3 ? dq_plan_group3(d, n, 0) : dq_plan_porter(d, n);
        at[l] += rec_put(sb + at[l], d, x->me, out[d]);
    }
    free(at);
    return sb;
}

/* The records of a last hop's buffer b (r bytes): each must be for this PE and carry its
 * source's payload; counts what arrived. */
static void check_arrived(ctx_t *x, const unsigned char *b, size_t r)
{
    for (size_t o = 0; o < r;) {
        struct dq_rec h;
        memcpy(&h, b + o, sizeof h);
        if ((int)h.to != x->me)
            x->bad++;
        for (uint64_t k = 0; k < h.bytes; k++)
            x->bad += b[o + sizeof h + k] != pay((int)h.from, x->me, k);
        x->got_bytes += h.bytes;
        o += sizeof h + h.bytes;
    }
}
/* A hop over all of communicator c (node, column): point to point when it is small. */
static unsigned char *hop(ctx_t *x, MPI_Comm c, int np, const unsigned char *sbuf,
                          const uint64_t *sc, uint64_t *rc, size_t *rtot)
{
    int me;
    MPI_Comm_rank(c, &me);
    peers_t hp = {c, np, 0, me};
    return hop_peers(x, hp, dq_plan_hop_p2p(np), sbuf, sc, rc, rtot);
}

static void flush_routed(ctx_t *x)
{
    const int P = x->P, n = x->n, me = x->me, nn = P / n;
    const int lr = dq_plan_lr(me, n);
    /* pack: per porter, one record per destination it serves, in first-push order */
    int *order, nd;
    uint64_t *out = outgoing(x, &order, &nd);
    uint64_t *sc = xalloc((size_t)(n > nn ? n : nn) * sizeof *sc);
    uint64_t *rc = xalloc((size_t)(n > nn ? n : nn) * sizeof *rc);
    unsigned char *sb = pack_porters(x, out, order, nd, 2, sc);
    /* hop 1: to the porters of my node */
    size_t r1;
    unsigned char *b1 = hop(x, x->node, n, sb, sc, rc, &r1);
    /* the porter groups what arrived by the destination's node (stable) */
    memset(sc, 0, (size_t)nn * sizeof *sc);
    for (size_t o = 0; o < r1;) {
        struct dq_rec h;
        memcpy(&h, b1 + o, sizeof h);
        if (dq_plan_porter((int)h.to, n) != lr)
            x->bad++;
        sc[dq_plan_group((int)h.to, n, 1)] += sizeof h + h.bytes;
        o += sizeof h + h.bytes;
    }
    size_t *at2 = xalloc((size_t)nn * sizeof *at2), s2 = 0;
    for (int k = 0; k < nn; k++)
        at2[k] = s2, s2 += sc[k];
    unsigned char *sb2 = xalloc(s2);
    for (size_t o = 0; o < r1;) {
        struct dq_rec h;
        memcpy(&h, b1 + o, sizeof h);
        int k = dq_plan_group((int)h.to, n, 1);
        memcpy(sb2 + at2[k], b1 + o, sizeof h + h.bytes);
        at2[k] += sizeof h + h.bytes;
        o += sizeof h + h.bytes;
    }
    /* hop 2: along my column (rank k of it is node k's PE of my local rank) */
    size_t r2;
    unsigned char *b2 = hop(x, x->col, nn, sb2, sc, rc, &r2);
    check_arrived(x, b2, r2);
    red_blocking(0, P, me); /* the agreement */
    free(out), free(order), free(sc), free(rc), free(sb), free(b1), free(at2);
    free(sb2), free(b2);
}

/* ---- routed3 (dq_route.c with three hops; dq_plan.h, "three hops") ---- */
/* Records of buffer b (len bytes) regrouped into ng groups by dq_plan_group3(to, n,
 * hopi): returns the new buffer, its bytes per group in sc (ng). */
static unsigned char *regroup(const unsigned char *b, size_t len, int ng, int n, int hopi,
                              uint64_t *sc)
{
    memset(sc, 0, (size_t)ng * sizeof *sc);
    for (size_t o = 0; o < len;) {
        struct dq_rec r;
        memcpy(&r, b + o, sizeof r);
        sc[dq_plan_group3((int)r.to, n, hopi)] += sizeof r + r.bytes;
        o += sizeof r + r.bytes;
    }
    size_t *at = xalloc((size_t)ng * sizeof *at), s = 0;
    for (int k = 0; k < ng; k++)
        at[k] = s, s += sc[k];
    unsigned char *out = xalloc(s);
    for (size_t o = 0; o < len;) { /* stable: the order within a group is kept */
        struct dq_rec r;
        memcpy(&r, b + o, sizeof r);
        int k = dq_plan_group3((int)r.to, n, hopi);
        memcpy(out + at[k], b + o, sizeof r + r.bytes);
        at[k] += sizeof r + r.bytes;
        o += sizeof r + r.bytes;
    }
    free(at);
    return out;
}

static void flush_routed3(ctx_t *x)
{
    const int P = x->P, n = x->n, me = x->me, nn = P / n;
    const int node = dq_plan_node(me, n), lr = dq_plan_lr(me, n);
    const int k3 = dq_plan_k3(P, n);
    int *order, nd;
    uint64_t *out = outgoing(x, &order, &nd);
    uint64_t *sc = xalloc((size_t)k3 * sizeof *sc), *rc = xalloc((size_t)k3 * sizeof *rc);
    /* pack: per porter (the destination node's residue), one record per destination,
     * in first-push order */
    unsigned char *sb = pack_porters(x, out, order, nd, 3, sc);
    /* hop 1: to the porters of my node */
    size_t r1;
    unsigned char *b1 = hop(x, x->node, n, sb, sc, rc, &r1);
    for (size_t o = 0; o < r1;) {
        struct dq_rec h;
        memcpy(&h, b1 + o, sizeof h);
        x->bad += dq_plan_group3((int)h.to, n, 0) != lr || dq_plan_node((int)h.from, n) != node;
        o += sizeof h + h.bytes;
    }
    /* hop 2, the cross hop: grouped by the destination's node (peer b / n), to that
     * node's PE of local rank node mod n; point to point by the largest cross hop's
     * peer count, alike on every PE (dq_route.c) */
    peers_t xp = {x->cross, x->xnp, x->xbase, x->xself};
    unsigned char *sb2 = regroup(b1, r1, x->xnp, n, 1, sc);
    size_t r2;
    unsigned char *b2 =
        hop_peers(x, xp, dq_plan_hop_p2p(dq_plan_cross_np(nn, n, 0)), sb2, sc, rc, &r2);
    for (size_t o = 0; o < r2;) {
        struct dq_rec h;
        memcpy(&h, b2 + o, sizeof h);
        x->bad += dq_plan_node((int)h.to, n) != node || dq_plan_node((int)h.from, n) % n != lr;
        o += sizeof h + h.bytes;
    }
    /* hop 3: on my node, to the destination's local rank */
    unsigned char *sb3 = regroup(b2, r2, n, n, 2, sc);
    size_t r3;
    unsigned char *b3 = hop(x, x->node, n, sb3, sc, rc, &r3);
    check_arrived(x, b3, r3);
    red_blocking(0, P, me); /* the agreement */
    free(out), free(order), free(sc), free(rc), free(sb), free(b1), free(sb2);
    free(b2), free(sb3), free(b3);
}

/* ---- nbx (dq_nbx.c) ---- */
static void flush_nbx(ctx_t *x)
{
    const int P = x->P, me = x->me;
    int *order, nd;
    uint64_t *out = outgoing(x, &order, &nd);
    size_t stot = 0;
    for (int t = 0; t < nd; t++)
        stot += out[order[t]];
    unsigned char *sb = xalloc(stot);
    MPI_Request *sq = xalloc(((size_t)nd + 1) * sizeof *sq);
    int ns = 0, acks_left = 0;
    size_t off = 0;
    for (int t = 0; t < nd; t++) { /* one message per destination with data */
        int d = order[t];
        for (uint64_t k = 0; k < out[d]; k++)
            sb[off + k] = pay(me, d, k);
        x->msgs++, x->bytes += out[d];
        if (d == me) { /* the own share is a copy */
            for (uint64_t k = 0; k < out[d]; k++)
                x->bad += sb[off + k] != pay(me, me, k);
            x->got_bytes += out[d];
        } else {
            MPI_Isend(sb + off, (int)out[d], MPI_BYTE, d, TAG_DATA, MPI_COMM_WORLD, &sq[ns++]);
            acks_left++;
        }
        off += out[d];
    }
    /* serve: data in (acknowledged), acknowledgements in, then the reduction. A message
     * is at most R x E bytes (all records to one PE); receives are preposted from any
     * source, which is what MPI_Improbe + MPI_Imrecv amount to on the wire. */
    size_t cap = (size_t)x->R * x->E;
    unsigned char *rb = xalloc(cap);
    uint64_t ack_in = 0;
    size_t nack = 0, ackcap = 64;
    uint64_t *ackv = xalloc(ackcap * sizeof *ackv);
    MPI_Request *aq = xalloc(ackcap * sizeof *aq);
    MPI_Request w[3]; /* data receive, acknowledgement receive, reduction round */
    MPI_Irecv(rb, (int)cap, MPI_BYTE, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &w[0]);
    MPI_Irecv(&ack_in, 1, MPI_UINT64_T, MPI_ANY_SOURCE, TAG_ACK, MPI_COMM_WORLD, &w[1]);
    red_t red = {0};
    w[2] = MPI_REQUEST_NULL;
    if (acks_left == 0) {
        red_start(&red, 0, P, me);
        w[2] = red.on ? red.rr : MPI_REQUEST_NULL;
    }
    int done = P == 1;
    while (!done) {
        int i;
        MPI_Status st;
        MPI_Waitany(3, w, &i, &st);
        if (i == 0) {
            int cnt;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            int src = st.MPI_SOURCE;
            for (int k = 0; k < cnt; k++)
                x->bad += rb[k] != pay(src, me, (size_t)k);
            x->got_bytes += (uint64_t)cnt;
            if (nack == ackcap) {
                ackcap *= 2;
                ackv = realloc(ackv, ackcap * sizeof *ackv);
                aq = realloc(aq, ackcap * sizeof *aq);
                if (!ackv || !aq)
                    MPI_Abort(MPI_COMM_WORLD, 1);
            }
            ackv[nack] = (uint64_t)cnt; /* the bytes taken */
            MPI_Isend(&ackv[nack], 1, MPI_UINT64_T, src, TAG_ACK, MPI_COMM_WORLD, &aq[nack]);
            nack++;
            MPI_Irecv(rb, (int)cap, MPI_BYTE, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &w[0]);
        } else if (i == 1) {
            if (--acks_left == 0) {
                red_start(&red, 0, P, me);
                w[2] = red.rr;
            } else {
                MPI_Irecv(&ack_in, 1, MPI_UINT64_T, MPI_ANY_SOURCE, TAG_ACK, MPI_COMM_WORLD, &w[1]);
            }
        } else if (i == 2) {
            red.rr = MPI_REQUEST_NULL;
            if (red_step(&red, me))
                done = 1;
            else
                w[2] = red.rr;
        }
    }
    /* the reduction completed: every message of the flush was received and acknowledged */
    if (w[0] != MPI_REQUEST_NULL) {
        MPI_Cancel(&w[0]);
        MPI_Wait(&w[0], MPI_STATUS_IGNORE);
    }
    if (w[1] != MPI_REQUEST_NULL) {
        MPI_Cancel(&w[1]);
        MPI_Wait(&w[1], MPI_STATUS_IGNORE);
    }
    MPI_Waitall(ns, sq, MPI_STATUSES_IGNORE);
    MPI_Waitall((int)nack, aq, MPI_STATUSES_IGNORE);
    free(out), free(order), free(sb), free(sq), free(rb), free(ackv), free(aq);
}

/* Three hops' cross communicator, made only when routed3 runs (so the other modes run
 * as they did before it existed): as dq_route.c makes it, the pair {a mod n, l}, class
 * (lo, hi) first, then (hi, lo), each by node; my cross peers (the nodes b with
 * b mod n == l, their PE of local rank a mod n) are the other class. */
static void cross_setup(ctx_t *x)
{
    const int a = dq_plan_node(x->me, x->n), l = dq_plan_lr(x->me, x->n), nn = x->P / x->n;
    const int xr = a % x->n, lo = xr < l ? xr : l, hi = xr < l ? l : xr;
    MPI_Comm_split(MPI_COMM_WORLD, lo * x->n + hi, (xr == lo && l == hi ? 0 : nn) + a,
                   &x->cross);
    x->xnp = dq_plan_cross_np(nn, x->n, l);
    x->xbase = xr < l ? dq_plan_cross_np(nn, x->n, xr) : 0;
    x->xself = xr == l ? a / x->n : -1;
    /* rank xbase + i is cross peer i (dq_plan_cross_peer) */
    MPI_Group wg, cg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(x->cross, &cg);
    for (int i = 0; i < x->xnp; i++) {
        int r = x->xbase + i, w;
        MPI_Group_translate_ranks(cg, 1, &r, wg, &w);
        if (w != dq_plan_cross_peer(i, x->n, a, l)) {
            fprintf(stderr, "exchange: PE %d: cross peer %d is PE %d, not %d\n", x->me, i,
                    w, dq_plan_cross_peer(i, x->n, a, l));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);
}

static void usage(void)
{
    fprintf(stderr, "usage: exchange [-m direct,routed,routed3,nbx] [-n PEs per node] "
                    "[-r records] [-e bytes] [-s seed] [-V]\n");
}

/* Whether the comma list `list` names mode `m` (a whole word: "routed3" is not
 * "routed"). */
static int has_mode(const char *list, const char *m)
{
    size_t k = strlen(m);
    for (const char *p = list; *p;) {
        size_t w = strcspn(p, ",");
        if (w == k && !strncmp(p, m, k))
            return 1;
        p += w + (p[w] == ',');
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ctx_t x;
    memset(&x, 0, sizeof x);
    x.cross = MPI_COMM_NULL;
    MPI_Comm_size(MPI_COMM_WORLD, &x.P);
    MPI_Comm_rank(MPI_COMM_WORLD, &x.me);
    const char *modes = "direct,routed,nbx";
    x.n = 64, x.R = 1024, x.E = 8, x.seed = 1;
    int opt;
    while ((opt = getopt(argc, argv, "m:n:r:e:s:Vh")) != -1) {
        switch (opt) {
        case 'm': modes = optarg; break;
        case 'n': x.n = atoi(optarg); break;
        case 'r': x.R = atoi(optarg); break;
        case 'e': x.E = (size_t)strtoull(optarg, NULL, 0); break;
        case 's': x.seed = strtoull(optarg, NULL, 0); break;
        case 'V': x.all_pairs = 1; break;
        default:
            if (x.me == 0)
                usage();
            MPI_Finalize();
            return opt == 'h' ? 0 : 2;
        }
    }
    if (x.n > x.P)
        x.n = x.P;
    /* the allreduce wants a power of two; counts go as int */
    if (x.n < 1 || x.P % x.n || (x.P & (x.P - 1)) || x.R < 1 || x.E < 1 ||
        (double)x.R * (double)(x.E + sizeof(struct dq_rec)) * x.n > 2e9) {
        if (x.me == 0) {
            fprintf(stderr, "exchange: P must be a power of two and nodes of n must divide it\n");
            usage();
        }
        MPI_Finalize();
        return 2;
    }
    sim_cfg_t c;
    memset(&c, 0, sizeof c);
    c.npes = x.P, c.n = x.n, c.records = x.R, c.elem = x.E, c.seed = x.seed;
    x.dest = xalloc((size_t)x.R * sizeof *x.dest);
    for (int i = 0; i < x.R; i++)
        x.dest[i] = sim_dest(&c, 0, x.me, i); /* bench/simulate's flush 0 */
    MPI_Comm_split(MPI_COMM_WORLD, dq_plan_node(x.me, x.n), dq_plan_lr(x.me, x.n), &x.node);
    MPI_Comm_split(MPI_COMM_WORLD, dq_plan_lr(x.me, x.n), dq_plan_node(x.me, x.n), &x.col);
    if (x.me == 0)
        printf("csv,mode,npes,node_pes,records,elem,seconds,msgs_mean,msgs_max,bytes_mean\n");
    int status = 0;
    /* in this order, routed3 last, so the other modes run as before it existed */
    const char *names[4] = {"direct", "routed", "nbx", "routed3"};
    for (int m = 0; m < 4; m++) {
        if (!has_mode(modes, names[m]))
            continue;
        if (m == 3)
            cross_setup(&x);
        x.msgs = x.bytes = x.got_bytes = x.bad = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (m == 0)
            flush_direct(&x);
        else if (m == 1)
            flush_routed(&x);
        else if (m == 2)
            flush_nbx(&x);
        else
            flush_routed3(&x);
        double t1 = MPI_Wtime();
        double mn[2] = {-t0, t1};
        rd_all(mn, 2, 1, x.P, x.me);
        double t = mn[1] + mn[0]; /* last PE done - first PE started */
        /* sums of msgs, bytes, received bytes, failed checks (exact in a double here) */
        double v[4] = {(double)x.msgs, (double)x.bytes, (double)x.got_bytes, (double)x.bad};
        double mxd = (double)x.msgs;
        rd_all(v, 4, 0, x.P, x.me);
        rd_all(&mxd, 1, 1, x.P, x.me);
        uint64_t sums[4] = {(uint64_t)v[0], (uint64_t)v[1], (uint64_t)v[2], (uint64_t)v[3]};
        uint64_t mx = (uint64_t)mxd;
        int wrong = sums[3] != 0 || sums[1] != sums[2] ||
                    sums[1] != (uint64_t)x.P * (uint64_t)x.R * x.E;
        if (x.me == 0) {
            printf("csv,%s%s,%d,%d,%d,%zu,%.9g,%.6g,%llu,%.6g\n", names[m],
                   m == 0 && x.all_pairs ? "_allpairs" : "", x.P, x.n, x.R, x.E, t,
                   (double)sums[0] / x.P, (unsigned long long)mx, (double)sums[1] / x.P);
            if (wrong)
                printf("WRONG: %s: %llu records failed the check, %llu B sent, %llu B received\n",
                       names[m], (unsigned long long)sums[3], (unsigned long long)sums[1],
                       (unsigned long long)sums[2]);
            fflush(stdout);
        }
        status |= wrong;
    }
    if (x.me == 0 && !status)
        printf("exchange: all records delivered (to, from, payload and totals checked)\n");
    MPI_Comm_free(&x.node);
    MPI_Comm_free(&x.col);
    if (x.cross != MPI_COMM_NULL)
        MPI_Comm_free(&x.cross);
    free(x.dest);
    MPI_Finalize();
    return status;
}
