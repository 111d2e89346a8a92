/*
 * dq_plan.h: the data queue's flush planning, free of MPI, so the dry-run simulator
 * (bench/sim.c) runs the queues' own rules for 100,000 virtual PEs in one process.
 * dq_route.c and dq_flush.c call these; nothing here allocates or communicates.
 *
 * Routed mode (dq_route.h): a team PE sits at grid position g = node * n + lr (n PEs
 * per node). A record for destination d goes to the porter of the sender's node whose
 * local rank is d's (hop 1), then along that column to d's node (hop 2); on the wire
 * each destination's data of one flush is one record (header + payload).
 * Direct mode (dq_flush.c): each pair moves min(outgoing bytes, the receiver's free room).
 */
#ifndef SHMEMI_DQ_PLAN_H
#define SHMEMI_DQ_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* Run header in a porter buffer: `bytes` pushed for destination `dst`, then the bytes.
 * Consecutive pushes to one destination extend one run. dq_route.c names the
 * destination by its entry in the destination table, bench/sim.c by its team PE: either
 * is one number per destination within a flush, so the runs come out the same. */
struct dq_run {
    uint32_t dst, bytes;
};

/* Record header on the wire (hop 1 and hop 2): `bytes` from team PE `from` for team PE
 * `to`, then the bytes (data); for an acknowledgement, `bytes` rejected and no payload. */
struct dq_rec {
    uint32_t to, from;
    uint64_t bytes;
};

/* ---- the grid ---- */
static inline int dq_plan_node(int g, int n) { return g / n; }
static inline int dq_plan_lr(int g, int n) { return g % n; }
/* The porter (its local rank on the sender's node) that serves grid position g. */
static inline int dq_plan_porter(int g, int n) { return g % n; }
/* Group of a record for destination g in a hop: its node (hop 2: the column peer of
 * that node) or its local rank (hop 1: the porter). */
static inline int dq_plan_group(int g, int n, int by_node) { return by_node ? g / n : g % n; }
/* Grid position of peer i of a hop, for the PE at (node, lr): along its column (hop 2)
 * or within its node (hop 1). */
static inline int dq_plan_hop_peer(int column, int i, int n, int node, int lr)
{
    return column ? i * n + lr : node * n + i;
}
/* ---- three hops (SHMEMQ_DATAQ_ROUTE=3hop), as bale's three-hop conveyors: nodes are
 * grouped by node index mod n. A record for grid position g (node b, local rank m),
 * sent from node a, goes to the porter of a whose local rank is b mod n (hop 1, on the
 * node), from there to the PE of node b whose local rank is a mod n (hop 2, "cross"),
 * then to m (hop 3, on b's node). PE (a, l) meets across nodes only the nodes b with
 * b mod n == l, each through one PE: about P/n^2 peers instead of a column's P/n.
 * Hop h's group of g (the peer index its record goes to): hop 0 the porter, hop 1 the
 * cross peer, numbered by b / n (peers of (a, l) are nodes l, l + n, l + 2n, ...), hop
 * 2 the local rank. ---- */
static inline int dq_plan_group3(int g, int n, int h)
{
    int b = g / n;
    return h == 0 ? b % n : h == 1 ? b / n : g % n;
}
/* Nodes b < nodes with b mod n == r: the cross peers of a PE of local rank r. */
static inline int dq_plan_cross_np(int nodes, int n, int r)
{
    return r < nodes ? (nodes - 1 - r) / n + 1 : 0;
}
/* Grid position of cross peer i of the PE at (node a, local rank l). */
static inline int dq_plan_cross_peer(int i, int n, int a, int l)
{
    return (i * n + l) * n + a % n;
}
/* How a hop among np PEs moves its blocks (dq_route_hop.c): point to point, a message
 * to every peer, empty ones included, so no count exchange, up to DQ_PLAN_HOP_P2P_MAX
 * peers; above that, collective (an alltoall of the counts, then the data), as the empty
 * messages of a sparse hop cost more than the count exchange's log2 np rounds. Where
 * they cross, SimGrid SMPI (bench/smpi, nodes of 16, column hops of 16, 32 and 64 PEs,
 * 16 and 128 records per PE): at 16 point to point won both (0.27 against 0.30 ms, 0.28
 * against 0.35), at 32 it lost the sparse case by 9% and won the other by 11%, at 64 it
 * lost the sparse case by 45% and won the other by 11%. */
#define DQ_PLAN_HOP_P2P_MAX 32
static inline int dq_plan_hop_p2p(int np) { return np <= DQ_PLAN_HOP_P2P_MAX; }
/* Length of the per-hop count arrays: max(n, nodes). */
static inline int dq_plan_k(int npes, int n)
{
    int nn = npes / n;
    return n > nn ? n : nn;
}

/* The same for three hops: max(n, the largest cross communicator), which holds two
 * residue classes of nodes (dq_route.c). */
static inline int dq_plan_k3(int npes, int n)
{
    int nn = npes / n, x = 2 * ((nn + n - 1) / n);
    return n > x ? n : x;
}

/* ---- what one flush sends ---- */
/* Bytes on the wire of one destination's record carrying `len` payload bytes (none
 * when it has no data). */
static inline uint64_t dq_plan_rec_bytes(uint64_t len)
{
    return len ? sizeof(struct dq_rec) + len : 0;
}
/* Whether a push of `bytes` for dst extends the porter buffer's last run (last_dst,
 * last_bytes), or starts new ones. */
static inline int dq_plan_run_extends(uint32_t last_dst, uint32_t last_bytes, int dst,
                                      size_t bytes)
{
    return last_dst == (uint32_t)dst && bytes <= UINT32_MAX - last_bytes;
}
/* Porter-buffer bytes of a push that starts new runs (a run holds less than 4 GiB). */
static inline size_t dq_plan_run_bytes(size_t bytes)
{
    return bytes + (bytes / UINT32_MAX + 1) * sizeof(struct dq_run);
}
/* Capacity of a growable buffer of `cap` bytes asked to hold `want` (the first
 * allocation exactly, then doubling). */
static inline size_t dq_plan_grow(size_t cap, size_t want)
{
    if (want <= cap)
        return cap;
    if (cap == 0)
        return want;
    while (cap < want)
        cap = cap > SIZE_MAX / 2 ? want : 2 * cap;
    return cap;
}
/* Direct mode: bytes a pair moves, from the sender's outgoing bytes and the receiver's
 * free room. */
static inline uint64_t dq_plan_direct_moves(uint64_t out, uint64_t peer_free)
{
    return out < peer_free ? out : peer_free;
}

#endif /* SHMEMI_DQ_PLAN_H */
