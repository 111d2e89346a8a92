/*
 * dq_route.h: the data queue's routed mode (SHMEMQ_DATAQ_ROUTE=2hop or 3hop;
 * docs/data_queues.md, "Routed mode"), as bale's two- and three-hop conveyors route.
 *
 * The team's PEs form a grid of nodes x n (n PEs per node, every node the same size;
 * a team whose nodes differ stays direct). A record for destination d first goes to the
 * "porter": the PE of the sender's node whose node-local rank is d's (hop 1, on the
 * node's communicator), then along that local rank's "column" to d's node (hop 2). So
 * a PE exchanges with n + P/n - 1 peers, and keeps n outgoing buffers (one per porter)
 * instead of P outgoing and P incoming rooms. Three hops (dq_plan.h, "three hops"): the
 * porter serves d's node mod n, the cross hop reaches d's node, a third hop on that node
 * reaches d: n + P/n^2 peers off the node.
 *
 * What the program sees is direct mode's: `room` (max_bytes) stays the logical capacity
 * per destination and per source. Push checks the logical count of d (FULL exactly when
 * direct mode would say FULL) and appends a run to its porter's buffer, which grows
 * when it fills, so a push that is logically allowed always lands. The receiver's FIFO
 * per source is the record in the hop-2 staging where it arrived (cap 0: borrowed),
 * or, for data still unpopped at the next flush, memory of its own (freed once popped
 * empty); it takes at most `room - unpopped` bytes from each source per flush; what it
 * could not take is acknowledged back (as records to the senders along the same
 * hops, only in a flush where some PE overflowed) and stays outgoing at the sender, in order.
 *
 * Nothing here is P long (docs/data_queues.md, "Routed mode", "Nothing P long"): the
 * logical count per destination lives in a table of the destinations pushed to since the last
 * flush (an open-addressing hash onto a dense entry list, the porter runs naming their
 * entry), the incoming FIFOs in a list of the sources that have data, ascending by
 * source (binary search for a pop from one source; a cursor for ANY_PE, lowest source
 * first), and the grid is the identity when the team is node-major (every team that
 * SHMEMQ_NODE_PES or a node-contiguous launcher makes), else one int per PE.
 * The hot arrays of struct shmemq_dataq_hot stay NULL: an EXCLUSIVE routed queue
 * carries its own magic, for which the inline push (shmemq/dataq.h) takes the routed
 * path on struct shmemq_dataq_rhot (the first member below, which h.rt points to) and
 * the inline pop calls the library; data_queue.c asks the functions below.
 */
#ifndef SHMEMI_DQ_ROUTE_H
#define SHMEMI_DQ_ROUTE_H

#include "data_queue.h"
#include "dq_plan.h" /* struct dq_run, struct dq_rec: the MPI-free planning */

/* A growable byte buffer (struct shmemq_dataq_rbuf) and a destination pushed to since
 * the last flush (struct shmemq_dataq_rent: its porter, the push's division done once;
 * its logical outgoing bytes; where its payload goes in the hop-1 staging during a
 * flush) are the public header's: its inline push appends to porter buffers. */
#define DQ_RT_NONE SIZE_MAX

/* A source with data to pop (or popped empty since the last flush): its FIFO is
 * at + head, len bytes; cap bytes owned (0: borrowed from the hop-2 staging). */
struct dq_src {
    int s;
    size_t head, len, cap;
    char *at;
};

/* An arrival of a flush: source s's record at offset off of the hop-2 staging. */
struct dq_arr {
    int s;
    size_t off;
};

struct shmemi_dq_route {
    /* MUST stay first: the push state the inline push reads (shmemq/dataq.h; q->h.rt
     * points here): the destination table (slot, mask; none: mask 0, slot NULL; an
     * open-addressing hash onto the dense entry list ent), the last push's destination
     * and entry (UINT32_MAX: none), per porter l (node-local rank) its buffer of runs
     * (dq_run: dst is the entry index) and its last run's offset (or DQ_RT_NONE), and the
     * sum of the entries' len */
    struct shmemq_dataq_rhot h;
    int nh;              /* hops: 2, or 3 (SHMEMQ_DATAQ_ROUTE=3hop: dq_plan.h, "three hops") */
    int n, nnodes;       /* PEs per node, nodes: P = n * nnodes */
    int lr, node;        /* this PE's node-local rank and node index */
    int k;               /* length of the per-hop count arrays: dq_plan_k, _k3 */
    int *grid;           /* grid[d] = node(d) * n + lr(d); NULL: the identity */
    MPI_Comm nodec;      /* the team PEs of this node, rank = local rank */
    MPI_Comm colc;       /* 2 hops: the team PEs with this local rank, rank = node index */
    MPI_Comm crossc;     /* 3 hops: the PEs at (a, l) with {a mod n, l} this PE's pair:
                            two residue classes of nodes, each ordered by node, this
                            PE's cross peers the other class (or its own when a mod n
                            == l): ranks xbase .. xbase + xnp - 1, itself xself or -1 */
    int xbase, xnp, xself;
    size_t proom;        /* a porter buffer's size at create */
    int int_counts;      /* every hop's counts fit int: MPI_Ialltoallv, else _c */
    int p2p[3];          /* node, column, cross hops point to point (dq_route_hop.c):
                            int_counts and dq_plan_hop_p2p, unless a test forced the
                            collective exchange */
    /* staging, two buffers for the four steps: st[0] is hop 1's send and (once hop 1
     * has ended) hop 2's, st[1] hop 1's receive and (once bucketed into st[0]) hop 2's,
     * where the FIFOs borrow their records until the next flush */
    struct shmemq_dataq_rbuf st[2];
    /* outgoing: the destinations pushed to since the last flush */
    uint32_t nent, entcap;
    /* incoming: the sources with a FIFO, ascending; src2 and arr: a flush's scratch */
    struct dq_src *src, *src2;
    uint32_t nsrc, srccap, src2cap;
    uint32_t any;        /* every source before src[any] is empty */
    size_t in_total;     /* sum of the FIFOs' len */
    struct dq_arr *arr;
    uint32_t arrcap;
    uint64_t *cnt;       /* 3k: bytes per peer of one hop, sent and received, offsets */
    void *vbuf;          /* counts and displacements of one MPI_Ialltoallv(_c); before
                            them, the flagged counts of its count exchange */
    uint64_t agree_skipped; /* flushes that skipped the overflow reduction (tests) */
    uint64_t hops[2];       /* hops moved point to point, collectively (tests) */
};

/* grid position of team PE p */
static inline int dq_rt_grid(const struct shmemi_dq_route *rt, int p)
{
    return rt->grid ? rt->grid[p] : p;
}

/* The destination table's entry of d, or UINT32_MAX (dq_route.c keeps the table). */
static inline uint32_t dq_rt_find(const struct shmemi_dq_route *rt, uint32_t d)
{
    return shmemq_dataq_rfind(&rt->h, d);
}

/* The porter buffers' run header is the inline push's {entry, bytes} */
_Static_assert(sizeof(struct dq_run) == 2 * sizeof(uint32_t), "a run header is two uint32");

/* The push below when the destination is new since the flush (i: UINT32_MAX) or its
 * porter buffer must grow; the logical room was checked. 0 or NOMEM. dq_route.c. */
int shmemi_queue_data_route_push_slow(struct shmemi_dataq *q, const void *src, size_t bytes,
                                      int pe, uint32_t i);

/* Push for a routed queue (the caller checked the arguments and holds the lock): FULL
 * when the logical room of pe cannot take `bytes` (as direct mode), else append to the
 * porter buffer of pe's local rank. 0, FULL or NOMEM. The common case (a destination
 * already in the table whose porter buffer has room) is the inline push's, which an
 * EXCLUSIVE queue's pushes take in the program itself (shmemq/dataq.h); the library's
 * push (SHARED queues, or what the inline push leaves) comes here. */
static inline int shmemi_queue_data_route_push(struct shmemi_dataq *q, const void *src,
                                               size_t bytes, int pe)
{
    if (shmemq_dataq_rpush(&q->h, src, bytes, (uint32_t)pe) == 0)
        return 0;
    uint32_t i = dq_rt_find(q->rt, (uint32_t)pe);
    size_t len = i != UINT32_MAX ? q->rt->h.ent[i].len : 0;
    if (SHMEMI_UNLIKELY(bytes > q->h.room - len)) /* the logical room, as direct mode */
        return SHMEM_QUEUE_ERR_FULL;
    return shmemi_queue_data_route_push_slow(q, src, bytes, pe, i);
}
/* Pop `bytes` from source pe (or SHMEM_QUEUE_ANY_PE: lowest source first, spanning
 * sources), caller holds the lock: 0, or EMPTY with nothing taken. dq_route_in.c. */
int shmemi_queue_data_route_pop(struct shmemi_dataq *q, void *dest, size_t bytes, int pe);
/* Bytes waiting to be popped from pe and pushed to pe and not flushed (pe may be
 * SHMEM_QUEUE_ANY_PE: the sums). Caller holds the lock. */
void shmemi_queue_data_route_sizes(const struct shmemi_dataq *q, int pe, size_t *in,
                                   size_t *out);

/* Collective over q->comm (every PE of the team after the config agreement; maxroom:
 * the largest room of any PE): group the team by node; *uneven = 1 if the nodes differ in
 * size, 2 if a flush could need MPI_Ialltoallv_c and the MPI is older than 4, 3 if
 * auto_mode and shmemi_queue_data_route_auto says no (the caller then stays direct,
 * alike on every PE),
 * else set up q->rt (communicators and memory). Returns 0 or NOMEM/MPI (this PE only:
 * the caller agrees on the outcome). */
int shmemi_queue_data_route_setup(struct shmemi_dataq *q, shmem_team_t team, size_t maxroom,
                                  int hops, int auto_mode, int *uneven);

/* Tests only (test_dataq_route.cc): m > 0 makes create group the team as if team PE p
 * sat on node p % m, a team that is not node-major (a launcher placing ranks round
 * robin), which SHMEMQ_NODE_PES cannot make. Read at create. */
extern int shmemi_queue_data_route_test_nodes;
/* Tests only: bit h (0: the node's hops, 1: the column's or the cross hop) makes create
 * choose the collective exchange (MPI_Ialltoall of the counts, then MPI_Ialltoallv) for
 * those hops where they would go point to point. Read at create. */
extern int shmemi_queue_data_route_test_coll;

/* SHMEMQ_DATAQ_ROUTE=auto: route a team of P PEs in nodes of n (n 0: not known yet,
 * whether some node size could) when bench/simulate's LogGP prediction of a flush says
 * two hops win (docs/data_queues.md, "auto"): from P = 64, with at least 2 PEs per node
 * and 2 nodes. Below, a one-node team or one PE per node: direct. */
#define SHMEMI_DATAQ_ROUTE_AUTO_PES 64
int shmemi_queue_data_route_auto(int npes, int n);
/* ... and in how many hops, once routed (n >= 1): three when the team has more nodes than
 * PEs per node (P > n^2), where bench/simulate predicts three hops beat two for uniform
 * traffic (docs/data_queues.md, "auto"); else two. */
int shmemi_queue_data_route_auto_hops(int npes, int n);
/* Tests only: m > 0 stands for SHMEMI_DATAQ_ROUTE_AUTO_PES, so auto's choices run on the
 * at most 16 PEs of a test job. Read at create. */
extern int shmemi_queue_data_route_test_auto_pes;
void shmemi_queue_data_route_free(struct shmemi_dataq *q);

/* One whole flush, blocking (collective over the team). Sets q->last_rc. 0, or an MPI
 * error. The caller holds nothing; it takes the queue's lock. */
int shmemi_queue_data_route_flush(struct shmemi_dataq *q);

/* The model (queue_usage.c): bytes of the queue object and its arrays at create, for a
 * node-major team of P PEs, n per node (n divides P), routed in `hops` (2 or 3); the
 * peer-tracking array (queue_usage.h) of a routed queue; a porter buffer's size at
 * create. */
uint64_t shmemi_queue_data_route_meta(int npes, int n, int hops);
uint64_t shmemi_queue_data_route_track(int npes, int n, int hops);
size_t shmemi_queue_data_route_proom(int npes, int n, int hops);
/* Usage: meta now (the model's, plus the grid when the team is not node-major), porter
 * buffers now (count and bytes), and the scratch allocated now, which follows the
 * traffic: staging, per-source FIFOs, the destination table and the source lists.
 * Caller holds the lock. */
void shmemi_queue_data_route_usage(const struct shmemi_dataq *q, uint64_t *meta,
                                   uint64_t *buffers, uint64_t *buffer_bytes, uint64_t *scratch);

/* The communicators a hop runs on (its `kind`). */
enum { DQ_HOP_NODE = 0, DQ_HOP_COLUMN = 1, DQ_HOP_CROSS = 2 };

/* ---- dq_route_hop.c: one hop, of a kind above, among its peers (the node, the
 * column, or the cross peers). sc: bytes for each peer, packed peer after peer in
 * sbuf; rb gets the peers' blocks in peer order (len: their total) and rc their sizes
 * (scratch); flag: this PE's bit, and *flags (unless NULL) the OR of the hop's. begin
 * may be called before sbuf is packed (the collective exchange sends its counts
 * meanwhile); end completes the hop. 0, or an MPI error (the flush fails). ---- */
int shmemi_queue_data_route_hop_begin(struct shmemi_dq_route *rt, int kind, const uint64_t *sc,
                                      int flag, uint64_t *rc, MPI_Request *req);
int shmemi_queue_data_route_hop_end(struct shmemi_dq_route *rt, int kind, const char *sbuf,
                                    const uint64_t *sc, int flag, struct shmemq_dataq_rbuf *rb,
                                    uint64_t *rc, MPI_Request *creq, int *flags);
int shmemi_queue_data_route_hop(struct shmemi_dq_route *rt, int kind, const char *sbuf,
                                const uint64_t *sc, int flag, struct shmemq_dataq_rbuf *rb,
                                uint64_t *rc, int *flags);

/* ---- dq_route_in.c: the incoming side (the caller holds the lock) ---- */
/* Flush step 1: drop sources popped empty (freeing their memory), move unpopped data to
 * the front, or out of the staging the flush is about to reuse. */
void shmemi_queue_data_route_in_compact(struct shmemi_dataq *q);
/* Flush step 6: append each record of st[1] to its source's FIFO, at most up to the
 * logical room; an acknowledgement {to: source, from: me, rejected bytes} followed by
 * those bytes (the record's tail) per record that did not fit all goes to acks.
 * Returns 1 if any did not fit. */
int shmemi_queue_data_route_in_deliver(struct shmemi_dataq *q, struct shmemq_dataq_rbuf *acks);
/* Bytes waiting from source pe (SHMEM_QUEUE_ANY_PE: from all). */
size_t shmemi_queue_data_route_in_len(const struct shmemi_dq_route *rt, int pe);
/* Bytes the incoming side holds now (scratch), and freeing it. */
uint64_t shmemi_queue_data_route_in_bytes(const struct shmemi_dq_route *rt);
void shmemi_queue_data_route_in_free(struct shmemi_dq_route *rt);
/* Room for `extra` more bytes in b: 0, or -1 (b unchanged) when memory is short. */
int shmemi_queue_data_route_reserve(struct shmemq_dataq_rbuf *b, size_t extra);
/* The same for staging inside a flush, which must exist for MPI to land the data in:
 * without it the flush cannot go on and the team already waits in it, so the job ends
 * with a message. */
void shmemi_queue_data_route_reserve_or_die(struct shmemq_dataq_rbuf *b, size_t extra);

#endif /* SHMEMI_DQ_ROUTE_H */
